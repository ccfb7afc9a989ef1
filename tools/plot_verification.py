"""Log-log plot of a tensorium-verify CSV: the first norm column against the spacing h, one
line per (label, order), with h^p reference slopes. Formulation testbeds (rows labelled
"<test> H" and "<test> error") get two panels instead: the Hamiltonian constraint's L2 norm
against time for every resolution, and the compared component's error against dx.
Usage: plot_verification.py CSV PNG TITLE"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def finite(text):
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def testbed_plot(rows, target, title) -> int:
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6))
    history, errors = {}, {}
    for row in rows:
        order, n = int(row["order"]), int(row["n"])
        if row["label"].endswith(" H"):
            t, value = finite(row["first_order"]), finite(row["first_l2"])
            if t is not None and value is not None and value > 0:
                history.setdefault((order, n), []).append((t, value))
        elif row["label"].endswith(" error"):
            h, value = finite(row["h"]), finite(row["second_l2"])
            if h is not None and value is not None and value > 0:
                errors.setdefault(order, []).append((h, value))
    for (order, n), points in sorted(history.items()):
        ts, vs = zip(*sorted(points))
        left.semilogy(ts, vs, "o-", label=f"order {order}, rho = {n // 50}")
    left.set_xlabel("t (crossing times)")
    left.set_ylabel("L2 norm of the Hamiltonian constraint")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize="small")
    for order, points in sorted(errors.items()):
        hs, vs = zip(*sorted(points))
        line, = right.loglog(hs, vs, "o-", label=f"order {order}")
        right.loglog(hs, [vs[-1] * (h / hs[-1]) ** order for h in hs], ":", color=line.get_color(), label=f"dx^{order}")
    right.set_xlabel("dx")
    right.set_ylabel("L2 error of the compared component at T")
    right.grid(True, which="both", alpha=0.3)
    if errors:
        right.legend(fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(target, dpi=120)
    return 0


def main() -> int:
    source, target, title = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(source, newline="") as f:
        rows = list(csv.DictReader(f))
    if any(row["label"].endswith(" H") for row in rows):
        return testbed_plot(rows, target, title)
    series = {}
    for row in rows:
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
