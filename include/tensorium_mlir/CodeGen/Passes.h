#pragma once
// Registered passes of code generation, for `tensorium-opt` and lit tests from MLIR input.
//
//   --tensorium-emit-kernels   kernel plans written in MLIR (functions marked tensorium.plan)
//                              -> the kernels Tensorium_cc emits for them, one option per
//                              emission strategy (docs/codegen.md)
namespace tensorium_mlir::codegen {

void registerCodeGenPasses();

} // namespace tensorium_mlir::codegen
