#!/usr/bin/env bash
# A refined run whose region moves (regridding every 4 steps): the leaves and every value the
# same, bit for bit, on 1, 2, 3 and 4 ranks.
set -u
mpiexec=$1 checks=$2 module=$3 dir=$4
mkdir -p "$dir"
failures=0
"$checks" --case dump --module "$module" --out "$dir/serial.bin" || failures=$((failures + 1))
for n in 2 3 4; do
  "$mpiexec" --oversubscribe -n "$n" "$checks" --case dump --module "$module" --out "$dir/ranks$n.bin" \
    || failures=$((failures + 1))
  if cmp -s "$dir/serial.bin" "$dir/ranks$n.bin"; then
    echo "$n ranks: identical to the serial run"
  else
    echo "$n ranks: DIFFERS from the serial run"
    failures=$((failures + 1))
  fi
done
echo "failures: $failures"
