#!/usr/bin/env bash
# The long moving-puncture runs behind docs/punctures.md: a single puncture to t = 100 M from
# the precollapsed lapse at h = 0.375 M and 0.25 M and from alpha = 1, and the head-on collision
# to t = 40 M at h = 0.25 and 0.2; then the trumpet comparison and a summary of every run.
# About 90 minutes on 2 ranks of a 2-core machine. Usage, from the repository root after a build:
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
  echo "== $name: $file $*"
  "${mpi[@]}" "$bin/tensorium-evolve" "examples/runs/$file" --csv "$out/$name.csv" "$@" > "$out/$name.log" 2>&1 ||
    echo "$name stopped: $(grep -m1 error "$out/$name.log" || tail -1 "$out/$name.log")"
  tail -2 "$out/$name.log" | head -1
}

run single_puncture_h0.375 single_puncture.toml --profile "$out/single_puncture_h0.375_profile.csv"
run head_on_h0.25 head_on_merger.toml
run unit_lapse_h0.375 brill_lindquist_unit_lapse.toml --profile "$out/unit_lapse_h0.375_profile.csv"
run head_on_h0.2 head_on_merger.toml --resolution 80
run single_puncture_h0.25 single_puncture.toml --resolution 96 --profile "$out/single_puncture_h0.25_profile.csv"

"$bin/tensorium-trumpet" "$out"/single_puncture_h0.375_profile.csv "$out"/single_puncture_h0.25_profile.csv \
  "$out"/unit_lapse_h0.375_profile.csv | tee "$out/trumpet.txt"
python3 "$root/examples/runs/summarize_punctures.py" "$out" | tee "$out/summary.txt"
