#include "KernelEmitter.h"

#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tensorium_mlir::codegen::emission {

bool wantsRowFunction(const KernelPlan &plan, const EmitOptions &options) {
  if (!isStencilFamily(plan.family))
    return false;
  std::vector<NodeId> roots;
  for (const KernelStore &s : plan.stores)
    roots.push_back(s.value);
  return plan.graph.topologicalOrder(roots).size() > options.sharedBodyNodes;
}

KernelEmitter::Choices KernelEmitter::choose(mlir::MLIRContext *context, const KernelPlan &plan,
                                             const EmitOptions &options) {
  Choices c;
  c.width = isGridFamily(plan.family) ? std::max(1u, options.vectorWidth) : 1;
  // Lane shifts replace loads that straddle two cache lines; measured with 8-wide steps
  // (AVX-512, where they are one valignq each), and only for radii a neighbouring line covers.
  c.laneShifts = options.laneShifts && c.width == 8 && plan.radius[2] > 0 && plan.radius[2] < 8;
  c.sharesRowBody = wantsRowFunction(plan, options);
  if (options.stencilPass && c.sharesRowBody) {
    c.stencil = findStencilValues(plan);
    if (c.stencil.values.empty() || scratchSteps(c.stencil.values.size(), c.width) == 0)
      c.stencil = {};
  }
  c.factorMixed = c.laneShifts && options.factorMixed && !c.stencil.values.empty();
  if (isStencilFamily(plan.family))
    c.tile = chooseTile(plan, options, c.width, !c.stencil.values.empty());
  c.fastmath = mlir::arith::FastMathFlagsAttr::get(
      context, options.fpContract ? mlir::arith::FastMathFlags::contract | mlir::arith::FastMathFlags::arcp
                                  : mlir::arith::FastMathFlags::none);
  c.prefetch = options.prefetch;
  return c;
}

KernelEmitter::KernelEmitter(mlir::OpBuilder &b, mlir::Location loc, const KernelPlan &plan, Choices c)
    : b_(b), loc_(loc), plan_(plan), sharesRowBody_(c.sharesRowBody), body_(b, loc, plan, c.width, c.fastmath),
      steps_(body_), addressing_(body_, c.prefetch, c.sharesRowBody),
      lanes_(body_, steps_, addressing_, c.laneShifts, c.factorMixed),
      twoPass_(body_, steps_, addressing_, lanes_, std::move(c.stencil)), loops_(body_, steps_, c.tile) {}

void KernelEmitter::emit(mlir::ModuleOp module) {
  auto f64 = b_.getF64Type();
  llvm::SmallVector<mlir::Type> inputs;
  for (const KernelArg &a : plan_.args) {
    switch (a.type) {
    case ArgType::Index: inputs.push_back(b_.getIndexType()); break;
    case ArgType::F64: inputs.push_back(f64); break;
    case ArgType::Buffer: inputs.push_back(mlir::MemRefType::get({mlir::ShapedType::kDynamic}, f64)); break;
    case ArgType::FixedBuffer: inputs.push_back(mlir::MemRefType::get({a.fixedSize}, f64)); break;
    }
  }
  llvm::SmallVector<mlir::Type> results;
  if (plan_.result >= 0)
    results.push_back(f64);
  b_.setInsertionPointToEnd(module.getBody());
  auto func = b_.create<mlir::func::FuncOp>(loc_, plan_.symbol, b_.getFunctionType(inputs, results));
  setAttributes(func);
  mlir::Block *entry = func.addEntryBlock();
  b_.setInsertionPointToStart(entry);
  std::vector<Value> args;
  for (unsigned i = 0; i < entry->getNumArguments(); ++i)
    args.push_back(entry->getArgument(i));
  body_.beginFunction(module, entry, std::move(args));

  switch (plan_.family) {
  case KernelFamily::InitPoint:
  case KernelFamily::Symbolic:
  case KernelFamily::SpectralPoint:
  case KernelFamily::SpectralJvp:
    emitPointBody();
    break;
  case KernelFamily::InitGrid:
  case KernelFamily::SpectralGrid:
    emitFlatLoop();
    break;
  case KernelFamily::RhsGrid:
  case KernelFamily::ResidualGrid:
    emitStencilLoop();
    break;
  }
  if (plan_.result >= 0)
    b_.create<mlir::func::ReturnOp>(loc_, body_.values().at(plan_.result));
  else
    b_.create<mlir::func::ReturnOp>(loc_);
}

void KernelEmitter::setAttributes(mlir::func::FuncOp func) {
  auto names = [&](const std::vector<std::string> &list) {
    llvm::SmallVector<mlir::Attribute> attrs;
    for (const std::string &s : list)
      attrs.push_back(b_.getStringAttr(s));
    return b_.getArrayAttr(attrs);
  };
  auto set = [&](std::string_view name, mlir::Attribute value) {
    func->setAttr(llvm::StringRef(name.data(), name.size()), value);
  };
  auto str = [&](std::string_view s) { return b_.getStringAttr(llvm::StringRef(s.data(), s.size())); };
  set(abi::kAttrVersion, b_.getI64IntegerAttr(abi::kABIVersion));
  set(abi::kAttrKind, str(plan_.kind));
  set(abi::kAttrMemoryLayout, str(abi::kMemoryLayoutSoAComponentMajor));
  set(abi::kAttrMemrefABI, str(abi::kMemrefABIStridedRank1F64));
  set(abi::kAttrParamNames, names(plan_.paramNames));
  set(abi::kAttrCoordNames, names(plan_.coordNames));
  set(abi::kAttrFieldNames, names(plan_.fieldNames));
  set(abi::kAttrOutputNames, names(plan_.outputNames));
  set(abi::kAttrReadArgIndices, b_.getDenseI64ArrayAttr(plan_.readArgs));
  set(abi::kAttrWriteArgIndices, b_.getDenseI64ArrayAttr(plan_.writeArgs));
  if (isStencilFamily(plan_.family))
    set(abi::kAttrStencilRadius, b_.getI64IntegerAttr(plan_.stencilRadius));
  if (plan_.residualKernel)
    set(abi::kAttrResidualKernel, b_.getUnitAttr());
  if (!plan_.constraintBlock.empty())
    set(abi::kAttrConstraintBlock, b_.getStringAttr(plan_.constraintBlock));
  if (plan_.family == KernelFamily::Symbolic) {
    std::vector<std::string> argNames;
    for (const KernelArg &a : plan_.args)
      argNames.push_back(a.name);
    set(abi::kAttrArgNames, names(argNames));
  }
}

void KernelEmitter::emitPointBody() {
  body_.emitNodes(body_.storeRoots(), [&](const Leaf &l) -> Value {
    return b_.create<mlir::memref::LoadOp>(loc_, body_.arg(l.a), ValueRange{body_.indexConst(l.b)});
  });
  for (const KernelStore &s : plan_.stores)
    b_.create<mlir::memref::StoreOp>(loc_, body_.values().at(s.value), body_.arg(s.arg),
                                     ValueRange{body_.indexConst(s.component)});
}

/// Flat loop over all points: coordinates/bundles at p, outputs at component * n + p.
void KernelEmitter::emitFlatLoop() {
  const unsigned width = body_.width();
  Value n;
  if (plan_.family == KernelFamily::SpectralGrid) {
    n = body_.arg(0);
  } else {
    int firstBuffer = -1;
    for (size_t i = 0; i < plan_.args.size(); ++i)
      if (plan_.args[i].type == ArgType::Buffer && plan_.args[i].role == ArgRole::Coordinate) {
        firstBuffer = static_cast<int>(i);
        break;
      }
    if (firstBuffer < 0) // no coordinates: size the loop by the first buffer (an output in planned kernels)
      for (size_t i = 0; i < plan_.args.size(); ++i)
        if (plan_.args[i].type == ArgType::Buffer) {
          firstBuffer = static_cast<int>(i);
          break;
        }
    n = b_.create<mlir::memref::DimOp>(loc_, body_.arg(firstBuffer), 0);
    if (plan_.args[static_cast<size_t>(firstBuffer)].role == ArgRole::Output) {
      unsigned comps = plan_.args[static_cast<size_t>(firstBuffer)].components;
      n = b_.create<mlir::arith::DivUIOp>(loc_, n, body_.indexConst(comps));
    }
  }
  std::map<int, Value> componentBase; // component -> component * n, hoisted
  auto base = [&](int component) {
    auto it = componentBase.find(component);
    if (it != componentBase.end())
      return it->second;
    Value v = component == 0 ? Value()
                             : b_.create<mlir::arith::MulIOp>(loc_, body_.indexConst(component), n).getResult();
    componentBase[component] = v;
    return v;
  };
  for (const KernelStore &s : plan_.stores)
    base(s.component);
  body_.emitLoopInvariants();
  if (width > 1)
    steps_.prepare(body_.indexConst(0), n);
  Value p;
  if (plan_.loop == LoopStyle::Affine) {
    auto ubMap = mlir::AffineMap::get(0, 1, b_.getAffineSymbolExpr(0));
    auto loop = b_.create<mlir::affine::AffineForOp>(loc_, ValueRange{}, b_.getConstantAffineMap(0), ValueRange{n},
                                                     ubMap, static_cast<int64_t>(width));
    b_.setInsertionPoint(loop.getBody()->getTerminator());
    p = loop.getInductionVar();
  } else {
    auto loop = b_.create<mlir::scf::ForOp>(loc_, body_.indexConst(0), n, body_.indexConst(width));
    b_.setInsertionPoint(loop.getBody()->getTerminator());
    p = loop.getInductionVar();
  }
  if (width > 1)
    p = steps_.step(p);
  auto at = [&](int component) {
    Value cb = base(component);
    return cb ? b_.create<mlir::arith::AddIOp>(loc_, cb, p).getResult() : p;
  };
  for (const KernelStore &s : plan_.stores) {
    body_.emitNodes({s.value}, [&](const Leaf &l) -> Value { return steps_.load(body_.arg(l.a), at(l.b)); });
    steps_.store(steps_.storedValue(s.value), body_.arg(s.arg), at(s.component));
  }
  b_.setInsertionPointAfter(b_.getInsertionBlock()->getParentOp());
}

void KernelEmitter::emitStores(const Addressing &a, const std::map<int, Value> &readFrom, Value linear) {
  LeafLoader loader = lanes_.loader(a, readFrom, linear);
  for (size_t index : body_.storeOrder()) {
    const KernelStore &s = plan_.stores[index];
    body_.emitNodes({s.value}, loader);
    steps_.store(steps_.storedValue(s.value), body_.arg(s.arg), addressing_.addressOf(a, linear, s.component, {0, 0, 0}));
  }
}

/// The point (or vector of points) at ivs: prefetches, then each output computed and stored.
void KernelEmitter::emitPoint(const Addressing &a, const std::map<int, Value> &readFrom, const Value ivs[3]) {
  Value linear = addressing_.linearIndex(a, ivs);
  addressing_.emitPrefetches(a, readFrom, linear);
  addressing_.emitOutputPrefetches(a, linear);
  emitStores(a, readFrom, linear);
}

/// Interior loops over a 3-D grid; every access is `component * N + linear + delta`. With a
/// shared row function the loops stop at j and call it for each row of the tile.
void KernelEmitter::emitStencilLoop() {
  Value nx = body_.arg(0), ny = body_.arg(1), nz = body_.arg(2);
  const std::vector<Value> &args = body_.args();
  // Snapshot outputs that are also read, once, before the loop.
  std::map<int, Value> readFrom;
  for (size_t i = 0; i < args.size(); ++i)
    readFrom[static_cast<int>(i)] = args[i];
  std::vector<Value> snapshots;
  for (int a : plan_.snapshotArgs) {
    Value size = b_.create<mlir::memref::DimOp>(loc_, body_.arg(a), 0);
    auto type = mlir::MemRefType::get({mlir::ShapedType::kDynamic}, b_.getF64Type());
    Value copy = b_.create<mlir::memref::AllocOp>(loc_, type, ValueRange{size});
    b_.create<mlir::memref::CopyOp>(loc_, body_.arg(a), copy);
    readFrom[a] = copy;
    snapshots.push_back(copy);
  }
  const Value extents[3] = {nx, ny, nz};
  Value ivs[3];
  mlir::Operation *outer;
  if (!rowFunction_.empty()) {
    RowBounds rows;
    outer = loops_.emit(extents, ivs, &rows);
    llvm::SmallVector<Value> operands(args.begin(), args.end());
    operands.append(snapshots.begin(), snapshots.end());
    operands.append({ivs[0], ivs[1], rows.kBegin, rows.kEnd});
    b_.create<mlir::func::CallOp>(loc_, rowFunction_, mlir::TypeRange{}, operands);
  } else {
    Addressing addressing = addressing_.prepare(nx, ny, nz);
    outer = loops_.emit(extents, ivs, nullptr);
    emitPoint(addressing, readFrom, ivs);
  }
  b_.setInsertionPointAfter(outer);
  for (Value s : snapshots)
    b_.create<mlir::memref::DeallocOp>(loc_, s);
}

void KernelEmitter::emitRowFunction(mlir::ModuleOp module, const std::string &name) {
  const unsigned width = body_.width();
  llvm::SmallVector<mlir::Type> inputs;
  auto f64 = b_.getF64Type();
  auto dynamic = mlir::MemRefType::get({mlir::ShapedType::kDynamic}, f64);
  for (const KernelArg &a : plan_.args)
    inputs.push_back(a.type == ArgType::Index    ? mlir::Type(b_.getIndexType())
                     : a.type == ArgType::F64    ? mlir::Type(f64)
                     : a.type == ArgType::Buffer ? mlir::Type(dynamic)
                                                 : mlir::Type(mlir::MemRefType::get({a.fixedSize}, f64)));
  for (size_t i = 0; i < plan_.snapshotArgs.size(); ++i)
    inputs.push_back(dynamic);
  for (int i = 0; i < 4; ++i)
    inputs.push_back(b_.getIndexType());
  b_.setInsertionPointToEnd(module.getBody());
  auto func = b_.create<mlir::func::FuncOp>(loc_, name, b_.getFunctionType(inputs, {}));
  func.setPrivate();
  func->setAttr("llvm.linkage", mlir::LLVM::LinkageAttr::get(b_.getContext(), mlir::LLVM::Linkage::Internal));
  llvm::SmallVector<mlir::Attribute> passthrough{b_.getStringAttr("noinline")};
  // The scratch block of two-pass rows makes a frame of up to 256 kB: probed page by page, so
  // that a thread whose stack is too small faults on its guard page instead of jumping it.
  if (twoPass_.enabled())
    passthrough.push_back(b_.getArrayAttr({b_.getStringAttr("probe-stack"), b_.getStringAttr("inline-asm")}));
  func->setAttr("passthrough", b_.getArrayAttr(passthrough));
  mlir::Block *entry = func.addEntryBlock();
  b_.setInsertionPointToStart(entry);
  std::vector<Value> args;
  for (size_t i = 0; i < plan_.args.size(); ++i)
    args.push_back(entry->getArgument(static_cast<unsigned>(i)));
  body_.beginFunction(module, entry, args);
  std::map<int, Value> readFrom;
  for (size_t i = 0; i < args.size(); ++i)
    readFrom[static_cast<int>(i)] = args[i];
  for (size_t s = 0; s < plan_.snapshotArgs.size(); ++s)
    readFrom[plan_.snapshotArgs[s]] = entry->getArgument(static_cast<unsigned>(plan_.args.size() + s));
  const unsigned first = static_cast<unsigned>(plan_.args.size() + plan_.snapshotArgs.size());
  Value i = entry->getArgument(first), j = entry->getArgument(first + 1);
  Value kBegin = entry->getArgument(first + 2), kEnd = entry->getArgument(first + 3);
  Addressing addressing = addressing_.prepare(args[0], args[1], args[2]);
  // Vector steps of a row sit on multiples of the width in the linear index where that costs
  // no extra step, so that with line-aligned components (64-byte aligned buffers of a multiple
  // of W points) the output stores and unshifted loads of the inner steps do not split across
  // cache lines: the first step starts at kBegin and overlaps the second, as the last overlaps
  // the one before (BSSN at 64^3, rows starting 3 points into a line: 1.03-1.09x). Any buffer
  // alignment gives the same results.
  Value stepsFrom = kBegin;
  if (width > 1) {
    steps_.prepare(kBegin, kEnd);
    steps_.alignSteps();
    Value ivs[3] = {i, j, kBegin};
    Value misalignment =
        b_.create<mlir::arith::RemUIOp>(loc_, addressing_.linearIndex(addressing, ivs), body_.indexConst(width));
    Value length = b_.create<mlir::arith::MaxSIOp>(loc_, b_.create<mlir::arith::SubIOp>(loc_, kEnd, kBegin),
                                                   body_.indexConst(0));
    auto steps = [&](Value points) {
      return b_.create<mlir::arith::DivUIOp>(
          loc_, b_.create<mlir::arith::AddIOp>(loc_, points, body_.indexConst(width - 1)), body_.indexConst(width));
    };
    Value plainSteps = steps(length);
    Value alignedSteps = steps(b_.create<mlir::arith::AddIOp>(loc_, length, misalignment));
    Value noExtraStep = b_.create<mlir::arith::CmpIOp>(loc_, mlir::arith::CmpIPredicate::eq, alignedSteps, plainSteps);
    stepsFrom = b_.create<mlir::arith::SelectOp>(loc_, noExtraStep,
                                                 b_.create<mlir::arith::SubIOp>(loc_, kBegin, misalignment), kBegin);
  }
  if (twoPass_.enabled()) {
    twoPass_.emitRow(addressing, readFrom, i, j, stepsFrom, kEnd,
                     [&](Value linear) { emitStores(addressing, readFrom, linear); });
  } else {
    auto loop = b_.create<mlir::scf::ForOp>(loc_, stepsFrom, kEnd, body_.indexConst(width));
    b_.setInsertionPoint(loop.getBody()->getTerminator());
    Value ivs[3] = {i, j, width > 1 ? steps_.step(loop.getInductionVar()) : loop.getInductionVar()};
    emitPoint(addressing, readFrom, ivs);
    b_.setInsertionPointAfter(loop);
  }
  b_.create<mlir::func::ReturnOp>(loc_);
}

} // namespace tensorium_mlir::codegen::emission
