#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and runs one algorithm's comparison: every implementation this machine can run, with the
# latency (us), the GPU time (gpu_us), GB/s and % of the ceiling of the algorithm's access pattern
# measured in the same run.
#   scripts/compare.sh ALGORITHM [TYPE]      TYPE: float unless given
#   scripts/compare.sh add int32             scripts/compare.sh exp bfloat16
#   scripts/compare.sh argmax double         scripts/compare.sh reduce.min
# The names come from the benchmark suites' own registries (bench_<family> --benchmark_list_tests):
# an unknown algorithm or type exits 2 and lists the valid ones. A name two suites share means the
# first suite's, in the order elementwise, reduce, the other suites (scan, ...), call_cost: `min`
# and `max` are the element-wise operations, `reduce.min` and `reduce.max` the reductions,
# `call_cost.add` the per-call cost rows; any algorithm can be named as <suite>.<algorithm>.
# Only the suite that has the algorithm is built (an unknown name builds them all, to list them).
# Without a GPU the header says so and the cpu implementation is timed (OMP_WAIT_POLICY=passive,
# so that idle OpenMP threads do not spin on the cores the timing needs).
# PRISM_BUILD_DIR=DIR builds there (configured on first use) instead of the preset's folder
# (build/, or build-gpu/ on a GPU machine). Leaves no files behind.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  sed -n '3,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
request=$1
type=${2:-float}
source scripts/setup.sh

gpu=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then gpu=1; fi
preset=default
[ $gpu = 1 ] && preset=gpu
build=${PRISM_BUILD_DIR:-build}
[ -z "${PRISM_BUILD_DIR:-}" ] && [ $preset = gpu ] && build=build-gpu
# Every bench/<family>.cu is a suite: elementwise and reduce first, call_cost last.
families=(elementwise reduce)
for source in bench/*.cu; do
  f=$(basename "$source" .cu)
  [[ " ${families[*]} call_cost " == *" $f "* ]] || families+=("$f")
done
[ -f bench/call_cost.cu ] && families+=(call_cost)

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

build_suite() {
  echo "compare: building bench_$1 in $build/ (the first build compiles the library: minutes)" >&2
  if [ -n "${PRISM_BUILD_DIR:-}" ]; then
    if [ ! -f "$build/CMakeCache.txt" ]; then
      arch=90
      [ $gpu = 1 ] && arch=native
      cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$arch >&2
    fi
    cmake --build "$build" --target "bench_$1" >&2
  else
    cmake --preset $preset >/dev/null
    cmake --build --preset $preset --target "bench_$1" >&2
  fi
}

# "algorithm type" pairs of a suite, every type and GPU row included (PRISM_BENCH_LIST_ALL lists
# the GPU rows on a machine without one, so that the names do not depend on the machine).
list_suite() {
  PRISM_BENCH_TYPES=all PRISM_BENCH_LIST_ALL=1 "$build/bench/bench_$1" --benchmark_list_tests |
    awk -F/ 'NF >= 4 { print $1, $2 }' | sort -u >"$scratch/$1.list"
}

# Where to look first: the suite whose source names the algorithm, then the others in order.
if [[ $request == *.* ]]; then
  order=("${request%%.*}")
  algorithm=${request#*.}
  if [[ ! " ${families[*]} " == *" ${order[0]} "* ]]; then
    echo "compare: no suite '${order[0]}'; the suites are: ${families[*]}" >&2
    exit 2
  fi
else
  algorithm=$request
  order=()
  for f in "${families[@]}"; do grep -q "\"$algorithm\"" "bench/$f.cu" 2>/dev/null && order+=("$f"); done
  for f in "${families[@]}"; do [[ " ${order[*]} " == *" $f "* ]] || order+=("$f"); done
fi

family=
for f in "${order[@]}"; do
  build_suite "$f"
  list_suite "$f"
  if awk -v a="$algorithm" '$1 == a { found = 1 } END { exit !found }' "$scratch/$f.list"; then
    family=$f
    break
  fi
done

if [ -z "$family" ]; then
  echo "compare: unknown algorithm '$request'. Valid ones (suite: algorithms):" >&2
  for f in "${families[@]}"; do
    [ -f "$scratch/$f.list" ] || { build_suite "$f"; list_suite "$f"; }
    echo "  $f: $(awk '{ print $1 }' "$scratch/$f.list" | sort -u | tr '\n' ' ')" >&2
  done
  echo "A name in several suites means the first one's; write reduce.min, call_cost.add, ... for another." >&2
  exit 2
fi
if ! awk -v a="$algorithm" -v t="$type" '$1 == a && $2 == t { found = 1 } END { exit !found }' "$scratch/$family.list"; then
  echo "compare: $algorithm has no type '$type'. Valid types: $(awk -v a="$algorithm" '$1 == a { print $2 }' "$scratch/$family.list" | tr '\n' ' ')" >&2
  exit 2
fi

echo "== prism compare: $algorithm, $type (suite bench_$family, built in $build/)"
filter="^$algorithm/$type/"
if [ $gpu = 1 ]; then
  echo "== GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
else
  echo "== GPU: none on this machine: timing the cpu implementation only (OMP_WAIT_POLICY=passive)"
  filter="^$algorithm/$type/cpu/"
  export OMP_WAIT_POLICY=passive
fi
if [ $gpu = 0 ] && ! grep -q "^$algorithm $type$" <(PRISM_BENCH_TYPES=all "$build/bench/bench_$family" \
    --benchmark_list_tests --benchmark_filter="$filter" | awk -F/ '{ print $1, $2 }'); then
  echo "== $algorithm has no cpu implementation: nothing to time without a GPU"
  exit 0
fi
PRISM_BENCH_TYPES=all "$build/bench/bench_$family" --benchmark_filter="$filter" \
  --benchmark_out="$scratch/bench_$family.json" --benchmark_out_format=json >"$scratch/console.log" 2>&1 ||
  { cat "$scratch/console.log" >&2; echo "compare: the suite failed (above)" >&2; exit 1; }
bench/report "$scratch/bench_$family.json" --out - --long
