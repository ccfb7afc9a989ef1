#!/usr/bin/env python3
"""compare_verify_ranks.py MPIEXEC VERIFY WORKDIR CASE ARGS...: runs a tensorium-verify case in
one process and under MPIEXEC -n 2, 3 and 4, and compares every number of the CSV reports: the
verdicts must agree, and norms and observed orders must agree to round-off (relative 1e-11 for
norms, absolute 1e-8 for orders). Prints the largest differences."""
import csv
import math
import os
import subprocess
import sys

mpiexec, verify, work, case, *args = sys.argv[1:]
os.makedirs(work, exist_ok=True)
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))


def run(prefix, tag):
    out = os.path.join(work, f"{case}_{tag}.csv")
    proc = subprocess.run(prefix + [verify, case, *args, "--csv", out], env=env, capture_output=True, text=True,
                          timeout=600)
    verdicts = [line for line in proc.stdout.splitlines() if line.startswith("verdict")]
    with open(out) as f:
        rows = list(csv.reader(f))
    return proc.returncode, verdicts, rows


status, verdicts, serial = run([], "serial")
print(f"serial: exit {status}, {len(serial) - 1} rows, verdicts: {verdicts}")
failed = False
for n in (2, 3, 4):
    s, v, rows = run([mpiexec, "--oversubscribe", "-n", str(n)], f"ranks{n}")
    worst_norm = worst_order = 0.0
    ok = s == status and v == verdicts and len(rows) == len(serial)
    for a, b in zip(serial[1:], rows[1:]):
        ok = ok and a[:3] == b[:3]
        for column, (x, y) in enumerate(zip(a[3:], b[3:]), start=3):
            x, y = float(x), float(y)
            if math.isnan(x) and math.isnan(y):
                continue
            if "order" in serial[0][column]:
                worst_order = max(worst_order, abs(x - y))
            else:
                worst_norm = max(worst_norm, abs(x - y) / max(abs(x), 1e-300))
    ok = ok and worst_norm <= 1e-11 and worst_order <= 1e-8
    print(f"mpirun -n {n}: exit {s}, max relative difference of norms {worst_norm:.3e}, "
          f"max difference of observed orders {worst_order:.3e}, verdicts {'equal' if v == verdicts else v}: "
          f"{'PASS' if ok else 'FAIL'}")
    failed = failed or not ok
sys.exit(1 if failed or status != 0 else 0)
