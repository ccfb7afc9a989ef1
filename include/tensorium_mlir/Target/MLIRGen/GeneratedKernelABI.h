#pragma once
// The published include path of the ABI v3 constants (symbol, attribute and runtime names).
// They live in tensorium_mlir/HostABI/GeneratedKernelABI.h, next to the code that reads them;
// this path stays for programs that include it.
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"
