#include "tensorium_mlir/CodeGen/MLIRGen.h"
#include "tensorium_mlir/Target/MLIRGen/GeneratedKernelABI.h"
#include "tensorium_mlir/Frontend/EllipticProblem.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace tensorium_mlir::codegen {

void loadTensoriumDialects(mlir::MLIRContext &context) {
  context.loadDialect<mlir::func::FuncDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                      mlir::memref::MemRefDialect, mlir::scf::SCFDialect, mlir::affine::AffineDialect,
                      mlir::cf::ControlFlowDialect, mlir::LLVM::LLVMDialect, mlir::omp::OpenMPDialect,
                      mlir::vector::VectorDialect>();
}

namespace {

using mlir::Value;
using mlir::ValueRange;

class KernelEmitter {
public:
  KernelEmitter(mlir::OpBuilder &b, mlir::Location loc, const KernelPlan &plan, const EmitOptions &options)
      : b_(b), loc_(loc), plan_(plan) {
    const bool gridLoop = plan.family == KernelFamily::InitGrid || plan.family == KernelFamily::SpectralGrid ||
                          plan.family == KernelFamily::RhsGrid || plan.family == KernelFamily::ResidualGrid;
    width_ = gridLoop ? std::max(1u, options.vectorWidth) : 1;
    prefetch_ = options.prefetch;
    // Lane shifts replace loads that straddle two cache lines; measured with 8-wide steps
    // (AVX-512, where they are one valignq each), and only for radii a neighbouring line covers.
    laneShifts_ = options.laneShifts && width_ == 8 && plan.radius[2] > 0 && plan.radius[2] < 8;
    sharesRowBody_ = wantsRowFunction(plan);
    if (options.stencilPass && sharesRowBody_) {
      stencil_ = stencilValues();
      if (stencil_.empty() || scratchSteps(stencil_.size()) == 0)
        stencil_.clear();
    }
    if (laneShifts_ && options.factorMixed && !stencil_.empty())
      chooseZFactorings();
    if (plan.family == KernelFamily::RhsGrid || plan.family == KernelFamily::ResidualGrid)
      chooseTile(options);
    fastmath_ = mlir::arith::FastMathFlagsAttr::get(
        b.getContext(), options.fpContract ? mlir::arith::FastMathFlags::contract | mlir::arith::FastMathFlags::arcp
                           : mlir::arith::FastMathFlags::none);
  }

  /// The OpenMP team size the next parallel region gets (`omp_get_max_threads`, declared once
  /// per module), as an i32.
  Value teamSize() {
    const char *name = "omp_get_max_threads";
    auto callee = module_.lookupSymbol<mlir::func::FuncOp>(name);
    if (!callee) {
      mlir::OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPointToStart(module_.getBody());
      callee = b_.create<mlir::func::FuncOp>(loc_, name, b_.getFunctionType({}, {b_.getI32Type()}));
      callee.setPrivate();
    }
    return b_.create<mlir::func::CallOp>(loc_, callee, ValueRange{}).getResult(0);
  }

  /// A call of the C library's f64 -> f64 function `name` (declared once per module); one call
  /// per lane of a vector.
  Value libmCall(const char *name, Value x) {
    auto f64 = b_.getF64Type();
    auto callee = module_.lookupSymbol<mlir::func::FuncOp>(name);
    if (!callee) {
      mlir::OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPointToStart(module_.getBody());
      callee = b_.create<mlir::func::FuncOp>(loc_, name, b_.getFunctionType({f64}, {f64}));
      callee.setPrivate();
    }
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

  void emit(mlir::ModuleOp module) {
    module_ = module;
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
    entry_ = entry;
    b_.setInsertionPointToStart(entry);
    for (unsigned i = 0; i < entry->getNumArguments(); ++i)
      args_.push_back(entry->getArgument(i));
    computeVarying();
    visited_.assign(plan_.graph.size(), 0);

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
      b_.create<mlir::func::ReturnOp>(loc_, values_.at(plan_.result));
    else
      b_.create<mlir::func::ReturnOp>(loc_);
  }

private:
  mlir::ArrayAttr names(const std::vector<std::string> &list) {
    llvm::SmallVector<mlir::Attribute> attrs;
    for (const std::string &s : list)
      attrs.push_back(b_.getStringAttr(s));
    return b_.getArrayAttr(attrs);
  }

  void setAttributes(mlir::func::FuncOp func) {
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
    if (plan_.family == KernelFamily::RhsGrid || plan_.family == KernelFamily::ResidualGrid)
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

  // Constants are created once per function, at the top of the entry block.
  Value indexConst(int64_t v) {
    auto it = indexConsts_.find(v);
    if (it != indexConsts_.end())
      return it->second;
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(entry_);
    Value c = b_.create<mlir::arith::ConstantIndexOp>(loc_, v);
    indexConsts_[v] = c;
    return c;
  }
  Value f64Const(double v) { return cachedConstant(f64Consts_, v, b_.getF64FloatAttr(v)); }
  /// One constant per value and type, created at the top of the entry block.
  Value cachedConstant(std::map<uint64_t, Value> &cache, double v, mlir::TypedAttr attr) {
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
  mlir::VectorType vectorType() { return mlir::VectorType::get({static_cast<int64_t>(width_)}, b_.getF64Type()); }
  Value splatConst(double v) { return cachedConstant(splatConsts_, v, mlir::DenseElementsAttr::get(vectorType(), v)); }
  /// A constant of the type `like` has (f64 or the kernel's vector).
  Value constLike(Value like, double v) {
    return mlir::isa<mlir::VectorType>(like.getType()) ? splatConst(v) : f64Const(v);
  }

  /// The node's value as a vector: varying nodes already are; a loop-invariant scalar is
  /// broadcast once, right after its definition (before the loops).
  Value vectorOf(NodeId id) {
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

  /// A node varies from point to point when it reads a buffer, directly or through its operands.
  void computeVarying() {
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

  /// Nodes that read no buffer are the same at every grid point: emit them before the loop.
  void emitLoopInvariants() {
    const ScalarGraph &g = plan_.graph;
    std::vector<NodeId> invariantRoots;
    for (NodeId id : g.topologicalOrder(storeRoots())) {
      const Node &n = g.node(id);
      if (!varies_[static_cast<size_t>(id)] && n.op != NodeOp::Const && n.op != NodeOp::Leaf)
        invariantRoots.push_back(id);
    }
    emitNodes(invariantRoots, [](const Leaf &) -> Value { return {}; });
  }

  template <typename Op> Value arith2(Value a, Value b) { return b_.create<Op>(loc_, a, b, fastmath_); }

  /// x^n for integer n by repeated squaring (exact for the small powers physics uses).
  Value integerPower(Value x, int64_t n) {
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

  /// Emits the graph nodes reachable from `roots`. `load` materialises buffer leaves. Nodes
  /// that vary from point to point are vectors of the kernel's width inside vector loops.
  void emitNodes(const std::vector<NodeId> &roots, const std::function<Value(const Leaf &)> &load) {
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
      if (fromScratch_) {
        auto slot = scratchSlot_.find(id);
        if (slot != scratchSlot_.end()) {
          values_[id] = loadScratch(slot->second);
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
          v = b_.create<mlir::math::PowFOp>(loc_, base, constLike(base, static_cast<double>(n.num) / static_cast<double>(n.den)));
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
      }
      values_[id] = v;
    }
  }

  /// Register need of each node (Sethi-Ullman labels, computed as if the graph were a tree).
  void computeNeeds() {
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
  std::vector<NodeId> evaluationOrder(const std::vector<NodeId> &roots) {
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
      if (fromScratch_ && scratchSlot_.count(id))
        continue; // read back from the row's scratch: its operands are not needed
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

  std::vector<NodeId> storeRoots() const {
    std::vector<NodeId> roots;
    for (const KernelStore &s : plan_.stores)
      roots.push_back(s.value);
    if (plan_.result >= 0)
      roots.push_back(plan_.result);
    return roots;
  }

  void emitPointBody() {
    emitNodes(storeRoots(), [&](const Leaf &l) -> Value {
      return b_.create<mlir::memref::LoadOp>(loc_, args_[static_cast<size_t>(l.a)], ValueRange{indexConst(l.b)});
    });
    for (const KernelStore &s : plan_.stores)
      b_.create<mlir::memref::StoreOp>(loc_, values_.at(s.value), args_[static_cast<size_t>(s.arg)],
                                       ValueRange{indexConst(s.component)});
  }

  /// Vector loops step `width_` points along the contiguous axis over [lower, upper). The last
  /// step of a line starts at upper - width_ (it overlaps the previous one and stores the same
  /// values again), so every lane holds a real point; only a line shorter than the width
  /// leaves lanes off, masked. Call before the loops: the bounds of the last step are hoisted.
  void prepareVectorSteps(Value lower, Value upper) {
    vectorUpper_ = upper;
    vectorLower_ = lower;
    lastStart_ = b_.create<mlir::arith::SubIOp>(loc_, upper, indexConst(width_));
    fits_ = b_.create<mlir::arith::CmpIOp>(loc_, mlir::arith::CmpIPredicate::sge, lastStart_, lower);
  }
  /// Inside the loop: the start index of the step at `k`; sets mask_.
  Value vectorStep(Value k) {
    if (alignedSteps_) // the loop starts up to width_ - 1 points before the line
      k = b_.create<mlir::arith::MaxSIOp>(loc_, k, vectorLower_);
    Value clamped = b_.create<mlir::arith::MinSIOp>(loc_, k, lastStart_);
    Value start = b_.create<mlir::arith::SelectOp>(loc_, fits_, clamped, k);
    Value remaining = b_.create<mlir::arith::SubIOp>(loc_, vectorUpper_, start);
    auto maskType = mlir::VectorType::get({static_cast<int64_t>(width_)}, b_.getI1Type());
    mask_ = b_.create<mlir::vector::CreateMaskOp>(loc_, maskType, ValueRange{remaining});
    remaining_ = remaining;
    return start;
  }
  Value vectorLoad(Value buffer, Value index) {
    return b_.create<mlir::vector::MaskedLoadOp>(loc_, vectorType(), buffer, ValueRange{index}, mask_, splatConst(0.0));
  }
  void store(Value value, Value buffer, Value index) {
    if (width_ > 1)
      b_.create<mlir::vector::MaskedStoreOp>(loc_, buffer, ValueRange{index}, mask_, value);
    else
      b_.create<mlir::memref::StoreOp>(loc_, value, buffer, ValueRange{index});
  }
  /// A stored value; in vector loops a point-independent one is broadcast.
  Value storedValue(NodeId id) { return width_ > 1 ? vectorOf(id) : values_.at(id); }
  Value load(Value buffer, Value index) {
    if (width_ > 1)
      return vectorLoad(buffer, index);
    return b_.create<mlir::memref::LoadOp>(loc_, buffer, ValueRange{index});
  }

  /// Flat loop over all points: coordinates/bundles at p, outputs at component * n + p.
  void emitFlatLoop() {
    Value n;
    if (plan_.family == KernelFamily::SpectralGrid) {
      n = args_[0];
    } else {
      int firstBuffer = -1;
      for (size_t i = 0; i < plan_.args.size(); ++i)
        if (plan_.args[i].type == ArgType::Buffer && plan_.args[i].role == ArgRole::Coordinate) {
          firstBuffer = static_cast<int>(i);
          break;
        }
      if (firstBuffer < 0) // no coordinates: size the loop by the first output
        for (size_t i = 0; i < plan_.args.size(); ++i)
          if (plan_.args[i].type == ArgType::Buffer) {
            firstBuffer = static_cast<int>(i);
            break;
          }
      n = b_.create<mlir::memref::DimOp>(loc_, args_[static_cast<size_t>(firstBuffer)], 0);
      if (plan_.args[static_cast<size_t>(firstBuffer)].role == ArgRole::Output) {
        unsigned comps = plan_.args[static_cast<size_t>(firstBuffer)].components;
        n = b_.create<mlir::arith::DivUIOp>(loc_, n, indexConst(comps));
      }
    }
    std::map<int, Value> componentBase; // component -> component * n, hoisted
    auto base = [&](int component) {
      auto it = componentBase.find(component);
      if (it != componentBase.end())
        return it->second;
      Value v = component == 0 ? Value() : b_.create<mlir::arith::MulIOp>(loc_, indexConst(component), n).getResult();
      componentBase[component] = v;
      return v;
    };
    for (const KernelStore &s : plan_.stores)
      base(s.component);
    emitLoopInvariants();
    if (width_ > 1)
      prepareVectorSteps(indexConst(0), n);
    Value p;
    if (plan_.loop == LoopStyle::Affine) {
      auto ubMap = mlir::AffineMap::get(0, 1, b_.getAffineSymbolExpr(0));
      auto loop = b_.create<mlir::affine::AffineForOp>(loc_, ValueRange{}, b_.getConstantAffineMap(0),
                                                       ValueRange{n}, ubMap, static_cast<int64_t>(width_));
      b_.setInsertionPoint(loop.getBody()->getTerminator());
      p = loop.getInductionVar();
    } else {
      auto loop = b_.create<mlir::scf::ForOp>(loc_, indexConst(0), n, indexConst(width_));
      b_.setInsertionPoint(loop.getBody()->getTerminator());
      p = loop.getInductionVar();
    }
    if (width_ > 1)
      p = vectorStep(p);
    auto at = [&](int component) {
      Value cb = base(component);
      return cb ? b_.create<mlir::arith::AddIOp>(loc_, cb, p).getResult() : p;
    };
    for (const KernelStore &s : plan_.stores) {
      emitNodes({s.value}, [&](const Leaf &l) -> Value { return load(args_[static_cast<size_t>(l.a)], at(l.b)); });
      store(storedValue(s.value), args_[static_cast<size_t>(s.arg)], at(s.component));
    }
    b_.setInsertionPointAfter(b_.getInsertionBlock()->getParentOp());
  }

  /// Tile sizes (y, z) of the cache-blocked loops, or {0, 0} for plain loops. Automatic tiles
  /// are 64 points long in z (long enough for the hardware prefetchers to follow each row) and
  /// as tall in y as keeps the 2r + 1 x-planes of one tile, over every buffer component the
  /// kernel reads, within options.blockingBudgetBytes (at least 4 rows). Kernels with
  /// two-pass rows get tiles of 4 whole rows instead.
  void chooseTile(const EmitOptions &options) {
    if (options.tileY > 0 && options.tileZ > 0) {
      tile_ = {options.tileY, options.tileZ};
      return;
    }
    if (!options.cacheBlocking)
      return;
    // Two-pass rows stream each component's rows in their own loops and run fastest over
    // whole rows, 4 at a time (BSSN at 128^3: 1, 2, 4 and 8 rows gave 3.1, 4.5, 4.4 and 3.6 M
    // points/s; split rows 2.4): only y is tiled for them.
    if (!stencil_.empty()) {
      tile_ = {kTwoPassTileRows, kMaxTileZ};
      return;
    }
    std::set<std::pair<int, int>> components;
    for (NodeId id : plan_.graph.topologicalOrder(storeRoots())) {
      const Node &n = plan_.graph.node(id);
      if (n.op == NodeOp::Leaf && plan_.args[static_cast<size_t>(n.leaf.a)].type == ArgType::Buffer)
        components.insert({n.leaf.a, n.leaf.b});
    }
    const int64_t c = std::max<int64_t>(1, static_cast<int64_t>(components.size()));
    const int64_t rx = plan_.radius[0], ry = plan_.radius[1], rz = plan_.radius[2];
    const int64_t tz = std::max<int64_t>(64, 2 * static_cast<int64_t>(width_));
    const int64_t rows = static_cast<int64_t>(options.blockingBudgetBytes) / ((2 * rx + 1) * (tz + 2 * rz) * c * 8);
    tile_ = {std::clamp<int64_t>(rows - 2 * ry, 4, 4096), tz};
  }

  /// Where a row of points along z starts and ends: the loops stop at j and a row function
  /// is called with (i, j, kBegin, kEnd) when the kernel body lives in a shared row function.
  struct RowBounds {
    Value kBegin, kEnd;
  };

  /// Interior loops i, j, k (k innermost, `width_` points per step), one point or vector per
  /// iteration; with `rows`, loops over i and j only. Returns the outermost loop; the
  /// insertion point is inside the innermost one.
  mlir::Operation *emitPlainLoops(const Value extents[3], Value ivs[3], RowBounds *rows) {
    auto radius = [&](int a) { return plan_.radius[static_cast<size_t>(a)]; };
    Value upper[3];
    for (int a = 0; a < 3; ++a)
      if (plan_.loop != LoopStyle::Affine || ((width_ > 1 || rows) && a == 2))
        upper[a] = b_.create<mlir::arith::SubIOp>(loc_, extents[a], indexConst(radius(a)));
    // Scalar kernels loop over every axis one point at a time (the parallel kernel as one 3-D
    // scf.parallel); vector kernels step the contiguous axis `width_` points at a time in an
    // inner sequential loop (parallel kernels share out the two outer axes).
    const int loopAxes = rows ? 2 : 3;
    const int outerAxes = (width_ > 1 || rows) && plan_.loop == LoopStyle::Parallel ? 2 : 3;
    if (width_ > 1 && !rows)
      prepareVectorSteps(indexConst(radius(2)), upper[2]);
    mlir::Operation *outer = nullptr;
    auto step = [&](int a) -> int64_t { return a == 2 ? static_cast<int64_t>(width_) : 1; };
    if (plan_.loop == LoopStyle::Parallel) {
      llvm::SmallVector<Value> lbs, ubs, steps;
      for (int a = 0; a < outerAxes; ++a) {
        lbs.push_back(indexConst(radius(a)));
        ubs.push_back(upper[a]);
        steps.push_back(indexConst(1));
      }
      auto par = b_.create<mlir::scf::ParallelOp>(loc_, lbs, ubs, steps);
      outer = par;
      b_.setInsertionPoint(par.getBody()->getTerminator());
      for (int a = 0; a < outerAxes; ++a)
        ivs[a] = par.getInductionVars()[static_cast<unsigned>(a)];
    }
    for (int a = plan_.loop == LoopStyle::Parallel ? outerAxes : 0; a < loopAxes; ++a) {
      mlir::Operation *loopOp;
      if (plan_.loop == LoopStyle::Affine) {
        auto ubMap = mlir::AffineMap::get(0, 1, b_.getAffineSymbolExpr(0) - radius(a));
        auto loop = b_.create<mlir::affine::AffineForOp>(loc_, ValueRange{}, b_.getConstantAffineMap(radius(a)),
                                                         ValueRange{extents[a]}, ubMap, step(a));
        ivs[a] = loop.getInductionVar();
        b_.setInsertionPoint(loop.getBody()->getTerminator());
        loopOp = loop;
      } else {
        auto loop = b_.create<mlir::scf::ForOp>(loc_, indexConst(radius(a)), upper[a], indexConst(step(a)));
        ivs[a] = loop.getInductionVar();
        b_.setInsertionPoint(loop.getBody()->getTerminator());
        loopOp = loop;
      }
      if (!outer)
        outer = loopOp;
    }
    if (rows)
      *rows = {indexConst(radius(2)), upper[2]};
    else if (width_ > 1)
      ivs[2] = vectorStep(ivs[2]);
    return outer;
  }

  /// The parallel variant's loop over row tiles (kernels with a row function). The tiles are
  /// few and heavy (58 rows at 64^3), so fixed tiles leave one thread more rows than another;
  /// instead every thread of the team gets K tiles of at most ty rows and a share of the rows
  /// as even as rows allow (of R = s P + m rows, the first m threads get s + 1). The tiles go
  /// round by round, round r holding every thread's r-th tile side by side in y, so that the
  /// threads sweep neighbouring rows together and the rows between their tiles come from
  /// memory once for both (measurements in docs/codegen.md). Tile t is thread t / K's tile
  /// t % K under the static schedule; any other assignment still computes every row once.
  /// Sets the tile's first and end (exclusive) row and its z origin. One operation per
  /// statement, so that the emitted order does not depend on the C++ compiler's order of
  /// evaluating arguments.
  mlir::Operation *emitTeamRowTiles(Value upperY, Value upperZ, int64_t ty, int64_t tz, Value &jb, Value &jEnd, Value &kb) {
    auto mul = [&](Value x, Value y) { return b_.create<mlir::arith::MulIOp>(loc_, x, y).getResult(); };
    auto add = [&](Value x, Value y) { return b_.create<mlir::arith::AddIOp>(loc_, x, y).getResult(); };
    auto sub = [&](Value x, Value y) { return b_.create<mlir::arith::SubIOp>(loc_, x, y).getResult(); };
    auto div = [&](Value x, Value y) { return b_.create<mlir::arith::DivSIOp>(loc_, x, y).getResult(); };
    auto max = [&](Value x, Value y) { return b_.create<mlir::arith::MaxSIOp>(loc_, x, y).getResult(); };
    Value r1 = indexConst(plan_.radius[1]);
    Value rowSpan = sub(upperY, r1);
    Value rowCount = max(rowSpan, indexConst(0));
    Value threads = b_.create<mlir::arith::IndexCastOp>(loc_, b_.getIndexType(), teamSize());
    Value team = max(threads, indexConst(1));
    Value share = div(rowCount, team);
    Value shared = mul(share, team);
    Value extra = sub(rowCount, shared);
    // K = ceil(ceil(R / P) / ty): the largest share in tiles of at most ty rows.
    Value roundUp = sub(team, indexConst(1));
    Value largestSum = add(rowCount, roundUp);
    Value largest = div(largestSum, team);
    Value tileSum = add(largest, indexConst(ty - 1));
    Value perThread = div(tileSum, indexConst(ty));
    Value tiles = mul(perThread, team);
    auto par = b_.create<mlir::scf::ParallelOp>(loc_, llvm::SmallVector<Value>{indexConst(0), indexConst(plan_.radius[2])},
                                                llvm::SmallVector<Value>{tiles, upperZ},
                                                llvm::SmallVector<Value>{indexConst(1), indexConst(tz)});
    b_.setInsertionPoint(par.getBody()->getTerminator());
    Value t = par.getInductionVars()[0];
    kb = par.getInductionVars()[1];
    Value thread = div(t, perThread);
    Value round = b_.create<mlir::arith::RemSIOp>(loc_, t, perThread);
    Value nextRound = add(round, indexConst(1));
    Value shareUp = add(share, indexConst(1));
    // Rows of a thread's share of `rows` before round `r`: floor(r rows / K).
    auto before = [&](Value rows, Value r) {
      Value scaled = mul(r, rows);
      return div(scaled, perThread);
    };
    Value upStart = before(shareUp, round);
    Value upEnd = before(shareUp, nextRound);
    Value upHeight = sub(upEnd, upStart);
    Value start = before(share, round);
    Value end = before(share, nextRound);
    Value height = sub(end, start);
    // Round r starts after every thread's rows of the rounds before it.
    Value upRows = mul(extra, upStart);
    Value otherTeam = sub(team, extra);
    Value otherRows = mul(otherTeam, start);
    Value roundRows = add(upRows, otherRows);
    Value roundStart = add(r1, roundRows);
    // Within the round, the tiles of the threads before this one.
    Value upBefore = b_.create<mlir::arith::MinSIOp>(loc_, thread, extra);
    Value otherCount = sub(thread, extra);
    Value otherBefore = max(otherCount, indexConst(0));
    Value upOffset = mul(upBefore, upHeight);
    Value otherOffset = mul(otherBefore, height);
    Value offset = add(upOffset, otherOffset);
    jb = add(roundStart, offset);
    Value isUp = b_.create<mlir::arith::CmpIOp>(loc_, mlir::arith::CmpIPredicate::slt, thread, extra);
    Value ownHeight = b_.create<mlir::arith::SelectOp>(loc_, isUp, upHeight, height);
    jEnd = add(jb, ownHeight);
    return par;
  }

  /// Cache-blocked interior loops: tiles of tile_[0] x tile_[1] points in (y, z), and inside
  /// each tile a sweep along x, so that the 2r + 1 x-planes of a tile that the stencils read
  /// stay in cache from one x to the next instead of coming from memory 2r + 1 times. The
  /// parallel kernel shares out the tiles. With `rows`, the loops stop at j.
  mlir::Operation *emitTiledLoops(const Value extents[3], Value ivs[3], RowBounds *rows) {
    auto radius = [&](int a) { return plan_.radius[static_cast<size_t>(a)]; };
    const int64_t ty = tile_[0], tz = tile_[1];
    Value upper[3];
    for (int a = 0; a < 3; ++a)
      upper[a] = b_.create<mlir::arith::SubIOp>(loc_, extents[a], indexConst(radius(a)));
    mlir::Operation *outer = nullptr;
    Value jb, kb, jEnd, kEnd; // tile origin and end (exclusive) in y and z
    if (plan_.loop == LoopStyle::Affine) {
      auto interior = [&](int a) { return mlir::AffineMap::get(0, 1, b_.getAffineSymbolExpr(0) - radius(a)); };
      auto tileEnd = [&](int a, int64_t size) {
        mlir::MLIRContext *ctx = b_.getContext();
        return mlir::AffineMap::get(1, 1, {mlir::getAffineDimExpr(0, ctx) + size, mlir::getAffineSymbolExpr(0, ctx) - radius(a)}, ctx);
      };
      auto jLoop = b_.create<mlir::affine::AffineForOp>(loc_, ValueRange{}, b_.getConstantAffineMap(radius(1)),
                                                        ValueRange{extents[1]}, interior(1), ty);
      outer = jLoop;
      b_.setInsertionPoint(jLoop.getBody()->getTerminator());
      jb = jLoop.getInductionVar();
      auto kLoop = b_.create<mlir::affine::AffineForOp>(loc_, ValueRange{}, b_.getConstantAffineMap(radius(2)),
                                                        ValueRange{extents[2]}, interior(2), tz);
      b_.setInsertionPoint(kLoop.getBody()->getTerminator());
      kb = kLoop.getInductionVar();
      if (width_ > 1 || rows)
        kEnd = b_.create<mlir::affine::AffineMinOp>(loc_, tileEnd(2, tz), ValueRange{kb, extents[2]});
      if (width_ > 1 && !rows)
        prepareVectorSteps(kb, kEnd);
      auto iLoop = b_.create<mlir::affine::AffineForOp>(loc_, ValueRange{}, b_.getConstantAffineMap(radius(0)),
                                                        ValueRange{extents[0]}, interior(0), 1);
      b_.setInsertionPoint(iLoop.getBody()->getTerminator());
      ivs[0] = iLoop.getInductionVar();
      auto identity = mlir::AffineMap::getMultiDimIdentityMap(1, b_.getContext());
      auto jIn = b_.create<mlir::affine::AffineForOp>(loc_, ValueRange{jb}, identity, ValueRange{jb, extents[1]},
                                                      tileEnd(1, ty), 1);
      b_.setInsertionPoint(jIn.getBody()->getTerminator());
      ivs[1] = jIn.getInductionVar();
      if (!rows) {
        auto kIn = b_.create<mlir::affine::AffineForOp>(loc_, ValueRange{kb}, identity, ValueRange{kb, extents[2]},
                                                        tileEnd(2, tz), static_cast<int64_t>(width_));
        b_.setInsertionPoint(kIn.getBody()->getTerminator());
        ivs[2] = kIn.getInductionVar();
      }
    } else {
      if (plan_.loop == LoopStyle::Parallel && rows) {
        outer = emitTeamRowTiles(upper[1], upper[2], ty, tz, jb, jEnd, kb);
      } else if (plan_.loop == LoopStyle::Parallel) {
        auto par = b_.create<mlir::scf::ParallelOp>(loc_, llvm::SmallVector<Value>{indexConst(radius(1)), indexConst(radius(2))},
                                                    llvm::SmallVector<Value>{upper[1], upper[2]},
                                                    llvm::SmallVector<Value>{indexConst(ty), indexConst(tz)});
        outer = par;
        b_.setInsertionPoint(par.getBody()->getTerminator());
        jb = par.getInductionVars()[0];
        kb = par.getInductionVars()[1];
      } else {
        auto jLoop = b_.create<mlir::scf::ForOp>(loc_, indexConst(radius(1)), upper[1], indexConst(ty));
        outer = jLoop;
        b_.setInsertionPoint(jLoop.getBody()->getTerminator());
        jb = jLoop.getInductionVar();
        auto kLoop = b_.create<mlir::scf::ForOp>(loc_, indexConst(radius(2)), upper[2], indexConst(tz));
        b_.setInsertionPoint(kLoop.getBody()->getTerminator());
        kb = kLoop.getInductionVar();
      }
      if (!jEnd)
        jEnd = b_.create<mlir::arith::MinSIOp>(loc_, b_.create<mlir::arith::AddIOp>(loc_, jb, indexConst(ty)), upper[1]);
      kEnd = b_.create<mlir::arith::MinSIOp>(loc_, b_.create<mlir::arith::AddIOp>(loc_, kb, indexConst(tz)), upper[2]);
      if (width_ > 1 && !rows)
        prepareVectorSteps(kb, kEnd);
      auto iLoop = b_.create<mlir::scf::ForOp>(loc_, indexConst(radius(0)), upper[0], indexConst(1));
      b_.setInsertionPoint(iLoop.getBody()->getTerminator());
      ivs[0] = iLoop.getInductionVar();
      auto jIn = b_.create<mlir::scf::ForOp>(loc_, jb, jEnd, indexConst(1));
      b_.setInsertionPoint(jIn.getBody()->getTerminator());
      ivs[1] = jIn.getInductionVar();
      if (!rows) {
        auto kIn = b_.create<mlir::scf::ForOp>(loc_, kb, kEnd, indexConst(width_));
        b_.setInsertionPoint(kIn.getBody()->getTerminator());
        ivs[2] = kIn.getInductionVar();
      }
    }
    if (rows)
      *rows = {kb, kEnd};
    else if (width_ > 1)
      ivs[2] = vectorStep(ivs[2]);
    return outer;
  }

  /// Index arithmetic of the stencil reads: strides, the loop-invariant offset of every
  /// (component, x and y shift) the kernel reads or writes, and the prefetched points. The z
  /// shift is added inside the loop as a constant, so that the reads of one row of a component
  /// share one offset and differ only in the displacement of their addresses.
  struct Addressing {
    Value sx, nz, total;
    std::map<std::tuple<int, int, int, int>, Value> deltas;
    struct Prefetch {
      int arg, component;
      std::array<int8_t, 3> shift;
    };
    std::vector<Prefetch> prefetches; // in emission order
    bool prefetchOutputs = false;     // write-prefetch each output's next line along z
  };

  /// Builds the addressing (before the loops) and emits the loop invariants.
  Addressing prepareAddressing(Value nx, Value ny, Value nz) {
    Addressing a;
    a.nz = nz;
    a.sx = b_.create<mlir::arith::MulIOp>(loc_, ny, nz);
    a.total = b_.create<mlir::arith::MulIOp>(loc_, nx, a.sx);
    auto delta = [&](int component, const std::array<int8_t, 3> &off) {
      auto key = std::make_tuple(component, off[0], off[1], 0);
      if (a.deltas.count(key))
        return;
      Value d;
      auto accumulate = [&](Value term) {
        d = d ? b_.create<mlir::arith::AddIOp>(loc_, d, term).getResult() : term;
      };
      if (component)
        accumulate(b_.create<mlir::arith::MulIOp>(loc_, indexConst(component), a.total));
      auto scaled = [&](int8_t k, Value stride) -> Value {
        return k == 1 ? stride : b_.create<mlir::arith::MulIOp>(loc_, indexConst(k), stride).getResult();
      };
      if (off[0])
        accumulate(scaled(off[0], a.sx));
      if (off[1])
        accumulate(scaled(off[1], nz));
      a.deltas[key] = d;
    };
    for (NodeId id : plan_.graph.topologicalOrder(storeRoots())) {
      const Node &n = plan_.graph.node(id);
      if (n.op == NodeOp::Leaf && plan_.args[static_cast<size_t>(n.leaf.a)].type == ArgType::Buffer)
        delta(n.leaf.b, n.leaf.offset);
    }
    for (const KernelStore &s : plan_.stores)
      delta(s.component, {0, 0, 0});
    // Large kernels store dozens of output components per point. A store to a line that is
    // not cached waits for the line to be read first, and with that many streams the store
    // buffer fills; each output's next line along z is fetched for writing while the step
    // computes. The same step of the next row, prefetched before (BSSN at 64^3 against none:
    // 1.04-1.07x with SIMD steps, 1.21-1.23x on the scalar path), was too early for SIMD
    // steps: a row is 8 steps of about 5,000 cycles at 64^3, 16 at 128^3, and the lines left
    // L1 again before their stores (the next line against it: 1.04x at 64^3, 1.20x at 128^3;
    // scalar path 1.03x).
    a.prefetchOutputs = prefetch_ && sharesRowBody_;
    // Software prefetch of the x-plane that enters the stencils at the next i: the kernels
    // read dozens of components at several planes and rows each, more streams than hardware
    // prefetchers follow, so without it every new line waits for memory.
    // Components read with a y-stencil are prefetched there also at rows j -+ ry: the rows a
    // tile's stencils reach beyond its edges, which no row of the tile prefetches as its own.
    if (prefetch_) {
      const auto ahead = static_cast<int8_t>(plan_.radius[0] + 1), ry = static_cast<int8_t>(plan_.radius[1]);
      std::set<std::pair<int, int>> read, readAcrossRows;
      for (NodeId id : plan_.graph.topologicalOrder(storeRoots())) {
        const Node &n = plan_.graph.node(id);
        if (n.op == NodeOp::Leaf && plan_.args[static_cast<size_t>(n.leaf.a)].type == ArgType::Buffer) {
          read.insert({n.leaf.a, n.leaf.b});
          if (n.leaf.offset[1] != 0)
            readAcrossRows.insert({n.leaf.a, n.leaf.b});
        }
      }
      for (const auto &[arg, component] : read)
        a.prefetches.push_back({arg, component, {ahead, 0, 0}});
      for (const auto &[arg, component] : readAcrossRows)
        for (int8_t dy : {static_cast<int8_t>(-ry), ry})
          a.prefetches.push_back({arg, component, {ahead, dy, 0}});
      for (const auto &p : a.prefetches)
        delta(p.component, p.shift);
    }
    emitLoopInvariants();
    return a;
  }

  /// The linear index of the point (or of the vector step's first point) at ivs.
  Value linearIndex(const Addressing &a, const Value ivs[3]) {
    return b_.create<mlir::arith::AddIOp>(
        loc_, b_.create<mlir::arith::AddIOp>(loc_, b_.create<mlir::arith::MulIOp>(loc_, ivs[0], a.sx),
                                             b_.create<mlir::arith::MulIOp>(loc_, ivs[1], a.nz)),
        ivs[2]);
  }
  Value addressOf(const Addressing &a, Value linear, int component, const std::array<int8_t, 3> &off) {
    Value d = a.deltas.at(std::make_tuple(component, off[0], off[1], 0));
    Value row = d ? b_.create<mlir::arith::AddIOp>(loc_, linear, d).getResult() : linear;
    return off[2] ? b_.create<mlir::arith::AddIOp>(loc_, row, indexConst(off[2])).getResult() : row;
  }
  /// The prefetches of every read (argument, component), or of those `wanted` accepts.
  void emitPrefetches(const Addressing &a, const std::map<int, Value> &readFrom, Value linear,
                      const std::function<bool(int, int)> &wanted = nullptr) {
    for (const auto &p : a.prefetches)
      if (!wanted || wanted(p.arg, p.component))
        b_.create<mlir::memref::PrefetchOp>(loc_, readFrom.at(p.arg), ValueRange{addressOf(a, linear, p.component, p.shift)},
                                            /*isWrite=*/false, /*localityHint=*/3, /*isDataCache=*/true);
  }
  /// Write prefetches of every output's line after the step's: 8 points (a 64-byte line) or
  /// one step, if wider, past the step's start (see prepareAddressing); after a row's last
  /// step they reach its ghost points or the next row.
  void emitOutputPrefetches(const Addressing &a, Value linear) {
    if (!a.prefetchOutputs)
      return;
    const auto ahead = static_cast<int8_t>(std::max(width_, 8u));
    for (const KernelStore &s : plan_.stores)
      b_.create<mlir::memref::PrefetchOp>(loc_, args_[static_cast<size_t>(s.arg)],
                                          ValueRange{addressOf(a, linear, s.component, {0, 0, ahead})},
                                          /*isWrite=*/true, /*localityHint=*/3, /*isDataCache=*/true);
  }
  struct RowLines;
  /// `lines` (lane shifts): the step's row vectors, shared with other loaders of the step.
  std::function<Value(const Leaf &)> stencilLoader(const Addressing &a, const std::map<int, Value> &readFrom, Value linear,
                                                   std::shared_ptr<RowLines> lines = nullptr) {
    if (!lines || !laneShifts_)
      return [this, &a, &readFrom, linear](const Leaf &l) -> Value {
        return load(readFrom.at(l.a), addressOf(a, linear, l.b, l.offset));
      };
    return [this, &a, &readFrom, linear, lines](const Leaf &l) -> Value {
      const int64_t dz = l.offset[2];
      if (dz < -plan_.radius[2] || dz > plan_.radius[2] || !rowPointer(*lines, readFrom.at(l.a)))
        return load(readFrom.at(l.a), addressOf(a, linear, l.b, l.offset));
      auto line = [&](int which) { return rowLine(*lines, a, readFrom.at(l.a), linear, l, which); };
      if (dz == 0)
        return b_.create<mlir::vector::BitCastOp>(loc_, vectorType(), line(0));
      // The step's vector first, then the one beside it: a fixed order of emission.
      Value at = line(0), beside = line(dz < 0 ? -1 : 1);
      return b_.create<mlir::vector::BitCastOp>(loc_, vectorType(), laneShift(at, beside, dz));
    };
  }
  /// The lanes of `at` shifted by `by` (-width < by < width), filled from `beside`, the vector
  /// before `at` (by < 0) or after it; 64-bit integer vectors (one valignq where they are
  /// loads; LLVM 19 permutes computed values with vpermt2pd).
  Value laneShift(Value at, Value beside, int64_t by) {
    const int64_t w = static_cast<int64_t>(width_);
    llvm::SmallVector<int64_t> lanes;
    for (int64_t q = 0; q < w; ++q)
      lanes.push_back(by < 0 ? w + by + q : by + q);
    return by < 0 ? b_.create<mlir::vector::ShuffleOp>(loc_, beside, at, lanes).getResult()
                  : b_.create<mlir::vector::ShuffleOp>(loc_, at, beside, lanes).getResult();
  }

  /// Mixed derivatives across z that the first pass may form from its transverse derivatives
  /// (KernelPlan::zFactored): those whose transverse stencil and z coefficients the kernel
  /// computes anyway, so that every node they use has its varying flag and, if loop
  /// invariant, its value before the loops.
  void chooseZFactorings() {
    const ScalarGraph &g = plan_.graph;
    std::vector<char> reached(g.size(), 0);
    for (NodeId id : g.topologicalOrder(storeRoots()))
      reached[static_cast<size_t>(id)] = 1;
    for (const ZFactoredStencil &f : plan_.zFactored)
      if (usesComputedNodesOnly(f, reached) && g.node(f.value).op != NodeOp::Const &&
          g.node(f.transverse).op != NodeOp::Const)
        zFactored_.emplace(f.value, &f);
  }

  /// The value of `root` with every buffer leaf read by `load`, apart from the values of this
  /// step (which stay as they were): the transverse stencil on the vectors beside the step.
  Value evaluateApart(NodeId root, const std::function<Value(const Leaf &)> &load) {
    std::unordered_map<NodeId, Value> kept;
    for (auto it = values_.begin(); it != values_.end();) {
      if (varies_[static_cast<size_t>(it->first)]) {
        kept.insert(*it);
        it = values_.erase(it);
      } else {
        ++it;
      }
    }
    emitNodes({root}, load);
    Value v = values_.at(root);
    forgetVaryingValues();
    values_.insert(kept.begin(), kept.end());
    return v;
  }

  /// Computes, before `root` itself, the mixed derivatives inside it that factor across z:
  /// the transverse stencil T at the step and on the vectors before and after it (the lanes
  /// the masked row loads hold, the others zero), then the z stencil as lane shifts of T,
  /// grouped as the plain stencil groups its weights.
  void emitZFactored(NodeId root, const Addressing &a, const std::map<int, Value> &readFrom, Value linear,
                     const std::shared_ptr<RowLines> &lines, const std::function<Value(const Leaf &)> &loader) {
    if (zFactored_.empty())
      return;
    const ScalarGraph &g = plan_.graph;
    std::vector<const ZFactoredStencil *> found;
    std::vector<NodeId> stack{root};
    std::set<NodeId> seen;
    while (!stack.empty()) {
      NodeId id = stack.back();
      stack.pop_back();
      if (values_.count(id) || !varies_[static_cast<size_t>(id)] || !seen.insert(id).second)
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
          return b_.create<mlir::vector::BitCastOp>(loc_, vectorType(), rowLine(*lines, a, readFrom.at(l.a), linear, l, which));
        });
      };
      bool readable = true;
      for (NodeId id : g.topologicalOrder({f->transverse})) {
        const Node &n = g.node(id);
        if (n.op == NodeOp::Leaf && varies_[static_cast<size_t>(id)])
          readable = readable && n.leaf.offset[2] == 0 && rowPointer(*lines, readFrom.at(n.leaf.a));
      }
      if (!readable)
        continue; // computed as its own stencil
      emitNodes({f->transverse}, loader);
      auto integers = mlir::VectorType::get({static_cast<int64_t>(width_)}, b_.getI64Type());
      auto asIntegers = [&](Value v) { return b_.create<mlir::vector::BitCastOp>(loc_, integers, v).getResult(); };
      Value at = asIntegers(values_.at(f->transverse)), before, after;
      auto shifted = [&](int by) -> Value {
        if (by == 0)
          return b_.create<mlir::vector::BitCastOp>(loc_, vectorType(), at);
        Value &side = by < 0 ? before : after;
        if (!side)
          side = asIntegers(beside(by < 0 ? -1 : 1));
        return b_.create<mlir::vector::BitCastOp>(loc_, vectorType(), laneShift(at, side, by));
      };
      Value total;
      for (const ZFactoredStencil::Group &group : f->groups) {
        Value sum;
        for (int by : group.positive)
          sum = sum ? arith2<mlir::arith::AddFOp>(sum, shifted(by)) : shifted(by);
        for (int by : group.negative) // groups of negative weights only list them as positive
          sum = sum ? arith2<mlir::arith::SubFOp>(sum, shifted(by))
                    : b_.create<mlir::arith::NegFOp>(loc_, shifted(by), fastmath_).getResult();
        Value term = arith2<mlir::arith::MulFOp>(vectorOf(group.coefficient), sum);
        total = total ? arith2<mlir::arith::AddFOp>(total, term) : term;
      }
      values_[f->value] = total;
    }
  }

  /// Lane shifts (stencilLoader given the step's RowLines): the reads of a component row at z
  /// shifts -r..r of one vector step cover the vector at the step and the r points on either side.
  /// Loaded as three vectors, the one before (only its last r lanes), the one at the step (its
  /// active lanes and r more) and the one after (its first r lanes, within r of the step's
  /// last active lane), every shifted read is a lane shift of two of them: in the active lanes
  /// the same values as the unaligned load, without the load that straddles two cache lines.
  /// The vectors are loaded as 64-bit integers, for which LLVM emits the shift as one valignq
  /// (for f64 vectors it chooses a two-table permute with an index register). Every lane read
  /// lies inside the component's row: the interior starts and ends r points from its ends.
  /// Inactive lanes may hold other values than the masked loads' zeros; they are never stored.
  struct RowLines {
    std::map<std::tuple<int, int, int, int, int>, Value> lines; // (arg, component, dx, dy, -1|0|1)
    std::map<void *, Value> pointers;                            // aligned base pointer of a buffer
    Value zero, maskBefore, maskAt, maskAfter;                   // shared by the rows of a step
  };
  Value rowPointer(RowLines &lines, Value buffer) {
    void *key = buffer.getAsOpaquePointer();
    if (auto it = lines.pointers.find(key); it != lines.pointers.end())
      return it->second;
    Value pointer;
    auto type = mlir::dyn_cast<mlir::MemRefType>(buffer.getType());
    if (type && type.getRank() == 1 && type.getLayout().isIdentity() && type.getElementType().isF64()) {
      // The memref's descriptor, as the lowering to LLVM represents it; field 1 is the aligned
      // pointer and an identity layout has offset 0.
      auto *context = b_.getContext();
      auto ptr = mlir::LLVM::LLVMPointerType::get(context);
      auto i64 = b_.getI64Type();
      auto dims = mlir::LLVM::LLVMArrayType::get(i64, 1);
      auto descriptor = mlir::LLVM::LLVMStructType::getLiteral(context, {ptr, ptr, i64, dims, dims});
      Value cast = b_.create<mlir::UnrealizedConversionCastOp>(loc_, mlir::TypeRange{descriptor}, ValueRange{buffer})
                       .getResult(0);
      pointer = b_.create<mlir::LLVM::ExtractValueOp>(loc_, cast, llvm::ArrayRef<int64_t>{1});
    }
    lines.pointers[key] = pointer;
    return pointer;
  }
  Value rowLine(RowLines &lines, const Addressing &a, Value buffer, Value linear, const Leaf &l, int which) {
    auto key = std::make_tuple(l.a, l.b, static_cast<int>(l.offset[0]), static_cast<int>(l.offset[1]), which);
    if (auto it = lines.lines.find(key); it != lines.lines.end())
      return it->second;
    const int64_t w = static_cast<int64_t>(width_), r = plan_.radius[2];
    Value index = addressOf(a, linear, l.b, {l.offset[0], l.offset[1], 0});
    if (which)
      index = b_.create<mlir::arith::AddIOp>(loc_, index, indexConst(which * w));
    auto maskType = mlir::VectorType::get({w}, b_.getI1Type());
    auto i64 = b_.getI64Type();
    auto type = mlir::VectorType::get({w}, i64);
    Value mask;
    if (which == 0) {
      if (!lines.maskAt) // lanes q < remaining + r: the shifts by +1..+r of a step's active lanes
        lines.maskAt = b_.create<mlir::vector::CreateMaskOp>(
            loc_, maskType, ValueRange{b_.create<mlir::arith::AddIOp>(loc_, remaining_, indexConst(r))});
      mask = lines.maskAt;
    } else if (which < 0) {
      if (!lines.maskBefore) { // its last r lanes
        llvm::SmallVector<bool> lanes(static_cast<size_t>(w), false);
        std::fill(lanes.end() - r, lanes.end(), true);
        lines.maskBefore =
            b_.create<mlir::arith::ConstantOp>(loc_, mlir::DenseElementsAttr::get(maskType, llvm::ArrayRef<bool>(lanes)));
      }
      mask = lines.maskBefore;
    } else if (which > 0) {
      if (!lines.maskAfter) { // lanes q < min(r, remaining + r - w): within r of the step's last active lane
        Value upTo = b_.create<mlir::arith::MinSIOp>(
            loc_, b_.create<mlir::arith::AddIOp>(loc_, remaining_, indexConst(r - w)), indexConst(r));
        lines.maskAfter = b_.create<mlir::vector::CreateMaskOp>(loc_, maskType, ValueRange{upTo});
      }
      mask = lines.maskAfter;
    }
    if (!lines.zero)
      lines.zero = b_.create<mlir::arith::ConstantOp>(loc_, mlir::DenseElementsAttr::get(type, b_.getI64IntegerAttr(0)));
    Value address = b_.create<mlir::LLVM::GEPOp>(
        loc_, mlir::LLVM::LLVMPointerType::get(b_.getContext()), b_.getF64Type(), rowPointer(lines, buffer),
        // Not inbounds: the vectors before and after a step start up to 8 points outside the
        // row (only their masked lanes lie in it), possibly outside the buffer.
        ValueRange{b_.create<mlir::arith::IndexCastOp>(loc_, i64, index)}, /*inbounds=*/false);
    Value v = b_.create<mlir::LLVM::MaskedLoadOp>(loc_, type, address, mask, ValueRange{lines.zero}, /*alignment=*/8);
    lines.lines[key] = v;
    return v;
  }
  void emitStores(const Addressing &a, const std::map<int, Value> &readFrom, Value linear) {
    auto loader = stencilLoader(a, readFrom, linear);
    for (size_t index : storeOrder()) {
      const KernelStore &s = plan_.stores[index];
      emitNodes({s.value}, loader);
      store(storedValue(s.value), args_[static_cast<size_t>(s.arg)], addressOf(a, linear, s.component, {0, 0, 0}));
    }
  }

  /// The point (or vector of points) at ivs: prefetches, then each output computed and stored.
  void emitPoint(const Addressing &a, const std::map<int, Value> &readFrom, const Value ivs[3]) {
    Value linear = linearIndex(a, ivs);
    emitPrefetches(a, readFrom, linear);
    emitOutputPrefetches(a, linear);
    emitStores(a, readFrom, linear);
  }

  /// Maximal subexpressions that read one buffer component through a stencil and no other
  /// varying value (a field's derivatives, its dissipation term), grouped by component: what
  /// the first pass of a two-pass row computes.
  std::vector<NodeId> stencilValues() {
    const ScalarGraph &g = plan_.graph;
    const std::vector<NodeId> order = g.topologicalOrder(storeRoots());
    constexpr int64_t kNone = -1, kSeveral = -2;
    std::vector<int64_t> source(g.size(), kNone);
    std::vector<char> shifted(g.size(), 0), chosen(g.size(), 0);
    for (NodeId id : order) {
      const Node &n = g.node(id);
      const auto u = static_cast<size_t>(id);
      if (n.op == NodeOp::Leaf) {
        if (plan_.args[static_cast<size_t>(n.leaf.a)].type == ArgType::Buffer) {
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
    for (const KernelStore &s : plan_.stores)
      if (candidate(s.value))
        choose(s.value);
    std::vector<NodeId> values;
    for (NodeId id : order)
      if (chosen[static_cast<size_t>(id)])
        values.push_back(id);
    std::stable_sort(values.begin(), values.end(),
                     [&](NodeId x, NodeId y) { return source[static_cast<size_t>(x)] < source[static_cast<size_t>(y)]; });
    stencilSource_.clear();
    for (NodeId id : values)
      stencilSource_.push_back({static_cast<int>(source[static_cast<size_t>(id)] >> 32),
                                static_cast<int>(source[static_cast<size_t>(id)] & 0xffffffff)});
    return values;
  }

  Value scratchIndex(size_t slot) {
    return b_.create<mlir::arith::AddIOp>(loc_, indexConst(static_cast<int64_t>(slot) * scratchStride_), scratchStep_);
  }
  Value loadScratch(size_t slot) {
    if (width_ > 1)
      return b_.create<mlir::vector::LoadOp>(loc_, vectorType(), scratch_, ValueRange{scratchIndex(slot)});
    return b_.create<mlir::memref::LoadOp>(loc_, scratch_, ValueRange{scratchIndex(slot)});
  }
  void storeScratch(Value v, size_t slot) {
    if (width_ > 1)
      b_.create<mlir::vector::StoreOp>(loc_, v, scratch_, ValueRange{scratchIndex(slot)});
    else
      b_.create<mlir::memref::StoreOp>(loc_, v, scratch_, ValueRange{scratchIndex(slot)});
  }
  /// Values computed inside one loop body are not visible in the next loop.
  void forgetVaryingValues() {
    for (auto it = values_.begin(); it != values_.end();)
      it = varies_[static_cast<size_t>(it->first)] ? values_.erase(it) : std::next(it);
  }

  /// A row in chunks of up to `kStencilPassSteps` vector steps (fewer where the scratch block
  /// would exceed `kScratchBytes`), each in two passes: the stencil values
  /// of every step into a scratch block, then the equations reading them back. Each pass keeps
  /// far fewer values live than the single body, and only the first one streams the stencils.
  void emitTwoPassRow(const Addressing &a, const std::map<int, Value> &readFrom, Value i, Value j, Value stepsFrom,
                      Value kEnd) {
    const std::vector<NodeId> &stencil = stencil_;
    // The scratch block lives on the stack of whichever thread runs the row: bounded, by
    // shortening the chunk (the constructor keeps one pass when even one step would not fit).
    const int64_t chunkPoints = static_cast<int64_t>(width_) * scratchSteps(stencil.size());
    scratchStride_ = scratchStride(chunkPoints);
    for (size_t r = 0; r < stencil.size(); ++r)
      scratchSlot_[stencil[r]] = r;
    auto type = mlir::MemRefType::get({static_cast<int64_t>(stencil.size()) * scratchStride_}, b_.getF64Type());
    scratch_ = b_.create<mlir::memref::AllocaOp>(loc_, type, b_.getI64IntegerAttr(64));
    Value chunk = indexConst(chunkPoints);
    auto chunkLoop = b_.create<mlir::scf::ForOp>(loc_, stepsFrom, kEnd, chunk);
    b_.setInsertionPoint(chunkLoop.getBody()->getTerminator());
    Value kc = chunkLoop.getInductionVar();
    Value chunkEnd = b_.create<mlir::arith::MinSIOp>(loc_, b_.create<mlir::arith::AddIOp>(loc_, kc, chunk), kEnd);
    // One loop over the chunk, `width_` points per step; `body` gets the step's linear index.
    auto stepLoop = [&](const std::function<void(Value)> &body) {
      auto loop = b_.create<mlir::scf::ForOp>(loc_, kc, chunkEnd, indexConst(width_));
      mlir::OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPoint(loop.getBody()->getTerminator());
      Value k = loop.getInductionVar();
      scratchStep_ = b_.create<mlir::arith::SubIOp>(loc_, k, kc);
      Value ivs[3] = {i, j, width_ > 1 ? vectorStep(k) : k};
      body(linearIndex(a, ivs));
      forgetVaryingValues();
    };
    // First pass: one loop per buffer component, computing that component's stencil values;
    // the offsets of its rows then stay in registers.
    std::set<std::pair<int, int>> prefetched;
    for (size_t first = 0; first < stencil.size();) {
      size_t last = first;
      while (last < stencil.size() && stencilSource_[last] == stencilSource_[first])
        ++last;
      const std::pair<int, int> source = stencilSource_[first];
      prefetched.insert(source);
      stepLoop([&](Value linear) {
        emitPrefetches(a, readFrom, linear, [&](int arg, int component) { return std::make_pair(arg, component) == source; });
        auto lines = std::make_shared<RowLines>();
        auto loader = stencilLoader(a, readFrom, linear, lines);
        for (size_t r = first; r < last; ++r) {
          emitZFactored(stencil[r], a, readFrom, linear, lines, loader);
          emitNodes({stencil[r]}, loader);
          storeScratch(values_.at(stencil[r]), r);
        }
      });
      first = last;
    }
    // Second pass: the equations, reading the stencil values back.
    stepLoop([&](Value linear) {
      emitPrefetches(a, readFrom, linear, [&](int arg, int component) { return !prefetched.count({arg, component}); });
      emitOutputPrefetches(a, linear);
      fromScratch_ = true;
      emitStores(a, readFrom, linear);
      fromScratch_ = false;
    });
    b_.setInsertionPointAfter(chunkLoop);
    scratchSlot_.clear();
  }

  /// The order in which outputs are computed: greedily, the output that needs the fewest nodes
  /// not computed yet comes next, so that outputs sharing subexpressions are computed together
  /// and shared values die sooner.
  std::vector<size_t> storeOrder() const {
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

  /// Interior loops over a 3-D grid; every access is `component * N + linear + delta`. With a
  /// shared row function the loops stop at j and call it for each row of the tile.
  void emitStencilLoop() {
    Value nx = args_[0], ny = args_[1], nz = args_[2];
    // Snapshot outputs that are also read, once, before the loop.
    std::map<int, Value> readFrom;
    for (size_t i = 0; i < args_.size(); ++i)
      readFrom[static_cast<int>(i)] = args_[i];
    std::vector<Value> snapshots;
    for (int a : plan_.snapshotArgs) {
      Value size = b_.create<mlir::memref::DimOp>(loc_, args_[static_cast<size_t>(a)], 0);
      auto type = mlir::MemRefType::get({mlir::ShapedType::kDynamic}, b_.getF64Type());
      Value copy = b_.create<mlir::memref::AllocOp>(loc_, type, ValueRange{size});
      b_.create<mlir::memref::CopyOp>(loc_, args_[static_cast<size_t>(a)], copy);
      readFrom[a] = copy;
      snapshots.push_back(copy);
    }
    const Value extents[3] = {nx, ny, nz};
    Value ivs[3];
    mlir::Operation *outer;
    if (!rowFunction_.empty()) {
      RowBounds rows;
      outer = tile_[0] > 0 ? emitTiledLoops(extents, ivs, &rows) : emitPlainLoops(extents, ivs, &rows);
      llvm::SmallVector<Value> operands(args_.begin(), args_.end());
      operands.append(snapshots.begin(), snapshots.end());
      operands.append({ivs[0], ivs[1], rows.kBegin, rows.kEnd});
      b_.create<mlir::func::CallOp>(loc_, rowFunction_, mlir::TypeRange{}, operands);
    } else {
      Addressing addressing = prepareAddressing(nx, ny, nz);
      outer = tile_[0] > 0 ? emitTiledLoops(extents, ivs, nullptr) : emitPlainLoops(extents, ivs, nullptr);
      emitPoint(addressing, readFrom, ivs);
    }
    b_.setInsertionPointAfter(outer);
    for (Value s : snapshots)
      b_.create<mlir::memref::DeallocOp>(loc_, s);
  }

public:
  /// Vector steps per chunk of a two-pass row: long enough that each component's first-pass
  /// loop streams its rows for a while (BSSN: 16 steps, i.e. 128 points, were 1.1-1.2x faster at
  /// 128^3 than 8 steps and 1.25x faster than 4; equal at 64^3, where a row has 58 points).
  static constexpr int64_t kStencilPassSteps = 16;
  /// Largest scratch block of a two-pass row (stack of the thread that runs it).
  static constexpr int64_t kScratchBytes = 256 * 1024;
  /// Doubles from one value's chunk to the next in the scratch block: the chunk rounded up to
  /// an odd number of 64-byte lines. The second pass reads every value of one step, one stride
  /// apart; at an even number of lines (16 steps of 8 points are 1 KiB) those reads would share
  /// a few sets of the L1 cache (4 of 64 at 1 KiB) and evict each other and the spill slots.
  static int64_t scratchStride(int64_t chunk) { return ((chunk + 7) / 8 | 1) * 8; }
  /// Vector steps per chunk of a two-pass row with `values` stencil values: as many as fit
  /// the scratch block, at most `kStencilPassSteps`; 0 when not even one step fits.
  int64_t scratchSteps(size_t values) const {
    for (int64_t steps = kStencilPassSteps; steps > 0; --steps)
      if (static_cast<int64_t>(values) * scratchStride(static_cast<int64_t>(width_) * steps) *
              static_cast<int64_t>(sizeof(double)) <=
          kScratchBytes)
        return steps;
    return 0;
  }
  /// The z extent of a tile that does not split rows of up to 4096 interior points (the
  /// largest explicit tile size), and the rows of a two-pass kernel's tile.
  static constexpr int64_t kMaxTileZ = 4096, kTwoPassTileRows = 4;
  /// Kernels whose bodies are this large share one body between their scf, affine and
  /// parallel variants: a private row function over (i, j, kBegin..kEnd), compiled once.
  static constexpr size_t kSharedBodyNodes = 2000;

  static bool wantsRowFunction(const KernelPlan &plan) {
    if (plan.family != KernelFamily::RhsGrid && plan.family != KernelFamily::ResidualGrid)
      return false;
    std::vector<NodeId> roots;
    for (const KernelStore &s : plan.stores)
      roots.push_back(s.value);
    return plan.graph.topologicalOrder(roots).size() > kSharedBodyNodes;
  }

  /// Whether this kernel's variants share a row function (wantsRowFunction, decided once).
  bool sharesRowBody() const { return sharesRowBody_; }

  /// The variants call `name` instead of holding the body themselves.
  void useRowFunction(std::string name) { rowFunction_ = std::move(name); }

  /// The shared row function: (kernel arguments..., snapshot copies..., i, j, kBegin, kEnd)
  /// computes the points (i, j, kBegin..kEnd - 1), `width_` at a time.
  void emitRowFunction(mlir::ModuleOp module, const std::string &name) {
    module_ = module;
    llvm::SmallVector<mlir::Type> inputs;
    auto f64 = b_.getF64Type();
    auto dynamic = mlir::MemRefType::get({mlir::ShapedType::kDynamic}, f64);
    for (const KernelArg &a : plan_.args)
      inputs.push_back(a.type == ArgType::Index ? mlir::Type(b_.getIndexType())
                       : a.type == ArgType::F64 ? mlir::Type(f64)
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
    // The scratch block of two-pass rows makes a frame of up to 256 kB: probed page by page,
    // so that a thread whose stack is too small faults on its guard page instead of jumping it.
    if (!stencil_.empty())
      passthrough.push_back(b_.getArrayAttr({b_.getStringAttr("probe-stack"), b_.getStringAttr("inline-asm")}));
    func->setAttr("passthrough", b_.getArrayAttr(passthrough));
    mlir::Block *entry = func.addEntryBlock();
    entry_ = entry;
    b_.setInsertionPointToStart(entry);
    for (size_t i = 0; i < plan_.args.size(); ++i)
      args_.push_back(entry->getArgument(static_cast<unsigned>(i)));
    computeVarying();
    visited_.assign(plan_.graph.size(), 0);
    std::map<int, Value> readFrom;
    for (size_t i = 0; i < args_.size(); ++i)
      readFrom[static_cast<int>(i)] = args_[i];
    for (size_t s = 0; s < plan_.snapshotArgs.size(); ++s)
      readFrom[plan_.snapshotArgs[s]] = entry->getArgument(static_cast<unsigned>(plan_.args.size() + s));
    const unsigned first = static_cast<unsigned>(plan_.args.size() + plan_.snapshotArgs.size());
    Value i = entry->getArgument(first), j = entry->getArgument(first + 1);
    Value kBegin = entry->getArgument(first + 2), kEnd = entry->getArgument(first + 3);
    Addressing addressing = prepareAddressing(args_[0], args_[1], args_[2]);
    // Vector steps of a row sit on multiples of the width in the linear index where that
    // costs no extra step, so that with line-aligned components (64-byte aligned buffers of
    // a multiple of W points) the output stores and unshifted loads of the inner steps do not
    // split across cache lines: the first step starts at kBegin and overlaps the second, as
    // the last overlaps the one before (BSSN at 64^3, rows starting 3 points into a line:
    // 1.03-1.09x). Any buffer alignment gives the same results.
    Value stepsFrom = kBegin;
    if (width_ > 1) {
      prepareVectorSteps(kBegin, kEnd);
      alignedSteps_ = true;
      Value ivs[3] = {i, j, kBegin};
      Value misalignment = b_.create<mlir::arith::RemUIOp>(loc_, linearIndex(addressing, ivs), indexConst(width_));
      Value length = b_.create<mlir::arith::MaxSIOp>(loc_, b_.create<mlir::arith::SubIOp>(loc_, kEnd, kBegin), indexConst(0));
      auto steps = [&](Value points) {
        return b_.create<mlir::arith::DivUIOp>(loc_, b_.create<mlir::arith::AddIOp>(loc_, points, indexConst(width_ - 1)),
                                               indexConst(width_));
      };
      Value plainSteps = steps(length);
      Value alignedSteps = steps(b_.create<mlir::arith::AddIOp>(loc_, length, misalignment));
      Value noExtraStep =
          b_.create<mlir::arith::CmpIOp>(loc_, mlir::arith::CmpIPredicate::eq, alignedSteps, plainSteps);
      stepsFrom = b_.create<mlir::arith::SelectOp>(
          loc_, noExtraStep, b_.create<mlir::arith::SubIOp>(loc_, kBegin, misalignment), kBegin);
    }
    if (!stencil_.empty()) {
      emitTwoPassRow(addressing, readFrom, i, j, stepsFrom, kEnd);
    } else {
      auto loop = b_.create<mlir::scf::ForOp>(loc_, stepsFrom, kEnd, indexConst(width_));
      b_.setInsertionPoint(loop.getBody()->getTerminator());
      Value ivs[3] = {i, j, width_ > 1 ? vectorStep(loop.getInductionVar()) : loop.getInductionVar()};
      emitPoint(addressing, readFrom, ivs);
      b_.setInsertionPointAfter(loop);
    }
    b_.create<mlir::func::ReturnOp>(loc_);
  }

private:
  mlir::OpBuilder &b_;
  mlir::ModuleOp module_;
  mlir::Location loc_;
  const KernelPlan &plan_;
  unsigned width_ = 1;
  std::array<int64_t, 2> tile_{0, 0};
  bool prefetch_ = true;
  std::string rowFunction_;
  bool sharesRowBody_ = false;
  mlir::arith::FastMathFlagsAttr fastmath_;
  mlir::Block *entry_ = nullptr;
  Value mask_, remaining_, vectorUpper_, vectorLower_, lastStart_, fits_;
  bool laneShifts_ = false;
  std::unordered_map<NodeId, const ZFactoredStencil *> zFactored_; // by the mixed derivative's node
  bool alignedSteps_ = false;
  std::map<int64_t, Value> indexConsts_;
  std::map<uint64_t, Value> f64Consts_, splatConsts_;
  std::vector<Value> args_;
  std::vector<char> varies_;
  std::unordered_map<NodeId, Value> values_, broadcasts_;
  std::vector<uint32_t> need_;
  // Two-pass rows: the stride of the values' chunks in the scratch block, the block, the slot
  // of each first-pass value, and the current step's offset in the chunk.
  std::vector<NodeId> stencil_; // first-pass values of a two-pass row function (none: one pass)
  int64_t scratchStride_ = 0;
  Value scratch_, scratchStep_;
  std::unordered_map<NodeId, size_t> scratchSlot_;
  std::vector<std::pair<int, int>> stencilSource_; // (argument, component) of each stencil value
  bool fromScratch_ = false;
  std::vector<uint32_t> visited_;
  uint32_t visitEpoch_ = 1;
};

} // namespace

/// The declared elliptic problems of spectral constraints blocks; null when there are none, so
/// that modules without them keep exactly their attributes.
static mlir::ArrayAttr spectralProblemAttributes(mlir::OpBuilder &builder, const frontend::Module &source) {
  llvm::SmallVector<mlir::Attribute> problems;
  if (source.sim.scheme != frontend::Scheme::Spectral)
    return {};
  for (const frontend::ComputeBlock &block : source.blocks) {
    if (block.kind != frontend::ComputeKind::Constraints || block.unknowns.empty())
      continue;
    const frontend::EllipticProblemInfo info = frontend::describeEllipticProblem(block, source.sim);
    llvm::SmallVector<mlir::Attribute> unknowns, boundaries;
    for (const frontend::UnknownDecl &u : block.unknowns)
      if (u.field)
        for (const std::string &n : frontend::spectralComponentNames(*u.field))
          unknowns.push_back(builder.getStringAttr(n));
    const std::vector<frontend::DomainFace> faces = frontend::domainFaces(info.map);
    for (const frontend::BoundaryCondition &bc : block.boundaries) {
      if (!bc.target || !bc.target->field)
        continue;
      auto face = std::find_if(faces.begin(), faces.end(), [&](const frontend::DomainFace &f) { return f.name == bc.face; });
      if (face == faces.end())
        continue;
      for (const std::string &n : frontend::spectralComponentNames(*bc.target->field))
        boundaries.push_back(builder.getDictionaryAttr({
            builder.getNamedAttr("axis", builder.getI64IntegerAttr(face->axis)),
            builder.getNamedAttr("face", builder.getStringAttr(bc.face)),
            builder.getNamedAttr("kernel", builder.getStringAttr(abi::spectralBoundarySymbol(n, bc.face))),
            builder.getNamedAttr("kind", builder.getStringAttr(bc.kind == frontend::BoundaryKind::Robin ? "robin" : "dirichlet")),
            builder.getNamedAttr("side", builder.getI64IntegerAttr(face->side)),
            builder.getNamedAttr("unknown", builder.getStringAttr(n)),
        }));
    }
    std::vector<int64_t> resolution(info.resolution.begin(), info.resolution.end());
    llvm::SmallVector<mlir::NamedAttribute> defaults;
    for (const frontend::ParamDecl &p : source.params)
      if (p.defaultValue)
        defaults.push_back(builder.getNamedAttr(p.name, builder.getF64FloatAttr(*p.defaultValue)));
    problems.push_back(builder.getDictionaryAttr({
        builder.getNamedAttr("param_defaults", builder.getDictionaryAttr(defaults)),
        builder.getNamedAttr("block", builder.getStringAttr(block.name)),
        builder.getNamedAttr("boundaries", builder.getArrayAttr(boundaries)),
        builder.getNamedAttr("bounds", builder.getDenseF64ArrayAttr(info.bounds)),
        builder.getNamedAttr("forcing", builder.getF64FloatAttr(info.forcing)),
        builder.getNamedAttr("line_search", builder.getBoolAttr(info.lineSearch)),
        builder.getNamedAttr("linear", builder.getStringAttr(info.linear)),
        builder.getNamedAttr("map", builder.getStringAttr(info.map)),
        builder.getNamedAttr("max_iterations", builder.getI64IntegerAttr(info.maxIterations)),
        builder.getNamedAttr("preconditioner", builder.getStringAttr(info.preconditioner)),
        builder.getNamedAttr("resolution", builder.getDenseI64ArrayAttr(resolution)),
        builder.getNamedAttr("restart", builder.getI64IntegerAttr(info.restart)),
        builder.getNamedAttr("tolerance", builder.getF64FloatAttr(info.tolerance)),
        builder.getNamedAttr("unknowns", builder.getArrayAttr(unknowns)),
    }));
  }
  if (problems.empty())
    return {};
  return builder.getArrayAttr(problems);
}

namespace {
constexpr std::string_view kRowFunctionPrefix = "__tensorium_", kRowFunctionSuffix = "_row";
} // namespace

std::string rowFunctionName(KernelFamily family) {
  // Only the stencil families over a grid have a row function (KernelEmitter::wantsRowFunction).
  const std::string_view stem = family == KernelFamily::RhsGrid        ? "rhs_grid"
                                : family == KernelFamily::ResidualGrid ? "residual_grid"
                                                                       : "";
  if (stem.empty())
    return {};
  return std::string(kRowFunctionPrefix) + std::string(stem) + std::string(kRowFunctionSuffix);
}

mlir::OwningOpRef<mlir::ModuleOp> emitModule(mlir::MLIRContext &context, const std::vector<KernelPlan> &kernels,
                                             const frontend::Module &source, const EmitOptions &options) {
  loadTensoriumDialects(context);
  mlir::OpBuilder builder(&context);
  mlir::Location loc = mlir::FileLineColLoc::get(&context, source.path, 1, 1);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  auto sv = [&](std::string_view s) { return llvm::StringRef(s.data(), s.size()); };
  const frontend::SimulationInfo &sim = source.sim;
  std::vector<int64_t> resolution(sim.resolution.begin(), sim.resolution.end());
  llvm::SmallVector<mlir::NamedAttribute> simAttrs{
      builder.getNamedAttr("coordinates", builder.getStringAttr(sim.coordinates == frontend::CoordinateSystem::Cartesian ? "cartesian" : "spherical")),
      builder.getNamedAttr("dimension", builder.getI64IntegerAttr(sim.dimension)),
      builder.getNamedAttr("order", builder.getI64IntegerAttr(sim.order)),
      builder.getNamedAttr("resolution", builder.getDenseI64ArrayAttr(resolution)),
      builder.getNamedAttr("scheme", builder.getStringAttr(sim.scheme == frontend::Scheme::Spectral ? "spectral" : "fd")),
  };
  llvm::SmallVector<mlir::Attribute> fieldAttrs;
  for (const auto &f : source.fields) {
    std::string variance;
    for (frontend::Variance v : f->variances)
      variance += v == frontend::Variance::Up ? 'u' : 'd';
    fieldAttrs.push_back(builder.getDictionaryAttr({
        builder.getNamedAttr("components", builder.getI64IntegerAttr(f->componentCount)),
        builder.getNamedAttr("name", builder.getStringAttr(f->name)),
        builder.getNamedAttr("rank", builder.getI64IntegerAttr(frontend::tensorTypeRank(f->type))),
        builder.getNamedAttr("spacetime", builder.getBoolAttr(f->space == frontend::IndexSpace::Spacetime)),
        builder.getNamedAttr("type", builder.getStringAttr(frontend::tensorTypeSpelling(f->type))),
        builder.getNamedAttr("variance", builder.getStringAttr(variance)),
    }));
  }
  (*module)->setAttr(sv(abi::kAttrVersion), builder.getI64IntegerAttr(abi::kABIVersion));
  (*module)->setAttr(sv(abi::kAttrModuleSimulation), builder.getDictionaryAttr(simAttrs));
  (*module)->setAttr(sv(abi::kAttrModuleFields), builder.getArrayAttr(fieldAttrs));
  if (mlir::ArrayAttr problems = spectralProblemAttributes(builder, source))
    (*module)->setAttr(sv(abi::kAttrModuleSpectralProblems), problems);
  // Large stencil kernels share one body (a private row function) between their variants; the
  // variants of one family are planned from one graph, so the first one's body serves all.
  std::map<KernelFamily, std::string> rowFunctions;
  for (const KernelPlan &plan : kernels) {
    mlir::Location kernelLoc = mlir::NameLoc::get(builder.getStringAttr(plan.symbol), loc);
    KernelEmitter emitter(builder, kernelLoc, plan, options);
    if (emitter.sharesRowBody()) {
      auto [it, first] = rowFunctions.try_emplace(plan.family, rowFunctionName(plan.family));
      if (first)
        KernelEmitter(builder, kernelLoc, plan, options).emitRowFunction(*module, it->second);
      emitter.useRowFunction(it->second);
    }
    emitter.emit(*module);
  }
  return module;
}

} // namespace tensorium_mlir::codegen
