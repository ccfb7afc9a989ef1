#!/usr/bin/env bash
# Installs every Debian package the project needs; does nothing when all are present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache python3 git
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools clang-19 libomp-19-dev
  libclang-rt-19-dev
  libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
  python3-matplotlib python3-paraview python3-sympy
  libpetsc-real-dev libopenmpi-dev openmpi-bin libhdf5-openmpi-dev pkg-config
  libtomlplusplus-dev libxml2-utils libp4est-dev
)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#packages[@]} packages present"
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
