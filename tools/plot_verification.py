"""Log-log plot of a tensorium-verify CSV: the first norm column against the spacing h, one
line per (label, order), with h^p reference slopes. Usage: plot_verification.py CSV PNG TITLE"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    source, target, title = sys.argv[1], sys.argv[2], sys.argv[3]
    series = {}
    with open(source, newline="") as f:
        for row in csv.DictReader(f):
            value = float(row["first_l2"])
            if value > 0 and math.isfinite(value):
                series.setdefault((row["label"], int(row["order"])), []).append((float(row["h"]), value))
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    for (label, order), points in sorted(series.items()):
        points.sort()
        hs, vs = zip(*points)
        line, = ax.loglog(hs, vs, "o-", label=f"{label}, order {order}")
        ref = [vs[-1] * (h / hs[-1]) ** order for h in hs]
        ax.loglog(hs, ref, ":", color=line.get_color(), label=f"h^{order}")
    ax.set_xlabel("grid spacing h")
    ax.set_ylabel("weighted L2 norm of H (Kasner: max error)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(target, dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
