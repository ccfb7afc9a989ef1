#!/usr/bin/env python3
"""expect_failure.py QUANTITY -- COMMAND...: a negative twin's verdict. Passes when COMMAND (a
study run on deliberately broken data or with a wrong expectation) exits with status 1 and one of
its "verdict: FAIL" lines matches the regular expression QUANTITY (the failing quantity, e.g.
'p\\(H\\) = -?[0-9.]+'); fails when the study passes, is refused (status 2), crashes, or fails
without naming that quantity."""
import re
import subprocess
import sys

if len(sys.argv) < 4 or sys.argv[2] != "--":
    sys.exit("usage: expect_failure.py QUANTITY -- COMMAND...")
quantity = re.compile(sys.argv[1])
proc = subprocess.run(sys.argv[3:], capture_output=True, text=True, errors="replace")
sys.stdout.write(proc.stdout)
sys.stderr.write(proc.stderr)
failed = [line for line in proc.stdout.splitlines() if line.startswith("verdict: FAIL")]
named = [line for line in failed if quantity.search(line)]
if proc.returncode == 1 and named:
    print(f"negative twin: FAILED as required, naming {sys.argv[1]}: {named[0]}")
    sys.exit(0)
print(f"negative twin: wrong outcome (exit status {proc.returncode}, {len(failed)} failing verdicts, "
      f"{len(named)} naming {sys.argv[1]}): the check cannot tell broken data from good")
sys.exit(1)
