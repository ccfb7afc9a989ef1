#!/usr/bin/env python3
"""truncation_sweep.py COMPILER FILE...

Feeds prefixes of every FILE (the file cut short, as an interrupted copy or an editor's autosave
leaves it) to `COMPILER --syntax-only -` and checks that the compiler never
crashes or hangs, exits 0 or 1, that exit status 1 always comes with a located 'error:'
diagnostic and the "N error(s) generated." line, and that exit status 0 prints no error.

The file is cut after every punctuation token and at the end of every word that ends a line:
the places where the parser changes state.  (Every byte would add nothing but time: each run
pays the start-up of the MLIR/LLVM libraries the driver links.)
"""
import concurrent.futures
import os
import re
import subprocess
import sys

compiler, files = sys.argv[1], sys.argv[2:]
located = re.compile(rb'^<stdin>:\d+:\d+: error: ', re.M)
summary = re.compile(rb'^\d+ errors? generated\.$', re.M)


def check(job):
    path, n, prefix = job
    try:
        p = subprocess.run([compiler, '--syntax-only', '-'], input=prefix, capture_output=True,
                           timeout=30)
    except subprocess.TimeoutExpired:
        return f'{path}: prefix of {n} bytes: timed out'
    if p.returncode not in (0, 1):
        problem = f'exit status {p.returncode}'
    elif p.returncode == 1 and not (located.search(p.stderr) and summary.search(p.stderr)):
        problem = 'exit status 1 without a located error and the summary line'
    elif p.returncode == 0 and b'error' in p.stderr:
        problem = 'exit status 0 but an error was printed'
    else:
        return None
    return (f'{path}: prefix of {n} bytes: {problem}\n'
            + p.stderr.decode('utf-8', 'replace')[-1500:])


jobs = []
for path in files:
    data = open(path, 'rb').read()
    cuts = {0, len(data)}
    cuts |= {m.end() for m in re.finditer(rb'->|[^A-Za-z_0-9. \n]|[A-Za-z_0-9.]+(?=\n)', data)}
    jobs += [(path, n, data[:n]) for n in sorted(cuts)]
workers = max(1, min(8, os.cpu_count() or 1))
with concurrent.futures.ThreadPoolExecutor(workers) as pool:
    problems = [r for r in pool.map(check, jobs) if r]
for r in problems[:10]:
    print(r)
print(f'truncation sweep: {len(jobs)} prefixes, {len(problems)} failures')
sys.exit(1 if problems else 0)
