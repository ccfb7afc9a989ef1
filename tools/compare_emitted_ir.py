#!/usr/bin/env python3
"""compare_emitted_ir.py record|compare DIR [--compiler Tensorium_cc] [--jobs N] [--objects]

The MLIR, LLVM IR and host header Tensorium_cc emits for every fixture that compiles (fixtures/**/*.tn
outside fixtures/errors), at the default options, on the scalar path (--vector-width 1), untiled without prefetch or two-pass
rows, and 4-wide with explicit tiles.
`record` writes them under DIR; `compare` emits them again with the given compiler and reports
every fixture whose output differs from DIR's, exit status 1 when any does. A refactoring of the
code generator that must not change behaviour records with the compiler before it and compares
with the one after."""
import argparse
import concurrent.futures
import hashlib
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
VARIANTS = {"default": [], "scalar": ["--vector-width", "1"],
            "untiled": ["--cache-blocking=off", "--prefetch=off", "--stencil-pass=off"],
            "four-wide": ["--vector-width", "4", "--lane-shifts=off", "--cache-blocking=2x16"]}
# The emitted MLIR (the emitter's output, op for op), the optimised LLVM IR and the host header.
SUFFIXES = (".mlir", ".ll", ".h")


def fixtures():
    for path in sorted((ROOT / "fixtures").rglob("*.tn")):
        if "errors" not in path.relative_to(ROOT / "fixtures").parts:
            yield path


def emit(compiler, fixture, variant, suffixes):
    """The outputs of one compile as {suffix: bytes}, or None when the fixture does not compile."""
    flags = {".mlir": "--emit-mlir", ".ll": "--emit-llvm", ".h": "--emit-host-header", ".o": "--emit-obj"}
    with tempfile.TemporaryDirectory() as scratch:
        paths = {suffix: os.path.join(scratch, "out" + suffix) for suffix in suffixes}
        outputs = [arg for suffix in suffixes for arg in (flags[suffix], paths[suffix])]
        run = subprocess.run([compiler, *VARIANTS[variant], *outputs, str(fixture)], capture_output=True)
        if run.returncode != 0:
            return None
        return {suffix: pathlib.Path(path).read_bytes() for suffix, path in paths.items()}


def key(fixture, variant):
    return str(fixture.relative_to(ROOT / "fixtures")).replace("/", "__") + "." + variant


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["record", "compare"])
    parser.add_argument("directory", type=pathlib.Path)
    parser.add_argument("--compiler", default=str(ROOT / "build" / "bin" / "Tensorium_cc"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--objects", action="store_true", help="also the object files (for this machine's CPU)")
    args = parser.parse_args()
    suffixes = SUFFIXES + ((".o",) if args.objects else ())
    jobs = [(f, v) for f in fixtures() for v in VARIANTS]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        outputs = list(pool.map(lambda fv: emit(args.compiler, *fv, suffixes), jobs))
    if args.mode == "record":
        args.directory.mkdir(parents=True, exist_ok=True)
    compared = differing = 0
    for (fixture, variant), out in zip(jobs, outputs):
        name = key(fixture, variant)
        for suffix in suffixes:
            stored = args.directory / (name + suffix)
            text = out[suffix] if out else b"does not compile\n"
            if args.mode == "record":
                stored.write_bytes(text)
                continue
            compared += 1
            if not stored.exists():
                print(f"{name}{suffix}: not in {args.directory}")
                differing += 1
            elif stored.read_bytes() != text:
                print(f"{name}{suffix}: differs (sha256 {hashlib.sha256(stored.read_bytes()).hexdigest()[:12]} -> "
                      f"{hashlib.sha256(text).hexdigest()[:12]})")
                differing += 1
    if args.mode == "record":
        print(f"recorded {len(jobs)} compiles of {len(jobs) // len(VARIANTS)} fixtures in {args.directory}")
        return 0
    print(f"{compared - differing} of {compared} outputs identical")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
