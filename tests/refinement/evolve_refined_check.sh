#!/usr/bin/env bash
# tensorium-evolve on the refined grid (--refine-radii): the same bits on 1 and 4 ranks and after a
# checkpoint written on 2 ranks is continued on 3; restarts that would not continue the same run
# (other radii, another regrid interval, a flipped bit) refused; ParaView's XDMF reader opens the
# index of a finished run and the FILE.partial.xmf of a run that turned non-finite, and reads the
# values the HDF5 data hold.
# Usage: evolve_refined_check.sh MPIEXEC EVOLVE H5_COMPARE PVBATCH WORK
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mpiexec=$1 evolve=$2 compare=$3 pvbatch=$4 work=$5
check=$(cd "$(dirname "$0")" && pwd)/xdmf_blocks_check.py
mkdir -p "$work" && cd "$work" && rm -f ./*.h5* ./*.xmf ./*.out ./*.log ./*.cmp
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# 24^3 on [-8, 8]^3 in blocks of 8^3: 3 x 3 x 3 roots of width 16/3. The spheres r < 1 about the
# punctures at (+-1, 0, 0) lie inside the middle root, which alone is refined: 26 + 8 = 34 leaves
# of 512 points, 17408 points; h = 2/3 and 1/3, dt = h / 12: t = 0.5 is 6 steps. Level 0 alone
# touches the faces: the outermost points sit at +-(8 - 1/3).
grid=(--resolution 24 --extent 8 --b 1 --initial-data-resolution 12,12,6 --refine-radii 1 --block-size 8 --regrid-every 2)
run() {
  local ranks=$1 name=$2
  shift 2
  timeout 600 "$mpiexec" --oversubscribe -n "$ranks" "$evolve" "${grid[@]}" "$@" > "$name.out" 2>&1
}

echo "=== the same run on 1 and 4 ranks, and on 2 ranks to t = 0.25 continued on 3"
run 1 serial --final-time 0.5 --h5 serial.h5 --h5-every 3 --csv serial.csv || { cat serial.out; fail "the serial run"; }
grep -q "34 leaves (26 8 per level), 17408 points" serial.out || { head -5 serial.out; fail "the grid is not the one derived above"; }
run 4 four --final-time 0.5 --h5 four.h5 --h5-every 6 || { cat four.out; fail "the run on 4 ranks"; }
run 2 first --final-time 0.25 --checkpoint half.h5 --checkpoint-every 3 || { cat first.out; fail "the first half on 2 ranks"; }
run 3 second --final-time 0.5 --restart half.h5 --h5 restarted.h5 --h5-every 6 || { cat second.out; fail "the restart on 3 ranks"; }
grep -q "restarted from half.h5 at t = 0.250000, step 3" second.out || fail "the restart did not start at step 3"
for name in four restarted; do
  "$compare" serial.h5 /snapshot_00000006/state "$name.h5" /snapshot_00000006/state > "$name.cmp" 2>&1 ||
    { cat "$name.cmp"; fail "$name.h5 differs from the serial run at step 6"; }
  "$compare" serial.h5 /snapshot_00000006/leaves "$name.h5" /snapshot_00000006/leaves > "$name.leaves.cmp" 2>&1 ||
    { cat "$name.leaves.cmp"; fail "$name.h5 has other leaves than the serial run at step 6"; }
  grep -h "values differ" "$name.cmp"
done
# The comparison can fail: two steps of the same run differ.
if "$compare" serial.h5 /snapshot_00000003/state serial.h5 /snapshot_00000006/state > twin.cmp 2>&1; then
  fail "steps 3 and 6 compare equal: the comparison cannot see a difference"
fi

echo "=== restarts that would not continue the same run"
expect_refused() {
  local name=$1 pattern=$2
  shift 2
  run 1 "$name" "$@"
  local status=$?
  if [ $status -eq 0 ] || ! grep -q "$pattern" "$name.out"; then
    cat "$name.out"
    fail "$name: expected a refusal matching '$pattern' (status $status)"
  else
    grep -m1 "error" "$name.out"
  fi
}
expect_refused other_radii "has refinement radius 1 for level 1, this run 1.5" --final-time 0.5 --restart half.h5 --refine-radii 1.5
expect_refused other_regrid "was regridded every 2 steps, this run every 4" --final-time 0.5 --restart half.h5 --regrid-every 4
# A checkpoint of the other grid, either way round.
uniform=(--resolution 16 --extent 8 --b 1 --initial-data-resolution 12,12,6)
timeout 300 "$evolve" "${uniform[@]}" --final-time 0.25 --checkpoint uniform.h5 --checkpoint-every 1 > uniform.out 2>&1 ||
  { cat uniform.out; fail "the uniform run that writes a checkpoint"; }
expect_refused from_uniform "is a checkpoint of the uniform grid, not of the refined grid" --final-time 0.5 --restart uniform.h5
if timeout 300 "$evolve" "${uniform[@]}" --final-time 0.5 --restart half.h5 > to_uniform.out 2>&1 ||
  ! grep -q "is a checkpoint of the refined grid" to_uniform.out; then
  cat to_uniform.out
  fail "a uniform run restarted from a refined checkpoint was not refused as such"
else
  grep -m1 "error" to_uniform.out
fi
cp half.h5 flipped.h5
"$compare" --flip flipped.h5 /refined_checkpoint/state 12345 7 > /dev/null || fail "cannot flip a bit"
expect_refused flipped "fail the checksum" --final-time 0.5 --restart flipped.h5

echo "=== ParaView on the serial run's index"
arrays=alpha,B,beta,chi,Gammatilde,K
for tensor in Atilde gammatilde; do
  for c in xx xy xz yy yz zz; do arrays=$arrays,${tensor}_$c; done
done
bounds=-7.666666666666667,7.666666666666667,-7.666666666666667,7.666666666666667,-7.666666666666667,7.666666666666667
timeout 300 "$pvbatch" "$check" serial.xmf 34 17408 "$bounds" 0,0.25,0.5 "$arrays" alpha 30 300 > serial.log 2>&1 ||
  { cat serial.log; fail "ParaView on serial.xmf"; }
grep '^PASS' serial.log
# Block 30, point 300 = (x, y, z) = (4, 5, 4), x fastest: value ((30 * 512 + 300) * dof + offset).
offset=$(grep -A2 'Attribute Name="alpha"' serial.xmf | sed -n 's/.*Format="XML">[0-9]* 0 0 \([0-9]*\) .*/\1/p' | head -1)
dof=$(grep -o 'Dimensions="[0-9]* 8 8 [0-9]*" NumberType' serial.xmf | head -1 | sed 's/Dimensions="[0-9]* 8 8 \([0-9]*\)".*/\1/')
got=$(sed -n 's/^value //p' serial.log)
want=$("$compare" --value serial.h5 /snapshot_00000006/state $(((30 * 512 + 300) * dof + offset)))
python3 -c 'import sys; a, b = sys.argv[1:]; sys.exit(float(a) != float(b))' "$got" "$want" ||
  fail "ParaView reads alpha = '$got' in block 30 at point 300, the HDF5 data hold '$want'"
echo "alpha in block 30 at point 300: $got in ParaView and in the HDF5 data"
# The check can fail: the same index with the corner block one point lower must be refused.
corner='>-7.666666666666667 -7.666666666666667 -7.666666666666667<'
grep -q -- "$corner" serial.xmf || fail "no block starts at the lower corner"
sed "0,/$corner/s//>-8.3333333333333339 -7.666666666666667 -7.666666666666667</" serial.xmf > wrong_origin.xmf
if timeout 300 "$pvbatch" "$check" wrong_origin.xmf 34 17408 "$bounds" 0,0.25,0.5 "$arrays" alpha 30 300 > wrong.log 2>&1 ||
  ! grep -q '^FAIL: .*bounds' wrong.log; then
  cat wrong.log
  fail "an index with a block out of place was accepted"
fi

echo "=== a run that turns non-finite (no dissipation, cfl 1): its message and FILE.partial.xmf"
run 1 crash --ko-sigma 0 --cfl 1 --final-time 60 --monitor-every 10 --h5 crash.h5 --h5-every 10
status=$?
[ $status -eq 1 ] || fail "the crashing run should exit 1, got $status"
grep -E "error: the state turned non-finite at t = [0-9.]+ \(step [0-9]+\): field [A-Za-z]+ \(component [0-9]\) at \(.*\) on level [01]" crash.out ||
  { cat crash.out; fail "the crash is not reported with its time, step, field, point and level"; }
step=$(sed -n 's/.*non-finite at t = [0-9.]* (step \([0-9]*\)).*/\1/p' crash.out)
[ -f crash.partial.xmf ] && [ -f crash.h5.partial ] && [ ! -f crash.xmf ] || fail "the crashed run's snapshots are not kept under .partial"
times=$(grep -o '<Time Value="[^"]*"' crash.partial.xmf | sed 's/<Time Value="\(.*\)"/\1/' | paste -sd,)
[ "$(grep -c '<Time' crash.partial.xmf)" -ge 2 ] && grep -q "snapshot_$(printf %08d "$step")" crash.partial.xmf ||
  fail "crash.partial.xmf does not index the failing step $step"
timeout 300 "$pvbatch" "$check" crash.partial.xmf 34 17408 "$bounds" "$times" "$arrays" alpha 0 0 > crash.log 2>&1 ||
  { cat crash.log; fail "ParaView on crash.partial.xmf"; }
grep '^PASS' crash.log

echo "failures: $failures"
exit $failures
