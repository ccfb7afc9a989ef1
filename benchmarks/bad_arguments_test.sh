#!/usr/bin/env bash
# The benchmarks reject bad command lines with a message and exit status 2 before any work;
# --help prints the usage and exits 0.
#   bad_arguments_test.sh <TensoriumBssnBenchmark> <TensoriumDistributedStepBenchmark>
bssn=$1 step=$2
failures=0
expect() { # expect <status> <regex> <command...>
  local status=$1 pattern=$2
  shift 2
  local out rc
  out=$(timeout 60 "$@" 2>&1)
  rc=$?
  if [[ $rc -ne $status ]] || ! grep -Eq -- "$pattern" <<<"$out"; then
    echo "FAIL: '$*' exited $rc (want $status) with: $out"
    failures=$((failures + 1))
  fi
}
expect 2 "error: grid size must be an integer from 7 to 256, got '64x'" "$bssn" 64x
expect 2 "got 'abc'" "$bssn" 64 abc
expect 2 "got '6'" "$bssn" 6
expect 2 "got '100000'" "$bssn" 100000
expect 0 "usage: TensoriumBssnBenchmark" "$bssn" --help
expect 2 "error: option '--grid' needs a positive integer, got 'abc'" "$step" --grid abc
expect 2 "error: option '--steps' needs a value" "$step" --steps
expect 2 "error: unknown option '--grids'" "$step" --grids 64
expect 0 "usage: TensoriumDistributedStepBenchmark" "$step" --help
expect 2 "error: unknown option '--grids'" "$step" -options_left no --grids 64
echo "failures: $failures"
