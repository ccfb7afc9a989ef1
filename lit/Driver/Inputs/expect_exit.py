#!/usr/bin/env python3
"""expect_exit.py CODE [--stdin FILE] -- COMMAND ARGS...

Runs COMMAND with stdout and stderr passed through and fails unless it exits with exactly CODE.
`not` only checks for a non-zero status; the driver promises 0 for success and 1 for any error,
and a signal (a crash) must never count as "the expected failure".
"""
import subprocess
import sys

args = sys.argv[1:]
expected = int(args.pop(0))
stdin = None
if args and args[0] == '--stdin':
    args.pop(0)
    stdin = open(args.pop(0), 'rb')
if args and args[0] == '--':
    args.pop(0)
sys.stdout.flush()
rc = subprocess.call(args, stdin=stdin)
if rc != expected:
    what = f'signal {-rc}' if rc < 0 else f'exit status {rc}'
    sys.stderr.write(f'expect_exit.py: expected exit status {expected}, got {what}: {args}\n')
    sys.exit(1)
