#pragma once
// C host header for a generated module: raw prototypes with expanded memref descriptors,
// convenience wrappers sized from ABI metadata, and descriptor tables a runtime can consume
// without the compiler. Compiles as C99 and C++17.
#include "tensorium_mlir/HostABI/HostModuleABI.h"

#include <string>

namespace tensorium_mlir::abi {

std::string emitHostHeader(const HostModuleABI &abi, const std::string &sourceName);

/// `s` as a double-quoted literal with '"' and '\\' escaped (valid C and JSON for the ASCII
/// names the ABI carries).
std::string quotedLiteral(const std::string &s);

} // namespace tensorium_mlir::abi
