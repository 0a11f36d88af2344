#!/usr/bin/env bash
# ctest 'bench_inputs': every benchmark refuses a missing or bad input before any work, with exit 2
# and a one-line message naming it (bench/args.hpp). Usage: check_inputs.sh BENCH_BINARY_DIR
set -u
dir=$1
missing=/nonexistent-tc-bench-input
empty=$(mktemp -d)
trap 'rmdir "$empty"' EXIT
fail=0
check() {  # NAME EXPECTED_STDERR_SUBSTRING ARGS...
  local name=$1 want=$2 out rc
  shift 2
  out=$("$dir/bench_$name" "$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc != 2 || $out != *"$want"* ]]; then
    echo "FAIL: bench_$name $*: exit $rc, stderr '$out' (want exit 2 and '$want')"
    fail=1
  fi
}
check tenet_engine "expected one argument, the TENET fixture folder"
check tenet_engine "missing folder '$missing'" "$missing"
check tenet_engine "missing folder '$empty/anchors/inputs'" "$empty"
check compare "expected the data folder" --repeat 1
check compare "missing folder '$missing/workloads'" "$missing"
check compare "expected --repeat (a number > 0), found 'x'" --repeat x "$empty"
check compare "expected a value after --array-model" "$empty" --array-model
check extract "expected one or more TVMScript dumps"
check extract "missing file '$missing'" "$missing"
check extract "expected MB (a number > 0), found '0'" --synthetic 0 "$missing"
check extract "expected RUNS (an integer 1..1000000), found '2.5'" --synthetic 1 "$missing" 2.5
check parse_tvmscript "expected one or more TVMScript dumps"
check parse_tvmscript "missing file '$missing'" "$missing"
check parse_tvmscript "missing file '$missing'" --runs 2 --synthetic 5 "$missing"
check parse_tvmscript "--runs goes with --synthetic MB FILE" --runs 2 "$missing"
check report "expected DATA_DIR"
check report "missing folder '$missing'" "$missing"
check report "missing folder '$empty/workloads'" "$empty"
check search "expected the data folder" --jobs 1
check search "missing folder '$missing/workloads'" "$missing"
check search "expected --generated (a number > 0), found 'x'" --generated x "$empty"
check search "expected a value after --jobs" "$empty" --jobs
check sweep "expected DATA_DIR SPEC.json"
check sweep "missing file '$missing'" "$empty" "$missing"
[[ $fail == 0 ]] && echo "bench_inputs: all benchmarks refuse missing and bad inputs with exit 2"
exit $fail
