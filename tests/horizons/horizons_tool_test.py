"""tensorium-horizons as a user runs it: Kerr (M = 1, a = 0.6) from its fixture against the Kerr
closed forms, Schwarzschild from grid data at two resolutions (the area error must fall), the
Brill-Lindquist critical separation, and every kind of bad input (a message, exit status 1 or 2,
never a signal). Prints "failures: N"."""
import math
import re
import subprocess
import sys

tool, source_dir, work = sys.argv[1], sys.argv[2], sys.argv[3]
failures = 0


def check(condition, what):
    global failures
    print(("ok    " if condition else "FAIL  ") + what)
    failures += 0 if condition else 1


def run(*args):
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def number(pattern, text):
    m = re.search(pattern, text)
    return float(m.group(1)) if m else float("nan")


# Kerr: r_+ = M + sqrt(M^2 - a^2), A = 8 pi M r_+, C_eq = 4 pi M,
# C_p = 4 sqrt(r_+^2 + a^2) E(k), k^2 = a^2 / (r_+^2 + a^2) (E by the arithmetic-geometric mean).
M, a = 1.0, 0.6
rp = M + math.sqrt(M * M - a * a)
k2 = a * a / (rp * rp + a * a)


def elliptic_e(m):
    # Complete elliptic integral of the second kind by Gauss-Legendre quadrature (200 points).
    x, w = [], []
    n = 200
    for i in range(n):
        z = math.cos(math.pi * (i + 0.75) / (n + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, z
            for j in range(2, n + 1):
                p0, p1 = p1, ((2 * j - 1) * z * p1 - (j - 1) * p0) / j
            dp = n * (z * p1 - p0) / (z * z - 1)
            dz = p1 / dp
            z -= dz
            if abs(dz) < 1e-16:
                break
        x.append(z)
        w.append(2 / ((1 - z * z) * dp * dp))
    return sum(wi * math.sqrt(1 - m * math.sin(math.pi / 4 * (xi + 1)) ** 2) for xi, wi in zip(x, w)) * math.pi / 4


area, ceq, cp = 8 * math.pi * M * rp, 4 * math.pi * M, 4 * math.sqrt(rp * rp + a * a) * elliptic_e(k2)
rc, out, err = run("--fixture", f"{source_dir}/fixtures/gr/kerr_schild_spinning_3d.tn", "--param", "M=1", "--param", "a=0.6",
                   "--guess", "0.1,0,0,2.5", "--lmax", "12", "--csv", f"{work}/kerr.csv")
print(out + err)
check(rc == 0, "Kerr: found (exit 0)")
check(abs(number(r"area ([0-9.eE+-]+)", out) / area - 1) < 1e-8, f"Kerr: area = 8 pi M r_+ = {area:.10f}")
check(abs(number(r"equatorial \(xy\) ([0-9.eE+-]+)", out) / ceq - 1) < 1e-8, f"Kerr: equatorial circumference 4 pi M")
check(abs(number(r"polar \(xz\) ([0-9.eE+-]+)", out) / cp - 1) < 1e-8, f"Kerr: polar circumference {cp:.10f}")
check(abs(number(r"spin J = \([^,]+, [^,]+, ([0-9.eE+-]+)\)", out) - a * M) < 1e-8, "Kerr: J_z = a M")
check(abs(number(r"Christodoulou mass ([0-9.eE+-]+)", out) - M) < 1e-8, "Kerr: Christodoulou mass M")
with open(f"{work}/kerr.csv") as f:
    rows = f.read().splitlines()
check(len(rows) == 2 and rows[0].startswith("guess,") and rows[1].split(",")[5] == "1", "Kerr: CSV row")

# Schwarzschild M = 1 (one Brill-Lindquist puncture) from grid data: area 16 pi to the grid's accuracy.
errors = []
for n in ("32", "64"):
    rc, out, err = run("--brill-lindquist", "1@0,0,0", "--grid", n, "--grid-half-width", "1.5")
    errors.append(abs(number(r"area ([0-9.eE+-]+)", out) / (16 * math.pi) - 1))
    check(rc == 0, f"grid {n}^3: found, area error {errors[-1]:.3e}")
check(errors[1] < errors[0] / 16, f"grid data: the area error falls at order > 4 ({errors[0]:.2e} -> {errors[1]:.2e})")
# Its twin: the same grid with the wrong mass is not 16 pi.
rc, out, err = run("--brill-lindquist", "1.1@0,0,0", "--grid", "64", "--grid-half-width", "1.5")
check(abs(number(r"area ([0-9.eE+-]+)", out) / (16 * math.pi) - 1) > 0.1, "grid twin (M = 1.1) rejected")

rc, out, err = run("--critical-separation", "0.5,0.5", "--lmax", "12")
print(out + err)
lo, hi = number(r"([0-9.]+) m and", out), number(r"m and ([0-9.]+) m", out)
check(rc == 0 and 1.50 <= lo <= hi <= 1.58, f"Brill-Lindquist critical separation {lo} - {hi} m in [1.50, 1.58]")

# A time-symmetric fixture (its split maps no Kij): Schwarzschild in isotropic coordinates.
rc, out, err = run("--fixture", f"{source_dir}/fixtures/gr/schwarzschild_isotropic_3d.tn", "--param", "M=2",
                   "--time-symmetric", "--guess", "0,0,0,1.5")
check(rc == 0 and abs(number(r"mean coordinate radius ([0-9.eE+-]+)", out) - 1.0) < 1e-9
      and abs(number(r"area ([0-9.eE+-]+)", out) / (64 * math.pi) - 1) < 1e-9,
      "isotropic Schwarzschild M = 2, --time-symmetric: r = M/2, area 16 pi M^2")

# No horizon, and bad input.
rc, out, err = run("--brill-lindquist", "1@0,0,0", "--guess", "6,6,6,0.1")
check(rc == 1 and "no horizon" in out, "no horizon near the guess: exit 1 and 'no horizon'")
for args, status, words in [
    ((), 2, "exactly one slice"),
    (("--brill-lindquist", "1@0,0,0", "--two-punctures"), 2, "exactly one slice"),
    (("--brill-lindquist", "-1@0,0,0"), 2, "positive mass"),
    (("--brill-lindquist", "1@0,0"), 2, "--brill-lindquist"),
    (("--brill-lindquist", "1@0,0,0", "--guess", "0,0,0,-1"), 2, "positive radius"),
    (("--brill-lindquist", "1@0,0,0", "--lmax", "99"), 2, "--lmax"),
    (("--brill-lindquist", "1@0,0,0", "--param", "M=1"), 2, "belong to --fixture"),
    (("--fixture", f"{source_dir}/fixtures/gr/kerr_schild_spinning_3d.tn", "--param", "M=1"), 1, "'a'"),
    (("--fixture", f"{source_dir}/fixtures/gr/kerr_schild_spinning_3d.tn", "--param", "M=1", "--param", "a=0.6",
      "--param", "spin=1"), 1, "'spin'"),
    (("--fixture", f"{source_dir}/fixtures/gr/schwarzschild_isotropic_3d.tn", "--param", "M=1"), 1, "maps no Kij"),
    (("--fixture", f"{work}/missing.tn"), 1, "missing.tn"),
    (("--brill-lindquist", "1@0,0,0", "--csv", f"{work}/no/such/dir/x.csv"), 1, "cannot write"),
]:
    rc, out, err = run(*args)
    check(rc == status and words in out + err, f"{' '.join(args)[:70]}: exit {rc}, says '{words}'")
print(f"failures: {failures}")
