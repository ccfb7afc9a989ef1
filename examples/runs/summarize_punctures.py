#!/usr/bin/env python3
"""summarize_punctures.py OUTDIR

Reads the monitor tables and logs examples/runs/punctures.sh wrote and prints, per run: how far
it got, the Hamiltonian constraint's L2 norm (outside the excision radius) at t = 50 and its
largest value over 50 <= t <= 100 (single puncture), the lapse at the puncture after t = 30,
and for the head-on runs the time the tracked punctures meet (separation below 2h), the
smallest lapse after that and L2(H) after the merger. Exit status 1 when a run stopped early."""
import csv
import math
import pathlib
import re
import sys


def table(path):
    with open(path, newline="") as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def spacing(log):
    """The grid spacing and final time from a tensorium-evolve log (None for another file)."""
    if not log.exists():
        return None
    match = re.search(r"h = ([0-9.]+), dt = [0-9.]+, \d+ steps to t = ([0-9.e+]+)", log.read_text())
    return (float(match.group(1)), float(match.group(2))) if match else None


def nearest(rows, t):
    return min(rows, key=lambda r: abs(r["time"] - t))


def main():
    out = pathlib.Path(sys.argv[1])
    failures = 0
    for path in sorted(out.glob("*.csv")):
        if path.name.endswith("_profile.csv"):
            continue
        name = path.stem
        grid = spacing(out / (name + ".log"))
        if grid is None:
            continue
        h, final = grid
        rows = table(path)
        last = rows[-1]["time"]
        done = last >= final - 1e-9
        failures += not done
        print(f"{name}: h = {h:g}, reached t = {last:.2f} of {final:g}{'' if done else ' (STOPPED)'}, "
              f"min alpha at the end {rows[-1]['min_alpha']:.4f}")
        if "x2" not in rows[0]:
            if last >= 50:
                at50 = nearest(rows, 50)["L2_H"]
                late = max(r["L2_H"] for r in rows if 50 <= r["time"] <= 100)
                print(f"  L2(H), r > excision: {at50:.3e} at t = 50, largest over 50 <= t <= 100 {late:.3e} "
                      f"({late / at50:.2f}x of t = 50), {rows[-1]['L2_H']:.3e} at the end")
            after = [r["alpha1"] for r in rows if r["time"] >= 30]
            if after:
                print(f"  lapse at the puncture for t >= 30: largest {max(after):.4f}, at the end {rows[-1]['alpha1']:.4f}")
            continue
        separation = [(r["time"], math.dist((r["x1"], r["y1"], r["z1"]), (r["x2"], r["y2"], r["z2"]))) for r in rows]
        meeting = next((t for t, s in separation if s < 2 * h), None)
        if meeting is None:
            print(f"  the punctures did not meet: smallest separation {min(s for _, s in separation):.4f} (2h = {2 * h:g})")
            continue
        after = [r for r in rows if r["time"] >= meeting]
        merged = [r for r in rows if r["time"] >= meeting + 5]
        half = next((t for t, s in separation if s < 0.5), None)
        print(f"  separation below 0.5 (the same mark on every grid) at t = {half:.3f}")
        print(f"  punctures meet (separation < 2h = {2 * h:g}) at t = {meeting:.3f}; "
              f"smallest lapse afterwards {min(r['min_alpha'] for r in after):.4f}")
        if merged:
            print(f"  L2(H) from t = {meeting + 5:.1f}: largest {max(r['L2_H'] for r in merged):.3e}, "
                  f"at the end {rows[-1]['L2_H']:.3e}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
