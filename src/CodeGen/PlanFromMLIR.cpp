#include "PlanFromMLIR.h"
#include "PlanningSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace tensorium_mlir::codegen {

namespace {

std::optional<KernelFamily> familyNamed(llvm::StringRef name) {
  static const std::pair<const char *, KernelFamily> families[] = {
      {"init_point", KernelFamily::InitPoint},         {"init_grid", KernelFamily::InitGrid},
      {"rhs_grid", KernelFamily::RhsGrid},             {"residual_grid", KernelFamily::ResidualGrid},
      {"spectral_point", KernelFamily::SpectralPoint}, {"spectral_jvp", KernelFamily::SpectralJvp},
      {"spectral_grid", KernelFamily::SpectralGrid},   {"symbolic", KernelFamily::Symbolic},
  };
  for (const auto &[spelling, family] : families)
    if (name == spelling)
      return family;
  return std::nullopt;
}

std::optional<LoopStyle> loopNamed(llvm::StringRef name) {
  if (name == "none")
    return LoopStyle::None;
  if (name == "scf")
    return LoopStyle::Scf;
  if (name == "affine")
    return LoopStyle::Affine;
  if (name == "parallel")
    return LoopStyle::Parallel;
  return std::nullopt;
}

std::optional<ArgRole> roleNamed(llvm::StringRef name) {
  static const std::pair<const char *, ArgRole> roles[] = {
      {"extent", ArgRole::Extent}, {"spacing", ArgRole::Spacing}, {"param", ArgRole::Param},
      {"coordinate", ArgRole::Coordinate}, {"field", ArgRole::Field}, {"direction", ArgRole::Direction},
      {"output", ArgRole::Output},
  };
  for (const auto &[spelling, role] : roles)
    if (name == spelling)
      return role;
  return std::nullopt;
}

/// Reads the plan's graph from the function body, one op at a time.
class PlanReader {
public:
  PlanReader(mlir::func::FuncOp func, KernelPlan &plan) : func_(func), plan_(plan) {}

  bool readArguments() {
    mlir::Block &entry = func_.getBody().front();
    for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
      mlir::BlockArgument argument = entry.getArgument(i);
      KernelArg a;
      a.name = "arg" + std::to_string(i);
      if (auto name = func_.getArgAttrOfType<mlir::StringAttr>(i, "tensorium.name"))
        a.name = name.str();
      mlir::Type type = argument.getType();
      auto memref = mlir::dyn_cast<mlir::MemRefType>(type);
      if (type.isIndex()) {
        a.type = ArgType::Index;
        a.role = ArgRole::Extent;
      } else if (type.isF64()) {
        a.type = ArgType::F64;
        a.role = ArgRole::Param;
      } else if (memref && memref.getRank() == 1 && memref.getElementType().isF64() && memref.getLayout().isIdentity()) {
        a.type = memref.isDynamicDim(0) ? ArgType::Buffer : ArgType::FixedBuffer;
        a.fixedSize = memref.isDynamicDim(0) ? 0 : memref.getDimSize(0);
        a.role = ArgRole::Field;
      } else {
        return fail(func_.emitError() << "plan argument #" << i << " has type " << type
                                      << "; plans take index, f64 and rank-1 f64 memrefs");
      }
      for (const char *attribute : {"tensorium.name", "tensorium.role"})
        if (func_.getArgAttr(i, attribute) && !func_.getArgAttrOfType<mlir::StringAttr>(i, attribute))
          return fail(func_.emitError() << "plan argument #" << i << ": " << attribute << " is a string");
      if (auto role = func_.getArgAttrOfType<mlir::StringAttr>(i, "tensorium.role")) {
        std::optional<ArgRole> r = roleNamed(role.getValue());
        if (!r)
          return fail(func_.emitError() << "plan argument #" << i << " has unknown role '" << role.getValue() << "'");
        a.role = *r;
      }
      // The role has to fit the type: buffers hold fields, outputs, coordinates and directions.
      const bool bufferRole = a.role == ArgRole::Field || a.role == ArgRole::Output ||
                              a.role == ArgRole::Coordinate || a.role == ArgRole::Direction;
      const bool fits = a.type == ArgType::Index ? a.role == ArgRole::Extent
                        : a.type == ArgType::F64 ? a.role == ArgRole::Param || a.role == ArgRole::Spacing
                                                   : bufferRole;
      if (!fits)
        return fail(func_.emitError() << "plan argument #" << i << " of type " << type
                                      << " cannot have that role (index: extent; f64: param, spacing; memref: "
                                         "field, output, coordinate, direction)");
      if (mlir::Attribute components = func_.getArgAttr(i, "tensorium.components")) {
        auto integer = mlir::dyn_cast<mlir::IntegerAttr>(components);
        const int64_t count = integer ? integer.getValue().getSExtValue() : 0;
        if (!integer || count < 1 || count > 4096 || a.type != ArgType::Buffer)
          return fail(func_.emitError() << "plan argument #" << i
                                        << ": tensorium.components is an integer from 1 to 4096, on a memref<?xf64>");
        a.components = static_cast<unsigned>(count);
      }
      // Extents size the loops and coordinates are read for their length at least: listed as
      // read, as the planner lists them.
      a.read = a.type == ArgType::Index || a.role == ArgRole::Coordinate;
      plan_.args.push_back(a);
      if (a.type == ArgType::F64)
        values_[argument.getAsOpaquePointer()] = plan_.graph.leaf({LeafKind::Arg, static_cast<int32_t>(i), 0, {}, {}});
    }
    return true;
  }

  bool readBody() {
    mlir::Block &entry = func_.getBody().front();
    for (mlir::Operation &op : entry.getOperations())
      if (!readOp(op))
        return false;
    return true;
  }

private:
  bool fail(mlir::InFlightDiagnostic &&diagnostic) {
    (void)mlir::LogicalResult(diagnostic);
    return false;
  }

  std::optional<NodeId> valueOf(mlir::Operation &op, mlir::Value v) {
    auto it = values_.find(v.getAsOpaquePointer());
    if (it == values_.end()) {
      (void)mlir::LogicalResult(op.emitError() << "operand is not an f64 value of the plan");
      return std::nullopt;
    }
    return it->second;
  }

  /// The buffer argument and constant component of a load or store; sets the arg's use.
  std::optional<std::pair<int, int>> bufferAccess(mlir::Operation &op, mlir::Value buffer, mlir::ValueRange indices) {
    auto argument = mlir::dyn_cast<mlir::BlockArgument>(buffer);
    if (!argument || argument.getOwner() != &func_.getBody().front()) {
      (void)mlir::LogicalResult(op.emitError() << "plans read and write their own buffer arguments only");
      return std::nullopt;
    }
    auto constant = indices.size() == 1 ? indices[0].getDefiningOp<mlir::arith::ConstantIndexOp>() : nullptr;
    if (!constant || constant.value() < 0) {
      (void)mlir::LogicalResult(op.emitError() << "a plan's buffer index is a non-negative constant component");
      return std::nullopt;
    }
    const KernelArg &arg = plan_.args[argument.getArgNumber()];
    const int64_t count = arg.type == ArgType::FixedBuffer ? arg.fixedSize : arg.components;
    if (constant.value() >= count) {
      (void)mlir::LogicalResult(op.emitError() << "component " << constant.value() << " of '" << arg.name
                                               << "', which has " << count
                                               << " (declare more with tensorium.components)");
      return std::nullopt;
    }
    return std::make_pair(static_cast<int>(argument.getArgNumber()), static_cast<int>(constant.value()));
  }

  bool readOp(mlir::Operation &op) {
    if (auto c = mlir::dyn_cast<mlir::arith::ConstantOp>(op)) {
      if (auto f = mlir::dyn_cast<mlir::FloatAttr>(c.getValue()); f && f.getType().isF64())
        values_[c.getResult().getAsOpaquePointer()] = plan_.graph.constant(f.getValueAsDouble());
      return true; // index constants name components
    }
    if (auto load = mlir::dyn_cast<mlir::memref::LoadOp>(op)) {
      auto access = bufferAccess(op, load.getMemRef(), load.getIndices());
      if (!access)
        return false;
      Leaf leaf{LeafKind::Arg, access->first, access->second, {0, 0, 0}, {}};
      if (op.getAttr("tensorium.offset") && !op.getAttrOfType<mlir::DenseI64ArrayAttr>("tensorium.offset"))
        return fail(op.emitError() << "tensorium.offset is an array<i64: dx, dy, dz>");
      if (auto offset = op.getAttrOfType<mlir::DenseI64ArrayAttr>("tensorium.offset")) {
        if (offset.size() != 3)
          return fail(op.emitError() << "tensorium.offset has 3 entries (x, y, z)");
        for (int axis = 0; axis < 3; ++axis) {
          if (offset[axis] < -8 || offset[axis] > 8)
            return fail(op.emitError() << "stencil shifts lie within -8..8");
          leaf.offset[static_cast<size_t>(axis)] = static_cast<int8_t>(offset[axis]);
          plan_.radius[static_cast<size_t>(axis)] =
              std::max(plan_.radius[static_cast<size_t>(axis)], static_cast<int>(std::abs(offset[axis])));
        }
      }
      plan_.args[static_cast<size_t>(leaf.a)].read = true;
      values_[load.getResult().getAsOpaquePointer()] = plan_.graph.leaf(leaf);
      return true;
    }
    if (auto store = mlir::dyn_cast<mlir::memref::StoreOp>(op)) {
      auto access = bufferAccess(op, store.getMemRef(), store.getIndices());
      std::optional<NodeId> value = access ? valueOf(op, store.getValue()) : std::nullopt;
      if (!value)
        return false;
      for (const KernelStore &earlier : plan_.stores)
        if (earlier.arg == access->first && earlier.component == access->second)
          return fail(op.emitError() << "a second store to component " << access->second << " of '"
                                     << plan_.args[static_cast<size_t>(access->first)].name
                                     << "' (a plan stores each component once)");
      plan_.args[static_cast<size_t>(access->first)].written = true;
      plan_.stores.push_back({access->first, access->second, *value});
      return true;
    }
    if (auto ret = mlir::dyn_cast<mlir::func::ReturnOp>(op)) {
      if (ret.getNumOperands() > 1)
        return fail(op.emitError() << "a plan returns at most one f64");
      if (ret.getNumOperands() == 1) {
        std::optional<NodeId> value = valueOf(op, ret.getOperand(0));
        if (!value)
          return false;
        plan_.result = *value;
      }
      return true;
    }
    auto binary = [&](auto build) {
      std::optional<NodeId> l = valueOf(op, op.getOperand(0)), r = l ? valueOf(op, op.getOperand(1)) : std::nullopt;
      if (!r)
        return false;
      values_[op.getResult(0).getAsOpaquePointer()] = build(*l, *r);
      return true;
    };
    auto unary = [&](NodeOp kind) {
      std::optional<NodeId> x = valueOf(op, op.getOperand(0));
      if (!x)
        return false;
      values_[op.getResult(0).getAsOpaquePointer()] =
          kind == NodeOp::Neg ? plan_.graph.neg(*x) : plan_.graph.unary(kind, *x);
      return true;
    };
    ScalarGraph &g = plan_.graph;
    if (mlir::isa<mlir::arith::AddFOp>(op))
      return binary([&](NodeId a, NodeId b) { return g.add(a, b); });
    if (mlir::isa<mlir::arith::SubFOp>(op))
      return binary([&](NodeId a, NodeId b) { return g.sub(a, b); });
    if (mlir::isa<mlir::arith::MulFOp>(op))
      return binary([&](NodeId a, NodeId b) { return g.mul(a, b); });
    if (mlir::isa<mlir::arith::DivFOp>(op))
      return binary([&](NodeId a, NodeId b) { return g.div(a, b); });
    if (mlir::isa<mlir::math::PowFOp>(op))
      return binary([&](NodeId a, NodeId b) { return g.powGeneral(a, b); });
    if (mlir::isa<mlir::arith::NegFOp>(op))
      return unary(NodeOp::Neg);
    if (mlir::isa<mlir::math::SqrtOp>(op))
      return unary(NodeOp::Sqrt);
    if (mlir::isa<mlir::math::SinOp>(op))
      return unary(NodeOp::Sin);
    if (mlir::isa<mlir::math::CosOp>(op))
      return unary(NodeOp::Cos);
    if (mlir::isa<mlir::math::ExpOp>(op))
      return unary(NodeOp::Exp);
    if (mlir::isa<mlir::math::LogOp>(op))
      return unary(NodeOp::Log);
    return fail(op.emitError() << "'" << op.getName() << "' is not an operation of kernel plans");
  }

  mlir::func::FuncOp func_;
  KernelPlan &plan_;
  std::unordered_map<void *, NodeId> values_;
};

} // namespace

std::optional<KernelPlan> planFromMLIR(mlir::func::FuncOp func) {
  KernelPlan plan;
  auto familyAttr = func->getAttrOfType<mlir::StringAttr>(llvm::StringRef(kPlanAttr.data(), kPlanAttr.size()));
  std::optional<KernelFamily> family = familyAttr ? familyNamed(familyAttr.getValue()) : std::nullopt;
  if (!family) {
    func.emitError() << "tensorium.plan names no kernel family (init_point, init_grid, rhs_grid, residual_grid, "
                        "spectral_point, spectral_jvp, spectral_grid, symbolic)";
    return std::nullopt;
  }
  if (func.isDeclaration() || !func.getBody().hasOneBlock()) {
    func.emitError() << (func.isDeclaration() ? "a plan has a body" : "a plan's body is one block");
    return std::nullopt;
  }
  plan.family = *family;
  plan.symbol = func.getSymName().str();
  plan.kind = familyAttr.getValue().str();
  const bool grid = isGridFamily(plan.family), stencil = isStencilFamily(plan.family);
  plan.loop = grid ? LoopStyle::Scf : LoopStyle::None;
  if (auto loop = func->getAttrOfType<mlir::StringAttr>("tensorium.loop")) {
    std::optional<LoopStyle> style = loopNamed(loop.getValue());
    if (!style || (*style == LoopStyle::None) == grid || (*style == LoopStyle::Parallel && !stencil)) {
      func.emitError() << "tensorium.loop is scf, affine or parallel for rhs_grid and residual_grid, scf or affine "
                          "for init_grid and spectral_grid, and none otherwise";
      return std::nullopt;
    }
    plan.loop = *style;
  }
  PlanReader reader(func, plan);
  if (!reader.readArguments() || !reader.readBody())
    return std::nullopt;
  if (stencil && (plan.args.size() < 3 || plan.args[0].type != ArgType::Index || plan.args[1].type != ArgType::Index ||
                  plan.args[2].type != ArgType::Index)) {
    func.emitError() << "stencil plans start with the extents nx, ny, nz (index)";
    return std::nullopt;
  }
  if (!stencil && plan.radius != std::array<int, 3>{0, 0, 0}) {
    func.emitError() << "only rhs_grid and residual_grid plans read with stencil shifts";
    return std::nullopt;
  }
  if (grid && plan.result >= 0) {
    func.emitError() << "grid plans store their outputs; only point plans return a value";
    return std::nullopt;
  }
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const KernelArg &a = plan.args[i];
    if (grid && a.type == ArgType::FixedBuffer && (a.read || a.written)) {
      func.emitError() << "grid plans read and write memref<?xf64> buffers, not '" << a.name << "' of fixed size";
      return std::nullopt;
    }
    if (grid && !stencil && a.read && a.written && a.type == ArgType::Buffer) {
      func.emitError() << "'" << a.name << "' is read and written: flat grid plans write other buffers than they read";
      return std::nullopt;
    }
  }
  if (plan.family == KernelFamily::SpectralGrid && (plan.args.empty() || plan.args[0].type != ArgType::Index)) {
    func.emitError() << "spectral_grid plans start with the point count (index)";
    return std::nullopt;
  }
  if (plan.family == KernelFamily::InitGrid &&
      std::none_of(plan.args.begin(), plan.args.end(), [](const KernelArg &a) { return a.type == ArgType::Buffer; })) {
    func.emitError() << "init_grid plans size their loop by a memref<?xf64> argument (a coordinate or an output)";
    return std::nullopt;
  }
  if (plan.family == KernelFamily::ResidualGrid)
    plan.residualKernel = true;
  plan.stencilRadius = *std::max_element(plan.radius.begin(), plan.radius.end());
  planning::setCommonAttributes(plan); // read and written arguments, as the planner lists them
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const KernelArg &a = plan.args[i];
    // A stencil kernel that reads what it writes reads a copy made before the loop (as the
    // planner's kernels do): a point's inputs are loaded output by output, so they would
    // otherwise see values stored earlier at the same or a neighbouring point.
    if (stencil && a.written && a.read && a.type == ArgType::Buffer)
      plan.snapshotArgs.push_back(static_cast<int>(i));
    std::vector<std::string> *names = a.role == ArgRole::Param        ? &plan.paramNames
                                      : a.role == ArgRole::Coordinate ? &plan.coordNames
                                      : a.role == ArgRole::Field      ? &plan.fieldNames
                                      : a.role == ArgRole::Output     ? &plan.outputNames
                                                                      : nullptr;
    if (names)
      names->push_back(a.name);
  }
  return plan;
}

} // namespace tensorium_mlir::codegen
