#include "BodyEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>
#include <cstring>

namespace tensorium_mlir::codegen::emission {

void BodyEmitter::beginFunction(mlir::ModuleOp module, mlir::Block *entry, std::vector<Value> args) {
  module_ = module;
  entry_ = entry;
  args_ = std::move(args);
  // Constants and values belong to one function.
  indexConsts_.clear();
  f64Consts_.clear();
  splatConsts_.clear();
  values_.clear();
  broadcasts_.clear();
  setReadBack(nullptr, nullptr);
  computeVarying();
  visited_.assign(plan_.graph.size(), 0);
}

mlir::func::FuncOp BodyEmitter::externalFunction(const char *name, mlir::FunctionType type) {
  auto callee = module_.lookupSymbol<mlir::func::FuncOp>(name);
  if (!callee) {
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(module_.getBody());
    callee = b_.create<mlir::func::FuncOp>(loc_, name, type);
    callee.setPrivate();
  }
  return callee;
}

Value BodyEmitter::teamSize() {
  auto callee = externalFunction("omp_get_max_threads", b_.getFunctionType({}, {b_.getI32Type()}));
  return b_.create<mlir::func::CallOp>(loc_, callee, ValueRange{}).getResult(0);
}

Value BodyEmitter::libmCall(const char *name, Value x) {
  auto f64 = b_.getF64Type();
  auto callee = externalFunction(name, b_.getFunctionType({f64}, {f64}));
  auto vectorType = mlir::dyn_cast<mlir::VectorType>(x.getType());
  if (!vectorType)
    return b_.create<mlir::func::CallOp>(loc_, callee, ValueRange{x}).getResult(0);
  Value out = x;
  for (int64_t lane = 0; lane < vectorType.getNumElements(); ++lane) {
    Value scalar = b_.create<mlir::vector::ExtractOp>(loc_, x, lane);
    Value result = b_.create<mlir::func::CallOp>(loc_, callee, ValueRange{scalar}).getResult(0);
    out = b_.create<mlir::vector::InsertOp>(loc_, result, out, lane);
  }
  return out;
}

Value BodyEmitter::indexConst(int64_t v) {
  auto it = indexConsts_.find(v);
  if (it != indexConsts_.end())
    return it->second;
  mlir::OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToStart(entry_);
  Value c = b_.create<mlir::arith::ConstantIndexOp>(loc_, v);
  indexConsts_[v] = c;
  return c;
}

Value BodyEmitter::f64Const(double v) { return cachedConstant(f64Consts_, v, b_.getF64FloatAttr(v)); }

Value BodyEmitter::cachedConstant(std::map<uint64_t, Value> &cache, double v, mlir::TypedAttr attr) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  auto it = cache.find(bits);
  if (it != cache.end())
    return it->second;
  mlir::OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToStart(entry_);
  Value c = b_.create<mlir::arith::ConstantOp>(loc_, attr);
  cache[bits] = c;
  return c;
}

mlir::VectorType BodyEmitter::vectorType() {
  return mlir::VectorType::get({static_cast<int64_t>(width_)}, b_.getF64Type());
}

Value BodyEmitter::splatConst(double v) {
  return cachedConstant(splatConsts_, v, mlir::DenseElementsAttr::get(vectorType(), v));
}

Value BodyEmitter::constLike(Value like, double v) {
  return mlir::isa<mlir::VectorType>(like.getType()) ? splatConst(v) : f64Const(v);
}

Value BodyEmitter::vectorOf(NodeId id) {
  const Node &n = plan_.graph.node(id);
  if (n.op == NodeOp::Const)
    return splatConst(n.value);
  Value v = values_.at(id);
  if (mlir::isa<mlir::VectorType>(v.getType()))
    return v;
  auto it = broadcasts_.find(id);
  if (it != broadcasts_.end())
    return it->second;
  mlir::OpBuilder::InsertionGuard guard(b_);
  if (mlir::Operation *def = v.getDefiningOp())
    b_.setInsertionPointAfter(def);
  else
    b_.setInsertionPointToStart(entry_);
  Value splat = b_.create<mlir::vector::BroadcastOp>(loc_, vectorType(), v);
  broadcasts_[id] = splat;
  return splat;
}

void BodyEmitter::computeVarying() {
  const ScalarGraph &g = plan_.graph;
  varies_.assign(g.size(), 0);
  for (NodeId id : g.topologicalOrder(storeRoots())) {
    const Node &n = g.node(id);
    bool v = false;
    if (n.op == NodeOp::Leaf)
      v = plan_.args[static_cast<size_t>(n.leaf.a)].type != ArgType::F64;
    if (n.lhs >= 0)
      v = v || varies_[static_cast<size_t>(n.lhs)];
    if (n.rhs >= 0)
      v = v || varies_[static_cast<size_t>(n.rhs)];
    varies_[static_cast<size_t>(id)] = v;
  }
}

void BodyEmitter::emitLoopInvariants() {
  const ScalarGraph &g = plan_.graph;
  std::vector<NodeId> invariantRoots;
  for (NodeId id : g.topologicalOrder(storeRoots())) {
    const Node &n = g.node(id);
    if (!varies_[static_cast<size_t>(id)] && n.op != NodeOp::Const && n.op != NodeOp::Leaf)
      invariantRoots.push_back(id);
  }
  emitNodes(invariantRoots, [](const Leaf &) -> Value { return {}; });
}

/// x^n for integer n by repeated squaring (exact for the small powers physics uses).
Value BodyEmitter::integerPower(Value x, int64_t n) {
  bool negative = n < 0;
  uint64_t e = static_cast<uint64_t>(negative ? -n : n);
  Value result;
  Value base = x;
  while (e) {
    if (e & 1)
      result = result ? arith2<mlir::arith::MulFOp>(result, base) : base;
    e >>= 1;
    if (e)
      base = arith2<mlir::arith::MulFOp>(base, base);
  }
  if (!result)
    result = constLike(x, 1.0);
  if (negative)
    result = arith2<mlir::arith::DivFOp>(constLike(x, 1.0), result);
  return result;
}

void BodyEmitter::emitNodes(const std::vector<NodeId> &roots, const LeafLoader &load) {
  const ScalarGraph &g = plan_.graph;
  for (NodeId id : evaluationOrder(roots)) {
    if (values_.count(id))
      continue;
    const Node &n = g.node(id);
    const bool vec = width_ > 1 && varies_[static_cast<size_t>(id)];
    auto use = [&](NodeId o) { return vec ? vectorOf(o) : values_.at(o); };
    auto L = [&] { return use(n.lhs); };
    auto R = [&] { return use(n.rhs); };
    Value v;
    if (readBackSlots_) {
      auto slot = readBackSlots_->find(id);
      if (slot != readBackSlots_->end()) {
        values_[id] = readBack_(slot->second);
        continue;
      }
    }
    switch (n.op) {
    case NodeOp::Const: v = f64Const(n.value); break;
    case NodeOp::Leaf: {
      const KernelArg &arg = plan_.args[static_cast<size_t>(n.leaf.a)];
      v = arg.type == ArgType::F64 ? args_[static_cast<size_t>(n.leaf.a)] : load(n.leaf);
      break;
    }
    case NodeOp::Add: {
      // a + (-b) is emitted as a subtraction.
      const Node &rn = g.node(n.rhs), &ln = g.node(n.lhs);
      if (rn.op == NodeOp::Neg && values_.count(rn.lhs))
        v = arith2<mlir::arith::SubFOp>(L(), use(rn.lhs));
      else if (ln.op == NodeOp::Neg && values_.count(ln.lhs))
        v = arith2<mlir::arith::SubFOp>(R(), use(ln.lhs));
      else
        v = arith2<mlir::arith::AddFOp>(L(), R());
      break;
    }
    case NodeOp::Mul: v = arith2<mlir::arith::MulFOp>(L(), R()); break;
    case NodeOp::Div: v = arith2<mlir::arith::DivFOp>(L(), R()); break;
    case NodeOp::Neg: v = b_.create<mlir::arith::NegFOp>(loc_, L(), fastmath_); break;
    case NodeOp::Pow:
      if (n.den == 1) {
        v = integerPower(L(), n.num);
      } else if (n.den == 2) {
        v = integerPower(b_.create<mlir::math::SqrtOp>(loc_, L()), n.num);
      } else {
        Value base = L();
        v = b_.create<mlir::math::PowFOp>(loc_, base,
                                          constLike(base, static_cast<double>(n.num) / static_cast<double>(n.den)));
      }
      break;
    case NodeOp::Sqrt: v = b_.create<mlir::math::SqrtOp>(loc_, L()); break;
    case NodeOp::Sin: v = b_.create<mlir::math::SinOp>(loc_, L()); break;
    case NodeOp::Cos: v = b_.create<mlir::math::CosOp>(loc_, L()); break;
    case NodeOp::Exp: v = b_.create<mlir::math::ExpOp>(loc_, L()); break;
    case NodeOp::Log: v = b_.create<mlir::math::LogOp>(loc_, L()); break;
    case NodeOp::PowGeneral: v = b_.create<mlir::math::PowFOp>(loc_, L(), R()); break;
    case NodeOp::BesselJ0: v = libmCall("j0", L()); break;
    case NodeOp::BesselJ1: v = libmCall("j1", L()); break;
    case NodeOp::Abs: v = b_.create<mlir::math::AbsFOp>(loc_, L()); break;
    case NodeOp::Sign: {
      Value x = L();
      v = b_.create<mlir::math::CopySignOp>(loc_, constLike(x, 1.0), x);
      break;
    }
    }
    values_[id] = v;
  }
}

/// Register need of each node (Sethi-Ullman labels, computed as if the graph were a tree).
void BodyEmitter::computeNeeds() {
  const ScalarGraph &g = plan_.graph;
  need_.assign(g.size(), 1);
  for (NodeId id : g.topologicalOrder(storeRoots())) {
    const Node &n = g.node(id);
    uint32_t l = n.lhs >= 0 ? need_[static_cast<size_t>(n.lhs)] : 0;
    uint32_t r = n.rhs >= 0 ? need_[static_cast<size_t>(n.rhs)] : 0;
    need_[static_cast<size_t>(id)] = std::max(1u, l == r ? l + 1 : std::max(l, r));
  }
}

/// Nodes reachable from `roots` and not emitted yet, operands first, in depth-first order
/// that evaluates the operand needing more registers first: values are produced close to
/// their uses, which keeps huge kernel bodies from spilling (LLVM schedules huge blocks
/// mostly in the order it receives them).
std::vector<NodeId> BodyEmitter::evaluationOrder(const std::vector<NodeId> &roots) {
  const ScalarGraph &g = plan_.graph;
  if (need_.size() != g.size())
    computeNeeds();
  std::vector<NodeId> order;
  std::vector<std::pair<NodeId, bool>> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it)
    stack.push_back({*it, false});
  while (!stack.empty()) {
    auto [id, expanded] = stack.back();
    stack.pop_back();
    if (values_.count(id) || visited_[static_cast<size_t>(id)] == visitEpoch_)
      continue;
    if (expanded) {
      visited_[static_cast<size_t>(id)] = visitEpoch_;
      order.push_back(id);
      continue;
    }
    stack.push_back({id, true});
    if (readBackSlots_ && readBackSlots_->count(id))
      continue; // read back: its operands are not needed
    const Node &n = g.node(id);
    NodeId first = n.lhs, second = n.rhs;
    if (second >= 0 && need_[static_cast<size_t>(second)] > need_[static_cast<size_t>(first)])
      std::swap(first, second);
    // Pushed in reverse: `first` is expanded first.
    if (second >= 0)
      stack.push_back({second, false});
    if (first >= 0)
      stack.push_back({first, false});
  }
  ++visitEpoch_;
  return order;
}

std::vector<NodeId> BodyEmitter::storeRoots() const { return outputRoots(plan_); }

void BodyEmitter::forgetVaryingValues() {
  for (auto it = values_.begin(); it != values_.end();)
    it = varies_[static_cast<size_t>(it->first)] ? values_.erase(it) : std::next(it);
}

std::vector<size_t> BodyEmitter::storeOrder() const {
  const ScalarGraph &g = plan_.graph;
  std::vector<std::vector<NodeId>> needs;
  for (const KernelStore &s : plan_.stores)
    needs.push_back(g.topologicalOrder({s.value}));
  std::vector<char> done(g.size(), 0), taken(plan_.stores.size(), 0);
  std::vector<size_t> order;
  for (size_t step = 0; step < plan_.stores.size(); ++step) {
    size_t best = 0, bestCost = SIZE_MAX;
    for (size_t i = 0; i < needs.size(); ++i) {
      if (taken[i])
        continue;
      size_t cost = 0;
      for (NodeId id : needs[i])
        cost += !done[static_cast<size_t>(id)];
      if (cost < bestCost)
        best = i, bestCost = cost;
    }
    taken[best] = 1;
    for (NodeId id : needs[best])
      done[static_cast<size_t>(id)] = 1;
    order.push_back(best);
  }
  return order;
}

} // namespace tensorium_mlir::codegen::emission
