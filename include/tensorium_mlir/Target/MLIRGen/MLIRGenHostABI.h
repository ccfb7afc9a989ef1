#pragma once
// The published include path of the ABI v3 host descriptor (HostModuleABI). It lives in
// tensorium_mlir/HostABI/HostModuleABI.h, next to its implementation in src/HostABI; this path
// stays for programs that include it.
#include "tensorium_mlir/HostABI/HostModuleABI.h"
