#!/usr/bin/env python3
"""Whole-pipeline mutation fuzzing: fixtures mutated with the .tn dictionary (fuzz/tn.dict) go
through Tensorium_cc's front end, kernel planning, MLIR generation, lowering and LLVM IR emission
(`--emit-llvm` and `--emit-host-header`) in a subprocess with time and memory limits. A finding
is a crash (signal or exit status other than 0 and 1), a time or memory limit hit, or an error
without a `file:line:col: error:` location; each is saved under REPRODUCERS and fails the run.
The time limit of a mutant is the larger of --timeout and 3x the time its unmutated fixture
takes with the same binary, so that a slow (sanitizer) build or machine does not report the
heaviest fixtures' ordinary compile time as a hang.

  pipeline_fuzz.py TENSORIUM_CC FIXTURES_DIR [--seconds 120] [--seed 1] [--reproducers DIR]
                   [--timeout 20] [--memory-mb 4096 (0: no limit, for sanitizer builds)]
                   [--replay DIR]   (re-runs saved reproducers: none may be a finding)
"""
import argparse
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("compiler")
parser.add_argument("fixtures")
parser.add_argument("--seconds", type=float, default=120)
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--reproducers", default=None)
parser.add_argument("--replay", default=None)
parser.add_argument("--timeout", type=float, default=20)
parser.add_argument("--memory-mb", type=int, default=4096)
args = parser.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
dictionary = []
with open(os.path.join(here, "tn.dict")) as f:
    for line in f:
        m = re.match(r'^\w+="(.*)"\s*$', line.strip())
        if m:
            dictionary.append(m.group(1).encode().decode("unicode_escape"))
dictionary += ["+", "-", "*", "/", "^", "(", ")", "[", "]", ",", "=", "{", "}", "\n", "0", "1", "2.5", "1e300",
               "i", "j", "k", "u", "d_i(", "laplacian(", "contract(", "dissipation(", "sqrt(", "order = 8",
               "advect(beta[k], ", "abs(", "advection = centered"]


def limits():
    # 0: no address-space limit (AddressSanitizer reserves terabytes of shadow memory).
    if args.memory_mb > 0:
        bytes_ = args.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (bytes_, bytes_))


located = re.compile(r"^.+:\d+:\d+: error: ")


longest = [0.0]


def classify(text, path, timeout=None):
    """None when the pipeline handled `text` properly, else the kind of finding."""
    timeout = timeout or args.timeout
    with open(path, "w") as f:
        f.write(text)
    command = [args.compiler, "--emit-llvm", os.devnull, "--emit-host-header", os.devnull, path]
    began = time.time()
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, preexec_fn=limits,
                              errors="replace")
    except subprocess.TimeoutExpired:
        return f"timeout (over {timeout:.0f} s)"
    finally:
        longest[0] = max(longest[0], time.time() - began)
    if proc.returncode not in (0, 1):
        return f"crash (status {proc.returncode})"
    if proc.returncode == 1:
        # Located diagnostics echo the (mutated, arbitrary) source line after them; an error the
        # driver reports without a location starts with its own name.
        if "std::bad_alloc" in proc.stderr or "out of memory" in proc.stderr.lower():
            return "memory limit"
        unlocated = [l for l in proc.stderr.splitlines() if l.startswith("Tensorium_cc: error:")]
        if unlocated:
            return "unlocated error: " + unlocated[0][:160]
        if not any(located.match(l) for l in proc.stderr.splitlines()):
            return "rejected without any located error"
    return None


def mutate(text, rng):
    pieces = re.split(r"(\s+)", text)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        position = rng.randrange(len(pieces) + 1)
        if op < 0.4:
            pieces.insert(position, rng.choice(dictionary))
        elif op < 0.7 and pieces:
            del pieces[min(position, len(pieces) - 1)]
        elif pieces:
            pieces[min(position, len(pieces) - 1)] = rng.choice(dictionary)
    return "".join(pieces)


def main():
    workdir = tempfile.mkdtemp(prefix="pipeline-fuzz-")
    probe = os.path.join(workdir, "input.tn")
    findings = 0
    if args.replay:
        names = sorted(n for n in os.listdir(args.replay) if n.endswith(".tn"))
        for name in names:
            with open(os.path.join(args.replay, name), errors="replace") as f:
                kind = classify(f.read(), probe)
            print(f"replay {name}: {kind or 'handled'}")
            findings += kind is not None
        print(f"replayed {len(names)} reproducers, {findings} findings")
        return 1 if findings else 0
    seeds = []
    for root, _, files in os.walk(args.fixtures):
        for name in sorted(files):
            if name.endswith(".tn"):
                with open(os.path.join(root, name), errors="replace") as f:
                    text = f.read()
                if len(text) < 20000:
                    seeds.append(text)
    rng = random.Random(args.seed)
    baseline = {}  # seed index -> seconds the unmutated fixture takes
    start, runs = time.time(), 0
    while time.time() - start < args.seconds:
        index = rng.randrange(len(seeds))
        if index not in baseline:
            began = time.time()
            classify(seeds[index], probe, timeout=600)
            baseline[index] = time.time() - began
        text = mutate(seeds[index], rng)
        kind = classify(text, probe, timeout=max(args.timeout, 3 * baseline[index]))
        runs += 1
        if kind:
            findings += 1
            print(f"finding {findings} after {runs} runs: {kind}")
            if args.reproducers:
                os.makedirs(args.reproducers, exist_ok=True)
                with open(os.path.join(args.reproducers, f"pipeline-seed{args.seed}-{runs}.tn"), "w") as f:
                    f.write(text)
    print(f"{runs} mutated programs from {len(seeds)} fixtures in {time.time() - start:.0f} s, seed {args.seed}: "
          f"{findings} findings; longest run {longest[0]:.1f} s")
    return 1 if findings else 0


sys.exit(main())
