#pragma once
// Kernel plans written in MLIR, the input form of `tensorium-opt --tensorium-emit-kernels`:
// a func.func marked `tensorium.plan = "<family>"` whose arguments are the kernel's and whose
// body is the point computation in arith/math ops, reading buffers with memref.load at a
// constant component (`tensorium.offset = array<i64: dx, dy, dz>` for a stencil shift) and
// writing them with memref.store. Lets each emission strategy be tested from MLIR input
// (docs/codegen.md has the form).
#include "tensorium_mlir/CodeGen/KernelPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace tensorium_mlir::codegen {

/// The attribute that marks a plan function.
inline constexpr std::string_view kPlanAttr = "tensorium.plan";

/// The plan `func` describes; emits an error at the offending op and returns nothing when it
/// is not a valid plan.
std::optional<KernelPlan> planFromMLIR(mlir::func::FuncOp func);

} // namespace tensorium_mlir::codegen
