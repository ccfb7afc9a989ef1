#include "LaneShifts.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <set>

namespace tensorium_mlir::codegen::emission {

std::unordered_map<NodeId, const ZFactoredStencil *> chooseZFactorings(const KernelPlan &plan) {
  const ScalarGraph &g = plan.graph;
  const std::vector<NodeId> roots = outputRoots(plan);
  std::vector<char> reached(g.size(), 0);
  for (NodeId id : g.topologicalOrder(roots))
    reached[static_cast<size_t>(id)] = 1;
  std::unordered_map<NodeId, const ZFactoredStencil *> chosen;
  for (const ZFactoredStencil &f : plan.zFactored)
    if (usesComputedNodesOnly(f, reached) && g.node(f.value).op != NodeOp::Const &&
        g.node(f.transverse).op != NodeOp::Const)
      chosen.emplace(f.value, &f);
  return chosen;
}

LaneShifts::LaneShifts(BodyEmitter &body, VectorSteps &steps, StencilAddressing &addressing, bool enabled,
                       bool factorMixed)
    : body_(body), steps_(steps), addressing_(addressing), enabled_(enabled) {
  if (enabled_ && factorMixed)
    zFactored_ = chooseZFactorings(body.plan());
}

LeafLoader LaneShifts::loader(const Addressing &a, const std::map<int, Value> &readFrom, Value linear,
                              std::shared_ptr<RowLines> lines) {
  if (!lines || !enabled_)
    return [this, &a, &readFrom, linear](const Leaf &l) -> Value {
      return steps_.load(readFrom.at(l.a), addressing_.addressOf(a, linear, l.b, l.offset));
    };
  return [this, &a, &readFrom, linear, lines](const Leaf &l) -> Value {
    mlir::OpBuilder &b = body_.builder();
    const int64_t dz = l.offset[2];
    const int64_t r = body_.plan().radius[2];
    if (dz < -r || dz > r || !rowPointer(*lines, readFrom.at(l.a)))
      return steps_.load(readFrom.at(l.a), addressing_.addressOf(a, linear, l.b, l.offset));
    auto line = [&](int which) { return rowLine(*lines, a, readFrom.at(l.a), linear, l, which); };
    if (dz == 0)
      return b.create<mlir::vector::BitCastOp>(body_.location(), body_.vectorType(), line(0));
    // The step's vector first, then the one beside it: a fixed order of emission.
    Value at = line(0), beside = line(dz < 0 ? -1 : 1);
    return b.create<mlir::vector::BitCastOp>(body_.location(), body_.vectorType(), laneShift(at, beside, dz));
  };
}

/// 64-bit integer vectors: one valignq where they are loads; LLVM 19 permutes computed values
/// with vpermt2pd.
Value LaneShifts::laneShift(Value at, Value beside, int64_t by) {
  mlir::OpBuilder &b = body_.builder();
  const int64_t w = static_cast<int64_t>(body_.width());
  llvm::SmallVector<int64_t> lanes;
  for (int64_t q = 0; q < w; ++q)
    lanes.push_back(by < 0 ? w + by + q : by + q);
  return by < 0 ? b.create<mlir::vector::ShuffleOp>(body_.location(), beside, at, lanes).getResult()
                : b.create<mlir::vector::ShuffleOp>(body_.location(), at, beside, lanes).getResult();
}

/// The value of `root` with every buffer leaf read by `load`, apart from the values of this
/// step (which stay as they were): the transverse stencil on the vectors beside the step.
Value LaneShifts::evaluateApart(NodeId root, const LeafLoader &load) {
  std::unordered_map<NodeId, Value> &values = body_.values();
  std::unordered_map<NodeId, Value> kept;
  for (auto it = values.begin(); it != values.end();) {
    if (body_.varies(it->first)) {
      kept.insert(*it);
      it = values.erase(it);
    } else {
      ++it;
    }
  }
  body_.emitNodes({root}, load);
  Value v = values.at(root);
  body_.forgetVaryingValues();
  values.insert(kept.begin(), kept.end());
  return v;
}

void LaneShifts::emitZFactored(NodeId root, const Addressing &a, const std::map<int, Value> &readFrom, Value linear,
                               const std::shared_ptr<RowLines> &lines, const LeafLoader &loader) {
  if (zFactored_.empty())
    return;
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  const ScalarGraph &g = body_.plan().graph;
  std::unordered_map<NodeId, Value> &values = body_.values();
  std::vector<const ZFactoredStencil *> found;
  std::vector<NodeId> stack{root};
  std::set<NodeId> seen;
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (values.count(id) || !body_.varies(id) || !seen.insert(id).second)
      continue;
    if (auto it = zFactored_.find(id); it != zFactored_.end()) {
      found.push_back(it->second);
      continue;
    }
    const Node &n = g.node(id);
    for (NodeId o : {n.lhs, n.rhs})
      if (o >= 0)
        stack.push_back(o);
  }
  for (const ZFactoredStencil *f : found) {
    auto beside = [&](int which) {
      return evaluateApart(f->transverse, [&, which](const Leaf &l) -> Value {
        return b.create<mlir::vector::BitCastOp>(loc, body_.vectorType(),
                                                 rowLine(*lines, a, readFrom.at(l.a), linear, l, which));
      });
    };
    bool readable = true;
    for (NodeId id : g.topologicalOrder({f->transverse})) {
      const Node &n = g.node(id);
      if (n.op == NodeOp::Leaf && body_.varies(id))
        readable = readable && n.leaf.offset[2] == 0 && rowPointer(*lines, readFrom.at(n.leaf.a));
    }
    if (!readable)
      continue; // computed as its own stencil
    body_.emitNodes({f->transverse}, loader);
    auto integers = mlir::VectorType::get({static_cast<int64_t>(body_.width())}, b.getI64Type());
    auto asIntegers = [&](Value v) { return b.create<mlir::vector::BitCastOp>(loc, integers, v).getResult(); };
    Value at = asIntegers(values.at(f->transverse)), before, after;
    auto shifted = [&](int by) -> Value {
      if (by == 0)
        return b.create<mlir::vector::BitCastOp>(loc, body_.vectorType(), at);
      Value &side = by < 0 ? before : after;
      if (!side)
        side = asIntegers(beside(by < 0 ? -1 : 1));
      return b.create<mlir::vector::BitCastOp>(loc, body_.vectorType(), laneShift(at, side, by));
    };
    Value total;
    for (const ZFactoredStencil::Group &group : f->groups) {
      Value sum;
      for (int by : group.positive)
        sum = sum ? body_.arith2<mlir::arith::AddFOp>(sum, shifted(by)) : shifted(by);
      for (int by : group.negative) // groups of negative weights only list them as positive
        sum = sum ? body_.arith2<mlir::arith::SubFOp>(sum, shifted(by))
                  : b.create<mlir::arith::NegFOp>(loc, shifted(by), body_.fastmath()).getResult();
      Value term = body_.arith2<mlir::arith::MulFOp>(body_.vectorOf(group.coefficient), sum);
      total = total ? body_.arith2<mlir::arith::AddFOp>(total, term) : term;
    }
    values[f->value] = total;
  }
}

Value LaneShifts::rowPointer(RowLines &lines, Value buffer) {
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  void *key = buffer.getAsOpaquePointer();
  if (auto it = lines.pointers.find(key); it != lines.pointers.end())
    return it->second;
  Value pointer;
  auto type = mlir::dyn_cast<mlir::MemRefType>(buffer.getType());
  if (type && type.getRank() == 1 && type.getLayout().isIdentity() && type.getElementType().isF64()) {
    // The memref's descriptor, as the lowering to LLVM represents it; field 1 is the aligned
    // pointer and an identity layout has offset 0.
    auto *context = b.getContext();
    auto ptr = mlir::LLVM::LLVMPointerType::get(context);
    auto i64 = b.getI64Type();
    auto dims = mlir::LLVM::LLVMArrayType::get(i64, 1);
    auto descriptor = mlir::LLVM::LLVMStructType::getLiteral(context, {ptr, ptr, i64, dims, dims});
    Value cast =
        b.create<mlir::UnrealizedConversionCastOp>(loc, mlir::TypeRange{descriptor}, ValueRange{buffer}).getResult(0);
    pointer = b.create<mlir::LLVM::ExtractValueOp>(loc, cast, llvm::ArrayRef<int64_t>{1});
  }
  lines.pointers[key] = pointer;
  return pointer;
}

Value LaneShifts::rowLine(RowLines &lines, const Addressing &a, Value buffer, Value linear, const Leaf &l, int which) {
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  auto key = std::make_tuple(l.a, l.b, static_cast<int>(l.offset[0]), static_cast<int>(l.offset[1]), which);
  if (auto it = lines.lines.find(key); it != lines.lines.end())
    return it->second;
  const int64_t w = static_cast<int64_t>(body_.width()), r = body_.plan().radius[2];
  Value index = addressing_.addressOf(a, linear, l.b, {l.offset[0], l.offset[1], 0});
  if (which)
    index = b.create<mlir::arith::AddIOp>(loc, index, body_.indexConst(which * w));
  auto maskType = mlir::VectorType::get({w}, b.getI1Type());
  auto i64 = b.getI64Type();
  auto type = mlir::VectorType::get({w}, i64);
  Value mask;
  if (which == 0) {
    if (!lines.maskAt) // lanes q < remaining + r: the shifts by +1..+r of a step's active lanes
      lines.maskAt = b.create<mlir::vector::CreateMaskOp>(
          loc, maskType, ValueRange{b.create<mlir::arith::AddIOp>(loc, steps_.remaining(), body_.indexConst(r))});
    mask = lines.maskAt;
  } else if (which < 0) {
    if (!lines.maskBefore) { // its last r lanes
      llvm::SmallVector<bool> lanes(static_cast<size_t>(w), false);
      std::fill(lanes.end() - r, lanes.end(), true);
      lines.maskBefore =
          b.create<mlir::arith::ConstantOp>(loc, mlir::DenseElementsAttr::get(maskType, llvm::ArrayRef<bool>(lanes)));
    }
    mask = lines.maskBefore;
  } else if (which > 0) {
    if (!lines.maskAfter) { // lanes q < min(r, remaining + r - w): within r of the step's last active lane
      Value upTo = b.create<mlir::arith::MinSIOp>(
          loc, b.create<mlir::arith::AddIOp>(loc, steps_.remaining(), body_.indexConst(r - w)), body_.indexConst(r));
      lines.maskAfter = b.create<mlir::vector::CreateMaskOp>(loc, maskType, ValueRange{upTo});
    }
    mask = lines.maskAfter;
  }
  if (!lines.zero)
    lines.zero = b.create<mlir::arith::ConstantOp>(loc, mlir::DenseElementsAttr::get(type, b.getI64IntegerAttr(0)));
  Value address = b.create<mlir::LLVM::GEPOp>(
      loc, mlir::LLVM::LLVMPointerType::get(b.getContext()), b.getF64Type(), rowPointer(lines, buffer),
      // Not inbounds: the vectors before and after a step start up to 8 points outside the row
      // (only their masked lanes lie in it), possibly outside the buffer.
      ValueRange{b.create<mlir::arith::IndexCastOp>(loc, i64, index)}, /*inbounds=*/false);
  Value v = b.create<mlir::LLVM::MaskedLoadOp>(loc, type, address, mask, ValueRange{lines.zero}, /*alignment=*/8);
  lines.lines[key] = v;
  return v;
}

} // namespace tensorium_mlir::codegen::emission
