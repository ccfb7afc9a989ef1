#pragma once
// The lowering of emitted kernels to the LLVM dialect, as the pipelines Tensorium_cc runs and
// as registered passes for `tensorium-opt`:
//
//   --tensorium-inline-alloca-scopes  dissolve memref.alloca_scope ops that allocate nothing
//   --tensorium-lower-kernel-loops    affine -> scf, scf.parallel -> OpenMP, then the above
//   --tensorium-lower-to-llvm         the rest of the way to the LLVM dialect
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace tensorium_mlir::codegen {

/// The OpenMP conversion wraps each parallel body in a memref.alloca_scope, which must stay one
/// block; kernels allocate nothing there, so the scope is dissolved into its parent before the
/// inner (vector) loops become branches. (The canonicalizer does this too, but its cost grows
/// faster than linearly with the size of a kernel body.)
std::unique_ptr<mlir::Pass> createInlineAllocaScopesPass();

/// Kernel loops to OpenMP and plain control flow's predecessors (affine, scf.parallel).
void addKernelLoopLowering(mlir::OpPassManager &pm);
/// The loops' module the rest of the way to the LLVM dialect.
void addLLVMDialectLowering(mlir::OpPassManager &pm);

void registerLoweringPasses();

} // namespace tensorium_mlir::codegen
