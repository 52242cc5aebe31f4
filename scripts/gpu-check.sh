#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU check, on a machine with a GPU:
#   scripts/gpu-check.sh OUTDIR [build] [test] [python] [course] [sanitize] [bench]   (no stage: all)
# build     configure and build everything for this machine's GPU (all cores). A GPU machine
#           without a network needs the pinned CCCL's wheel in .deps/ (README, Requirements):
#           configure once where there is a network, and bring .deps/ along with the tree
# test      every test of every test binary: the GPU ones of all
#           binaries at once (each stopped after PRISM_TEST_TIMEOUT seconds, 300, naming the test
#           it hung in, with its threads' stacks), then the huge ones (past 2^32 elements, up to
#           about 120 GB of the GPU's memory: alone on it) one binary at a time (3 x
#           PRISM_TEST_TIMEOUT each; PRISM_TEST_HUGE=0 leaves them out), then the cpu ones one
#           binary at a time (some of them need a GPU to make the device memory they refuse, and
#           skip on CI);
#           every example (build/examples/NN_*), which checks itself on the GPU; and, with MPI,
#           test_distributed_mpi under mpirun (-np 1, and -np <GPUs> on several)
# python    the Python module built over the build (python/build-for.sh with this machine's python3,
#           into BUILD/python-gpu, no pip: the GPU machines have no network), then pytest on the
#           GPU (torch, CuPy, JAX and Numba arrays where they are installed) and examples/07_python
# course    every program of the course (docs/course/code), the GPU ones included, built against
#           the build and compared with the output its page shows (test/course/blocks.py; Python
#           programs with the python3 that imports prism_primitives (the python stage's module
#           first), skipped where none does)
# sanitize  compute-sanitizer memcheck, racecheck, synccheck and initcheck over the GPU tests,
#           the conformance kit's concurrency tests included (the huge-size tests are left to the
#           plain pass: the sanitizer slows kernels many times; racecheck, the slowest, runs the
#           element-wise family's add and the rest in full, prism's own kernels: not the cub,
#           thrust and automatic tests), with PRISM_TEST_SMALL=1: the tests' large sizes shrink to
#           2^16 and a little more (test/testing.hpp, `large`). Tests that make CUDA fail on
#           purpose (allocation failures) are left out: the sanitizers count those API errors. A
#           failing run's log is kept as OUTDIR/sanitize-<tool>-<binary>-<shard>.log.
# bench     every benchmark suite, JSON to OUTDIR/bench_<family>.json (console to
#           OUTDIR/bench_<family>.log), the peers (bench/peers.py) to OUTDIR/peers.json (log in
#           OUTDIR/peers.log), then bench/report writes OUTDIR/*.md and the pictures OUTDIR/*.png;
#           bench_scale alone and under mpirun -np 2 (two GPUs), then bench/scale_report: OUTDIR/scale.md.
#           Meant to take under 6 minutes on an H200 (estimated: element-wise 1.5-3, reduce about
#           1, the rest under 1); bench.log has each suite's time. Fails if a row's check found a
#           wrong result.
# The log of each stage goes to OUTDIR/<stage>.log; the script stops at the first failure.
# PRISM_BUILD_DIR, if set, is the build to use instead of build-gpu (binaries made elsewhere for
# sm_90 and copied in: leave out the build stage).
# PRISM_BENCH_FILTER, if set, is passed to every suite as --benchmark_filter and to the peers as
# --filter (a regex on the row names algorithm/type/implementation/n[/cold|/warm], e.g.
# '/(1024|268435456)/' for two sizes); PRISM_BENCH_FILTER=quick stands for a subset that runs in
# well under a minute: add, exp, fill and the sum, argmax and dot reductions, float, at 2^10 and
# 2^28 (and every call_cost row). PRISM_BENCH_TYPES (see bench/harness.hpp) adds types, e.g. all.
# PRISM_SANITIZE_ONLY, if set, names the test binaries the sanitize stage runs ("test_scan
# test_core"); PRISM_SANITIZE_TIMEOUT is each (tool, binary) pair's limit in seconds (540);
# PRISM_SANITIZE_SHARDS splits each pair's tests over that many processes (GoogleTest's
# sharding; 1); PRISM_SANITIZE_JOBS is how many processes run at once (the cores);
# PRISM_SANITIZE_TOOLS names the tools
# (all four: "memcheck racecheck synccheck initcheck").
# PRISM_BENCH_SUITES, if set, names the suites to run ("elementwise reduce"; "peers" is the peers
# script, "report" the tables, "scale" the scaling runs), so that a long stage can be split over
# several runs.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-check.sh OUTDIR [build] [test] [python] [course] [sanitize] [bench]}
shift
stages=${*:-build test python course sanitize bench}
mkdir -p "$out"
build=${PRISM_BUILD_DIR:-build-gpu}
# The python stage's module, ahead of anything else on the path (course and bench use it too),
# once it is built.
module="$build/python-gpu"
[[ $module = /* ]] || module="$PWD/$module"
use_module() {
  [ -d "$module/prism_primitives" ] && [[ ":${PYTHONPATH:-}:" != *":$module:"* ]] &&
    export PYTHONPATH="$module${PYTHONPATH:+:$PYTHONPATH}"
  return 0
}
use_module

stage_build() {
  cmake --preset gpu && cmake --build --preset gpu -j "$(nproc)"
}

stage_python() {
  python/build-for.sh python3 "$build" "$module" || return 1
  use_module
  python3 -m pytest -q -rfE -p no:cacheprovider python/tests &&
    python3 examples/07_python/main.py
}

stage_course() {
  python3 test/course/blocks.py --build "$build" --gpu yes
}

# The tests that need a GPU, by name (test/CMakeLists.txt splits CTest's entries the same way).
gpu_tests='*Gpu*:*/thrust:*/raw_naive:*/raw:*/cub:*/automatic'

# Runs a command for at most LIMIT seconds, its output to LOG. One still running then has the stack
# of every thread appended to LOG (cuda-gdb attaches to any process; there is no gdb on the GPU
# machines) before it is stopped, and fails with 124: a hang leaves what is needed to find it.
run_limited() {
  local limit=$1 log=$2 waited=0
  shift 2
  "$@" >"$log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "$limit" ]; do
    sleep 1
    waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "== still running after $limit s: every thread's stack, then stopped" >>"$log"
    command -v cuda-gdb >/dev/null &&
      timeout 120 cuda-gdb -p "$pid" -batch -ex "info threads" -ex "thread apply all bt" >>"$log" 2>&1
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 124
  fi
  wait "$pid"
}

# The last test a GoogleTest log started: the one a binary stopped in.
last_test() { grep '^\[ RUN' "$1" | tail -1; }

stage_test() {
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  local pids=() failed=0
  # A binary that hangs is stopped (and fails) after PRISM_TEST_TIMEOUT seconds (300), says which
  # test it was in (every test's start is in its log) and leaves its threads' stacks there.
  local limit=${PRISM_TEST_TIMEOUT:-300}
  for binary in "$build"/test/test_*; do
    run_limited "$limit" "$out/test-${binary##*/}.log" "$binary" --gtest_filter="$gpu_tests:-*Huge*" &
    pids+=($!)
  done
  # The examples check their own results, on the GPU where there is one.
  (ran=0
   for example in "$build"/examples/[0-9][0-9]_*; do
     [ -x "$example" ] || continue
     echo "== ${example##*/}"
     "$example" || { echo "FAILED  ] ${example##*/}"; exit 1; }
     ran=$((ran + 1))
   done
   if [ $ran = 0 ]; then echo "SKIPPED ] no example in $build/examples"; else echo "PASSED  ] every example ($ran)"; fi
  ) >"$out/test-examples.log" 2>&1 &
  pids+=($!)
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  # The tests past 2^32 elements, one binary after another with the GPU to themselves (the
  # segmented sort's in-place cub row needs about 120 GB), three times the limit each.
  # PRISM_TEST_HUGE=0 leaves them out (to be run on their own, e.g. on another GPU).
  if [ "${PRISM_TEST_HUGE:-1}" != 0 ]; then
    (for binary in "$build"/test/test_*; do
       "$binary" --gtest_list_tests --gtest_filter="*Huge*" | grep -q '^  ' || continue
       echo "== ${binary##*/}"
       timeout $((3 * limit)) "$binary" --gtest_filter="*Huge*" || exit 1
     done) >"$out/test-huge.log" 2>&1 || failed=1
  fi
  # The cpu tests, one binary at a time after the rest: with a GPU here, those that make device
  # memory to refuse it run too (on CI they skip). Beside the GPU tests, every binary's OpenMP
  # threads on every core would slow each other many times over.
  for binary in "$build"/test/test_*; do
    run_limited "$limit" "$out/test-cpu-${binary##*/}.log" "$binary" --gtest_filter="-$gpu_tests:*Huge*" || failed=1
  done
  # One process per GPU: the MPI test binary under mpirun, with 1 process and with every GPU.
  if [ -x "$build/test/test_distributed_mpi" ] && command -v mpirun >/dev/null; then
    local gpus; gpus=$(nvidia-smi -L | wc -l)
    for np in 1 $([ "$gpus" -ge 2 ] && echo "$gpus"); do
      mpirun --allow-run-as-root --oversubscribe -np "$np" "$build/test/test_distributed_mpi" \
        --gtest_filter="$gpu_tests" --gtest_brief=1 >"$out/test-distributed-mpi-np$np.log" 2>&1 || failed=1
    done
  fi
  for log in "$out"/test-*.log; do
    echo "== ${log##*/}: $(grep -E 'PASSED  \]|FAILED  \]|^SKIPPED \]' "$log" | tr '\n' ' ')"
    grep -q 'PASSED  \]\|FAILED  \]\|^SKIPPED \]' "$log" || echo "   no result: stopped in $(last_test "$log")"
  done
  return $failed
}

stage_sanitize() {
  # Every (tool, binary) pair at once: the GPU has room, and the wall time is the slowest pair's.
  # Left out: the huge tests; tests that make CUDA fail on purpose (the tools count those API
  # errors); for racecheck, a tool for shared-memory hazards inside kernels, the host-thread and
  # stream-churn tests (the same kernels, thousands of times) and, for the element-wise family,
  # every operation but add (one kernel template serves them all).
  local logs=() failed=0
  local on_purpose='*Huge*:*CallersPendingError*:*AllocationFailure*:*NoDevice*'
  local repeats='*HostThreads*:*StreamsDestroyed*:*Deterministic*:*SteadyState*'
  # racecheck checks prism's own kernels (raw, raw_naive, the lessons): CUB's and Thrust's (the
  # cub and thrust tests, and automatic, which runs one of the others; hundreds of upstream
  # launches per test, slower under racecheck than the time a stage has) are checked by the other
  # three tools.
  local upstream='*/cub:*/thrust:*/automatic'
  local only=${PRISM_SANITIZE_ONLY:-} limit=${PRISM_SANITIZE_TIMEOUT:-540} shards=${PRISM_SANITIZE_SHARDS:-1}
  # At most this many processes at once: every pair at once (over a hundred) ran the GPU out of
  # memory, and each pair's time limit counts from its own start.
  local at_once=${PRISM_SANITIZE_JOBS:-$(nproc)}
  for binary in "$build"/test/test_*; do
    [ -z "$only" ] || [[ " $only " == *" ${binary##*/} "* ]] || continue
    for tool in ${PRISM_SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
      local filter="$gpu_tests:-$on_purpose"
      # racecheck is for shared-memory hazards inside kernels: the sharded scans run the scan
      # family's kernel (raced there), and NCCL's own kernels are not prism's to check.
      [ $tool = racecheck ] && [[ ${binary##*/} = test_distributed* ]] && continue
      if [ $tool = racecheck ]; then
        filter="$gpu_tests:-$on_purpose:$repeats:$upstream"
        [ "${binary##*/}" = test_elementwise ] && filter="Add*:*Conformance*:-$on_purpose:$repeats:$upstream"
      fi
      # NCCL's initialization asks cudaFuncGetAttributes of kernels it has no image for on this
      # GPU and ignores the error: under the tool those calls count as errors of the program, so
      # the distributed binaries are checked for memory errors without the API-error report.
      local api=all
      [[ ${binary##*/} = test_distributed* ]] && api=no
      # racecheck leaves CUB's kernels out (their mangled names begin _ZN3cub) where a test runs
      # them anyway (the conformance kit loops over every implementation): it reports hazards in
      # cub::DeviceTransform's bulk-copy kernel, whose shared memory is filled by the copy engine
      # and waited for on an mbarrier, a handoff racecheck does not follow (2026-12-04).
      # initcheck runs every launch to its end before the next (CUDA_LAUNCH_BLOCKING): CUB's
      # radix sort zeroes its bins in a kernel whose successors start early by programmatic
      # dependent launch (n <= 2^24 on sm_90), and initcheck reported, in some runs and not
      # others, the successors' reads of the bins as uninitialized (2026-12-04); with every
      # launch waited for it has not (2026-12-07). Leaving the successors out instead moved the
      # report on: a kernel left out writes unseen, so its successor's reads of what it wrote
      # are reported (the exclusive sum, then the Onesweep kernel, 2026-12-07).
      local exclude=() blocking=0
      [ $tool = racecheck ] && exclude=(--kernel-name-exclude kns=_ZN3cub)
      [ $tool = initcheck ] && blocking=1
      for ((shard = 0; shard < shards; shard++)); do
        log="$out/.sanitize-$tool-${binary##*/}-$shard.log"
        logs+=("$log")
        while [ "$(jobs -rp | wc -l)" -ge "$at_once" ]; do wait -n; done
        (
          CUDA_LAUNCH_BLOCKING=$blocking PRISM_TEST_SMALL=1 GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard \
            timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 --report-api-errors $api \
            ${exclude[@]+"${exclude[@]}"} "$binary" --gtest_filter="$filter" >"$log" 2>&1
          echo $? >"$log.status"
        ) &
      done
    done
  done
  wait
  for i in "${!logs[@]}"; do
    status=$(cat "${logs[$i]}.status" 2>/dev/null || echo lost)
    rm -f "${logs[$i]}.status"
    # 77 is the tests' own exit when every test they ran was skipped (test/main.cpp), as in a
    # shard holding only two-GPU tests; an error the tool found exits 99 instead.
    [ "$status" = 77 ] && status=0
    echo "== ${logs[$i]##*/.sanitize-} (exit $status)"
    grep -E "SUMMARY|tests? ran|PASSED|FAILED|Error|error" "${logs[$i]}" |
      grep -v "^\[ *\(OK\|RUN\)\|Host Frame\|Device Frame" | head -20
    # Stopped at its limit: the test it was in, and how many had passed.
    [ $status = 124 ] && echo "stopped in: $(last_test "${logs[$i]}") after $(grep -c '^\[ *OK' "${logs[$i]}") passed"
    if [ $status = 0 ]; then
      rm -f "${logs[$i]}"
    else
      # Kept (its first MB) for the whole report: OUTDIR/sanitize-<tool>-<binary>-<shard>.log.
      failed=1
      head -c 1000000 "${logs[$i]}" >"$out/${logs[$i]##*/.}" && rm -f "${logs[$i]}"
      echo "log: $out/${logs[$i]##*/.}"
    fi
  done
  return $failed
}

stage_bench() {
  local failed=0 filter=${PRISM_BENCH_FILTER:-}
  [ "$filter" = quick ] && filter='^(add|exp|fill|sum|argmax|dot)/float/[^/]+/(1024|268435456)/'
  local suites=${PRISM_BENCH_SUITES:-}
  wanted() { [ -z "$suites" ] || [[ " $suites " == *" $1 "* ]]; }
  for binary in "$build"/bench/bench_*; do
    local family=${binary##*/bench_} start=$SECONDS status=0
    [ "$family" = scale ] && continue  # below: its own report
    wanted "$family" || continue
    "$binary" --benchmark_out="$out/bench_$family.json" --benchmark_out_format=json \
      ${filter:+--benchmark_filter="$filter"} >"$out/bench_$family.log" 2>&1 || status=$?
    echo "bench_$family: $((SECONDS - start)) s, exit $status (console: $out/bench_$family.log)"
    if [ $status != 0 ]; then
      failed=1
      tail -n 20 "$out/bench_$family.log"
    fi
  done
  local start=$SECONDS
  if wanted peers; then
    python3 bench/peers.py "$out/peers.json" ${filter:+--filter "$filter"} >"$out/peers.log" 2>&1 ||
      { failed=1; tail -n 20 "$out/peers.log"; }
    echo "peers: $((SECONDS - start)) s, $(grep -c skipped "$out/peers.log") peer(s) skipped (log: $out/peers.log)"
  fi
  if wanted report; then
    python3 bench/report "$out"/bench_*.json "$out/peers.json" --out "$out" || failed=1
  fi
  # Scaling over GPUs: one process driving every GPU, then one process per GPU under mpirun.
  if [ -x "$build/bench/bench_scale" ] && wanted scale; then
    local scale_json=("$out/scale_single.json")
    "$build/bench/bench_scale" --benchmark_out="$out/scale_single.json" --benchmark_out_format=json \
      >"$out/bench_scale.log" 2>&1 || { failed=1; tail -n 20 "$out/bench_scale.log"; }
    if command -v mpirun >/dev/null && [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
      mpirun --allow-run-as-root -np 2 "$build/bench/bench_scale" --benchmark_out="$out/scale_mpi.json" \
        --benchmark_out_format=json >"$out/bench_scale_mpi.log" 2>&1 || { failed=1; tail -n 20 "$out/bench_scale_mpi.log"; }
      scale_json+=("$out/scale_mpi.json")
    fi
    python3 bench/scale_report "${scale_json[@]}" --out "$out" || failed=1
  fi
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
