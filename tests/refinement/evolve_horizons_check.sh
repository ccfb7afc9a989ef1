#!/usr/bin/env bash
# Apparent horizons on the refined grid (tensorium-evolve --refine-radii --horizons-every) for a
# Schwarzschild puncture (M = 1, exact isotropic data: the horizon is the sphere r = M/2 of area
# 16 pi M^2, irreducible mass 1). On 32^3 over [-8, 8]^3 in blocks of 8^3 with finer levels about
# the puncture, the finder reads the finest level there: its irreducible mass converges to 1 as
# the finest h falls (0.25, 0.125, 0.0625 M), equals the uniform grid's at the same spacing
# (64^3 on [-4, 4]^3, the same 6-point interpolation of the same data) and is the same on 2 ranks.
# Usage: evolve_horizons_check.sh MPIEXEC EVOLVE FIXTURES WORK
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mpiexec=$1 evolve=$2 fixtures=$3 work=$4
mkdir -p "$work" && cd "$work" && rm -f ./*.csv ./*.out
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
data=(--initial-data "$fixtures/gr/schwarzschild_puncture_3d.tn" --initial-params 1,0,0,0 --track 0,0,0 --final-time 0
      --horizons-every 1)
refined=(--resolution 32 --extent 8 --block-size 8)
run() {
  local ranks=$1 name=$2
  shift 2
  timeout 600 "$mpiexec" --oversubscribe -n "$ranks" "$evolve" "${data[@]}" --horizons "$name.csv" "$@" > "$name.out" 2>&1 ||
    { cat "$name.out"; fail "run $name"; }
}
run 1 h0.25 "${refined[@]}" --refine-radii 2
run 1 h0.125 "${refined[@]}" --refine-radii 2,1
run 1 h0.0625 "${refined[@]}" --refine-radii 2,1,0.75
run 2 h0.125_2ranks "${refined[@]}" --refine-radii 2,1
run 1 uniform_h0.125 --resolution 64 --extent 4
python3 - <<'PY' || failures=$((failures + 1))
import csv, math, sys
def mass(name):
    rows = list(csv.DictReader(open(name + ".csv")))
    if len(rows) != 1 or rows[0]["found"] != "1":
        sys.exit("FAIL: %s: no horizon found" % name)
    return float(rows[0]["irreducible_mass"]), float(rows[0]["area"])
ok = True
def check(cond, text):
    global ok
    print("%-86s %s" % (text, "yes" if cond else "NO"))
    ok = ok and cond
errors = []
for h in ("0.25", "0.125", "0.0625"):
    m, area = mass("h" + h)
    errors.append(abs(m - 1))
    print("finest h = %-6s M_irr = %.16f, area = %.12f (16 pi = %.12f), |M_irr - 1| = %.3e" % (h, m, area, 16 * math.pi, abs(m - 1)))
for (a, b), h in zip(((0, 1), (1, 2)), ("0.25 -> 0.125", "0.125 -> 0.0625")):
    order = math.log2(errors[a] / errors[b])
    check(order >= 3.5, "h %s: observed order %.2f, at least 3.5" % (h, order))
check(errors[2] < 1e-6, "finest h = 0.0625: |M_irr - 1| = %.2e below 1e-6" % errors[2])
refined, uniform = mass("h0.125")[0], mass("uniform_h0.125")[0]
check(abs(refined - uniform) <= 1e-12, "finest h = 0.125 against the uniform grid at h = 0.125: %.3e apart (<= 1e-12)" % abs(refined - uniform))
# Twin: the coarser refined grid is not the uniform grid's answer (the comparison can fail).
coarse = mass("h0.25")[0]
check(abs(coarse - uniform) > 1e-6, "twin: finest h = 0.25 against the uniform grid at h = 0.125: %.3e apart (> 1e-6)" % abs(coarse - uniform))
two = mass("h0.125_2ranks")[0]
check(two == refined, "2 ranks against 1: %.17g and %.17g (the same bits)" % (two, refined))
sys.exit(0 if ok else 1)
PY
echo "failures: $failures"
exit $failures
