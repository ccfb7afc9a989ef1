#pragma once
// Reads a generated module's ABI attributes into a HostModuleABI. Reads attributes only; never
// builds ops.
#include "tensorium_mlir/HostABI/HostModuleABI.h"

#include "mlir/IR/BuiltinOps.h"

namespace tensorium_mlir::abi {

HostModuleABI buildHostModuleABI(mlir::ModuleOp module);

} // namespace tensorium_mlir::abi
