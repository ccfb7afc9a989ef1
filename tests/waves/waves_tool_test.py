"""tensorium-waves on a table written here in tensorium-evolve's --waves format:
- the (2, 0) mode a damped sinusoid with the l = 2 quasinormal frequency of a mass-2 hole
  (omega = 0.3737 / 2, gamma = 0.0890 / 2): --ringdown with --mass 2 returns M omega = 0.3737,
  M gamma = 0.0890;
- the (2, 2) mode the second derivative of the strain h = exp(-((t - 60) / 12)^2) e^{-0.8 i t}:
  --strain returns R h+ and R hx to 1e-6 (R = 50);
- the twin: the same strain check on the data of the wrong mode (2, 1), a different signal, fails;
- bad input: a message and exit status 1 or 2.
Prints "failures: N"."""
import cmath
import csv
import math
import os
import re
import subprocess
import sys

tool, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
os.chdir(work)
failures = 0


def check(condition, what):
    global failures
    print(("ok    " if condition else "FAIL  ") + what, flush=True)
    failures += 0 if condition else 1


R, dt = 50.0, 0.1
times = [k * dt for k in range(1200)]


def strain(t):
    return math.exp(-((t - 60) / 12) ** 2) * cmath.exp(-0.8j * t)


def psi4_22(t):
    u = (t - 60) / 12
    a = -2 * u / 12 - 0.8j
    return strain(t) * (a * a - 2 / 144)


with open("waves.csv", "w") as f:
    f.write("time,step,radius,l,m,psi4_re,psi4_im\n")
    for k, t in enumerate(times):
        ring = 0.02 * math.exp(-0.0445 * (t - 30)) * math.cos(0.18685 * (t - 30) + 1.0) if t >= 30 else 0.0
        for l, m, v in ((2, 0, complex(ring, 0)), (2, 1, 0.5 * psi4_22(t + 7)), (2, 2, psi4_22(t))):
            f.write(f"{t!r},{k},{R!r},{l},{m},{v.real!r},{v.imag!r}\n")


def run(*args):
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


rc, out, err = run("waves.csv", "--mode", "2,0", "--ringdown", "30,100", "--mass", "2")
print(out + err)
w = re.search(r"M omega = ([0-9.-]+), M gamma = ([0-9.-]+)", out)
check(rc == 0 and w and abs(float(w.group(1)) - 0.3737) < 1e-4 and abs(float(w.group(2)) - 0.0890) < 1e-4,
      "ringdown: M omega = 0.3737, M gamma = 0.0890 recovered")


def strain_error(path):
    worst = 0
    for row in csv.DictReader(open(path)):
        h = strain(float(row["time"]))
        worst = max(worst, abs(float(row["r_h_plus"]) - R * h.real), abs(float(row["r_h_cross"]) + R * h.imag))
    return worst


rc, out, err = run("waves.csv", "--mode", "2,2", "--strain", "h22.csv", "--omega0", "0.1")
check(rc == 0 and strain_error("h22.csv") < 1e-6, f"strain of (2, 2) by fixed-frequency integration: error {strain_error('h22.csv'):.2e}")
rc, out, err = run("waves.csv", "--mode", "2,1", "--strain", "h21.csv", "--omega0", "0.1")
check(rc == 0 and strain_error("h21.csv") > 1.0, "twin: the (2, 1) data are not that strain")

with open("uneven.csv", "w") as f:
    f.write("time,step,radius,l,m,psi4_re,psi4_im\n")
    for k, t in enumerate((0.0, 0.1, 0.3, 0.4)):
        f.write(f"{t},{k},10,2,2,0,0\n")
for args, status, words in [
    (("missing.csv", "--ringdown", "0,1"), 2, "cannot read"),
    (("waves.csv",), 2, "nothing to do"),
    (("waves.csv", "--strain", "x.csv"), 2, "--omega0"),
    (("waves.csv", "--mode", "1,0", "--ringdown", "0,1"), 2, "--mode"),
    (("waves.csv", "--mode", "3,3", "--ringdown", "0,1"), 2, "no (3, 3) mode"),
    (("waves.csv", "--ringdown", "5,1"), 2, "T0 < T1"),
    (("waves.csv", "--mode", "2,0", "--ringdown", "30,30.3"), 1, "at least 8"),
    (("uneven.csv", "--strain", "u.csv", "--omega0", "0.1"), 1, "not equally spaced"),
]:
    rc, out, err = run(*args)
    check(rc == status and words in out + err, f"{' '.join(args)}: exit {rc}, says '{words}'")
print(f"failures: {failures}")
