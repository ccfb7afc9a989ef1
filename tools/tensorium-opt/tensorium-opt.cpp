// tensorium-opt: mlir-opt with the dialects of Tensorium's kernels and its registered passes
// (code emission from kernel plans written in MLIR, the lowering pipelines), for lit tests that
// start from MLIR input. `tensorium-opt --help` lists the passes.
#include "tensorium_mlir/CodeGen/MLIRGen.h"
#include "tensorium_mlir/CodeGen/Passes.h"
#include "tensorium_mlir/Lowering/Passes.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tensorium_mlir::codegen::insertTensoriumDialects(registry);
  tensorium_mlir::codegen::registerCodeGenPasses();
  tensorium_mlir::codegen::registerLoweringPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "Tensorium kernel pass driver\n", registry));
}
