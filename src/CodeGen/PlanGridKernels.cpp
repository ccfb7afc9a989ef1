// Grid kernels of evolution (rhs) and constraint (residual) blocks with finite-difference
// stencils, and their symbolic source functions.
#include "Planner.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace tensorium_mlir::codegen::planning {

namespace {

class GridPlanner : public PlannerBase {
public:
  using PlannerBase::PlannerBase;

  void planGrid(std::vector<KernelPlan> &out, ComputeKind kind) {
    const bool rhs = kind == ComputeKind::Evolution;
    ScalarGraph g;
    std::vector<Target> targets = scalarizeTargets(g, kind, Mode::FiniteDifference);
    if (targets.empty())
      return;

    std::vector<NodeId> roots = allValues(targets);
    LeafUse use = collectLeaves(g, roots, m_.sim.order);
    int radius = std::max({use.radius[0], use.radius[1], use.radius[2]});
    SourceRange origin;
    for (const ComputeBlock &block : m_.blocks)
      if (block.kind == kind && !origin.begin.isValid())
        origin = block.nameRange;
    if (radius > abi::kMaxStencilRadius) {
      // Name every statement whose own stencil is too wide (the same planning serves every emit path).
      for (const Target &t : targets) {
        LeafUse own = collectLeaves(g, t.values, m_.sim.order);
        const int r = std::max({own.radius[0], own.radius[1], own.radius[2]});
        if (r > abi::kMaxStencilRadius)
          d_.error(t.range, "the finite-difference stencil of this statement reaches " + std::to_string(r) +
                                " points from the centre at order " + std::to_string(m_.sim.order) +
                                "; grid kernels support at most " + std::to_string(abi::kMaxStencilRadius) +
                                " (lower the order or nest fewer derivatives)");
      }
      return;
    }

    const std::string_view *symbols;
    static const std::string_view rhsSymbols[3] = {abi::kSymbolRhsGridScf, abi::kSymbolRhsGridAffine,
                                                   abi::kSymbolRhsGridParallel};
    static const std::string_view resSymbols[3] = {abi::kSymbolResidualGridScf, abi::kSymbolResidualGridAffine,
                                                   abi::kSymbolResidualGridParallel};
    symbols = rhs ? rhsSymbols : resSymbols;
    for (int variant = 0; variant < 3; ++variant) {
      KernelPlan plan;
      plan.family = rhs ? KernelFamily::RhsGrid : KernelFamily::ResidualGrid;
      plan.symbol = std::string(symbols[variant]);
      plan.kind = kindOf(plan.symbol);
      plan.loop = variant == 0 ? LoopStyle::Scf : variant == 1 ? LoopStyle::Affine : LoopStyle::Parallel;
      plan.residualKernel = !rhs;
      for (const char *n : {"nx", "ny", "nz"})
        plan.args.push_back({n, ArgType::Index, ArgRole::Extent, 0, 1, true, false});
      for (const char *n : {"dx", "dy", "dz"})
        plan.args.push_back({n, ArgType::F64, ArgRole::Spacing, 0, 1, true, false});
      std::map<int, int> paramArg;
      addParamArgs(plan, paramArg);
      std::map<int, int> coordArg;
      for (int c : use.coords) {
        coordArg[c] = static_cast<int>(plan.args.size());
        plan.args.push_back({m_.sim.coordinateNames[static_cast<size_t>(c)], ArgType::Buffer,
                             ArgRole::Coordinate, 0, 1, true, false});
        plan.coordNames.push_back(m_.sim.coordinateNames[static_cast<size_t>(c)]);
      }
      std::map<std::string, int> bufferArg;
      std::map<int, int> fieldArg;
      for (int fi : use.fields) {
        const FieldDecl &f = *m_.fields[static_cast<size_t>(fi)];
        fieldArg[fi] = static_cast<int>(plan.args.size());
        bufferArg[f.name] = fieldArg[fi];
        plan.args.push_back({f.name, ArgType::Buffer, ArgRole::Field, 0, f.componentCount, true, false});
        plan.fieldNames.push_back(f.name);
      }
      std::vector<int> targetArg;
      for (const Target &t : targets) {
        auto it = bufferArg.find(t.bufferName);
        if (it != bufferArg.end()) {
          // The output is also read: same buffer, read with a stencil, so snapshot it.
          KernelArg &a = plan.args[static_cast<size_t>(it->second)];
          a.written = true;
          a.role = ArgRole::Output;
          plan.snapshotArgs.push_back(it->second);
          targetArg.push_back(it->second);
        } else {
          int idx = static_cast<int>(plan.args.size());
          bufferArg[t.bufferName] = idx;
          plan.args.push_back({t.bufferName, ArgType::Buffer, ArgRole::Output, 0,
                               t.field->componentCount, false, true});
          plan.fieldNames.push_back(t.bufferName);
          targetArg.push_back(idx);
        }
        plan.outputNames.push_back(t.bufferName);
      }
      std::unordered_map<NodeId, NodeId> memo;
      auto mapLeaf = [&](const Leaf &l, ScalarGraph &tg) -> NodeId {
        Leaf outLeaf;
        outLeaf.kind = LeafKind::Arg;
        outLeaf.offset = l.offset;
        switch (l.kind) {
        case LeafKind::Param: outLeaf.a = paramArg.at(l.a); outLeaf.offset = {0, 0, 0}; break;
        case LeafKind::Spacing: outLeaf.a = 3 + l.a; outLeaf.offset = {0, 0, 0}; break;
        case LeafKind::Coord: outLeaf.a = coordArg.at(l.a); break;
        case LeafKind::Field:
          if (l.deriv != std::array<int8_t, 3>{0, 0, 0}) {
            const NodeId value = expandDerivativeLeaf(tg, fieldArg.at(l.a), l, m_.sim.order);
            recordZFactoring(plan.zFactored, tg, fieldArg.at(l.a), l, m_.sim.order, value);
            return value;
          }
          outLeaf.a = fieldArg.at(l.a);
          outLeaf.b = l.b;
          break;
        default: break;
        }
        return tg.leaf(outLeaf);
      };
      for (size_t k = 0; k < targets.size(); ++k)
        for (size_t c = 0; c < targets[k].values.size(); ++c)
          plan.stores.push_back({targetArg[k], static_cast<int>(c),
                                 g.rebuild(targets[k].values[c], plan.graph, mapLeaf, memo)});
      for (unsigned a = 0; a < m_.sim.dimension && a < 3; ++a)
        plan.radius[a] = radius;
      plan.stencilRadius = radius;
      plan.origin = origin;
      setCommonAttributes(plan);
      out.push_back(std::move(plan));
    }
  }

  // ------------------------------------------------------------ symbolic source functions

  void planSymbolic(std::vector<KernelPlan> &out, ComputeKind kind) {
    const bool rhs = kind == ComputeKind::Evolution;
    ScalarGraph g;
    std::vector<Target> targets = scalarizeTargets(g, kind, Mode::Symbolic);
    if (targets.empty())
      return;
    std::vector<NodeId> roots = allValues(targets);

    KernelPlan plan;
    plan.family = KernelFamily::Symbolic;
    plan.symbol = std::string(rhs ? abi::kSymbolRhs : abi::kSymbolEntry);
    plan.kind = kindOf(plan.symbol);
    std::map<int, int> paramArg;
    addParamArgs(plan, paramArg);
    std::map<int, int> coordArg;
    std::map<std::tuple<int, int, int, int, int>, int> fieldArg;
    std::vector<std::tuple<int, int, int, int, int>> fieldLeaves;
    for (NodeId id : g.topologicalOrder(roots)) {
      const Node &n = g.node(id);
      if (n.op != NodeOp::Leaf)
        continue;
      if (n.leaf.kind == LeafKind::Coord)
        coordArg[n.leaf.a] = -1;
      if (n.leaf.kind == LeafKind::Field)
        fieldLeaves.push_back({n.leaf.a, n.leaf.b, n.leaf.offset[0], n.leaf.offset[1], n.leaf.offset[2]});
    }
    for (auto &[axis, arg] : coordArg) {
      arg = static_cast<int>(plan.args.size());
      plan.args.push_back({m_.sim.coordinateNames[static_cast<size_t>(axis)], ArgType::F64, ArgRole::Coordinate, 0, 1, true, false});
      plan.coordNames.push_back(m_.sim.coordinateNames[static_cast<size_t>(axis)]);
    }
    std::sort(fieldLeaves.begin(), fieldLeaves.end());
    std::set<int> fieldsSeen;
    for (const auto &key : fieldLeaves) {
      auto [fi, comp, ox, oy, oz] = key;
      const FieldDecl &f = *m_.fields[static_cast<size_t>(fi)];
      // Inputs are named <field>[_c<component>][_d<axes>], e.g. gamma_c4_dxx.
      std::string name = f.name;
      if (tensorTypeRank(f.type) > 0)
        name += "_c" + std::to_string(comp);
      if (ox || oy || oz) {
        name += "_d";
        const int counts[3] = {ox, oy, oz};
        for (int a = 0; a < 3; ++a)
          name += std::string(static_cast<size_t>(counts[a]), "xyz"[a]);
      }
      fieldArg[key] = static_cast<int>(plan.args.size());
      plan.args.push_back({name, ArgType::F64, ArgRole::Field, 0, 1, true, false});
      if (fieldsSeen.insert(fi).second)
        plan.fieldNames.push_back(f.name);
    }
    std::vector<int> targetArg;
    for (const Target &t : targets) {
      targetArg.push_back(static_cast<int>(plan.args.size()));
      plan.args.push_back({t.bufferName, ArgType::FixedBuffer, ArgRole::Output, static_cast<int64_t>(t.values.size()),
                           static_cast<unsigned>(t.values.size()), false, true});
      plan.outputNames.push_back(t.bufferName);
    }
    std::unordered_map<NodeId, NodeId> memo;
    auto mapLeaf = [&](const Leaf &l, ScalarGraph &tg) -> NodeId {
      Leaf o;
      o.kind = LeafKind::Arg;
      switch (l.kind) {
      case LeafKind::Param: o.a = paramArg.at(l.a); break;
      case LeafKind::Coord: o.a = coordArg.at(l.a); break;
      case LeafKind::Field: o.a = fieldArg.at({l.a, l.b, l.offset[0], l.offset[1], l.offset[2]}); break;
      default: break;
      }
      return tg.leaf(o);
    };
    for (size_t k = 0; k < targets.size(); ++k)
      for (size_t c = 0; c < targets[k].values.size(); ++c)
        plan.stores.push_back({targetArg[k], static_cast<int>(c), g.rebuild(targets[k].values[c], plan.graph, mapLeaf, memo)});
    setCommonAttributes(plan);
    out.push_back(std::move(plan));
  }
};

} // namespace

void planGridKernels(const Module &m, const CodeGenOptions &o, DiagnosticEngine &d, std::vector<KernelPlan> &out,
                     ComputeKind kind) {
  GridPlanner(m, o, d).planGrid(out, kind);
}

void planSymbolicKernels(const Module &m, const CodeGenOptions &o, DiagnosticEngine &d, std::vector<KernelPlan> &out,
                         ComputeKind kind) {
  GridPlanner(m, o, d).planSymbolic(out, kind);
}

} // namespace tensorium_mlir::codegen::planning
