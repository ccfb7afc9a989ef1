#!/usr/bin/env bash
# tensorium-evolve against faults in its files and arguments: checkpoints and snapshots that
# cannot be written (a full 200 kB file system), checkpoints with flipped bits, step counts out
# of range, a restart past the final time and malformed options. Every case ends with a message
# and exit status 1 or 2 on every rank within seconds, never a signal; a corrupted checkpoint is
# refused, or (a flip in bytes the file does not use) restarts to the uncorrupted answer.
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mpiexec=$1 evolve=$2 compare=$3 work=$4 python=$5
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work" && cd "$work" && rm -rf ./*.h5 ./*.partial ./*.log tiny

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
base=(--resolution 17 --extent 4 --initial-data-resolution 12,12,6 --p1 -0.1,0,0 --p2 0.1,0,0 --monitor-every 4)

# expect STATUS PATTERN CMD...: exit status STATUS (1 or 2, so no signal) and PATTERN once on stderr.
expect() {
  local want=$1 pattern=$2
  shift 2
  timeout 60 "$@" > fault.out 2> fault.err
  local status=$?
  [ $status -eq "$want" ] || { cat fault.err; fail "exit $status (wanted $want) for: $*"; }
  [ "$(grep -c -- "$pattern" fault.err)" = 1 ] || { cat fault.err; fail "expected one '$pattern' message for: $*"; }
}

echo "=== reference runs: 6 steps straight, 3 steps to a checkpoint"
timeout 120 "$evolve" "${base[@]}" --final-time 0.75 --checkpoint straight.h5 --checkpoint-every 100 > straight.log ||
  fail "straight run"
timeout 120 "$evolve" "${base[@]}" --final-time 0.375 --checkpoint half.h5 --checkpoint-every 100 > half.log ||
  fail "half run"

echo "=== a checkpoint or snapshot that cannot be written: a 200 kB file system that fills up"
mkdir -p tiny
# A tmpfs in a mount namespace of its own (as root, as CI runs): it goes away with the command.
full=(unshare -m sh -c 'mount -t tmpfs -o size=200k tmpfs tiny && exec "$@"' full)
if "${full[@]}" true; then
  expect 1 "writing a checkpoint failed" "${full[@]}" "$evolve" "${base[@]}" --final-time 0.3 --checkpoint tiny/ck.h5 \
    --checkpoint-every 1
  expect 1 "writing a checkpoint failed" "${full[@]}" timeout 60 "$mpiexec" --oversubscribe -n 2 "$evolve" "${base[@]}" \
    --final-time 0.3 --checkpoint tiny/ck.h5 --checkpoint-every 1
  expect 1 "writing a snapshot failed" "${full[@]}" "$evolve" "${base[@]}" --final-time 0.3 --h5 tiny/snap.h5 --h5-every 1
  # The monitor table, on a file system filled before the run.
  expect 1 "writing the monitor table tiny/m.csv.partial failed" unshare -m sh -c \
    'mount -t tmpfs -o size=200k tmpfs tiny && head -c 204800 /dev/zero > tiny/fill 2>/dev/null; exec "$@"' full \
    "$evolve" "${base[@]}" --final-time 0.3 --csv tiny/m.csv
else
  fail "cannot mount a private tmpfs (unshare -m needs root): the full-disk cases did not run"
fi

echo "=== out-of-range step counts and arguments"
expect 2 "takes more than" "$evolve" "${base[@]}" --final-time 1e308
expect 2 "excision must be non-negative" "$evolve" "${base[@]}" --excision -1
expect 2 "unknown option '--bogus'" "$evolve" "${base[@]}" --bogus
# Constraint norms of an empty region are refused, not printed as zeros.
expect 2 "the constraint-norm region holds no grid point" "$evolve" "${base[@]}" --resolution 12
expect 2 "the constraint-norm region holds no grid point (--norm-box 0.1" "$evolve" "${base[@]}" --resolution 16 --norm-box 0.1
expect 2 "norm-box must be positive" "$evolve" "${base[@]}" --norm-box -1
timeout 60 "$evolve" "${base[@]}" --final-time 0.125 --norm-box 1.5 > normbox.log 2>&1 || fail "a run with --norm-box"
grep -q "constraint norms over |x|, |y|, |z| <= 1.5" normbox.log || fail "the norm region is not recorded in the output"
expect 2 "past --final-time 0.2" "$evolve" "${base[@]}" --final-time 0.2 --restart half.h5
ln -sf loop-b loop-a && ln -sf loop-a loop-b
expect 2 "restart file 'loop-a' cannot be read: Too many levels of symbolic links" "$evolve" "${base[@]}" --restart loop-a
expect 2 "restart file '/dev/zero' cannot be read: not a regular file" "$evolve" "${base[@]}" --restart /dev/zero

echo "=== checkpoints with flipped bits: refused, or the same answer"
refused=0 same=0
for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
  "$python" "$here/flip_bits.py" half.h5 flipped.h5 --seed $seed --flips $(( seed % 3 + 1 ))
  rm -f resumed.h5
  timeout 120 "$evolve" "${base[@]}" --final-time 0.75 --restart flipped.h5 --checkpoint resumed.h5 \
    --checkpoint-every 100 > flipped.log 2> flipped.err
  status=$?
  if [ $status -eq 0 ]; then
    if "$compare" straight.h5 /checkpoint/state resumed.h5 /checkpoint/state > /dev/null; then
      same=$((same + 1))
    else
      fail "seed $seed: a corrupted checkpoint restarted to a different answer"
    fi
  elif [ $status -eq 1 ] && grep -q "restart file 'flipped.h5'" flipped.err; then
    refused=$((refused + 1))
  else
    cat flipped.err
    fail "seed $seed: exit $status without the restart file's message"
  fi
done
echo "corrupted checkpoints: $refused refused, $same restarted to the same answer"
[ $refused -ge 8 ] || fail "fewer than 8 of 12 corrupted checkpoints refused"
# A flip in the state itself, through HDF5 (the file stays well-formed), is always refused,
# and so is one in an attribute the checksum covers.
cp half.h5 flipped.h5
"$compare" --flip flipped.h5 /checkpoint/state 12345 17 || fail "cannot flip a bit of the state"
expect 1 "dataset /checkpoint/state or its attributes fail the checksum" "$evolve" "${base[@]}" --final-time 0.75 \
  --restart flipped.h5

echo "failures: $failures"
[ $failures -eq 0 ] && echo PASS
exit $failures
