#!/usr/bin/env bash
# Installs the built tree into a temporary prefix, builds examples/downstream against it with
# find_package(Tensorium), and runs the example. Usage: run_downstream_test.sh BUILD SOURCE
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
# The example is built with the flags the tree was built with (a sanitizer build's archives need
# the sanitizer runtimes at link time).
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
step "$work/configure.log" cmake -S "$source/examples/downstream" -B "$work/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$(cache_value CMAKE_CXX_FLAGS)" -DCMAKE_C_FLAGS="$(cache_value CMAKE_C_FLAGS)" \
  -DCMAKE_EXE_LINKER_FLAGS="$(cache_value CMAKE_EXE_LINKER_FLAGS)"
step "$work/build.log" cmake --build "$work/build"
"$work/build/wave_demo"
