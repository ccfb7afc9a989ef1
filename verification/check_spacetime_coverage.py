#!/usr/bin/env python3
"""check_spacetime_coverage.py FIXTURES STUDIES: every exact-spacetime fixture (FIXTURES/*.tn,
not the broken twins below it) must be named by a study of kind "spacetime" in STUDIES, so that
CI checks each fixture's 4-Ricci tensor. Lists the uncovered fixtures and exits 1."""
import pathlib
import sys
import tomllib

fixtures_dir, studies_dir = map(pathlib.Path, sys.argv[1:3])
covered = set()
for study in sorted(studies_dir.glob("*.toml")):
    data = tomllib.loads(study.read_text())
    if data.get("study", {}).get("kind") == "spacetime":
        covered.add((study.parent / data["spacetime"]["fixture"]).resolve())
fixtures = sorted(p.resolve() for p in fixtures_dir.glob("*.tn"))
missing = [p for p in fixtures if p not in covered]
for p in missing:
    print(f"error: {p} has no spacetime study (kind = \"spacetime\") in {studies_dir}")
print(f"{len(fixtures) - len(missing)} of {len(fixtures)} exact-spacetime fixtures have a spacetime check")
sys.exit(1 if missing or not fixtures else 0)
