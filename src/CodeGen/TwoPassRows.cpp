#include "TwoPassRows.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>
#include <set>

namespace tensorium_mlir::codegen::emission {

int64_t scratchSteps(size_t values, unsigned width) {
  for (int64_t steps = kStencilPassSteps; steps > 0; --steps)
    if (static_cast<int64_t>(values) * scratchStride(static_cast<int64_t>(width) * steps) *
            static_cast<int64_t>(sizeof(double)) <=
        kScratchBytes)
      return steps;
  return 0;
}

StencilValues findStencilValues(const KernelPlan &plan) {
  const ScalarGraph &g = plan.graph;
  const std::vector<NodeId> roots = outputRoots(plan);
  const std::vector<NodeId> order = g.topologicalOrder(roots);
  constexpr int64_t kNone = -1, kSeveral = -2;
  std::vector<int64_t> source(g.size(), kNone);
  std::vector<char> shifted(g.size(), 0), chosen(g.size(), 0);
  for (NodeId id : order) {
    const Node &n = g.node(id);
    const auto u = static_cast<size_t>(id);
    if (n.op == NodeOp::Leaf) {
      if (plan.args[static_cast<size_t>(n.leaf.a)].type == ArgType::Buffer) {
        source[u] = static_cast<int64_t>(n.leaf.a) << 32 | static_cast<uint32_t>(n.leaf.b);
        shifted[u] = n.leaf.offset != std::array<int8_t, 3>{0, 0, 0};
      }
      continue;
    }
    for (NodeId o : {n.lhs, n.rhs}) {
      if (o < 0)
        continue;
      const int64_t so = source[static_cast<size_t>(o)];
      if (so != kNone)
        source[u] = source[u] == kNone || source[u] == so ? so : kSeveral;
      shifted[u] = shifted[u] || shifted[static_cast<size_t>(o)];
    }
  }
  auto candidate = [&](NodeId id) {
    const auto u = static_cast<size_t>(id);
    return source[u] >= 0 && shifted[u] && g.node(id).op != NodeOp::Leaf;
  };
  // A negated value is stored without its sign, which the second pass folds into a
  // subtraction as the one-pass body does.
  auto choose = [&](NodeId id) {
    const Node &n = g.node(id);
    chosen[static_cast<size_t>(n.op == NodeOp::Neg && candidate(n.lhs) ? n.lhs : id)] = 1;
  };
  for (NodeId id : order) {
    if (source[static_cast<size_t>(id)] != kSeveral)
      continue;
    const Node &n = g.node(id);
    for (NodeId o : {n.lhs, n.rhs})
      if (o >= 0 && candidate(o))
        choose(o);
  }
  for (const KernelStore &s : plan.stores)
    if (candidate(s.value))
      choose(s.value);
  StencilValues result;
  for (NodeId id : order)
    if (chosen[static_cast<size_t>(id)])
      result.values.push_back(id);
  std::stable_sort(result.values.begin(), result.values.end(), [&](NodeId x, NodeId y) {
    return source[static_cast<size_t>(x)] < source[static_cast<size_t>(y)];
  });
  for (NodeId id : result.values)
    result.sources.push_back({static_cast<int>(source[static_cast<size_t>(id)] >> 32),
                              static_cast<int>(source[static_cast<size_t>(id)] & 0xffffffff)});
  return result;
}

Value TwoPassRows::scratchIndex(size_t slot) {
  return body_.builder().create<mlir::arith::AddIOp>(
      body_.location(), body_.indexConst(static_cast<int64_t>(slot) * scratchStride_), scratchStep_);
}

Value TwoPassRows::loadScratch(size_t slot) {
  mlir::OpBuilder &b = body_.builder();
  if (body_.width() > 1)
    return b.create<mlir::vector::LoadOp>(body_.location(), body_.vectorType(), scratch_, ValueRange{scratchIndex(slot)});
  return b.create<mlir::memref::LoadOp>(body_.location(), scratch_, ValueRange{scratchIndex(slot)});
}

void TwoPassRows::storeScratch(Value v, size_t slot) {
  mlir::OpBuilder &b = body_.builder();
  if (body_.width() > 1)
    b.create<mlir::vector::StoreOp>(body_.location(), v, scratch_, ValueRange{scratchIndex(slot)});
  else
    b.create<mlir::memref::StoreOp>(body_.location(), v, scratch_, ValueRange{scratchIndex(slot)});
}

void TwoPassRows::emitRow(const Addressing &a, const std::map<int, Value> &readFrom, Value i, Value j, Value stepsFrom,
                          Value kEnd, const std::function<void(Value)> &emitStores) {
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  const unsigned width = body_.width();
  const std::vector<NodeId> &stencil = stencil_.values;
  const std::vector<std::pair<int, int>> &sources = stencil_.sources;
  // The scratch block lives on the stack of whichever thread runs the row: bounded, by
  // shortening the chunk (the emitter keeps one pass when even one step would not fit).
  const int64_t chunkPoints = static_cast<int64_t>(width) * scratchSteps(stencil.size(), width);
  scratchStride_ = scratchStride(chunkPoints);
  for (size_t r = 0; r < stencil.size(); ++r)
    scratchSlot_[stencil[r]] = r;
  auto type = mlir::MemRefType::get({static_cast<int64_t>(stencil.size()) * scratchStride_}, b.getF64Type());
  scratch_ = b.create<mlir::memref::AllocaOp>(loc, type, b.getI64IntegerAttr(64));
  Value chunk = body_.indexConst(chunkPoints);
  auto chunkLoop = b.create<mlir::scf::ForOp>(loc, stepsFrom, kEnd, chunk);
  b.setInsertionPoint(chunkLoop.getBody()->getTerminator());
  Value kc = chunkLoop.getInductionVar();
  Value chunkEnd = b.create<mlir::arith::MinSIOp>(loc, b.create<mlir::arith::AddIOp>(loc, kc, chunk), kEnd);
  // One loop over the chunk, `width` points per step; `body` gets the step's linear index.
  auto stepLoop = [&](const std::function<void(Value)> &body) {
    auto loop = b.create<mlir::scf::ForOp>(loc, kc, chunkEnd, body_.indexConst(width));
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value k = loop.getInductionVar();
    scratchStep_ = b.create<mlir::arith::SubIOp>(loc, k, kc);
    Value ivs[3] = {i, j, width > 1 ? steps_.step(k) : k};
    body(addressing_.linearIndex(a, ivs));
    body_.forgetVaryingValues();
  };
  // First pass: one loop per buffer component, computing that component's stencil values; the
  // offsets of its rows then stay in registers.
  std::set<std::pair<int, int>> prefetched;
  for (size_t first = 0; first < stencil.size();) {
    size_t last = first;
    while (last < stencil.size() && sources[last] == sources[first])
      ++last;
    const std::pair<int, int> source = sources[first];
    prefetched.insert(source);
    stepLoop([&](Value linear) {
      addressing_.emitPrefetches(a, readFrom, linear,
                                 [&](int arg, int component) { return std::make_pair(arg, component) == source; });
      auto lines = std::make_shared<RowLines>();
      auto loader = lanes_.loader(a, readFrom, linear, lines);
      for (size_t r = first; r < last; ++r) {
        lanes_.emitZFactored(stencil[r], a, readFrom, linear, lines, loader);
        body_.emitNodes({stencil[r]}, loader);
        storeScratch(body_.values().at(stencil[r]), r);
      }
    });
    first = last;
  }
  // Second pass: the equations, reading the stencil values back.
  stepLoop([&](Value linear) {
    addressing_.emitPrefetches(a, readFrom, linear,
                               [&](int arg, int component) { return !prefetched.count({arg, component}); });
    addressing_.emitOutputPrefetches(a, linear);
    body_.setReadBack(&scratchSlot_, [this](size_t slot) { return loadScratch(slot); });
    emitStores(linear);
    body_.setReadBack(nullptr, nullptr);
  });
  b.setInsertionPointAfter(chunkLoop);
  scratchSlot_.clear();
}

} // namespace tensorium_mlir::codegen::emission
