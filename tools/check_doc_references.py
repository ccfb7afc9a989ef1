#!/usr/bin/env python3
"""check_doc_references.py [ROOT]

Every repository path the user documentation names in backticks (README.md, docs/, the study
folders' and examples' READMEs) must exist: a file, a folder, a glob that matches something, or a unit's stem (its .h and .cpp).
Paths under build/ name build outputs and are checked against the tool and target sources
instead (build/bin/NAME needs tools/NAME or a target of that name). The documentation must not
point outside the repository or name development issues. Prints every broken reference as FILE:LINE: message and exits 1
when there is one."""
import fnmatch
import glob
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
TOP = ("src/", "include/", "tools/", "tests/", "lit/", "fixtures/", "docs/", "convergence/", "verification/",
       "benchmarks/", "cmake/", "examples/", "abi/", ".ci/")
OUTSIDE = re.compile(r"\.\./shared|shared (seed|spec)|the shared specification")
PROCESS = re.compile(r"\bissue \d+", re.IGNORECASE)  # the docs describe the code, not how it came about


def documents():
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").glob("*.md"))
    for folder in ("convergence", "verification", "examples", "benchmarks", "fixtures"):
        yield from sorted((ROOT / folder).rglob("README.md"))


def targets():
    """Executable target names declared in the CMake files."""
    names = set()
    for cmake in ROOT.rglob("CMakeLists.txt"):
        if "build" in cmake.relative_to(ROOT).parts[:1]:
            continue
        names.update(re.findall(r"add_executable\(\s*([A-Za-z0-9_\-]+)", cmake.read_text(errors="replace")))
        names.update(re.findall(r"tensorium_add_unit_test\(\s*([A-Za-z0-9_\-]+)", cmake.read_text(errors="replace")))
    return names


def check_path(token, executables):
    path = token.split()[0].rstrip(".,:;)")
    path = re.sub(r"[:#].*$", "", path)  # file:line, file#anchor
    if path.startswith("build/bin/"):
        name = path[len("build/bin/"):]
        return bool(fnmatch.filter(executables, name)) or (ROOT / "tools" / name).exists()
    if path.startswith("build"):
        return True  # other build outputs: made by the build
    if any(c in path for c in "*?["):
        return bool(glob.glob(str(ROOT / path), recursive=True))
    if "<" in path or "{" in path or "$" in path:
        return True  # a pattern with a placeholder
    # A unit named by its stem (`src/Distributed/ModuleCatalog`: the .h and .cpp).
    return (ROOT / path).exists() or bool(glob.glob(str(ROOT / path) + ".*"))


def main():
    executables = targets()
    problems = []
    for doc in documents():
        if not doc.exists():
            continue
        in_fence = False
        for number, line in enumerate(doc.read_text(errors="replace").splitlines(), 1):
            where = f"{doc.relative_to(ROOT)}:{number}"
            if OUTSIDE.search(line):
                problems.append(f"{where}: points outside the repository")
            if PROCESS.search(line):
                problems.append(f"{where}: names a development issue")
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
                continue
            tokens = re.findall(r"`([^`]+)`", line) if not in_fence else re.findall(r"(?:^|\s)((?:build/bin|tools|fixtures|docs)/\S+)", line)
            for token in tokens:
                token = token.strip()
                if not token.startswith(TOP + ("build/",)) or " " in token.split("/")[0]:
                    continue
                if not check_path(token, executables):
                    problems.append(f"{where}: '{token}' does not exist")
    for p in problems:
        print(p)
    print(f"{len(problems)} broken reference(s)" if problems else "every referenced path exists")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
