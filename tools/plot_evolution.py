"""Constraint norms and puncture tracks of a tensorium-evolve run from its --csv CSV:
L2 and max of H and |M| against time (log axis), and the tracked puncture x positions against
time and their coordinate separation. Usage: plot_evolution.py CSV PNG [TITLE]"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    source, target = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else source
    with open(source, newline="") as f:
        rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    if not rows:
        print(f"plot_evolution: {source} has no rows", file=sys.stderr)
        return 1
    t = [r["time"] for r in rows]
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(15, 4.5))
    for key, style in (("L2_H", "-"), ("max_H", "--"), ("L2_M", "-"), ("max_M", "--")):
        left.semilogy(t, [r[key] for r in rows], style, label=key.replace("_", " "))
    left.set_xlabel("t")
    left.set_ylabel("constraint violation (outside the excised punctures)")
    left.legend()
    left.grid(True, which="both", alpha=0.3)
    tracked = sum(1 for key in rows[0] if key.startswith("x"))
    for q in range(1, tracked + 1):
        middle.plot(t, [r[f"x{q}"] for r in rows], label=f"puncture {q}")
    middle.set_xlabel("t")
    middle.set_ylabel("x of tracked puncture")
    middle.legend()
    middle.grid(True, alpha=0.3)
    if tracked >= 2:
        separation = [((r["x1"] - r["x2"]) ** 2 + (r["y1"] - r["y2"]) ** 2 + (r["z1"] - r["z2"]) ** 2) ** 0.5
                      for r in rows]
        right.plot(t, separation)
    right.set_xlabel("t")
    right.set_ylabel("coordinate separation of the punctures")
    right.grid(True, alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(target, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
