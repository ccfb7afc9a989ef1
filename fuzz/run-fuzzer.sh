#!/usr/bin/env bash
# Builds the libFuzzer front-end target in build-fuzz/ with clang-19 and runs it.
#
#   fuzz/run-fuzzer.sh [seconds] [extra libFuzzer flags...]
#
# seconds defaults to 60. The seeds (every .tn under fixtures/) are copied into the scratch
# corpus fuzz-corpus/ (git-ignored), which keeps growing across runs. Crash, leak and
# timeout reproducers are written to the repository root as crash-*, leak-*, timeout-*
# (git-ignored). Environment: TENSORIUM_FUZZ_BUILD_DIR (default build-fuzz),
# TENSORIUM_FUZZ_CORPUS (default fuzz-corpus), TENSORIUM_FUZZ_JOBS (ninja -j, default 2).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

seconds="${1:-60}"
if [[ $# -gt 0 ]]; then shift; fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: fuzz/run-fuzzer.sh [seconds] [extra libFuzzer flags...]" >&2
  exit 2
fi

build="${TENSORIUM_FUZZ_BUILD_DIR:-$root/build-fuzz}"
corpus="${TENSORIUM_FUZZ_CORPUS:-$root/fuzz-corpus}"
jobs="${TENSORIUM_FUZZ_JOBS:-2}"

for tool in clang-19 clang++-19 cmake ninja; do
  command -v "$tool" >/dev/null || { echo "run-fuzzer.sh: '$tool' not found (tools/bootstrap.sh installs it)" >&2; exit 1; }
done

cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DTENSORIUM_ENABLE_FUZZER=ON -DTENSORIUM_ENABLE_BENCHMARKS=OFF >/dev/null
ninja -C "$build" -j"$jobs" TensoriumFrontendFuzzer

mkdir -p "$corpus"
cp "$build"/fuzz/seeds/*.tn "$corpus"/ 2>/dev/null || echo "run-fuzzer.sh: no seeds found under fixtures/" >&2

set -x
exec "$build/bin/TensoriumFrontendFuzzer" "$corpus" \
  -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -dict="$root/fuzz/tn.dict" \
  -print_final_stats=1 "$@"
