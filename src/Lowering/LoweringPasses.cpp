#include "tensorium_mlir/Lowering/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

namespace tensorium_mlir::codegen {

namespace {

struct InlineAllocaScopesPass : mlir::PassWrapper<InlineAllocaScopesPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(InlineAllocaScopesPass)

  llvm::StringRef getArgument() const final { return "tensorium-inline-alloca-scopes"; }
  llvm::StringRef getDescription() const final {
    return "Dissolve single-block memref.alloca_scope ops that allocate nothing into their parent";
  }

  void runOnOperation() final {
    llvm::SmallVector<mlir::memref::AllocaScopeOp> scopes;
    getOperation().walk([&](mlir::memref::AllocaScopeOp scope) {
      bool allocates = false;
      scope.walk([&](mlir::memref::AllocaOp) { allocates = true; });
      if (!allocates && scope.getBodyRegion().hasOneBlock())
        scopes.push_back(scope);
    });
    for (mlir::memref::AllocaScopeOp scope : scopes) {
      mlir::Block &body = scope.getBodyRegion().front();
      mlir::Operation *terminator = body.getTerminator();
      scope->getBlock()->getOperations().splice(scope->getIterator(), body.getOperations(), body.begin(),
                                                terminator->getIterator());
      scope->replaceAllUsesWith(terminator->getOperands());
      scope->erase();
    }
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createInlineAllocaScopesPass() { return std::make_unique<InlineAllocaScopesPass>(); }

// No canonicalisation or CSE in either pipeline: the emitter's graph is already hash-consed and
// folded, and those passes cost time superlinear in the size of a kernel body; LLVM cleans up
// the rest.
void addKernelLoopLowering(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createLowerAffinePass());
  pm.addPass(mlir::createConvertSCFToOpenMPPass());
  pm.addPass(createInlineAllocaScopesPass());
}

void addLLVMDialectLowering(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createConvertSCFToCFPass());
  pm.addPass(mlir::createConvertVectorToLLVMPass());
  pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createConvertOpenMPToLLVMPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
}

void registerLoweringPasses() {
  mlir::PassRegistration<InlineAllocaScopesPass>();
  mlir::PassPipelineRegistration<>("tensorium-lower-kernel-loops",
                                   "Lower the kernel loops: affine to scf, scf.parallel to OpenMP, alloca scopes",
                                   addKernelLoopLowering);
  mlir::PassPipelineRegistration<>("tensorium-lower-to-llvm",
                                   "Lower kernels to the LLVM dialect (the kernel loops first)",
                                   [](mlir::OpPassManager &pm) {
                                     addKernelLoopLowering(pm);
                                     addLLVMDialectLowering(pm);
                                   });
}

} // namespace tensorium_mlir::codegen
