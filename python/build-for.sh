#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the module for one Python interpreter over an already-built prism (a build tree, or an
# install prefix) and lays out the package in OUTDIR, ready for PYTHONPATH; no pip, no network:
#   python/build-for.sh PYTHON PRISM OUTDIR
#   PYTHONPATH=OUTDIR PYTHON -c 'import prism_primitives'
# e.g. python/build-for.sh /usr/bin/python3.12 build dist-py312
# PYTHON needs its headers (python3-dev); nanobind's CMake files come from PYTHON's nanobind, or
# from NANOBIND_DIR (what `python -m nanobind --cmake_dir` prints for any Python that has it).
# The module's C++ compiles in under a minute; the library is not compiled again.
set -euo pipefail
python=${1:?usage: python/build-for.sh PYTHON PRISM_BUILD_OR_PREFIX OUTDIR}
prism=$(cd "${2:?usage: python/build-for.sh PYTHON PRISM_BUILD_OR_PREFIX OUTDIR}" && pwd)
out=$(mkdir -p "${3:?usage: python/build-for.sh PYTHON PRISM_BUILD_OR_PREFIX OUTDIR}" && cd "$3" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH

nanobind=${NANOBIND_DIR:-$("$python" -m nanobind --cmake_dir 2>/dev/null || true)}
if [ -z "$nanobind" ]; then
  echo "build-for: $python has no nanobind; pip install nanobind, or set NANOBIND_DIR" >&2
  exit 1
fi
if [ -e "$prism/prismConfig.cmake" ]; then
  where=(-Dprism_DIR="$prism")                  # a build tree
else
  where=(-Dprism_ROOT="$prism")                 # an install prefix
fi
build="$out.cmake"                            # the CMake build tree, beside OUTDIR
cmake -S "$root/python" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPython_EXECUTABLE="$(command -v "$python")" -Dnanobind_DIR="$nanobind" "${where[@]}" \
  ${CMAKE_ARGS:-}
cmake --build "$build"
cmake --install "$build" --component python --prefix "$out" --strip
cp "$root"/python/prism_primitives/*.py "$out/prism_primitives/"
echo "build-for: $out/prism_primitives; use it with PYTHONPATH=$out (it needs numpy)"
PYTHONPATH="$out" "$python" -c 'import prism_primitives as p; print("imports: prism", p.__version__, "gpu:", p.gpu_available())' ||
  echo "build-for: not importable here (numpy missing?)" >&2
