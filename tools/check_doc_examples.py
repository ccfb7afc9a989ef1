#!/usr/bin/env python3
"""check_doc_examples.py TENSORIUM_CC DOC.md...

Compiles every example program of the documents with `Tensorium_cc --syntax-only`: fenced
blocks tagged `tn` must compile without an error or a warning; blocks tagged `tn-error` must be
refused (exit status 1) with the message their first line states (`# error: MESSAGE`). Prints
one line per example and exits 1 when any does not behave as stated."""
import pathlib
import re
import subprocess
import sys
import tempfile


def examples(doc):
    text = doc.read_text()
    for match in re.finditer(r"^```(tn|tn-error)\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        line = text.count("\n", 0, match.start()) + 1
        yield line, match.group(1), match.group(2)


def main():
    compiler, docs = sys.argv[1], [pathlib.Path(p) for p in sys.argv[2:]]
    failures = count = 0
    with tempfile.TemporaryDirectory() as scratch:
        for doc in docs:
            for line, kind, program in examples(doc):
                count += 1
                source = pathlib.Path(scratch) / f"example_{count}.tn"
                source.write_text(program)
                run = subprocess.run([compiler, "--syntax-only", str(source)], capture_output=True, text=True)
                where = f"{doc.name}:{line}"
                if kind == "tn":
                    ok = run.returncode == 0 and "warning:" not in run.stderr and "error:" not in run.stderr
                else:
                    expected = re.match(r"# error: (.*)", program)
                    ok = bool(expected) and run.returncode == 1 and f"error: {expected.group(1)}" in run.stderr
                print(f"{'ok  ' if ok else 'FAIL'} {where} ({kind})")
                if not ok:
                    failures += 1
                    print(run.stderr)
    print(f"{count - failures} of {count} examples behave as documented")
    return 1 if failures or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
