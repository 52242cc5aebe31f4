#!/usr/bin/env bash
# The GPU check, on a machine with a GPU:
#   scripts/gpu-check.sh OUTDIR [build] [test] [sanitize] [bench]   (no stage: all of them)
# build     configure and build everything for this machine's GPU (all cores)
# test      every CTest test, the 2^31-element ones included
# sanitize  compute-sanitizer memcheck, racecheck, synccheck and initcheck over the GPU tests,
#           the conformance kit's concurrency tests included (the huge-size tests are left to the
#           plain pass: the sanitizer slows kernels many times; racecheck, the slowest, runs the
#           element-wise family's add and the rest in full). Tests that make CUDA fail on purpose
#           (allocation failures) are left out: the sanitizers count those API errors.
# bench     every benchmark suite, JSON to OUTDIR/bench_<family>.json, and the peers
#           (bench/peers.py) to OUTDIR/peers.json; then bench/report writes OUTDIR/*.md
# The log of each stage goes to OUTDIR/<stage>.log; the script stops at the first failure.
# PRISM_CTEST_ARGS, if set, is added to the ctest command line (e.g. -j3).
# PRISM_BENCH_FILTER, if set, is passed to every suite as --benchmark_filter (a regex on the
# row names, e.g. '/(1024|268435456)/' for two sizes). A build made elsewhere for sm_90 in
# build-gpu/ can be used as it is: leave out the build stage.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-check.sh OUTDIR [build] [test] [sanitize] [bench]}
shift
stages=${*:-build test sanitize bench}
mkdir -p "$out"
build=build-gpu

stage_build() {
  cmake --preset gpu && cmake --build --preset gpu -j "$(nproc)"
}

stage_test() {
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  ctest --preset gpu --output-on-failure ${PRISM_CTEST_ARGS:-}
}

stage_sanitize() {
  # Every (tool, binary) pair at once: the GPU has room, and the wall time is the slowest pair's.
  local logs=() pids=() failed=0
  local gpu='*Gpu*:*/thrust:*/raw_naive:*/raw:*/cub:*/automatic'
  local on_purpose='*Huge*:*CallersPendingError*:*AllocationFailure*:*NoDevice*'
  for binary in "$build"/test/test_*; do
    for tool in memcheck racecheck synccheck initcheck; do
      local filter="$gpu:-$on_purpose"
      if [ $tool = racecheck ] && [ "${binary##*/}" = test_elementwise ]; then
        filter="Add*:*Conformance*:-$on_purpose"
      fi
      log="$out/.sanitize-$tool-${binary##*/}.log"
      logs+=("$log")
      timeout 480 compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 \
        "$binary" --gtest_filter="$filter" --gtest_brief=1 >"$log" 2>&1 &
      pids+=($!)
    done
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"
    status=$?
    echo "== ${logs[$i]##*/.sanitize-} (exit $status)"
    grep -E "SUMMARY|tests? ran|PASSED|FAILED|Error|error" "${logs[$i]}" | head -20
    [ $status = 0 ] || failed=1
    rm -f "${logs[$i]}"
  done
  return $failed
}

stage_bench() {
  local failed=0
  for binary in "$build"/bench/bench_*; do
    family=${binary##*/bench_}
    "$binary" --benchmark_out="$out/bench_$family.json" --benchmark_out_format=json \
      ${PRISM_BENCH_FILTER:+--benchmark_filter="$PRISM_BENCH_FILTER"} || failed=1
  done
  if [ -f bench/peers.py ]; then python3 bench/peers.py "$out/peers.json" || failed=1; fi
  python3 bench/report "$out"/bench_*.json $(ls "$out"/peers.json 2>/dev/null) --out "$out" || failed=1
  return $failed
}

for stage in $stages; do
  echo "==== $stage ($(date -u +%H:%M:%S))"
  start=$SECONDS
  if ! "stage_$stage" >"$out/$stage.log" 2>&1; then
    tail -n 60 "$out/$stage.log"
    echo "==== $stage FAILED after $((SECONDS - start)) s (full log: $out/$stage.log)"
    exit 1
  fi
  tail -n 15 "$out/$stage.log"
  echo "==== $stage passed in $((SECONDS - start)) s"
done
