#!/usr/bin/env bash
# Installs the built tree into a temporary prefix, moves the prefix, builds examples/downstream
# against it with find_package(Tensorium), and runs the examples: two kernel modules with their
# own symbol prefixes in one program, each giving its own answer through the runtime, and a C99
# program on the handoff library whose numbers must equal, digit for digit, those of the
# installed tensorium-two-punctures. Then two modules without prefixes (or with one prefix)
# linked into one program must fail to build, naming the PREFIX option.
# The installed evolution engine evolves a system declared in a .tn file (its initial data,
# exact solution, boundaries and parameter from the module's tables) on two MPI ranks, and a
# wrong wave speed fails the example's check against that exact solution; the installed study
# library judges the same system from a study file, and fails it with the wrong speed.
# Usage: run_downstream_test.sh BUILD SOURCE MPIEXEC
set -euo pipefail
build=$1
source=$2
mpiexec=$3
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
"$work/build/two_modules" | tee "$work/two_modules.txt"
# laplacian(x^2+y^2+z^2) = 6, times c2 = 2: the 4th-order stencil is exact on quadratics; the
# decay module gives -c2 phi = -2 (3 * 0.6^2) at the same point.
grep -q '^wave dPi at centre = 12\.0000000000' "$work/two_modules.txt" || { echo "two_modules: wrong wave dPi"; exit 1; }
grep -q '^decay dPi at centre = -2\.1600000000' "$work/two_modules.txt" || { echo "two_modules: wrong decay dPi"; exit 1; }
timeout 300 "$mpiexec" --oversubscribe -n 2 "$work/build/evolve_wave" 1 "$work/wave.h5" | tee "$work/evolve.txt"
[ "$(grep -c '<Grid Name="step ' "$work/wave.xmf")" = 5 ] && [ -s "$work/wave.h5" ] ||
  { echo "evolve_wave: expected wave.h5 and an XDMF index of 5 snapshots"; ls -l "$work"; exit 1; }
grep -q '^evolved wave on 2 ranks: max |u - exact| over phi, Pi at t = 0.125 = ' "$work/evolve.txt" ||
  { echo "evolve_wave: no result line"; exit 1; }
# The wrong wave speed must run to the end and fail the check (exit 1 with the result line).
set +e
timeout 300 "$mpiexec" --oversubscribe -n 2 "$work/build/evolve_wave" 1.21 > "$work/evolve_twin.txt" 2>&1
status=$?
set -e
if [ $status -ne 1 ] || ! grep -q '^evolved wave on 2 ranks: max |u - exact| over phi, Pi at t = 0.125 = ' "$work/evolve_twin.txt"; then
  echo "evolve_wave with c2 = 1.21: expected a completed run that fails the check, got exit $status:"
  cat "$work/evolve_twin.txt"; exit 1
fi
echo "evolve_wave with c2 = 1.21 rejected: $(grep -o 'max |u.*' "$work/evolve_twin.txt")"
# The installed study library: the standing wave's study passes on two ranks with a JUnit report,
# and the wrong wave speed fails its verdicts.
timeout 300 "$mpiexec" --oversubscribe -n 2 "$work/build/run_study" "$source/examples/downstream/standing_wave_study.toml" \
  "$work/study.xml" | tee "$work/study.txt"
grep -q '^verdict: PASS' "$work/study.txt" && ! grep -q '^verdict: FAIL' "$work/study.txt" && grep -q '<testcase' "$work/study.xml" ||
  { echo "run_study: expected passing verdicts and a JUnit report"; exit 1; }
set +e
timeout 300 "$mpiexec" --oversubscribe -n 2 "$work/build/run_study" "$source/examples/downstream/standing_wave_study.toml" \
  "$work/study_twin.xml" system.parameters.c2=1.21 > "$work/study_twin.txt" 2>&1
status=$?
set -e
if [ $status -ne 1 ] || ! grep -q '^verdict: FAIL' "$work/study_twin.txt"; then
  echo "run_study with c2 = 1.21: expected failed verdicts (exit 1), got exit $status:"; cat "$work/study_twin.txt"; exit 1
fi
echo "run_study with c2 = 1.21 rejected: $(grep -m1 '^verdict: FAIL' "$work/study_twin.txt")"
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

# Two modules that export the same names in one program: a build error that names the option.
for case in none same; do
  dir="$work/collide-$case"
  mkdir -p "$dir"
  prefix=""
  [ "$case" = same ] && prefix="PREFIX same"
  cat > "$dir/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(Collide LANGUAGES C CXX)
find_package(Tensorium REQUIRED COMPONENTS kernels)
tensorium_add_kernel(first FIXTURE $source/examples/downstream/wave.tn KERNELS rhs $prefix)
tensorium_add_kernel(second FIXTURE $source/examples/downstream/decay.tn KERNELS rhs $prefix)
add_executable(both main.c)
target_link_libraries(both PRIVATE first second)
EOF
  printf 'int main(void) { return 0; }\n' > "$dir/main.c"
  # Compiling kernels needs none of the runtime's dependencies.
  step "$dir/configure.log" cmake -S "$dir" -B "$dir/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/moved" \
    -DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=ON -DCMAKE_DISABLE_FIND_PACKAGE_Threads=ON -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON \
    -DCMAKE_C_FLAGS="$(cache_value CMAKE_C_FLAGS)" -DCMAKE_EXE_LINKER_FLAGS="$(cache_value CMAKE_EXE_LINKER_FLAGS)"
  if cmake --build "$dir/build" > "$dir/build.log" 2>&1; then
    echo "two kernel modules ($case prefix) linked into one program without an error"
    exit 1
  fi
  grep -q 'multiple definition of .*tensorium_kernel_symbols_taken__give_each_module_its_own_PREFIX' "$dir/build.log" ||
    { echo "linking two modules ($case prefix) failed for another reason:"; cat "$dir/build.log"; exit 1; }
  echo "two modules ($case prefix) in one program: refused at link time, naming PREFIX"
done
