#!/usr/bin/env bash
# tensorium-evolve end to end on a small grid: restart bit for bit (also on another rank
# count), serial against 4 ranks, bad input refused with a message from rank 0, a non-zero
# exit, no hang and no output file left behind, and a run that turns non-finite reported with
# its field, time and point, its snapshots indexed under FILE.partial.xmf.
set -uo pipefail
# OpenMPI refuses root without these (CI containers); one OpenMP thread per rank on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mpiexec=$1 evolve=$2 compare=$3 work=$4 bad_module=$5
fixtures=$(cd "$(dirname "$0")/../../fixtures" && pwd)
mkdir -p "$work" && cd "$work" && rm -f ./*.h5 ./*.xmf ./*.partial ./*.log

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
mpi() { timeout 120 "$mpiexec" --oversubscribe -n "$@"; }
base=(--resolution 20 --extent 4 --initial-data-resolution 12,12,6 --p1 -0.1,0,0 --p2 0.1,0,0 --monitor-every 2)
ck=(--checkpoint-every 100)

echo "=== 8 steps straight (1 process) and on 4 ranks"
timeout 120 "$evolve" "${base[@]}" --final-time 0.8 "${ck[@]}" --checkpoint straight.h5 > straight.log || fail "straight run"
mpi 4 "$evolve" "${base[@]}" --final-time 0.8 "${ck[@]}" --checkpoint ranks4.h5 > ranks4.log || fail "4-rank run"
"$compare" straight.h5 /checkpoint/state ranks4.h5 /checkpoint/state || fail "4 ranks differ from 1"

echo "=== 4 steps on 2 ranks, checkpoint, restart in a new process on 3 ranks for 4 more"
mpi 2 "$evolve" "${base[@]}" --final-time 0.4 "${ck[@]}" --checkpoint half.h5 > half.log || fail "first half"
mpi 3 "$evolve" "${base[@]}" --final-time 0.8 --restart half.h5 "${ck[@]}" --checkpoint resumed.h5 > resumed.log || fail "restart"
"$compare" straight.h5 /checkpoint/state resumed.h5 /checkpoint/state || fail "restart differs from the straight run"
last_straight=$(grep '^t = ' straight.log | tail -1 | sed 's/wall.*punctures//')
last_resumed=$(grep '^t = ' resumed.log | tail -1 | sed 's/wall.*punctures//')
echo "straight: $last_straight"
echo "resumed:  $last_resumed"
[ "$last_straight" = "$last_resumed" ] || fail "constraint norms or puncture positions differ after restart"
grep -q 'restarted from half.h5 at t = 0.4' resumed.log || fail "restart not reported"

echo "=== the same run from a run file (the command line naming the checkpoint), copied into the checkpoint"
cat > run.toml <<'TOML'
# run-file-marker-5e1d
resolution = 20
extent = 4
initial-data-resolution = [12, 12, 6]
p1 = [-0.1, 0, 0]
p2 = [0.1, 0, 0]
monitor-every = 2
final-time = 0.8
checkpoint-every = 100
checkpoint = "overridden.h5"
TOML
mpi 2 "$evolve" run.toml --checkpoint fromfile.h5 > fromfile.log || fail "run file"
"$compare" straight.h5 /checkpoint/state fromfile.h5 /checkpoint/state || fail "the run file's run differs from the command line's"
[ ! -e overridden.h5 ] || fail "the command line did not win over the run file"
grep -aq 'run-file-marker-5e1d' fromfile.h5 || fail "the run file is not in the checkpoint"
# The README's run file holds valid keys only (run here for no steps on a small grid).
timeout 120 "$evolve" "$fixtures/../examples/runs/head_on.toml" --resolution 20 --extent 4 --initial-data-resolution 12,12,6 \
  --final-time 0 --h5 demo.h5 > demo.log 2>&1 || { cat demo.log; fail "examples/runs/head_on.toml"; }

echo "=== advection stencils: the BSSN fixture recompiled with lopsided advect() differs, with centered it is the built module"
mpi 2 "$evolve" "${base[@]}" --final-time 0.8 "${ck[@]}" --checkpoint centered.h5 --advection centered > centered.log || fail "--advection centered"
"$compare" straight.h5 /checkpoint/state centered.h5 /checkpoint/state || fail "--advection centered differs from the built module"
mpi 2 "$evolve" "${base[@]}" --final-time 0.8 "${ck[@]}" --checkpoint lopsided.h5 --advection lopsided > lopsided.log || fail "--advection lopsided"
! "$compare" straight.h5 /checkpoint/state lopsided.h5 /checkpoint/state > /dev/null || fail "--advection lopsided changed nothing"

echo "=== snapshots and their XDMF index"
mpi 2 "$evolve" "${base[@]}" --final-time 0.2 --h5 snap.h5 --h5-every 1 --csv monitor.csv > snap.log ||
  fail "snapshot run"
"$compare" snap.h5 /snapshot_00000002/state | grep -q 'dims 20 20 20 30' || fail "snapshot shape"
[ "$(grep -c '<Grid Name="step' snap.xmf)" = 3 ] || fail "XDMF lists 3 snapshots"
# The grid as numeric attributes: 20 points on [-4, 4], h = 0.4, the first at -3.8.
[ "$("$compare" --attribute snap.h5 origin_x)" = -3.7999999999999998 ] && [ "$("$compare" --attribute snap.h5 spacing_z)" = 0.40000000000000002 ] &&
  [ "$("$compare" --attribute snap.h5 points_y)" = 20 ] || fail "origin, spacing and points attributes"
[ "$(tail -n +2 monitor.csv | wc -l)" = 2 ] || fail "monitor table rows"
for f in snap.h5.partial snap.xmf.partial monitor.csv.partial; do [ ! -e $f ] || fail "$f left after a finished run"; done

echo "=== a fixture compiled at run time, exact initial data from a fixture's init kernel, 1 vs 2 ranks"
# Brill-Lindquist with m1 = 1 at the origin and m2 = 0: Schwarzschild's isotropic slice, whose
# slice kernel gives K_ij (= 0) with the metric.
exact=(--fixture "$fixtures/gr/bssn_evolution_3d.tn" --initial-data "$fixtures/gr/brill_lindquist_3d.tn"
       --initial-params 1,0,0,0,0,0,0,0 --track 0,0,0 --excision 1 --resolution 20 --extent 5 --final-time 0.5 --monitor-every 2)
timeout 300 "$evolve" "${exact[@]}" "${ck[@]}" --checkpoint exact1.h5 > exact1.log || fail "exact data, 1 process"
mpi 2 "$evolve" "${exact[@]}" "${ck[@]}" --checkpoint exact2.h5 > exact2.log || fail "exact data, 2 ranks"
"$compare" exact1.h5 /checkpoint/state exact2.h5 /checkpoint/state || fail "exact data: 2 ranks differ from 1"
grep -q "initial data from .*brill_lindquist_3d.tn" exact2.log || fail "initial data not reported"

expect_error() { # expect_error PATTERN CMD...: non-zero exit, PATTERN on stderr once, no out.h5
  local pattern=$1
  shift
  rm -f out.h5 out.xmf
  "$@" --h5 out.h5 > err.out 2> err.log
  local status=$?
  if [ $status -eq 0 ] || [ $status -eq 124 ]; then fail "exit $status for: $*"; fi
  [ "$(grep -c "$pattern" err.log)" = 1 ] || { cat err.log; fail "expected one '$pattern' message for: $*"; }
  [ ! -e out.h5 ] || fail "output file left behind by: $*"
}
echo "=== bad input"
# Run files: every mistake located at its key, exit 2, nothing written.
printf 'resolution = 20\nresolutoin = 3\n' > typo.toml
expect_error "typo.toml:2:1: error: unknown key 'resolutoin'; did you mean 'resolution'?" mpi 2 "$evolve" typo.toml
printf 'resolution = 20\nextent = 4\ncfl = 2.0\n' > cfl.toml
expect_error "cfl.toml:3:1: error: key 'cfl': --cfl must be in (0, 1\]" mpi 2 "$evolve" cfl.toml
printf 'resolution = "twenty"\n' > type.toml
expect_error "type.toml:1:1: error: key 'resolution': --resolution expects an integer" "$evolve" type.toml
printf 'track = [[1, 0], [2, 0, 0]]\n' > track.toml
expect_error "track.toml:1:1: error: key 'track': --track expects 3 comma-separated values" "$evolve" track.toml
printf 'resolution = 20\nextent =\n' > syntax.toml
expect_error "syntax.toml:2:9: error: " "$evolve" syntax.toml
expect_error "unexpected argument 'run.txt' (a run file ends in .toml" "$evolve" run.txt
# The command line wins: the file's bad cfl is never read.
timeout 120 "$evolve" cfl.toml --cfl 0.25 --initial-data-resolution 12,12,6 --final-time 0 > cfl_override.log 2>&1 ||
  { cat cfl_override.log; fail "the command line's --cfl did not replace the run file's"; }

expect_error "smaller than the stencil radius 3" mpi 2 "$evolve" "${base[@]}" --ghost 2
expect_error "is smaller than a stencil" mpi 2 "$evolve" --resolution 5 --initial-data-resolution 12,12,6
expect_error "cannot split" mpi 3 "$evolve" --resolution 8 --initial-data-resolution 12,12,6
expect_error "index range" "$evolve" --resolution 420 --initial-data-resolution 12,12,6
expect_error "cannot be read" mpi 2 "$evolve" "${base[@]}" --restart missing.h5
expect_error "written by a different run" mpi 2 "$evolve" "${base[@]}" --resolution 22 --restart half.h5
echo "not a checkpoint" > bogus.h5
expect_error "restart file 'bogus.h5'" mpi 2 "$evolve" "${base[@]}" --restart bogus.h5
expect_error "not an rhs grid kernel\|no tensorium_rhs_grid_parallel\|unknown kernel symbol" \
  mpi 2 "$evolve" "${base[@]}" --module "$(dirname "$evolve")/../verification/libverify_constraints_o4.so"
expect_error "failed validation" mpi 2 "$evolve" "${base[@]}" --module "$bad_module"
expect_error "compiling .*assign_to_param.tn failed" mpi 2 "$evolve" "${base[@]}" --fixture "$fixtures/errors/assign_to_param.tn"
expect_error "split_3p1 must map Kij" mpi 2 "$evolve" "${exact[@]}" --initial-data "$fixtures/gr/schwarzschild_isotropic_3d.tn" --initial-params 1
expect_error "takes 8 parameters" mpi 2 "$evolve" "${exact[@]}" --initial-params 1,2
expect_error "cannot load kernel module" mpi 2 "$evolve" "${base[@]}" --module /nonexistent.so
expect_error "expects a finite number" "$evolve" --b nan
expect_error "unexpected argument '.*bssn_evolution_3d.tn'" "$evolve" "$fixtures/gr/bssn_evolution_3d.tn" --resolution 12
expect_error "unexpected argument 'stray'" "$evolve" --b -1 stray --resolution 12
# PETSc's own options (single dash) and their values pass through.
timeout 300 "$evolve" --resolution 14 --initial-data-resolution 12,12,6 --final-time 0.05 -options_left no > petsc_options.log 2>&1 ||
  { cat petsc_options.log; fail "a PETSc option and its value were refused"; }
# Old option names still work, each with one warning naming the new one (from rank 0 only).
mpi 2 "$evolve" --grid 12 --npoints 8,8,4 --output old.h5 --output-every 2 --monitor-file old.csv --bogus > old.out 2> old.log
grep -q "unknown option '--bogus'" old.log || { cat old.log; fail "old option names were refused"; }
for pair in "--grid:--resolution" "--npoints:--initial-data-resolution" "--output:--h5" "--output-every:--h5-every" "--monitor-file:--csv"; do
  [ "$(grep -c "warning: '${pair%%:*}' is now '${pair#*:}'" old.log)" = 1 ] || { cat old.log; fail "no warning for ${pair%%:*}"; }
done
expect_error "initial-data-resolution expects an integer" "$evolve" --initial-data-resolution -1e300,4,4
expect_error "without empty items" "$evolve" "${exact[@]}" --initial-params 1,
expect_error "two-puncture solve at --initial-data-resolution 1000,1000,1000 needs an estimated" \
  env TENSORIUM_MEMORY_LIMIT=1G "$evolve" --resolution 20 --initial-data-resolution 1000,1000,1000
# A run that fails after its outputs were opened: the snapshot file and the monitor table stay
# under their .partial names, never looking complete.
rm -f monitor.csv
expect_error "became non-finite" "$evolve" "${exact[@]}" --initial-params 1e300,0,0,0,0,0,0,0 --csv monitor.csv
[ ! -e monitor.csv ] && [ ! -e out.xmf ] || fail "a failed run left a complete-looking monitor table or index"

echo "=== a crash on purpose (no dissipation, cfl 1): the non-finite field, time and point from rank 0, snapshots indexed"
crash=(--resolution 20 --extent 5 --b 1 --initial-data-resolution 12,12,6 --ko-sigma 0 --cfl 1 --final-time 60
       --monitor-every 1000 --h5-every 5 --track 1,0,0 --track -1,0,0)
for ranks in 1 2; do
  rm -f crash$ranks.h5* crash$ranks.xmf crash$ranks.partial.xmf
  mpi $ranks "$evolve" "${crash[@]}" --h5 crash$ranks.h5 > crash$ranks.out 2> crash$ranks.log
  status=$?
  [ $status -eq 1 ] || fail "crash on $ranks rank(s): exit $status, expected 1"
  [ "$(grep -c 'error: the state became non-finite at t = 5.000000 (step 10): field gammatilde (component 0) at point (3, 2, 0) = (-3.25, -3.75, -4.75)' crash$ranks.log)" = 1 ] ||
    { cat crash$ranks.log; fail "crash on $ranks rank(s): expected one message naming the field, time and point"; }
  ! grep -q "interpolation region" crash$ranks.log || fail "the tracker reported the crash before the state check"
  [ -s crash$ranks.h5.partial ] && [ ! -e crash$ranks.h5 ] && [ ! -e crash$ranks.xmf ] || fail "crash: snapshot file names"
  [ "$(grep -c '<Grid Name="step ' crash$ranks.partial.xmf)" = 3 ] && grep -q 'crash'$ranks'.h5.partial:/snapshot_00000010/state' crash$ranks.partial.xmf ||
    fail "crash on $ranks rank(s): crash$ranks.partial.xmf must index steps 0, 5 and the failing step 10"
done

echo "failures: $failures"
[ $failures -eq 0 ] && echo PASS
exit $failures
