#!/usr/bin/env bash
# The long moving-puncture runs behind docs/punctures.md: a single puncture to t = 100 M from the
# precollapsed lapse at h = 0.25 M and 0.222 M on [-8, 8]^3, the head-on collision to t = 40 M at
# h = 0.125 and 0.1 (m/4 and m/5 for its punctures of bare mass m = 0.5) on [-4, 4]^3, and the
# single puncture from alpha = 1 at h = 0.25 M (the head-on runs with their apparent horizons every
# 0.5 M); then the trumpet comparison and a summary of every run. About 90 minutes on 2 ranks of a 2-core machine; a run whose monitor table is already in
# OUTDIR is skipped. Usage, from the repository root after a build:
#   examples/runs/punctures.sh OUTDIR [RANKS]
set -euo pipefail
out=${1:?usage: examples/runs/punctures.sh OUTDIR [RANKS]}
ranks=${2:-2}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TENSORIUM_BUILD_DIR:-$root/build}/bin
mkdir -p "$out"
cd "$root"
mpi=(mpiexec -n "$ranks")
[ "$(id -u)" = 0 ] && mpi=(mpiexec --allow-run-as-root -n "$ranks")

run() { # name run-file extra options...
  local name=$1 file=$2
  shift 2
  if [ -f "$out/$name.csv" ]; then
    echo "== $name: done before"
    return
  fi
  echo "== $name: $file $*"
  "${mpi[@]}" "$bin/tensorium-evolve" "examples/runs/$file" --csv "$out/$name.csv" "$@" > "$out/$name.log" 2>&1 ||
    echo "$name stopped: $(grep -m1 error "$out/$name.log" || tail -n 1 "$out/$name.log")"
  grep '^t = ' "$out/$name.log" | tail -n 1
}

run single_puncture_h0.25 single_puncture.toml --profile "$out/single_puncture_h0.25_profile.csv"
run head_on_h0.125 head_on_merger.toml --horizons "$out/head_on_h0.125_horizons.csv"
run head_on_h0.1 head_on_merger.toml --resolution 80 --horizons-every 20 --horizons "$out/head_on_h0.1_horizons.csv"
run single_puncture_h0.222 single_puncture.toml --resolution 72 --profile "$out/single_puncture_h0.222_profile.csv"
run unit_lapse_h0.25 brill_lindquist_unit_lapse.toml --profile "$out/unit_lapse_h0.25_profile.csv"

"$bin/tensorium-trumpet" "$out"/single_puncture_h0.25_profile.csv "$out"/single_puncture_h0.222_profile.csv \
  "$out"/unit_lapse_h0.25_profile.csv | tee "$out/trumpet.txt"
python3 "$root/examples/runs/summarize_punctures.py" "$out" | tee "$out/summary.txt"
