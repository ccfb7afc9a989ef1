#!/usr/bin/env bash
# Regenerates abi/tensorium-abi.manifest from the fixtures in abi/fixtures.txt. Run it only
# when the ABI changes on purpose, together with a bump of kABIVersion in
# include/tensorium_mlir/HostABI/GeneratedKernelABI.h.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TENSORIUM_BUILD_DIR:-$root/build}
cmake --build "$build" --target Tensorium_abi_probe
cd "$root"
mapfile -t fixtures < <(grep -v '^#' abi/fixtures.txt | grep -v '^$')
"$build/bin/Tensorium_abi_probe" --manifest "${fixtures[@]}" > abi/tensorium-abi.manifest
echo "wrote abi/tensorium-abi.manifest ($(wc -l < abi/tensorium-abi.manifest) lines)"
