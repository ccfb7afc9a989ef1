#!/usr/bin/env python3
"""Plots a tensorium-converge CSV: max error against resolution on a log axis (exponential
decay is a straight line). Usage: plot_convergence.py table.csv out.png "title"."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: plot_convergence.py table.csv out.png title")
    path, out, title = sys.argv[1:]
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("plot_convergence.py: no rows in " + path)
    n = [int(r["n"]) for r in rows]
    err = [max(float(r["max_error"]), 1e-300) for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.semilogy(n, err, "o-", label="max |u - u*|")
    ax.set_xlabel("points per Chebyshev axis n")
    ax.set_ylabel("max error")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main()
