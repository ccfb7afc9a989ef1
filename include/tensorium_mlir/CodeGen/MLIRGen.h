#pragma once
// Kernel plans -> MLIR (func, arith, math, memref, scf, affine) with ABI v3 attributes.
// Only MLIR-facing translation units include this header.
#include "tensorium_mlir/CodeGen/KernelPlan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <string_view>

namespace tensorium_mlir::codegen {

/// Loads every dialect the emitted and lowered modules use.
void loadTensoriumDialects(mlir::MLIRContext &context);
/// Registers the same dialects (drivers such as tensorium-opt).
void insertTensoriumDialects(mlir::DialectRegistry &registry);

/// How kernel bodies are emitted (the target's choices; the ABI does not depend on them).
struct EmitOptions {
  /// Grid points per vector step along the contiguous axis in grid kernels; 1 emits scalar code.
  unsigned vectorWidth = 1;
  /// Marks floating-point arithmetic `contract` and `arcp` so that LLVM may fuse a * b + c into
  /// an FMA and share one reciprocal between divisions by the same value.
  bool fpContract = true;
  /// Stencil kernels loop over tiles in (y, z) with an x-sweep inside each tile, sized so that
  /// the x-planes one tile's stencils read fit in `blockingBudgetBytes` (a share of L2).
  bool cacheBlocking = true;
  size_t blockingBudgetBytes = size_t{1} << 20;
  /// Stencil kernels prefetch, for every buffer component they read, the x-plane the
  /// stencils reach at the next x step.
  bool prefetch = true;
  /// Kernels with a shared row function compute a row in chunks and two passes: every buffer
  /// component's stencil values (derivatives, dissipation) into a scratch block, one loop per
  /// component, then the equations reading them back (docs/codegen.md).
  bool stencilPass = false;
  /// In the first pass of two-pass rows with 8-wide steps, reads shifted along the contiguous
  /// axis are lane shifts of line-wide vectors instead of loads straddling two cache lines
  /// (the driver sets it for AVX-512 targets unless told otherwise).
  bool laneShifts = true;
  /// With lane shifts: a mixed derivative across z is the z stencil of its transverse
  /// derivative's values at the neighbouring points (KernelPlan::zFactored), lane shifts of
  /// values the first pass computes, instead of a tensor-product stencil of its own. It rounds
  /// differently from the plain stencil (the driver sets it with fp contraction unless told).
  bool factorMixed = true;
  /// Explicit tile sizes in y and z (both > 0) instead of the automatic ones.
  int64_t tileY = 0, tileZ = 0;
  /// Stencil kernels of more graph nodes than this share one body between their variants: a
  /// private row function over (i, j, kBegin..kEnd), compiled once (and only they get two-pass
  /// rows, lane shifts, write prefetches and the team's row tiles).
  size_t sharedBodyNodes = 2000;
};

/// The private function that computes one row of a large stencil kernel, shared by the kernel
/// family's variants (`__tensorium_<family>_row`; docs/codegen.md).
std::string rowFunctionName(KernelFamily family);

/// Emits one function per plan at the end of `module` (and the shared row functions of large
/// stencil kernels), each located at `loc` under its symbol's name.
void emitKernels(mlir::ModuleOp module, mlir::Location loc, const std::vector<KernelPlan> &kernels,
                 const EmitOptions &options);

/// Emits every kernel plus the module attributes (ABI version, simulation metadata, field
/// table) that host descriptors are built from.
mlir::OwningOpRef<mlir::ModuleOp> emitModule(mlir::MLIRContext &context,
                                             const std::vector<KernelPlan> &kernels,
                                             const frontend::Module &source,
                                             const EmitOptions &options = {});

} // namespace tensorium_mlir::codegen
