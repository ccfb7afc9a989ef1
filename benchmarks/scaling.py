#!/usr/bin/env python3
"""Strong scaling of one distributed BSSN RK4 step (TensoriumDistributedStepBenchmark) at 64^3
and 128^3 on 1 and 2 ranks (one OpenMP thread each), plus 1 rank with 2 OpenMP threads, in
interleaved rounds; prints the split of a step (best round per configuration), the speed-ups,
halo bytes per step per rank, and a weak-scaling model built from the measured per-rank numbers.

  python3 benchmarks/scaling.py build [--rounds 2] [--steps 2] [--grids 64,128]
"""
import argparse
import os
import re
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("build")
parser.add_argument("--rounds", type=int, default=2)
parser.add_argument("--steps", type=int, default=2)
parser.add_argument("--grids", default="64,128")
args = parser.parse_args()
bench = os.path.join(args.build, "bin", "TensoriumDistributedStepBenchmark")
mpiexec = os.environ.get("MPIEXEC", "mpiexec")
configs = [(1, 1), (2, 1), (1, 2)]  # (ranks, OpenMP threads per rank)
grids = [int(g) for g in args.grids.split(",")]
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

best = {}
for round_ in range(args.rounds):
    for n in grids:
        for ranks, threads in configs:
            cmd = [bench, "--grid", str(n), "--steps", str(args.steps)]
            if ranks > 1:
                cmd = [mpiexec, "--oversubscribe", "--bind-to", "none", "-n", str(ranks)] + cmd
            out = subprocess.run(cmd, env=dict(env, OMP_NUM_THREADS=str(threads)), capture_output=True, text=True,
                                 check=True).stdout
            line = next(l for l in out.splitlines() if l.startswith("grid="))
            values = dict(re.findall(r"(\w+)=(\S+)", line))
            key = (n, ranks, threads)
            print(f"round {round_} {line}", file=sys.stderr, flush=True)
            if key not in best or float(values["step_s"]) < float(best[key]["step_s"]):
                best[key] = values

parts = ["kernel_s", "exchange_s", "copy_s", "boundary_s", "hook_s", "poststep_s", "integrator_s"]
print("| grid | ranks x threads | step (s) | " + " | ".join(p[:-2] for p in parts) + " | speed-up | halo MB/step/rank |")
print("|---|---|---|" + "---|" * len(parts) + "---|---|")
for n in grids:
    base = float(best[(n, 1, 1)]["step_s"])
    for ranks, threads in configs:
        v = best[(n, ranks, threads)]
        step = float(v["step_s"])
        halo = int(v["halo_bytes_per_exchange"]) * int(v["exchanges_per_step"]) / 1e6
        print(f"| {n}^3 | {ranks} x {threads} | {step:.3f} | "
              + " | ".join(f"{float(v[p]):.3f}" for p in parts)
              + f" | {base / step:.2f} | {halo:.1f} |")

# Weak-scaling model from the measured 1-rank, 1-thread split at the largest grid: compute time
# per owned point (kernel, copies, boundary work averaged over the box, hook, integrator) and a
# network with latency alpha and bandwidth beta per rank (assumptions, stated), 26 neighbour
# messages per exchange, 4 exchanges per step. Global reductions only at monitored steps.
n = grids[-1]
v = best[(n, 1, 1)]
per_point = sum(float(v[p]) for p in parts if p != "exchange_s") / n**3
alpha, beta = 2e-6, 10e9  # s, bytes/s: an InfiniBand-class interconnect
ghost, dof = 3, 30
print("\nWeak-scaling model (per-rank box m^3, measured %.3g us per point per step; network alpha = %g us, "
      "beta = %g GB/s; ghost %d, %d values per point):" % (per_point * 1e6, alpha * 1e6, beta / 1e9, ghost, dof))
print("| m (points per rank side) | compute (s) | halo MB/exchange | exchange (s, 4 per step) | efficiency |")
print("|---|---|---|---|---|")
for m in (16, 24, 32, 48, 64, 96, 128):
    compute = per_point * m**3
    halo_bytes = ((m + 2 * ghost) ** 3 - m**3) * dof * 8
    exchange = 4 * (26 * alpha + halo_bytes / beta)
    print(f"| {m} | {compute:.4f} | {halo_bytes / 1e6:.2f} | {exchange:.4f} | {compute / (compute + exchange):.3f} |")
