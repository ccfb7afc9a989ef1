#!/usr/bin/env bash
# One entry point for a fresh machine:
#   tools/run.sh main   set up, build, run the default job
#   tools/run.sh test   set up, build, run every test (lit + GoogleTest through CTest)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TENSORIUM_BUILD_DIR:-$root/build}
mode=${1:-main}

bash "$root/tools/bootstrap.sh"

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}"
fi
cmake --build "$build" -j "$(nproc)"

case "$mode" in
  main)
    # Default job: two-puncture initial data solved spectrally, handed off to BSSN fields on
    # three Cartesian grids, constraints evaluated by the generated 4th-order kernels.
    "$build/bin/tensorium-verify" two-puncture-boosted
    ;;
  test)
    cd "$build"
    ctest --output-on-failure -j "$(nproc)"
    ;;
  *)
    echo "usage: tools/run.sh main|test" >&2
    exit 2
    ;;
esac
