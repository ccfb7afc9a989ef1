#include "LoopNests.h"

#include "TeamMapping.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <set>

namespace tensorium_mlir::codegen::emission {

std::array<int64_t, 2> chooseTile(const KernelPlan &plan, const EmitOptions &options, unsigned width, bool twoPassRows) {
  if (options.tileY > 0 && options.tileZ > 0)
    return {options.tileY, options.tileZ};
  if (!options.cacheBlocking)
    return {0, 0};
  // Two-pass rows stream each component's rows in their own loops and run fastest over whole
  // rows, 4 at a time (BSSN at 128^3: 1, 2, 4 and 8 rows gave 3.1, 4.5, 4.4 and 3.6 M points/s;
  // split rows 2.4): only y is tiled for them.
  if (twoPassRows)
    return {kTwoPassTileRows, kMaxTileZ};
  const std::vector<NodeId> roots = outputRoots(plan);
  std::set<std::pair<int, int>> components;
  for (NodeId id : plan.graph.topologicalOrder(roots)) {
    const Node &n = plan.graph.node(id);
    if (n.op == NodeOp::Leaf && plan.args[static_cast<size_t>(n.leaf.a)].type == ArgType::Buffer)
      components.insert({n.leaf.a, n.leaf.b});
  }
  const int64_t c = std::max<int64_t>(1, static_cast<int64_t>(components.size()));
  const int64_t rx = plan.radius[0], ry = plan.radius[1], rz = plan.radius[2];
  const int64_t tz = std::max<int64_t>(64, 2 * static_cast<int64_t>(width));
  const int64_t rows = static_cast<int64_t>(options.blockingBudgetBytes) / ((2 * rx + 1) * (tz + 2 * rz) * c * 8);
  return {std::clamp<int64_t>(rows - 2 * ry, 4, 4096), tz};
}

mlir::Operation *LoopNests::emitPlain(const Value extents[3], Value ivs[3], RowBounds *rows) {
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  const KernelPlan &plan = body_.plan();
  const unsigned width = body_.width();
  auto radius = [&](int a) { return plan.radius[static_cast<size_t>(a)]; };
  Value upper[3];
  for (int a = 0; a < 3; ++a)
    if (plan.loop != LoopStyle::Affine || ((width > 1 || rows) && a == 2))
      upper[a] = b.create<mlir::arith::SubIOp>(loc, extents[a], body_.indexConst(radius(a)));
  // Scalar kernels loop over every axis one point at a time (the parallel kernel as one 3-D
  // scf.parallel); vector kernels step the contiguous axis `width` points at a time in an
  // inner sequential loop (parallel kernels share out the two outer axes).
  const int loopAxes = rows ? 2 : 3;
  const int outerAxes = (width > 1 || rows) && plan.loop == LoopStyle::Parallel ? 2 : 3;
  if (width > 1 && !rows)
    steps_.prepare(body_.indexConst(radius(2)), upper[2]);
  mlir::Operation *outer = nullptr;
  auto step = [&](int a) -> int64_t { return a == 2 ? static_cast<int64_t>(width) : 1; };
  if (plan.loop == LoopStyle::Parallel) {
    llvm::SmallVector<Value> lbs, ubs, steps;
    for (int a = 0; a < outerAxes; ++a) {
      lbs.push_back(body_.indexConst(radius(a)));
      ubs.push_back(upper[a]);
      steps.push_back(body_.indexConst(1));
    }
    auto par = b.create<mlir::scf::ParallelOp>(loc, lbs, ubs, steps);
    outer = par;
    b.setInsertionPoint(par.getBody()->getTerminator());
    for (int a = 0; a < outerAxes; ++a)
      ivs[a] = par.getInductionVars()[static_cast<unsigned>(a)];
  }
  for (int a = plan.loop == LoopStyle::Parallel ? outerAxes : 0; a < loopAxes; ++a) {
    mlir::Operation *loopOp;
    if (plan.loop == LoopStyle::Affine) {
      auto ubMap = mlir::AffineMap::get(0, 1, b.getAffineSymbolExpr(0) - radius(a));
      auto loop = b.create<mlir::affine::AffineForOp>(loc, ValueRange{}, b.getConstantAffineMap(radius(a)),
                                                      ValueRange{extents[a]}, ubMap, step(a));
      ivs[a] = loop.getInductionVar();
      b.setInsertionPoint(loop.getBody()->getTerminator());
      loopOp = loop;
    } else {
      auto loop = b.create<mlir::scf::ForOp>(loc, body_.indexConst(radius(a)), upper[a], body_.indexConst(step(a)));
      ivs[a] = loop.getInductionVar();
      b.setInsertionPoint(loop.getBody()->getTerminator());
      loopOp = loop;
    }
    if (!outer)
      outer = loopOp;
  }
  if (rows)
    *rows = {body_.indexConst(radius(2)), upper[2]};
  else if (width > 1)
    ivs[2] = steps_.step(ivs[2]);
  return outer;
}

namespace {

/// The team mapping's formula as index operations at the builder's insertion point.
struct EmittedTeamArithmetic {
  using Index = Value;
  BodyEmitter &body;
  mlir::OpBuilder &b;
  mlir::Location loc;
  Index constant(int64_t v) { return body.indexConst(v); }
  Index add(Index x, Index y) { return b.create<mlir::arith::AddIOp>(loc, x, y); }
  Index sub(Index x, Index y) { return b.create<mlir::arith::SubIOp>(loc, x, y); }
  Index mul(Index x, Index y) { return b.create<mlir::arith::MulIOp>(loc, x, y); }
  Index div(Index x, Index y) { return b.create<mlir::arith::DivSIOp>(loc, x, y); }
  Index rem(Index x, Index y) { return b.create<mlir::arith::RemSIOp>(loc, x, y); }
  Index max(Index x, Index y) { return b.create<mlir::arith::MaxSIOp>(loc, x, y); }
  Index min(Index x, Index y) { return b.create<mlir::arith::MinSIOp>(loc, x, y); }
  Index selectLess(Index x, Index y, Index ifLess, Index otherwise) {
    Value less = b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::slt, x, y);
    return b.create<mlir::arith::SelectOp>(loc, less, ifLess, otherwise);
  }
};

} // namespace

mlir::Operation *LoopNests::emitTeamRowTiles(Value upperY, Value upperZ, int64_t ty, int64_t tz, Value &jb, Value &jEnd,
                                             Value &kb) {
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  EmittedTeamArithmetic o{body_, b, loc};
  Value r1 = body_.indexConst(body_.plan().radius[1]);
  Value rowSpan = o.sub(upperY, r1);
  Value rowCount = o.max(rowSpan, body_.indexConst(0));
  Value threads = b.create<mlir::arith::IndexCastOp>(loc, b.getIndexType(), body_.teamSize());
  const TeamRowTiling<Value> tiling = teamRowTiling(o, rowCount, threads, ty);
  auto par = b.create<mlir::scf::ParallelOp>(
      loc, llvm::SmallVector<Value>{body_.indexConst(0), body_.indexConst(body_.plan().radius[2])},
      llvm::SmallVector<Value>{tiling.tiles, upperZ}, llvm::SmallVector<Value>{body_.indexConst(1), body_.indexConst(tz)});
  b.setInsertionPoint(par.getBody()->getTerminator());
  Value t = par.getInductionVars()[0];
  kb = par.getInductionVars()[1];
  const TeamRowTile<Value> tile = teamRowTile(o, tiling, r1, t);
  jb = tile.first;
  jEnd = tile.end;
  return par;
}

mlir::Operation *LoopNests::emitTiled(const Value extents[3], Value ivs[3], RowBounds *rows) {
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  const KernelPlan &plan = body_.plan();
  const unsigned width = body_.width();
  auto radius = [&](int a) { return plan.radius[static_cast<size_t>(a)]; };
  const int64_t ty = tile_[0], tz = tile_[1];
  Value upper[3];
  for (int a = 0; a < 3; ++a)
    upper[a] = b.create<mlir::arith::SubIOp>(loc, extents[a], body_.indexConst(radius(a)));
  mlir::Operation *outer = nullptr;
  Value jb, kb, jEnd, kEnd; // tile origin and end (exclusive) in y and z
  if (plan.loop == LoopStyle::Affine) {
    auto interior = [&](int a) { return mlir::AffineMap::get(0, 1, b.getAffineSymbolExpr(0) - radius(a)); };
    auto tileEnd = [&](int a, int64_t size) {
      mlir::MLIRContext *ctx = b.getContext();
      return mlir::AffineMap::get(
          1, 1, {mlir::getAffineDimExpr(0, ctx) + size, mlir::getAffineSymbolExpr(0, ctx) - radius(a)}, ctx);
    };
    auto jLoop = b.create<mlir::affine::AffineForOp>(loc, ValueRange{}, b.getConstantAffineMap(radius(1)),
                                                     ValueRange{extents[1]}, interior(1), ty);
    outer = jLoop;
    b.setInsertionPoint(jLoop.getBody()->getTerminator());
    jb = jLoop.getInductionVar();
    auto kLoop = b.create<mlir::affine::AffineForOp>(loc, ValueRange{}, b.getConstantAffineMap(radius(2)),
                                                     ValueRange{extents[2]}, interior(2), tz);
    b.setInsertionPoint(kLoop.getBody()->getTerminator());
    kb = kLoop.getInductionVar();
    if (width > 1 || rows)
      kEnd = b.create<mlir::affine::AffineMinOp>(loc, tileEnd(2, tz), ValueRange{kb, extents[2]});
    if (width > 1 && !rows)
      steps_.prepare(kb, kEnd);
    auto iLoop = b.create<mlir::affine::AffineForOp>(loc, ValueRange{}, b.getConstantAffineMap(radius(0)),
                                                     ValueRange{extents[0]}, interior(0), 1);
    b.setInsertionPoint(iLoop.getBody()->getTerminator());
    ivs[0] = iLoop.getInductionVar();
    auto identity = mlir::AffineMap::getMultiDimIdentityMap(1, b.getContext());
    auto jIn = b.create<mlir::affine::AffineForOp>(loc, ValueRange{jb}, identity, ValueRange{jb, extents[1]},
                                                   tileEnd(1, ty), 1);
    b.setInsertionPoint(jIn.getBody()->getTerminator());
    ivs[1] = jIn.getInductionVar();
    if (!rows) {
      auto kIn = b.create<mlir::affine::AffineForOp>(loc, ValueRange{kb}, identity, ValueRange{kb, extents[2]},
                                                     tileEnd(2, tz), static_cast<int64_t>(width));
      b.setInsertionPoint(kIn.getBody()->getTerminator());
      ivs[2] = kIn.getInductionVar();
    }
  } else {
    if (plan.loop == LoopStyle::Parallel && rows) {
      outer = emitTeamRowTiles(upper[1], upper[2], ty, tz, jb, jEnd, kb);
    } else if (plan.loop == LoopStyle::Parallel) {
      auto par = b.create<mlir::scf::ParallelOp>(
          loc, llvm::SmallVector<Value>{body_.indexConst(radius(1)), body_.indexConst(radius(2))},
          llvm::SmallVector<Value>{upper[1], upper[2]},
          llvm::SmallVector<Value>{body_.indexConst(ty), body_.indexConst(tz)});
      outer = par;
      b.setInsertionPoint(par.getBody()->getTerminator());
      jb = par.getInductionVars()[0];
      kb = par.getInductionVars()[1];
    } else {
      auto jLoop = b.create<mlir::scf::ForOp>(loc, body_.indexConst(radius(1)), upper[1], body_.indexConst(ty));
      outer = jLoop;
      b.setInsertionPoint(jLoop.getBody()->getTerminator());
      jb = jLoop.getInductionVar();
      auto kLoop = b.create<mlir::scf::ForOp>(loc, body_.indexConst(radius(2)), upper[2], body_.indexConst(tz));
      b.setInsertionPoint(kLoop.getBody()->getTerminator());
      kb = kLoop.getInductionVar();
    }
    if (!jEnd)
      jEnd = b.create<mlir::arith::MinSIOp>(loc, b.create<mlir::arith::AddIOp>(loc, jb, body_.indexConst(ty)), upper[1]);
    kEnd = b.create<mlir::arith::MinSIOp>(loc, b.create<mlir::arith::AddIOp>(loc, kb, body_.indexConst(tz)), upper[2]);
    if (width > 1 && !rows)
      steps_.prepare(kb, kEnd);
    auto iLoop = b.create<mlir::scf::ForOp>(loc, body_.indexConst(radius(0)), upper[0], body_.indexConst(1));
    b.setInsertionPoint(iLoop.getBody()->getTerminator());
    ivs[0] = iLoop.getInductionVar();
    auto jIn = b.create<mlir::scf::ForOp>(loc, jb, jEnd, body_.indexConst(1));
    b.setInsertionPoint(jIn.getBody()->getTerminator());
    ivs[1] = jIn.getInductionVar();
    if (!rows) {
      auto kIn = b.create<mlir::scf::ForOp>(loc, kb, kEnd, body_.indexConst(width));
      b.setInsertionPoint(kIn.getBody()->getTerminator());
      ivs[2] = kIn.getInductionVar();
    }
  }
  if (rows)
    *rows = {kb, kEnd};
  else if (width > 1)
    ivs[2] = steps_.step(ivs[2]);
  return outer;
}

} // namespace tensorium_mlir::codegen::emission
