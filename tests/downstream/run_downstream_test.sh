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
step "$work/configure.log" cmake -S "$source/examples/downstream" -B "$work/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release
step "$work/build.log" cmake --build "$work/build"
"$work/build/wave_demo"
