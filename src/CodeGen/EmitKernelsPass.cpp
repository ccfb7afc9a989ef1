// --tensorium-emit-kernels: every function of the module marked `tensorium.plan` is read as a
// kernel plan (PlanFromMLIR.h) and replaced by the kernel the emitter makes of it, with the
// strategies the pass options choose: each strategy can be tested from MLIR input.
#include "tensorium_mlir/CodeGen/MLIRGen.h"
#include "tensorium_mlir/CodeGen/Passes.h"

#include "KernelEmitter.h"
#include "PlanFromMLIR.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include <map>

namespace tensorium_mlir::codegen {

namespace {

struct EmitKernelsPass : mlir::PassWrapper<EmitKernelsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmitKernelsPass)

  EmitKernelsPass() = default;
  EmitKernelsPass(const EmitKernelsPass &other) : PassWrapper(other) {}

  llvm::StringRef getArgument() const final { return "tensorium-emit-kernels"; }
  llvm::StringRef getDescription() const final {
    return "Replace kernel plans (functions marked tensorium.plan) by their emitted kernels";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const final {
    insertTensoriumDialects(registry);
  }

  Option<unsigned> vectorWidth{*this, "vector-width", llvm::cl::desc("points per vector step (1: scalar loops)"),
                               llvm::cl::init(1)};
  Option<bool> fpContract{*this, "fp-contract", llvm::cl::desc("fastmath contract and arcp on the arithmetic"),
                          llvm::cl::init(true)};
  Option<bool> cacheBlocking{*this, "cache-blocking", llvm::cl::desc("automatic (y, z) tiles of stencil loops"),
                             llvm::cl::init(true)};
  Option<int64_t> tileY{*this, "tile-y", llvm::cl::desc("explicit tile rows (with tile-z)"), llvm::cl::init(0)};
  Option<int64_t> tileZ{*this, "tile-z", llvm::cl::desc("explicit tile points along z (with tile-y)"),
                        llvm::cl::init(0)};
  Option<bool> prefetch{*this, "prefetch", llvm::cl::desc("software prefetch in stencil kernels"), llvm::cl::init(true)};
  Option<bool> stencilPass{*this, "stencil-pass", llvm::cl::desc("two-pass rows in shared row functions"),
                           llvm::cl::init(false)};
  Option<bool> laneShifts{*this, "lane-shifts", llvm::cl::desc("z shifts as lane shifts in 8-wide two-pass rows"),
                          llvm::cl::init(false)};
  Option<unsigned> sharedBodyNodes{*this, "shared-body-nodes",
                                   llvm::cl::desc("stencil kernels above this many graph nodes get a row function"),
                                   llvm::cl::init(2000)};

  void runOnOperation() final {
    mlir::ModuleOp module = getOperation();
    EmitOptions options;
    options.vectorWidth = vectorWidth;
    options.fpContract = fpContract;
    options.cacheBlocking = cacheBlocking;
    options.tileY = tileY;
    options.tileZ = tileZ;
    options.prefetch = prefetch;
    options.stencilPass = stencilPass;
    options.laneShifts = laneShifts;
    options.factorMixed = false; // plans written in MLIR record no factorings
    options.sharedBodyNodes = sharedBodyNodes;
    std::vector<KernelPlan> plans;
    std::vector<mlir::func::FuncOp> sources;
    for (mlir::func::FuncOp func : module.getOps<mlir::func::FuncOp>()) {
      if (!func->hasAttr(llvm::StringRef(kPlanAttr.data(), kPlanAttr.size())))
        continue;
      std::optional<KernelPlan> plan = planFromMLIR(func);
      if (!plan)
        return signalPassFailure();
      plans.push_back(std::move(*plan));
      sources.push_back(func);
    }
    // A family's variants share the first one's row function: only one plan per family may
    // have one here (split the input to test several).
    std::map<KernelFamily, mlir::func::FuncOp> shared;
    for (size_t i = 0; i < plans.size(); ++i) {
      if (!emission::wantsRowFunction(plans[i], options))
        continue;
      auto [it, first] = shared.try_emplace(plans[i].family, sources[i]);
      if (!first) {
        sources[i].emitError() << "a second plan of this family with a shared row function (the first is @"
                               << it->second.getSymName() << "); one per module";
        return signalPassFailure();
      }
    }
    for (mlir::func::FuncOp func : sources)
      func.erase();
    emitKernels(module, module.getLoc(), plans, options);
  }
};

} // namespace

void registerCodeGenPasses() { mlir::PassRegistration<EmitKernelsPass>(); }

} // namespace tensorium_mlir::codegen
