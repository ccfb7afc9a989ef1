#pragma once
// Kernel plans -> MLIR (func, arith, math, memref, scf, affine) with ABI v3 attributes.
// Only MLIR-facing translation units include this header.
#include "tensorium_mlir/CodeGen/KernelPlan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace tensorium_mlir::codegen {

/// Loads every dialect the emitted and lowered modules use.
void loadTensoriumDialects(mlir::MLIRContext &context);

/// How kernel bodies are emitted (the target's choices; the ABI does not depend on them).
struct EmitOptions {
  /// Grid points per vector step along the contiguous axis in grid kernels; 1 emits scalar code.
  unsigned vectorWidth = 1;
  /// Marks floating-point arithmetic `contract` so that LLVM may fuse a * b + c into an FMA.
  bool fpContract = true;
};

/// Emits every kernel plus the module attributes (ABI version, simulation metadata, field
/// table) that host descriptors are built from.
mlir::OwningOpRef<mlir::ModuleOp> emitModule(mlir::MLIRContext &context,
                                             const std::vector<KernelPlan> &kernels,
                                             const frontend::Module &source,
                                             const EmitOptions &options = {});

} // namespace tensorium_mlir::codegen
