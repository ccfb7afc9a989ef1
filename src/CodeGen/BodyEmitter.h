#pragma once
// The kernel body from the plan's scalar graph: per-function constants, loop invariants, and
// the graph's nodes as MLIR values (scalars, or vectors of the kernel's width inside vector
// loops), and the module-level declarations they call (libm, the OpenMP team size). Every
// emission strategy builds on it; it chooses no loops and no memory access pattern.
#include "tensorium_mlir/CodeGen/KernelPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <map>
#include <unordered_map>
#include <vector>

namespace tensorium_mlir::codegen::emission {

using mlir::Value;
using mlir::ValueRange;

/// Reads a buffer leaf of the graph at the current point (or vector step).
using LeafLoader = std::function<Value(const Leaf &)>;

class BodyEmitter {
public:
  BodyEmitter(mlir::OpBuilder &builder, mlir::Location loc, const KernelPlan &plan, unsigned width,
              mlir::arith::FastMathFlagsAttr fastmath)
      : b_(builder), loc_(loc), plan_(plan), width_(width), fastmath_(fastmath) {}

  /// Starts a function: constants go to the top of `entry`, `args` are the kernel's arguments.
  void beginFunction(mlir::ModuleOp module, mlir::Block *entry, std::vector<Value> args);

  mlir::OpBuilder &builder() { return b_; }
  mlir::Location location() const { return loc_; }
  const KernelPlan &plan() const { return plan_; }
  /// Points per vector step (1: scalar code).
  unsigned width() const { return width_; }
  mlir::arith::FastMathFlagsAttr fastmath() const { return fastmath_; }
  const std::vector<Value> &args() const { return args_; }
  Value arg(int index) const { return args_[static_cast<size_t>(index)]; }

  /// Values of the nodes emitted so far in the current loop body (and the loop invariants).
  std::unordered_map<NodeId, Value> &values() { return values_; }
  /// Whether a node varies from point to point (reads a buffer, directly or through operands).
  bool varies(NodeId id) const { return varies_[static_cast<size_t>(id)] != 0; }

  // Constants are created once per function, at the top of the entry block.
  Value indexConst(int64_t v);
  Value f64Const(double v);
  Value splatConst(double v);
  /// A constant of the type `like` has (f64 or the kernel's vector).
  Value constLike(Value like, double v);
  mlir::VectorType vectorType();
  /// The node's value as a vector: varying nodes already are; a loop-invariant scalar is
  /// broadcast once, right after its definition (before the loops).
  Value vectorOf(NodeId id);

  template <typename Op> Value arith2(Value a, Value b) { return b_.create<Op>(loc_, a, b, fastmath_); }

  /// Nodes that read no buffer are the same at every grid point: emit them before the loop.
  void emitLoopInvariants();
  /// Emits the graph nodes reachable from `roots`; `load` materialises buffer leaves.
  void emitNodes(const std::vector<NodeId> &roots, const LeafLoader &load);
  /// Values computed inside one loop body are not visible in the next loop.
  void forgetVaryingValues();

  /// While set, the nodes in `slots` are read back by `load(slot)` instead of being computed
  /// (the second pass of two-pass rows); null clears it.
  void setReadBack(const std::unordered_map<NodeId, size_t> *slots, std::function<Value(size_t)> load) {
    readBackSlots_ = slots;
    readBack_ = std::move(load);
  }

  /// The values the plan stores or returns.
  std::vector<NodeId> storeRoots() const;
  /// The order in which outputs are computed: greedily, the output that needs the fewest nodes
  /// not computed yet comes next, so that outputs sharing subexpressions are computed together
  /// and shared values die sooner.
  std::vector<size_t> storeOrder() const;

  /// A call of the C library's f64 -> f64 function `name` (declared once per module); one call
  /// per lane of a vector.
  Value libmCall(const char *name, Value x);
  /// The OpenMP team size the next parallel region gets (`omp_get_max_threads`, declared once
  /// per module), as an i32.
  Value teamSize();

private:
  /// The module's private declaration of an external function (made once, at the module's top).
  mlir::func::FuncOp externalFunction(const char *name, mlir::FunctionType type);
  Value cachedConstant(std::map<uint64_t, Value> &cache, double v, mlir::TypedAttr attr);
  void computeVarying();
  Value integerPower(Value x, int64_t n);
  void computeNeeds();
  std::vector<NodeId> evaluationOrder(const std::vector<NodeId> &roots);

  mlir::OpBuilder &b_;
  mlir::Location loc_;
  const KernelPlan &plan_;
  const unsigned width_;
  mlir::arith::FastMathFlagsAttr fastmath_;
  mlir::ModuleOp module_;
  mlir::Block *entry_ = nullptr;
  std::vector<Value> args_;
  std::map<int64_t, Value> indexConsts_;
  std::map<uint64_t, Value> f64Consts_, splatConsts_;
  std::vector<char> varies_;
  std::unordered_map<NodeId, Value> values_, broadcasts_;
  std::vector<uint32_t> need_;
  std::vector<uint32_t> visited_;
  uint32_t visitEpoch_ = 1;
  const std::unordered_map<NodeId, size_t> *readBackSlots_ = nullptr;
  std::function<Value(size_t)> readBack_;
};

} // namespace tensorium_mlir::codegen::emission
