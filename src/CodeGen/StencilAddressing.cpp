#include "StencilAddressing.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <set>

namespace tensorium_mlir::codegen::emission {

std::vector<PrefetchTarget> readPrefetches(const KernelPlan &plan, bool prefetch) {
  std::vector<PrefetchTarget> prefetches;
  if (!prefetch)
    return prefetches;
  const std::vector<NodeId> roots = outputRoots(plan);
  const auto ahead = static_cast<int8_t>(plan.radius[0] + 1), ry = static_cast<int8_t>(plan.radius[1]);
  std::set<std::pair<int, int>> read, readAcrossRows;
  for (NodeId id : plan.graph.topologicalOrder(roots)) {
    const Node &n = plan.graph.node(id);
    if (n.op == NodeOp::Leaf && plan.args[static_cast<size_t>(n.leaf.a)].type == ArgType::Buffer) {
      read.insert({n.leaf.a, n.leaf.b});
      if (n.leaf.offset[1] != 0)
        readAcrossRows.insert({n.leaf.a, n.leaf.b});
    }
  }
  for (const auto &[arg, component] : read)
    prefetches.push_back({arg, component, {ahead, 0, 0}});
  for (const auto &[arg, component] : readAcrossRows)
    for (int8_t dy : {static_cast<int8_t>(-ry), ry})
      prefetches.push_back({arg, component, {ahead, dy, 0}});
  return prefetches;
}

Addressing StencilAddressing::prepare(Value nx, Value ny, Value nz) {
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  const KernelPlan &plan = body_.plan();
  Addressing a;
  a.nz = nz;
  a.sx = b.create<mlir::arith::MulIOp>(loc, ny, nz);
  a.total = b.create<mlir::arith::MulIOp>(loc, nx, a.sx);
  auto delta = [&](int component, const std::array<int8_t, 3> &off) {
    auto key = std::make_tuple(component, off[0], off[1], 0);
    if (a.deltas.count(key))
      return;
    Value d;
    auto accumulate = [&](Value term) { d = d ? b.create<mlir::arith::AddIOp>(loc, d, term).getResult() : term; };
    if (component)
      accumulate(b.create<mlir::arith::MulIOp>(loc, body_.indexConst(component), a.total));
    auto scaled = [&](int8_t k, Value stride) -> Value {
      return k == 1 ? stride : b.create<mlir::arith::MulIOp>(loc, body_.indexConst(k), stride).getResult();
    };
    if (off[0])
      accumulate(scaled(off[0], a.sx));
    if (off[1])
      accumulate(scaled(off[1], nz));
    a.deltas[key] = d;
  };
  for (NodeId id : plan.graph.topologicalOrder(body_.storeRoots())) {
    const Node &n = plan.graph.node(id);
    if (n.op == NodeOp::Leaf && plan.args[static_cast<size_t>(n.leaf.a)].type == ArgType::Buffer)
      delta(n.leaf.b, n.leaf.offset);
  }
  for (const KernelStore &s : plan.stores)
    delta(s.component, {0, 0, 0});
  // Large kernels store dozens of output components per point. A store to a line that is not
  // cached waits for the line to be read first, and with that many streams the store buffer
  // fills; each output's next line along z is fetched for writing while the step computes.
  // The same step of the next row, prefetched before (BSSN at 64^3 against none: 1.04-1.07x
  // with SIMD steps, 1.21-1.23x on the scalar path), was too early for SIMD steps: a row is 8
  // steps of about 5,000 cycles at 64^3, 16 at 128^3, and the lines left L1 again before their
  // stores (the next line against it: 1.04x at 64^3, 1.20x at 128^3; scalar path 1.03x).
  a.prefetchOutputs = prefetch_ && sharedRowBody_;
  // Software prefetch of the x-plane that enters the stencils at the next i: the kernels read
  // dozens of components at several planes and rows each, more streams than hardware
  // prefetchers follow, so without it every new line waits for memory.
  a.prefetches = readPrefetches(plan, prefetch_);
  for (const PrefetchTarget &p : a.prefetches)
    delta(p.component, p.shift);
  body_.emitLoopInvariants();
  return a;
}

Value StencilAddressing::linearIndex(const Addressing &a, const Value ivs[3]) {
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  return b.create<mlir::arith::AddIOp>(
      loc, b.create<mlir::arith::AddIOp>(loc, b.create<mlir::arith::MulIOp>(loc, ivs[0], a.sx),
                                         b.create<mlir::arith::MulIOp>(loc, ivs[1], a.nz)),
      ivs[2]);
}

Value StencilAddressing::addressOf(const Addressing &a, Value linear, int component, const std::array<int8_t, 3> &off) {
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  Value d = a.deltas.at(std::make_tuple(component, off[0], off[1], 0));
  Value row = d ? b.create<mlir::arith::AddIOp>(loc, linear, d).getResult() : linear;
  return off[2] ? b.create<mlir::arith::AddIOp>(loc, row, body_.indexConst(off[2])).getResult() : row;
}

void StencilAddressing::emitPrefetches(const Addressing &a, const std::map<int, Value> &readFrom, Value linear,
                                       const std::function<bool(int, int)> &wanted) {
  for (const PrefetchTarget &p : a.prefetches)
    if (!wanted || wanted(p.arg, p.component))
      body_.builder().create<mlir::memref::PrefetchOp>(body_.location(), readFrom.at(p.arg),
                                                       ValueRange{addressOf(a, linear, p.component, p.shift)},
                                                       /*isWrite=*/false, /*localityHint=*/3, /*isDataCache=*/true);
}

/// 8 points (a 64-byte line) or one step, if wider, past the step's start; after a row's last
/// step they reach its ghost points or the next row.
void StencilAddressing::emitOutputPrefetches(const Addressing &a, Value linear) {
  if (!a.prefetchOutputs)
    return;
  const auto ahead = static_cast<int8_t>(std::max(body_.width(), 8u));
  for (const KernelStore &s : body_.plan().stores)
    body_.builder().create<mlir::memref::PrefetchOp>(body_.location(), body_.arg(s.arg),
                                                     ValueRange{addressOf(a, linear, s.component, {0, 0, ahead})},
                                                     /*isWrite=*/true, /*localityHint=*/3, /*isDataCache=*/true);
}

} // namespace tensorium_mlir::codegen::emission
