#!/usr/bin/env python3
"""flip_bits.py IN OUT [--seed S] [--flips N] [--dataset-offset "OFFSET BYTES"]: copies IN to OUT
with N bits flipped at positions drawn from a seeded generator, anywhere in the file or, with
--dataset-offset, inside the given byte range (a dataset's data). Prints the flipped positions."""
import argparse
import random
import shutil

parser = argparse.ArgumentParser()
parser.add_argument("source")
parser.add_argument("target")
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--flips", type=int, default=1)
parser.add_argument("--dataset-offset", default=None)
args = parser.parse_args()

shutil.copyfile(args.source, args.target)
with open(args.target, "r+b") as f:
    data = bytearray(f.read())
    start, size = 0, len(data)
    if args.dataset_offset:
        start, size = (int(v) for v in args.dataset_offset.split())
    generator = random.Random(args.seed)
    for _ in range(args.flips):
        byte = start + generator.randrange(size)
        bit = generator.randrange(8)
        data[byte] ^= 1 << bit
        print(f"flipped bit {bit} of byte {byte}")
    f.seek(0)
    f.write(data)
