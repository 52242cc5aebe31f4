#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes sure this machine can build prism: the CUDA toolkit (nvcc), CMake >= 3.25, Ninja, g++
# with OpenMP, GoogleTest and Google Benchmark, and pip for the pinned CCCL. Installs what is
# missing with apt-get when run as root on Debian/Ubuntu; otherwise prints the exact line that
# installs it and stops.
set -euo pipefail

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v g++ >/dev/null || need+=(g++)
[ -e /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
[ -e /usr/include/benchmark/benchmark.h ] || need+=(libbenchmark-dev)
# CCCL (pinned in cmake/cccl.cmake) comes from PyPI: CMake fetches its wheel with pip into .deps/
# unless the file is there already (a machine without a network gets it carried there).
if ! ls "$(dirname "${BASH_SOURCE[0]}")"/../.deps/nvidia_cuda_cccl-*.whl >/dev/null 2>&1 &&
   ! python3 -m pip --version >/dev/null 2>&1; then
  need+=(python3-pip)
fi

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "setup: missing ${need[*]}; install with:" >&2
    echo "  sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
fi

if ! command -v nvcc >/dev/null; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
  else
    echo "setup: nvcc not found: prism needs the CUDA toolkit (12.8 or newer; 13.0 tested)," >&2
    echo "  https://developer.nvidia.com/cuda-downloads, then put its bin/ on PATH" >&2
    exit 1
  fi
fi
