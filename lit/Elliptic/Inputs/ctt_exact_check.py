#!/usr/bin/env python3
"""ctt_exact_check.py SOLUTION.csv SUMMARY.txt: the manufactured solution of
fixtures/elliptic/ctt_coupled_box_3d.tn (amplitude 1), u = 0.2 sin x cos y exp(z/2),
W = (0.2 sin y, 0.1 cos(x z), 0.15 exp(x) sin y), evaluated here from its formulas at the
collocation points of the CSV; the largest error per unknown must agree with the 'exact ...: max
error E' lines tensorium-solve printed (relative 1e-6: both evaluate the same closed form in
double precision)."""
import csv
import math
import re
import sys

exact = {
    "u": lambda x, y, z: 0.2 * math.sin(x) * math.cos(y) * math.exp(z / 2),
    "W_0": lambda x, y, z: 0.2 * math.sin(y),
    "W_1": lambda x, y, z: 0.1 * math.cos(x * z),
    "W_2": lambda x, y, z: 0.15 * math.exp(x) * math.sin(y),
}
worst = dict.fromkeys(exact, 0.0)
with open(sys.argv[1]) as f:
    for row in csv.DictReader(f):
        x, y, z = float(row["x"]), float(row["y"]), float(row["z"])
        for name, formula in exact.items():
            worst[name] = max(worst[name], abs(float(row[name]) - formula(x, y, z)))
printed = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s*exact (\S+): max error (\S+) ", line)
    if m:
        printed[m.group(1)] = float(m.group(2))
status = 0
for name, mine in worst.items():
    theirs = printed.get(name)
    ok = theirs is not None and abs(theirs - mine) <= 1e-6 * mine
    print(f"{name}: independent max error {mine:.6e}, tensorium-solve {theirs}: {'agree' if ok else 'DISAGREE'}")
    status |= not ok
sys.exit(status)
