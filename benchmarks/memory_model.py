#!/usr/bin/env python3
"""Checks every tool's documented memory model (docs/memory.md) against the measured peak
resident memory at three sizes: each tool prints its estimate (--memory-estimate, or the
"estimated peak memory" line of tensorium-evolve), then runs for real, and the peak RSS of that
process (wait4) must be within 25 % of the estimate.

  python3 benchmarks/memory_model.py BUILD_DIR [--markdown]

--markdown prints the table as docs/memory.md shows it, dated, with the commit and the CPU.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

build = sys.argv[1]
markdown = "--markdown" in sys.argv[2:]
tool = lambda name: os.path.join(build, "bin", name)
env = dict(os.environ, OMP_NUM_THREADS="1")
fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "elliptic")
scratch = tempfile.mkdtemp(prefix="tensorium-memory-")


def declared_module(fixture):
    """tensorium-solve's module for a fixture, compiled once (the compiler's own memory is not
    the solve's)."""
    module = os.path.join(scratch, "lib" + fixture + ".so")
    subprocess.run([tool("tensorium-solve"), os.path.join(fixtures, fixture + ".tn"), "--save-module", module,
                    "--memory-estimate"], check=True, stdout=subprocess.DEVNULL, env=env)
    return module


box, shell, punctures = (declared_module(f) for f in ("vector_poisson_box_3d", "vector_poisson_shell_3d",
                                                        "two_puncture_problem_3d"))
solve = lambda module, resolution: [tool("tensorium-solve"), "--module", module, "--quiet", "--resolution", resolution]
momentum = ["--p1", "0,0.2,0", "--p2", "0,-0.2,0", "--quiet"]
cases = [
    ("tensorium-two-punctures", [tool("tensorium-two-punctures"), "--resolution", "40,40,20"] + momentum),
    ("tensorium-two-punctures", [tool("tensorium-two-punctures"), "--resolution", "32,32,64"] + momentum),
    ("tensorium-two-punctures", [tool("tensorium-two-punctures"), "--resolution", "64,64,32"] + momentum),
    ("tensorium-verify", [tool("tensorium-verify"), "brill-lindquist", "--orders", "4", "--resolutions", "33,41,49"]),
    ("tensorium-verify", [tool("tensorium-verify"), "brill-lindquist", "--orders", "4", "--resolutions", "49,65,81"]),
    ("tensorium-verify", [tool("tensorium-verify"), "brill-lindquist", "--orders", "4", "--resolutions", "65,81,97"]),
    ("tensorium-converge", [tool("tensorium-converge"), "poisson", "--resolutions", "6,8,12"]),
    ("tensorium-converge", [tool("tensorium-converge"), "poisson", "--resolutions", "6,8,14"]),
    ("tensorium-converge", [tool("tensorium-converge"), "poisson", "--resolutions", "6,8,16"]),
    ("tensorium-evolve", [tool("tensorium-evolve"), "--resolution", "32", "--initial-data-resolution", "12,12,6", "--final-time", "0.01"]),
    ("tensorium-evolve", [tool("tensorium-evolve"), "--resolution", "48", "--initial-data-resolution", "12,12,6", "--final-time", "0.01"]),
    ("tensorium-evolve", [tool("tensorium-evolve"), "--resolution", "64", "--initial-data-resolution", "12,12,6", "--final-time", "0.01"]),
    ("tensorium-solve", solve(box, "7,7,7")),
    ("tensorium-solve", solve(box, "8,8,8")),
    ("tensorium-solve", solve(box, "10,10,10")),
    ("tensorium-solve", solve(shell, "8,16,16")),
    ("tensorium-solve", solve(shell, "10,20,20")),
    ("tensorium-solve", solve(shell, "12,24,24")),
    ("tensorium-solve", solve(punctures, "24,24,12")),
    ("tensorium-solve", solve(punctures, "32,32,16")),
    ("tensorium-solve", solve(punctures, "64,64,32")),
]


def peak_of(command):
    """Runs `command`; returns (stdout, peak resident bytes, exit status)."""
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return out, usage.ru_maxrss * 1024, process.returncode


failed = False
rows = []
print(f"{'tool':26} {'arguments':60} {'estimate MB':>12} {'peak MB':>9} {'ratio':>6}")
for name, command in cases:
    if name == "tensorium-evolve":
        out, peak, status = peak_of(command)
        estimate = float(re.search(r"estimated peak memory: (?:[^(\n]*\()?(\d+) bytes", out).group(1))
    else:
        out, _, _ = peak_of(command + ["--memory-estimate"])
        estimate = float(re.search(r"estimated peak memory: (?:[^(\n]*\()?(\d+) bytes", out).group(1))
        _, peak, status = peak_of(command)
    ratio = peak / estimate
    ok = abs(ratio - 1) <= 0.25 and status in (0, 1)
    failed = failed or not ok
    arguments = " ".join(os.path.basename(a)[3:-6] if a.startswith(scratch) else a
                         for a in command[1:] if a not in momentum + ["--quiet", "--module"])
    rows.append(f"| {name} | {arguments} | {estimate / 1e6:.1f} | {peak / 1e6:.1f} | {ratio:.2f} |")
    arguments = arguments[:60]
    print(f"{name:26} {arguments:60} {estimate / 1e6:12.1f} {peak / 1e6:9.1f} {ratio:6.2f} {'' if ok else 'FAIL'}")
shutil.rmtree(scratch, ignore_errors=True)
if markdown:
    import datetime
    import platform
    here = os.path.dirname(os.path.abspath(__file__))
    commit = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor() or "unknown CPU")
    print("\n| tool | arguments | estimate MB | peak MB | ratio |\n|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nMeasured {datetime.date.today()} at commit {commit} on {os.cpu_count()} cores of {cpu}.")
print("FAIL" if failed else "PASS: every peak within 25 % of its estimate")
sys.exit(1 if failed else 0)
