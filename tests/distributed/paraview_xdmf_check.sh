#!/usr/bin/env bash
# ParaView itself (Debian's pvbatch, its XDMF reader) opens what tensorium-evolve writes: the
# index of a finished run on 2 ranks and the FILE.partial.xmf of a run that turned non-finite.
# Points, bounds, times and arrays must be those written (from the grid's closed form and the
# module's fields), and a value ParaView reads must equal the one in the HDF5 dataset.
# Usage: paraview_xdmf_check.sh PVBATCH MPIEXEC EVOLVE H5_COMPARE WORK
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
pvbatch=$1 mpiexec=$2 evolve=$3 compare=$4 work=$5
check=$(cd "$(dirname "$0")" && pwd)/xdmf_check.py
mkdir -p "$work" && cd "$work" && rm -f ./*.h5* ./*.xmf
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# The BSSN fields as the index names them: symmetric tensors by their six components.
arrays=alpha,B,beta,chi,Gammatilde,K
for tensor in Atilde gammatilde; do
  for c in xx xy xz yy yz zz; do arrays=$arrays,${tensor}_$c; done
done

# expect_value INDEX FIELD POINT_ID: ParaView's value of FIELD at POINT_ID (last time) equals
# the HDF5 dataset's at that point and the field's offset in the interlaced state.
expect_value() {
  local index=$1 field=$2 point=$3 log=$4
  local got want offset data dof
  got=$(sed -n 's/^value //p' "$log")
  offset=$(grep -A2 "Attribute Name=\"$field\"" "$index" | sed -n 's/.*Format="XML">0 0 0 \([0-9]*\) .*/\1/p' | head -1)
  data=$(grep -o '[^>]*:/snapshot_[0-9]*/state' "$index" | tail -1)
  dof=$(grep -o 'Dimensions="[0-9]* [0-9]* [0-9]* [0-9]*" NumberType' "$index" | head -1 | sed 's/Dimensions="[0-9]* [0-9]* [0-9]* \([0-9]*\)".*/\1/')
  want=$("$compare" --value "${data%%:*}" "${data#*:}" $((point * dof + offset)) | sed 's/^-nan$/nan/')
  # The same double (ParaView prints the shortest form, h5_compare 17 digits); nan as nan.
  [ -n "$got" ] && [ -n "$want" ] && python3 -c 'import sys; a, b = sys.argv[1:]; sys.exit(a != b and float(a) != float(b))' "$got" "$want" ||
    fail "$index: ParaView reads $field = '$got' at point $point, the HDF5 data hold '$want'"
  echo "$index: $field at point $point = $got in ParaView and in the HDF5 data"
}

echo "=== a finished run on 2 ranks: 16^3 on [-5, 5]^3, h = 0.625, dt = 0.15625, a snapshot every step"
timeout 300 "$mpiexec" --oversubscribe -n 2 "$evolve" --resolution 16 --extent 5 --b 1 --initial-data-resolution 12,12,6 \
  --final-time 0.78125 --h5 done.h5 --h5-every 1 > done.out 2>&1 || { cat done.out; fail "the finished run"; }
timeout 300 "$pvbatch" "$check" done.xmf 4096 -4.6875,4.6875,-4.6875,4.6875,-4.6875,4.6875 \
  0,0.15625,0.3125,0.46875,0.625,0.78125 "$arrays" alpha 1234 > done.log 2>&1 || { cat done.log; fail "ParaView on done.xmf"; }
grep '^PASS' done.log
# Point 1234 = (2, 13, 4), x fastest.
expect_value done.xmf alpha 1234 done.log

# The check can fail: the same index with the spacing of another grid must be refused.
sed 's/0.625 0.625 0.625/0.5 0.5 0.5/' done.xmf > wrong_spacing.xmf
if timeout 300 "$pvbatch" "$check" wrong_spacing.xmf 4096 -4.6875,4.6875,-4.6875,4.6875,-4.6875,4.6875 0,0.15625,0.3125,0.46875,0.625,0.78125 \
  "$arrays" alpha 1234 > wrong.log 2>&1 || ! grep -q '^FAIL: .*bounds' wrong.log; then
  cat wrong.log; fail "an index with the wrong spacing was accepted"
fi

echo "=== a run that turned non-finite at t = 5 (no dissipation, cfl 1): its FILE.partial.xmf"
timeout 300 "$evolve" --resolution 20 --extent 5 --b 1 --initial-data-resolution 12,12,6 --ko-sigma 0 --cfl 1 \
  --final-time 60 --monitor-every 1000 --h5 crash.h5 --h5-every 5 > crash.out 2>&1
[ $? -eq 1 ] || fail "the crashing run should exit 1"
timeout 300 "$pvbatch" "$check" crash.partial.xmf 8000 -4.75,4.75,-4.75,4.75,-4.75,4.75 0,2.5,5 "$arrays" \
  gammatilde_xx 43 > crash.log 2>&1 || { cat crash.log; fail "ParaView on crash.partial.xmf"; }
grep '^PASS' crash.log
# Point 43 = (3, 2, 0), where the run reported its first non-finite value.
expect_value crash.partial.xmf gammatilde_xx 43 crash.log
grep -q '^value \(nan\|inf\|-inf\)$' crash.log || fail "the failing state's first non-finite value is not what ParaView shows"

echo "failures: $failures"
exit $failures
