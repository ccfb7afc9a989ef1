#!/usr/bin/env bash
# system_cli_tests.sh MPIEXEC TENSORIUM_EVOLVE H5_COMPARE WORKDIR SOURCE_DIR: tensorium-evolve on
# modules that evolve systems other than BSSN. Each system's snapshots on 2 ranks must equal the
# single-rank ones bit for bit, a restart must continue bit for bit, and every module or option
# the generic path cannot run must be refused with a message that names what is missing.
# Prints "failures: N".
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
mpiexec=$1 evolve=$2 compare=$3 work=$4 source=$5
systems=$source/fixtures/systems
mkdir -p "$work" && cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }

# name fixture extent resolution final-time params...
run_pair() {
  local name=$1 fixture=$2 extent=$3 n=$4 T=$5
  shift 5
  rm -f "$name"1.h5 "$name"2.h5
  "$evolve" --fixture "$fixture" --extent "$extent" --resolution "$n" --final-time "$T" "$@" \
    --h5 "$name"1.h5 --h5-every 4 --monitor-every 100 > "$name"1.log 2>&1 || { cat "$name"1.log; fail "$name on 1 rank"; return; }
  "$mpiexec" --oversubscribe -n 2 "$evolve" --fixture "$fixture" --extent "$extent" --resolution "$n" --final-time "$T" "$@" \
    --h5 "$name"2.h5 --h5-every 4 --monitor-every 100 > "$name"2.log 2>&1 || { cat "$name"2.log; fail "$name on 2 ranks"; return; }
  grep "error of\|constraint " "$name"1.log
  for snapshot in /snapshot_00000004 /snapshot_00000008; do
    "$compare" "$name"1.h5 "$snapshot"/state "$name"2.h5 "$snapshot"/state > /dev/null ||
      fail "$name: 2 ranks differ from 1 at $snapshot"
  done
}
run_pair maxwell "$systems/maxwell_plane_gauge_wave_3d.tn" 1 20 0.2 --param a=1 --param lam=0.1
# The pulse's parameters come from the defaults its fixture declares.
run_pair pulse "$systems/scalar_pulse_radiative_3d.tn" 3 24 1
run_pair klein_gordon "$systems/klein_gordon_quartic_3d.tn" 1 20 0.2 --param amp=1 --param m2=1 --param lam=5

# A restart continues bit for bit: 4 steps on 1 rank, checkpoint, 4 more on 2 ranks in a new
# process, against 8 steps straight.
maxwell_run=(--fixture "$systems/maxwell_plane_gauge_wave_3d.tn" --extent 1 --resolution 20 --param a=1 --param lam=0.1
             --monitor-every 100 --checkpoint-every 100)
rm -f straight.h5 half.h5 resumed.h5
"$evolve" "${maxwell_run[@]}" --final-time 0.2 --checkpoint straight.h5 > straight.log 2>&1 || { cat straight.log; fail "straight run"; }
"$evolve" "${maxwell_run[@]}" --final-time 0.1 --checkpoint half.h5 > half.log 2>&1 || { cat half.log; fail "first half"; }
"$mpiexec" --oversubscribe -n 2 "$evolve" "${maxwell_run[@]}" --final-time 0.2 --restart half.h5 --checkpoint resumed.h5 \
  > resumed.log 2>&1 || { cat resumed.log; fail "restart"; }
grep -q "restarted from half.h5 at t = 0.1" resumed.log || fail "the restart does not say where it continues"
"$compare" straight.h5 /checkpoint/state resumed.h5 /checkpoint/state > /dev/null || fail "restart differs from the straight run"
grep "error of E" straight.log resumed.log
refused_past() {
  local output
  output=$("$evolve" "${maxwell_run[@]}" --final-time 0.05 --restart straight.h5 --checkpoint past.h5 2>&1)
  [ $? -ne 0 ] && grep -q "past the final time" <<< "$output" || { echo "$output"; fail "a restart past the final time"; }
}
refused_past
# Another system's checkpoint does not fit; refusing it leaves the file as it was.
size=$(stat -c %s half.h5)
output=$("$evolve" --fixture "$systems/klein_gordon_quartic_3d.tn" --extent 1 --resolution 20 --param amp=1 \
  --param m2=1 --param lam=5 --final-time 0.2 --restart half.h5 2>&1)
[ $? -ne 0 ] && grep -q "was written by a different run" <<< "$output" ||
  { echo "$output"; fail "another system's checkpoint accepted"; }
[ "$(stat -c %s half.h5)" = "$size" ] || fail "a refused restart changed the checkpoint ($size bytes before, $(stat -c %s half.h5) after)"
"$evolve" "${maxwell_run[@]}" --final-time 0.2 --restart half.h5 --checkpoint again.h5 > again.log 2>&1 &&
  "$compare" straight.h5 /checkpoint/state again.h5 /checkpoint/state > /dev/null ||
  fail "the checkpoint no longer restarts after a refused restart"

# Refusals name what is missing. Each case: expected message, then the arguments.
refused() {
  local expected=$1
  shift
  local output
  output=$("$evolve" "$@" 2>&1)
  local status=$?
  if [ "$status" -eq 0 ] || ! grep -q -- "$expected" <<< "$output"; then
    echo "$output"
    fail "expected a refusal naming '$expected' (exit $status): $*"
  fi
}
maxwell=$systems/maxwell_plane_gauge_wave_3d.tn
refused "no value for parameter 'lam'" --fixture "$maxwell" --param a=1
refused "no value for parameters 'm2', 'lam'" --fixture "$systems/klein_gordon_quartic_3d.tn" --param amp=1
refused "the module has no parameter 'c'" --fixture "$maxwell" --param a=1 --param lam=0 --param c=1
refused "'t' is the time of the run" --fixture "$maxwell" --param a=1 --param lam=0 --param t=1
refused "--b, --eta apply to BSSN runs only" --fixture "$maxwell" --param a=1 --param lam=0 --b 2 --eta 1
refused "--param and --param-file set a system module's parameters" --param a=1
cat > no_boundary.tn <<'TN'
field scalar u
field scalar v
simulation { spatial { scheme = fd  derivative = centered  order = 2 } }
initial_data {
  u = sin(x)
  v = 0
}
evolution Wave {
  dt u = v
  dt v = laplacian(u)
  boundary u periodic
}
TN
refused "no boundary condition for the evolved field 'v'" --fixture no_boundary.tn
cat > no_data.tn <<'TN'
field scalar u
field scalar v
simulation { spatial { scheme = fd  derivative = centered  order = 2 } }
initial_data {
  u = sin(x)
}
evolution Wave {
  dt u = v
  dt v = laplacian(u)
  boundary u periodic
  boundary v periodic
}
TN
refused "do not assign the evolved field 'v'" --fixture no_data.tn
cat > no_rhs.tn <<'TN'
field scalar u
field scalar r
simulation { spatial { scheme = fd  derivative = centered  order = 2 } }
constraints C {
  residual r = laplacian(u)
}
TN
refused "the module has no tensorium_rhs_grid_parallel kernel" --fixture no_rhs.tn
printf 'a = 1\nlam = "x"\n' > bad.toml
refused "'lam' must be a number" --fixture "$maxwell" --param-file bad.toml
printf 'a = 1\nlam = 0.1\n' > good.toml
"$evolve" --fixture "$maxwell" --extent 1 --resolution 12 --final-time 0.05 --param-file good.toml > param_file.log 2>&1 ||
  { cat param_file.log; fail "--param-file"; }
echo "failures: $failures"
[ "$failures" -eq 0 ]
