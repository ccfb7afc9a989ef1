#!/usr/bin/env python3
"""check_tutorial.py SOURCE_ROOT BUILD_DIR [DOC.md]

Runs docs/tutorial.md as a reader would: in an empty folder, with TENSORIUM=SOURCE_ROOT and
BUILD_DIR/bin first on PATH, it writes every file the page gives (fenced blocks whose info
string names a file, such as "tn wave.tn") and runs every command of its `console` blocks
(lines starting with "$ "). The lines shown after a command must appear in its output (stdout
and stderr as one stream), in order, other lines in between allowed; "..." in a shown line matches
anything. Numbers match within a relative 1e-6 (1e-12 absolute), so round-off on another CPU
passes and a changed result does not. Every command must exit with status 0 (the page shows a
failing command's status with `; echo "exit status: $?"`). Exits 1 at the first mismatch."""
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def blocks(text):
    """(info string, body lines) of every fenced block, in order."""
    for match in re.finditer(r"^```([^\n]*)\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        yield match.group(1).strip(), match.group(2).splitlines()


def line_pattern(shown):
    """A regex for a shown line (numbers captured, '...' free, spaces flexible) and its numbers."""
    parts, numbers = [], []
    for piece in re.split(r"(\.\.\.|" + NUMBER + r")", shown.strip()):
        if piece == "...":
            parts.append(".*?")
        elif piece and re.fullmatch(NUMBER, piece):
            parts.append("(" + NUMBER + ")")
            numbers.append(float(piece))
        elif piece:
            parts.append(r"\s+".join(re.escape(w) for w in piece.split()) + (r"\s*" if piece.endswith(" ") else ""))
            if piece.startswith(" ") and parts[-1] and not parts[-1].startswith(r"\s"):
                parts[-1] = r"\s*" + parts[-1]
    return re.compile(r"\s*".join(p for p in parts if p) + r"\s*$"), numbers


def matches(shown, actual):
    pattern, numbers = line_pattern(shown)
    m = pattern.match(actual.strip())
    if not m:
        return False
    return all(abs(float(got) - want) <= 1e-12 + 1e-6 * abs(want) for got, want in zip(m.groups(), numbers))


def main():
    source, build = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    doc = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else source / "docs" / "tutorial.md"
    env = dict(os.environ, TENSORIUM=str(source), PATH=f"{build / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    commands = 0
    with tempfile.TemporaryDirectory() as work:
        for info, lines in blocks(doc.read_text()):
            words = info.split()
            if len(words) == 2 and words[0] in ("tn", "c", "sh", "text"):
                (pathlib.Path(work) / words[1]).write_text("\n".join(lines) + "\n")
                continue
            if words[:1] != ["console"]:
                continue
            i = 0
            while i < len(lines):
                if not lines[i].startswith("$ "):
                    i += 1
                    continue
                command, shown = lines[i][2:], []
                i += 1
                while i < len(lines) and not lines[i].startswith("$ "):
                    shown.append(lines[i])
                    i += 1
                commands += 1
                start = time.monotonic()
                run = subprocess.run(["bash", "-c", command], cwd=work, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
                output = run.stdout.splitlines()
                print(f"$ {command}   ({time.monotonic() - start:.1f} s)")
                if run.returncode != 0:
                    print(f"FAIL: exit status {run.returncode}\n" + run.stdout)
                    return 1
                position = 0
                for want in shown:
                    if not want.strip() or want.strip() == "...":
                        continue
                    while position < len(output) and not matches(want, output[position]):
                        position += 1
                    if position == len(output):
                        print(f"FAIL: this line of the tutorial is not in the output:\n  {want}\noutput:\n" +
                              "\n".join(output))
                        return 1
                    position += 1
    print(f"every one of the tutorial's {commands} commands printed what the page shows")
    return 0 if commands else 1


if __name__ == "__main__":
    sys.exit(main())
