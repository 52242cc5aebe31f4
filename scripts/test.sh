#!/usr/bin/env bash
# Builds everything (library, tests, benchmarks, examples) and runs the tests. Without a GPU the
# GPU tests report themselves skipped and the cpu implementation and the core are tested.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
preset=default
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then preset=gpu; fi
cmake --preset $preset
cmake --build --preset $preset
ctest --preset $preset "$@"
