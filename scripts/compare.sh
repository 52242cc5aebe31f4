#!/usr/bin/env bash
# Builds and runs one algorithm's comparison: every implementation this machine can run, in
# GB/s and % of the device-to-device copy ceiling measured in the same run.
#   scripts/compare.sh add [float|double|half]      element-wise operations
#   scripts/compare.sh sum [float|double]           reductions, the sum progression included
set -euo pipefail
cd "$(dirname "$0")/.."
algorithm=${1:-add}
type=${2:-float}
source scripts/setup.sh
preset=default
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then preset=gpu; fi
case $algorithm in
  sum | sum_to_host | min | argmax | dot | norm1 | norm2 | variance) family=reduce ;;
  *) family=elementwise ;;
esac
cmake --preset $preset >/dev/null
cmake --build --preset $preset --target bench_$family
build=build; [ $preset = gpu ] && build=build-gpu
results=$(mktemp -d)
$build/bench/bench_$family --benchmark_filter="^($algorithm|copy)/$type/" \
  --benchmark_out="$results/bench_$family.json" --benchmark_out_format=json >/dev/null
bench/report "$results/bench_$family.json" --out -
