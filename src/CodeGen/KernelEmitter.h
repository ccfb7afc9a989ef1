#pragma once
// One kernel plan -> one MLIR function (and the shared row function of large stencil
// kernels). It chooses the strategies from the options and the plan and puts them together;
// each strategy lives in its own unit (docs/codegen.md maps options to files).
#include "LoopNests.h"
#include "TwoPassRows.h"

#include "tensorium_mlir/CodeGen/MLIRGen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tensorium_mlir::codegen::emission {

/// Whether the plan's variants share a row function (stencil kernels of more graph nodes than
/// EmitOptions::sharedBodyNodes).
bool wantsRowFunction(const KernelPlan &plan, const EmitOptions &options);

class KernelEmitter {
public:
  KernelEmitter(mlir::OpBuilder &b, mlir::Location loc, const KernelPlan &plan, const EmitOptions &options)
      : KernelEmitter(b, loc, plan, choose(b.getContext(), plan, options)) {}

  /// Emits the kernel's function at the end of `module`.
  void emit(mlir::ModuleOp module);

  /// Whether this kernel's variants share a row function (wantsRowFunction, decided once).
  bool sharesRowBody() const { return sharesRowBody_; }
  /// The variants call `name` instead of holding the body themselves.
  void useRowFunction(std::string name) { rowFunction_ = std::move(name); }
  /// The shared row function: (kernel arguments..., snapshot copies..., i, j, kBegin, kEnd)
  /// computes the points (i, j, kBegin..kEnd - 1), `width` at a time.
  void emitRowFunction(mlir::ModuleOp module, const std::string &name);

  /// Every choice of strategy for one kernel, made once from the plan and the options.
  struct Choices {
    unsigned width = 1;         // points per vector step (VectorSteps)
    bool sharesRowBody = false; // a shared row function (wantsRowFunction)
    bool prefetch = true;       // StencilAddressing
    bool laneShifts = false;    // LaneShifts
    bool factorMixed = false;   // LaneShifts::emitZFactored
    StencilValues stencil;      // TwoPassRows (empty: one pass)
    std::array<int64_t, 2> tile{0, 0}; // LoopNests (zero: plain loops)
    mlir::arith::FastMathFlagsAttr fastmath;
  };
  static Choices choose(mlir::MLIRContext *context, const KernelPlan &plan, const EmitOptions &options);

private:
  KernelEmitter(mlir::OpBuilder &b, mlir::Location loc, const KernelPlan &plan, Choices c);
  void setAttributes(mlir::func::FuncOp func);
  void emitPointBody();
  void emitFlatLoop();
  void emitStencilLoop();
  void emitStores(const Addressing &a, const std::map<int, Value> &readFrom, Value linear);
  void emitPoint(const Addressing &a, const std::map<int, Value> &readFrom, const Value ivs[3]);

  mlir::OpBuilder &b_;
  mlir::Location loc_;
  const KernelPlan &plan_;
  const bool sharesRowBody_;
  BodyEmitter body_;
  VectorSteps steps_;
  StencilAddressing addressing_;
  LaneShifts lanes_;
  TwoPassRows twoPass_;
  LoopNests loops_;
  std::string rowFunction_;
};

} // namespace tensorium_mlir::codegen::emission
