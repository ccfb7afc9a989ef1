#!/usr/bin/env python3
"""Compile time and peak memory of Tensorium_cc against kernel size.

Compiles fixtures of growing size to object files, each compilation in its own process
(wall time and the process's maximum resident size from wait4), and reports the
floating-point operations per grid point of the largest kernel (--emit-op-counts, FMA = 2).

  benchmarks/compile_time.py BUILD_DIR [--seed] [--csv FILE]

--seed adds the first code generator's path (--derivative-sharing=off --simplify=off) for the
4-index fixture, whose order-8 instance is the original 100k-operation example.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = ["--derivative-sharing=off", "--simplify=off"]


def timed(cmd, timeout):
    """Wall time and peak RSS (MB) of one process, via os.wait4."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execvp(cmd[0], cmd)
    deadline = start + timeout
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.wait4(pid, 0)
            return None, None
        time.sleep(0.02)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return time.monotonic() - start, usage.ru_maxrss / 1024.0


def flops(cc, fixture, flags):
    out = subprocess.run([cc, "--kernels", "rhs,residual", "--emit-op-counts", "-", *flags, fixture],
                         check=True, capture_output=True, text=True).stdout
    best = (0, 0)
    for line in out.splitlines():
        m = re.match(r"tensorium_(rhs|residual)_grid_scf .* instructions=(\d+) flops=(\d+)", line)
        if m:
            best = max(best, (int(m.group(3)), int(m.group(2))))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("--seed", action="store_true")
    parser.add_argument("--csv")
    parser.add_argument("--timeout", type=float, default=1800)
    args = parser.parse_args()
    cc = os.path.join(args.build, "bin", "Tensorium_cc")
    tmp = tempfile.mkdtemp(prefix="tensorium-compile-time-")

    cases = [(f"fixtures/gr/{name}.tn", name, []) for name in
             ("scalar_wave_3d", "adm_constraints_3d", "bssn_like_evolution_3d", "bssn_evolution_3d")]
    tensor4 = open(os.path.join(ROOT, "fixtures/codegen/tensor4_contractions.tn")).read()
    for order in (2, 4, 6, 8):
        path = os.path.join(tmp, f"tensor4_o{order}.tn")
        with open(path, "w") as f:
            f.write(tensor4.replace("order = 8", f"order = {order}"))
        cases.append((path, f"tensor4 order {order}", []))
        if args.seed:
            cases.append((path, f"tensor4 order {order} (first generator)", SEED))

    rows = []
    print(f"{'program':40s} {'flops/pt':>9s} {'IR instr':>9s} {'seconds':>8s} {'peak MB':>8s} {'us/instr':>8s}")
    for fixture, name, flags in cases:
        fixture = fixture if os.path.isabs(fixture) else os.path.join(ROOT, fixture)
        ops, instructions = flops(cc, fixture, flags)
        seconds, mb = timed([cc, *flags, "--emit-obj", os.path.join(tmp, "k.o"), fixture], args.timeout)
        if seconds is None:
            print(f"{name:40s} {ops:9d} {instructions:9d} {'> %.0f' % args.timeout:>8s}")
            rows.append((name, ops, instructions, "", ""))
            continue
        print(f"{name:40s} {ops:9d} {instructions:9d} {seconds:8.2f} {mb:8.0f} {1e6 * seconds / max(instructions, 1):8.1f}")
        sys.stdout.flush()
        rows.append((name, ops, instructions, f"{seconds:.2f}", f"{mb:.0f}"))
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("program,flops_per_point,ir_instructions,seconds,peak_mb\n")
            for r in rows:
                f.write(",".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
