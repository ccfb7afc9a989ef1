#!/usr/bin/env python3
"""Mutation fuzzing of the tools' other inputs, seeded and bounded:

  study     the study files of verification/studies and convergence/studies, mutated (extreme and
            non-representable numbers, wrong types, tables replaced by values, deleted, repeated or
            unknown keys, fixture paths that are missing, devices, folders or symbolic-link loops),
            through tensorium-verify or tensorium-converge;
  elliptic  the declared elliptic problems of fixtures/elliptic, mutated (numbers, lines, tokens),
            through tensorium-solve;
  evolve    tensorium-evolve command lines drawn from its options with good, extreme and malformed
            values on small grids.

A finding is a signal or an exit status the tool does not document, a time or memory limit hit
by a refusal, a refusal (exit status 2, or 1 for a program that does not compile) without a
`file:line:col: error:` location where the input has one, or a study with an integer no double
holds exactly that was not refused. Runs that are still going at the time limit were accepted
(valid input, a real run) and are counted, not judged. Findings are saved under --reproducers.

  tool_fuzz.py MODE BIN_DIR SOURCE_DIR [--seconds 60] [--count N] [--seed 1] [--timeout 8]
               [--reproducers DIR]
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

parser = argparse.ArgumentParser()
parser.add_argument("mode", choices=["study", "elliptic", "evolve"])
parser.add_argument("bin")
parser.add_argument("source")
parser.add_argument("--seconds", type=float, default=60)
parser.add_argument("--count", type=int, default=0, help="stop after this many runs (0: only --seconds)")
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--timeout", type=float, default=8)
parser.add_argument("--reproducers", default=None)
args = parser.parse_args()
args.bin, args.source = os.path.abspath(args.bin), os.path.abspath(args.source)

located = re.compile(r"^\S.*:\d+:\d+: error: ")
# Integers a double cannot hold exactly (2^53 + 1, the int64 extremes), and ones it can.
NOT_REPRESENTABLE = ["9007199254740993", "9223372036854775807", "-9223372036854775807", "18014398509481985"]
NUMBERS = ["0", "-1", "1", "2", "3", "1.5", "-0.0", "1e308", "-1e308", "1e-320", "nan", "inf", "-inf", "1e400",
           "9007199254740992", "2147483648", "65", "100000", "0x10", "1_000", "07"]
VALUES = ['"x"', '""', "[]", "[1]", "[[1, 2, 3]]", "{}", "{a = 1}", "true", "1979-05-27"]


def environment():
    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1",
               TENSORIUM_MEMORY_LIMIT="2G")
    return env


def run(command, cwd):
    """(status, stderr); status None when the time limit ended it."""
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, errors="replace",
                              cwd=cwd, env=environment(), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, ""
    return proc.returncode, proc.stderr


def judge(status, stderr, allowed, need_location):
    """The kind of finding, or None."""
    if status is None:
        return None
    if status < 0:
        return f"signal {-status}"
    if status not in allowed:
        return f"exit status {status}"
    if "out of memory" in stderr.lower() or "bad_alloc" in stderr:
        return "memory exhausted instead of a refusal"
    if status in need_location and not any(located.match(line) for line in stderr.splitlines()):
        first = next((line for line in stderr.splitlines() if "error" in line), stderr.strip()[:160])
        return "refusal without a location: " + first[:200]
    return None


# ------------------------------------------------------------------------------------- study files
def study_seeds(work):
    seeds = []
    for folder, tool in (("verification/studies", "tensorium-verify"), ("convergence/studies", "tensorium-converge")):
        root = os.path.join(args.source, folder)
        for name in sorted(os.listdir(root)):
            if not name.endswith(".toml"):
                continue
            with open(os.path.join(root, name)) as f:
                text = f.read()
            # Fixture paths made absolute, so that the mutant can live in the scratch folder.
            text = re.sub(r'^(\s*\w*fixture\s*=\s*")([^"/][^"]*)"',
                          lambda m: m.group(1) + os.path.normpath(os.path.join(root, m.group(2))) + '"', text,
                          flags=re.M)
            seeds.append((name, tool, text))
    return seeds


def holds_unrepresentable(text):
    """Whether the TOML text (as Python's own reader parses it) holds an integer that no double
    holds exactly; False when it does not parse."""
    try:
        document = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return False

    def walk(value):
        if isinstance(value, dict):
            return any(walk(v) for v in value.values())
        if isinstance(value, list):
            return any(walk(v) for v in value)
        return isinstance(value, int) and not isinstance(value, bool) and int(float(value)) != value
    return walk(document)


def mutate_study(text, rng, hostile_paths):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        line = lines[i]
        op = rng.random()
        numbers = list(re.finditer(r"(?<![\w.\"])-?\d+(\.\d+)?([eE][-+]?\d+)?(?![\w.\"])", line))
        if op < 0.35 and numbers and not line.lstrip().startswith("#"):
            m = rng.choice(numbers)
            if rng.random() < 0.4:
                value = rng.choice(NOT_REPRESENTABLE)
            else:
                value = rng.choice(NUMBERS + VALUES)
            lines[i] = line[:m.start()] + value + line[m.end():]
        elif op < 0.5 and '"' in line:
            lines[i] = re.sub(r'"[^"]*"', '"' + rng.choice(hostile_paths) + '"', line, count=1)
        elif op < 0.6:
            del lines[i]
        elif op < 0.7:
            lines.insert(i, line)
        elif op < 0.78:
            lines.insert(i, rng.choice(["bogus = 1", "grid = 1", "verdict = 2", "[unknown]", "tolerance = 1000000",
                                        "rhos = [1]", "parameters = 3", "[grid]", "x.y.z = 1"]))
        elif op < 0.86 and line.startswith("["):
            lines[i] = line.strip("[]") + " = 1"
        elif op < 0.93 and "[" in line and "]" in line and "=" in line:
            lines[i] = re.sub(r"\[[^\[\]]*\]", rng.choice(["[]", "[1]", "[9, 7, 5]", "[33, 41, 2000]"]), line, count=1)
        elif line:
            j = rng.randrange(len(line))
            lines[i] = line[:j] + chr(rng.randrange(1, 128)) + line[j + 1:]
    mutant = "\n".join(lines)
    return mutant, holds_unrepresentable(mutant)


# ---------------------------------------------------------------------------- elliptic fixtures
def mutate_program(text, rng):
    pieces = re.split(r"(\s+)", text)
    words = ["1e308", "-1", "0", "nan", "9007199254740993", "resolution = [600, 600, 600]", "resolution = [2, 2, 2]",
             "tolerance = 0", "max_iterations = 0", "unknown", "residual", "boundary", "domain", "solve", "for", "(",
             ")", "{", "}", "=", "*", "/", "laplacian(", "d_i(", "exact", "params", "\n"]
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        k = rng.randrange(len(pieces))
        if op < 0.35 and re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", pieces[k] or "x"):
            pieces[k] = rng.choice(["0", "-3", "1e308", "1e-308", "600", "100000", "2", "nan"])
        elif op < 0.6:
            pieces.insert(k, rng.choice(words))
        elif op < 0.8:
            del pieces[k]
        else:
            pieces[k] = rng.choice(words)
    return "".join(pieces)


# ------------------------------------------------------------------------------ evolve arguments
EVOLVE_OPTIONS = {
    "--resolution": ["8", "12", "16", "0", "-4", "3", "100000", "1e3", "x"],
    "--extent": ["4", "0", "-1", "1e308", "nan", "1e-300"],
    "--initial-data-resolution": ["8,8,4", "4,4,1", "3,3,3", "1000000,4,4", "8,8", "a,b,c", "-1e300,4,4"],
    "--final-time": ["0", "0.05", "0.1", "-1", "1e308", "inf", "1e-300"],
    "--cfl": ["0.25", "0", "2", "nan", "1e-300"],
    "--excision": ["0", "0.5", "-1", "1e308"],
    "--monitor-every": ["1", "0", "-1", "1099511627777"],
    "--order": ["2", "4", "3", "8", "0"],
    "--ghost": ["3", "1", "0", "65"],
    "--integrator": ["rk4", "ssprk3", "euler", ""],
    "--b": ["1.5", "0", "-1", "1e308", "nan"],
    "--m1": ["0.5", "0", "-0.5", "1e-300"],
    "--p1": ["0.1,0,0", "0,0", "1e308,0,0", "x"],
    "--track": ["0,0,0", "1e308,0,0", "0,0"],
    "--eta": ["2", "-1", "1e308"],
    "--ko-sigma": ["0.1", "-1", "5"],
    "--checkpoint-every": ["1", "0", "-1"],
    "--checkpoint": ["ck.h5", "/dev/null", "missing/ck.h5", "ck.txt", "loop"],
    "--restart": ["missing.h5", "/dev/zero", "loop", "junk.h5", "folder"],
    "--h5": ["out.h5", "out.txt", "missing/out.h5"],
    "--h5-every": ["1", "0"],
    "--csv": ["m.csv", "missing/m.csv", "folder"],
    "--initial-data": ["two-punctures", "loop", "/dev/zero"],
    "--fixture": ["loop", "/dev/zero", "folder", "missing.tn"],
    "--module": ["loop", "/dev/zero", "missing.so"],
    "--bogus": ["1"],
}


def evolve_arguments(rng):
    words = ["--resolution", rng.choice(["14", "16"]), "--initial-data-resolution", "8,8,4", "--final-time", "0.05"]
    for _ in range(rng.randint(1, 4)):
        option = rng.choice(list(EVOLVE_OPTIONS))
        words += [option, rng.choice(EVOLVE_OPTIONS[option])]
    if rng.random() < 0.15:
        words = words[:-1]  # an option without its value
    if rng.random() < 0.1:
        words.append(rng.choice(["stray", "-petsc_option", "--", "-"]))
    return words


def save(kind, name, content):
    if not args.reproducers:
        return
    os.makedirs(args.reproducers, exist_ok=True)
    with open(os.path.join(args.reproducers, name), "w") as f:
        f.write(content if isinstance(content, str) else " ".join(content))
        f.write(f"\n# finding: {kind}\n" if name.endswith(".args") else "")


def main():
    work = tempfile.mkdtemp(prefix=f"tool-fuzz-{args.mode}-")
    os.symlink("loop-b", os.path.join(work, "loop"))
    os.symlink("loop", os.path.join(work, "loop-b"))
    os.mkdir(os.path.join(work, "folder"))
    with open(os.path.join(work, "junk.h5"), "w") as f:
        f.write("not HDF5\n")
    hostile_paths = [os.path.join(work, "loop"), "/dev/zero", os.path.join(work, "folder"), "missing.tn", "",
                     "x" * 5000, "fd", "harmonic_shift", "odd_harmonics", "exact-solution", "two-puncture"]
    rng = random.Random(args.seed)
    counts = {"runs": 0, "findings": 0, "refused": 0, "accepted": 0, "still running": 0, "planted": 0}
    seeds = study_seeds(work) if args.mode == "study" else []
    programs = []
    if args.mode == "elliptic":
        root = os.path.join(args.source, "fixtures", "elliptic")
        for name in sorted(os.listdir(root)):
            if name.endswith(".tn"):
                with open(os.path.join(root, name)) as f:
                    programs.append((name, f.read()))
    start = time.time()
    while time.time() - start < args.seconds and (args.count == 0 or counts["runs"] < args.count):
        counts["runs"] += 1
        planted = False
        if args.mode == "study":
            name, tool, text = rng.choice(seeds)
            mutant, planted = mutate_study(text, rng, hostile_paths)
            path = os.path.join(work, "study.toml")
            with open(path, "w") as f:
                f.write(mutant)
            status, stderr = run([os.path.join(args.bin, tool), path], work)
            kind = judge(status, stderr, (0, 1, 2), (2,))
            content, suffix = mutant, ".toml"
        elif args.mode == "elliptic":
            name, text = rng.choice(programs)
            mutant = mutate_program(text, rng)
            path = os.path.join(work, "problem.tn")
            with open(path, "w") as f:
                f.write(mutant)
            status, stderr = run([os.path.join(args.bin, "tensorium-solve"), path, "--quiet"], work)
            kind = judge(status, stderr, (0, 1, 2, 3), (1,))
            content, suffix = mutant, ".tn"
        else:
            words = evolve_arguments(rng)
            for leftover in ("ck.h5", "out.h5", "out.xmf", "m.csv"):
                if os.path.exists(os.path.join(work, leftover)):
                    os.remove(os.path.join(work, leftover))
            status, stderr = run([os.path.join(args.bin, "tensorium-evolve")] + words, work)
            kind = judge(status, stderr, (0, 1, 2), ())
            if kind is None and status == 2 and "tensorium-evolve: error:" not in stderr:
                kind = "refusal without a message"
            content, suffix = words, ".args"
        if status is None:
            counts["still running"] += 1
        elif status == 0:
            counts["accepted"] += 1
        else:
            counts["refused"] += 1
        if planted:
            counts["planted"] += 1
            if kind is None and status in (None, 0, 1):
                kind = "an integer no double holds exactly was accepted"
        if kind:
            counts["findings"] += 1
            print(f"finding {counts['findings']} (run {counts['runs']}): {kind}")
            save(kind, f"{args.mode}-seed{args.seed}-{counts['runs']}{suffix}", content)
    shutil.rmtree(work, ignore_errors=True)
    print(f"{args.mode}: {counts['runs']} runs in {time.time() - start:.0f} s, seed {args.seed}: "
          f"{counts['refused']} refused, {counts['accepted']} accepted, {counts['still running']} still running at "
          f"{args.timeout:g} s, {counts['planted']} with a non-representable integer; {counts['findings']} findings")
    return 1 if counts["findings"] else 0


sys.exit(main())
