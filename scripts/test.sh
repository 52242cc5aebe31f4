#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds what the tests need (the library, the test binaries, the examples) and runs them with
# CTest; without a GPU the GPU tests report themselves skipped and the cpu implementation and the
# core are tested. Then the Python module: `pip install .` over that build (the library is not
# compiled twice) in a fresh virtual environment, and pytest (python/test.sh; PRISM_PYTHON=0 skips
# it). Other arguments go to ctest.
#   scripts/test.sh [--all] [ctest arguments]    --all: then build everything (the benchmarks too)
set -euo pipefail
cd "$(dirname "$0")/.."
all=0
args=()
for arg in "$@"; do
  if [ "$arg" = --all ]; then all=1; else args+=("$arg"); fi
done
source scripts/setup.sh
preset=default
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then preset=gpu; fi
cmake --preset $preset
cmake --build --preset $preset --target prism_tests
ctest --preset $preset ${args[@]+"${args[@]}"}
if [ "${PRISM_PYTHON:-1}" = 1 ]; then
  if [ $preset = gpu ]; then python/test.sh build-gpu; else python/test.sh build; fi
fi
if [ $all = 1 ]; then cmake --build --preset $preset; fi
