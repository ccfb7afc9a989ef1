#!/usr/bin/env bash
# Installs the built tree into a temporary prefix, moves the prefix, builds examples/downstream
# against it with find_package(Tensorium), and runs the examples: the wave kernels through the
# runtime, and a C99 program on the handoff library whose numbers must equal, digit for digit,
# those of the installed tensorium-two-punctures. Usage: run_downstream_test.sh BUILD SOURCE
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() {
  local log=$1
  shift
  "$@" > "$log" 2>&1 || { echo "failed: $*"; cat "$log"; exit 1; }
}
step "$work/install.log" cmake --install "$build" --prefix "$work/prefix"
# An installed tree must work from wherever it is moved to.
mv "$work/prefix" "$work/moved"
# The example is built with the flags the tree was built with (a sanitizer build's archives need
# the sanitizer runtimes at link time).
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
step "$work/configure.log" cmake -S "$source/examples/downstream" -B "$work/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/moved" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$(cache_value CMAKE_CXX_FLAGS)" -DCMAKE_C_FLAGS="$(cache_value CMAKE_C_FLAGS)" \
  -DCMAKE_EXE_LINKER_FLAGS="$(cache_value CMAKE_EXE_LINKER_FLAGS)"
step "$work/build.log" cmake --build "$work/build"
"$work/build/wave_demo" | tee "$work/wave.txt"
# laplacian(x^2+y^2+z^2) = 6, times c2 = 2: the 4th-order stencil is exact on quadratics.
grep -q '^dPi at centre = 12\.0000000000' "$work/wave.txt" || { echo "wave_demo: wrong dPi"; exit 1; }
"$work/build/handoff_probe" > "$work/probe_c.txt"
"$work/moved/bin/tensorium-two-punctures" --p1 0,0.2,0 --p2 0,-0.2,0 --probe 0.3,0.2,0.1 --quiet > "$work/probe_tool.txt"
mass=$(sed -n 's/^ADM mass: //p' "$work/probe_tool.txt")
psi=$(sed -n 's/^probe (0.3, 0.2, 0.1): U = .*, psi = //p' "$work/probe_tool.txt")
if [ -z "$mass" ] || [ -z "$psi" ] || [ "$(cat "$work/probe_c.txt")" != "$(printf 'ADM mass: %s\npsi = %s' "$mass" "$psi")" ]; then
  echo "handoff from C99 differs from tensorium-two-punctures:"
  cat "$work/probe_c.txt" "$work/probe_tool.txt"
  exit 1
fi
echo "handoff from C99 = tensorium-two-punctures: ADM mass $mass, psi $psi"
# Before 1.0 a minor release is not compatible with a request for an older one.
mkdir -p "$work/old-request"
printf 'cmake_minimum_required(VERSION 3.20)\nproject(OldRequest LANGUAGES NONE)\nfind_package(Tensorium 0.0.1 REQUIRED)\n' \
  > "$work/old-request/CMakeLists.txt"
if cmake -S "$work/old-request" -B "$work/old-request/build" -DCMAKE_PREFIX_PATH="$work/moved" > "$work/old.log" 2>&1; then
  echo "find_package(Tensorium 0.0.1) accepted the installed package"
  exit 1
fi
grep -q 'compatible with requested version "0.0.1"' "$work/old.log" ||
  { echo "find_package(Tensorium 0.0.1) failed for another reason:"; cat "$work/old.log"; exit 1; }
echo "find_package(Tensorium 0.0.1) refused: the installed package is 0.1"
