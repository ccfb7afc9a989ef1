#!/usr/bin/env bash
# The short version of the moving-puncture runs (docs/punctures.md): a Schwarzschild puncture
# from alpha = 1 (48^3 on [-9, 9]^3, h = 0.375 M) to t = 6 M stays finite with lopsided
# advection while its lapse collapses, and its broken twin, centred advection, turns non-finite
# near t = 4 M and is reported so. tensorium-trumpet reads the lopsided run's profile and refuses
# bad input.
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mpiexec=$1 evolve=$2 trumpet=$3 work=$4
fixtures=$(cd "$(dirname "$0")/../../fixtures" && pwd)
mkdir -p "$work" && cd "$work" && rm -f ./*.csv ./*.log

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run=(--initial-data "$fixtures/gr/brill_lindquist_3d.tn" --initial-params 1,0,0,0,0,0,0,0 --track 0,0,0
     --resolution 48 --extent 9 --final-time 6 --monitor-every 8 --excision 3)

echo "=== lopsided advection: finite to t = 6, the lapse collapsing"
timeout 600 "$mpiexec" --oversubscribe -n 2 "$evolve" "${run[@]}" --advection lopsided --csv lopsided.csv \
  --profile profile.csv > lopsided.log 2>&1 || fail "the lopsided run stopped: $(grep -m1 error lopsided.log)"
tail -2 lopsided.log | head -1
# min_alpha (column 8) of the last row: collapsed from 1 well below 0.5 around the puncture.
python3 - lopsided.csv <<'PY' || fail "the lapse did not collapse"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
last = rows[-1]
print(f"t = {float(last['time']):.3f}: min alpha {float(last['min_alpha']):.4f}, at the puncture {float(last['alpha1']):.4f}")
first = rows[0]  # Brill-Lindquist data have alpha = 1 everywhere
sys.exit(0 if float(last["time"]) >= 6 and float(last["min_alpha"]) < 0.5 and
         abs(float(first["min_alpha"]) - 1) < 1e-14 and abs(float(first["alpha1"]) - 1) < 1e-14 else 1)
PY

echo "=== the profile of the initial slice: areal radius r psi^2, alpha = 1, K = 0"
timeout 300 "$evolve" "${run[@]}" --final-time 0 --profile initial.csv > initial.log 2>&1 || fail "the t = 0 profile run"
python3 - initial.csv <<'PY' || fail "the initial profile is not the Brill-Lindquist slice"
import csv, sys
rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(sys.argv[1]))]
far = [r for r in rows if r["r"] >= 2]
error = max(abs(r["areal_radius"] / (r["r"] * (1 + 1 / (2 * r["r"])) ** 2) - 1) for r in far)
print(f"{len(rows)} samples; areal radius against r psi^2 for r >= 2: largest relative error {error:.2e}")
sys.exit(0 if len(far) >= 10 and error < 1e-3 and all(r["alpha"] == 1 and r["K"] == 0 for r in rows) else 1)
PY

echo "=== the broken twin, centred advection: non-finite, reported with field, time and point"
timeout 600 "$mpiexec" --oversubscribe -n 2 "$evolve" "${run[@]}" --advection centered > centred.log 2>&1
status=$?
grep -m1 "error" centred.log
[ $status = 1 ] || fail "centred run exit status $status, expected 1"
grep -q "error: the state became non-finite at t = " centred.log || fail "centred run not reported as non-finite"

echo "=== tensorium-trumpet on the profile, and its refusals"
"$trumpet" profile.csv > trumpet.log 2>&1 || fail "tensorium-trumpet on the profile: $(cat trumpet.log)"
cat trumpet.log
grep -q "throat R_0 = 1.3124" trumpet.log || fail "trumpet throat not printed"
printf 'x,alpha\n1,2\n' > bad.csv
"$trumpet" bad.csv > bad.log 2>&1
[ $? = 2 ] && grep -q "no column 'areal_radius'" bad.log || fail "a table without areal_radius not refused: $(cat bad.log)"
"$trumpet" --mass -1 profile.csv > bad.log 2>&1
[ $? = 2 ] && grep -q "mass must be positive" bad.log || fail "--mass -1 not refused"
"$trumpet" missing.csv > bad.log 2>&1
[ $? = 2 ] && grep -q "cannot read profile 'missing.csv'" bad.log || fail "a missing profile not refused"
"$trumpet" --from 20 --to 30 profile.csv > bad.log 2>&1
[ $? = 1 ] && grep -q "no sample with areal radius" bad.log || fail "a range without samples not reported"

echo "failures: $failures"
