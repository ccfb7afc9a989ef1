#!/usr/bin/env bash
# One entry point for a fresh machine:
#   tools/run.sh main   set up, build, run the default job
#   tools/run.sh test   set up, build, run every test (lit + GoogleTest through CTest), then the
#                       same suite in an AddressSanitizer + UndefinedBehaviorSanitizer build
#   tools/run.sh demo   set up, build, evolve boosted head-on punctures on 2 MPI ranks and plot
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TENSORIUM_BUILD_DIR:-$root/build}
mode=${1:-main}

# One letter changed, added or dropped, or two neighbours swapped: the likely intended word.
# Plain bash, so that a mistyped mode is answered at once.
one_edit_apart() {
  local a=$1 b=$2 i
  if [ "${#a}" -eq "${#b}" ]; then
    for ((i = 0; i < ${#a}; i++)); do
      if [ "${a:i:1}" != "${b:i:1}" ]; then
        [ "${a:i+1}" = "${b:i+1}" ] && return 0                                         # changed
        [ "${a:i:1}${a:i+1:1}" = "${b:i+1:1}${b:i:1}" ] && [ "${a:i+2}" = "${b:i+2}" ] # swapped
        return
      fi
    done
    return 1 # equal
  fi
  [ "${#a}" -lt "${#b}" ] && { local t=$a; a=$b; b=$t; }
  [ $((${#a} - ${#b})) -eq 1 ] || return 1
  for ((i = 0; i < ${#a}; i++)); do
    [ "${a:0:i}${a:i+1}" = "$b" ] && return 0 # added or dropped
  done
  return 1
}

# The argument is checked before anything is installed or built.
usage="usage: tools/run.sh [main|test|demo]  (main: build and run the default job; test: build and run every test; demo: a two-rank head-on evolution with plots)"
case "$mode" in
  main | test | demo) ;;
  -h | --help | help)
    echo "$usage"
    exit 0
    ;;
  *)
    hint=""
    for known in main test demo; do
      if one_edit_apart "$mode" "$known"; then
        hint=" (did you mean '$known'?)"
      fi
    done
    echo "tools/run.sh: error: unknown mode '$mode'$hint" >&2
    echo "$usage" >&2
    exit 2
    ;;
esac
if [ "$#" -gt 1 ]; then
  echo "tools/run.sh: error: one mode at most, got $#: $*" >&2
  echo "$usage" >&2
  exit 2
fi

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
    # The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer (any report
    # fails the test; leak checking is off because LeakSanitizer's tracer cannot stop the
    # threads of OpenMPI and the OpenMP runtime). memory_model measures the release build's
    # peak memory and is not repeated, and the studies labelled "long" (a minute or more each
    # in the release build) are left to the first pass. TENSORIUM_SKIP_SANITIZERS=1 skips this pass.
    if [ "${TENSORIUM_SKIP_SANITIZERS:-0}" != 1 ]; then
      sanitize=${TENSORIUM_SANITIZER_BUILD_DIR:-$build-sanitize}
      flags="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
      links="-fsanitize=address,undefined"
      if [ ! -f "$sanitize/build.ninja" ]; then
        cmake -S "$root" -B "$sanitize" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
          -DTENSORIUM_ENABLE_BENCHMARKS=OFF -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
          -DCMAKE_EXE_LINKER_FLAGS="$links" -DCMAKE_SHARED_LINKER_FLAGS="$links" -DCMAKE_MODULE_LINKER_FLAGS="$links"
      fi
      cmake --build "$sanitize" -j "$(nproc)"
      cd "$sanitize"
      ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --output-on-failure -j "$(nproc)" -E '^memory_model$' -LE long
    fi
    ;;
  demo)
    # Boosted head-on two-puncture evolution (docs/distributed.md): moving-puncture gauge, 2 MPI
    # ranks, 64^3 on [-8, 8]^3 to t = 10; constraint norms, puncture tracks, HDF5/XDMF snapshots
    # and a plot in $build/demo.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
    mkdir -p "$build/demo"
    cd "$build/demo"
    mpiexec --oversubscribe -n 2 "$build/bin/tensorium-evolve" --b 1.5 --m1 0.5 --m2 0.5 --p1 -0.1,0,0 --p2 0.1,0,0 \
      --resolution 64 --extent 8 --final-time 10 --monitor-every 8 --csv evolution.csv \
      --h5 evolution.h5 --h5-every 80 --checkpoint checkpoint.h5 --checkpoint-every 80
    /usr/bin/python3 "$root/tools/plot_evolution.py" evolution.csv evolution.png \
      "boosted head-on: b = 1.5, m = 0.5, P = (-+0.1, 0, 0); 64^3 on [-8, 8]^3, 2 ranks"
    echo "wrote $build/demo/evolution.png, evolution.h5 (+ evolution.xmf for ParaView/VisIt), checkpoint.h5"
    ;;
  *)
    echo "usage: tools/run.sh main|test|demo" >&2
    exit 2
    ;;
esac
