#pragma once
// C host header for a generated module: raw prototypes with expanded memref descriptors,
// convenience wrappers sized from ABI metadata, and descriptor tables a runtime can consume
// without the compiler. Compiles as C99 and C++17.
#include "tensorium_mlir/Target/MLIRGen/MLIRGenHostABI.h"

#include <string>

namespace tensorium_mlir::abi {

std::string emitHostHeader(const HostModuleABI &abi, const std::string &sourceName);

} // namespace tensorium_mlir::abi
