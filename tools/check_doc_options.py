#!/usr/bin/env python3
"""check_doc_options.py BIN_DIR [ROOT]

Every option the user documentation gives one of the tools (README.md, docs/, the study folders'
and examples' READMEs) must be an option of that tool: its --help output, generated from the
same table its parser uses, must list it. An option belongs to the last tool named before it in
the same code span or code line. Prints every unknown option as FILE:LINE: message and exits 1
when there is one."""
import pathlib
import re
import subprocess
import sys

BIN = pathlib.Path(sys.argv[1])
ROOT = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else pathlib.Path(__file__).resolve().parent.parent)
TOOLS = ("Tensorium_cc", "tensorium-horizons", "tensorium-waves", "Tensorium_abi_probe", "tensorium-two-punctures", "tensorium-solve",
         "tensorium-converge", "tensorium-verify", "tensorium-evolve", "tensorium-trumpet")
TOOL = re.compile(r"(?<![\w-])(" + "|".join(re.escape(t) for t in TOOLS) + r")(?![\w-])")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def documents():
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").glob("*.md"))
    for folder in ("convergence", "verification", "examples", "benchmarks", "fixtures"):
        yield from sorted((ROOT / folder).rglob("README.md"))


def help_options(tool):
    out = subprocess.run([str(BIN / tool), "--help"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        sys.exit(f"check_doc_options: {tool} --help failed with exit status {out.returncode}")
    # Old names still work but are not to be taught: the help's "Old names" line does not count.
    current = "\n".join(line for line in out.stdout.splitlines() if not line.startswith("Old names"))
    return set(OPTION.findall(current))


def segments(text):
    """(line number, code) for every code span and every line of a fenced code block."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            yield number, line
        else:
            for span in re.findall(r"`([^`]+)`", line):
                yield number, span


LAUNCHERS = {"mpirun", "mpiexec", "-n", "-np", "--oversubscribe", "timeout", "time", "nice", "env", "sh", "-c", "'", '"'}


def invoked(code, start):
    """Whether the tool named at `start` is the command of its line, not an argument of another
    program: before it (after the last |, ;, && or prompt) only launchers, their counts and
    VAR=value assignments."""
    prefix = re.split(r"\||;|&&|\$ |\(", code[:start])[-1]
    prefix = re.sub(r"\S*$", "", prefix)  # the tool's own path, e.g. build/bin/
    return all(w in LAUNCHERS or w.isdigit() or re.fullmatch(r"\w+=\S*", w) or re.fullmatch(r"[0-9.]+[smh]?", w)
               for w in prefix.replace("'", " ").replace('"', " ").split())


def main():
    known = {tool: help_options(tool) for tool in TOOLS}
    problems = []
    checked = 0
    for doc in documents():
        if not doc.exists():
            continue
        for number, code in segments(doc.read_text(errors="replace")):
            tool = None
            # Walk the span: each option belongs to the latest tool named before it.
            for match in re.finditer(TOOL.pattern + "|" + OPTION.pattern, code):
                if match.group(1):
                    tool = match.group(1) if invoked(code, match.start()) else None
                elif tool:
                    checked += 1
                if not match.group(1) and tool and match.group(2) not in known[tool]:
                    problems.append(f"{doc.relative_to(ROOT)}:{number}: {tool} has no option {match.group(2)}")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} unknown option(s)")
        return 1
    print(f"all {checked} options the documentation gives the {len(TOOLS)} tools are theirs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
