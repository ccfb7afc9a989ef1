// Spectral kernels of declared elliptic problems: residual, JVP and grid residual kernels, and
// the flat point kernels of their exact solutions and boundary conditions.
#include "Planner.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace tensorium_mlir::codegen::planning {

namespace {

class SpectralPlanner : public PlannerBase {
public:
  using PlannerBase::PlannerBase;

  // ------------------------------------------------------------ spectral residuals

  /// Fields in the order the residual meets them, temporaries expanded; the first one
  /// that is differentiated comes first.
  void fieldOrder(const Expr &e, bool underDerivative, const std::map<const TemporaryInfo *, const Expr *> &tempDefs,
                  std::vector<const FieldDecl *> &seen, const FieldDecl *&primary,
                  std::set<const TemporaryInfo *> &visiting) const {
    if (e.kind == ExprKind::Ref) {
      if (e.field) {
        if (std::find(seen.begin(), seen.end(), e.field) == seen.end())
          seen.push_back(e.field);
        if (underDerivative && !primary)
          primary = e.field;
      } else if (e.temporary) {
        auto it = tempDefs.find(e.temporary);
        if (it != tempDefs.end() && visiting.insert(e.temporary).second) {
          fieldOrder(*it->second, underDerivative, tempDefs, seen, primary, visiting);
          visiting.erase(e.temporary);
        }
      }
      return;
    }
    bool deriv = underDerivative || e.kind == ExprKind::Derivative || e.kind == ExprKind::Laplacian ||
                 e.kind == ExprKind::Advect;
    for (const ExprPtr &op : e.operands)
      fieldOrder(*op, deriv, tempDefs, seen, primary, visiting);
  }

  static std::vector<SpectralBundle> bundlesOf(const FieldDecl *f) {
    std::vector<SpectralBundle> out;
    int c = 0;
    for (std::string &name : spectralComponentNames(*f))
      out.push_back({f, c++, std::move(name)});
    return out;
  }

  void planSpectral(std::vector<KernelPlan> &out) {
    for (const ComputeBlock &block : m_.blocks) {
      if (block.kind != ComputeKind::Constraints)
        continue;
      ScalarGraph g;
      Scalarizer s(m_, o_, d_, g, Mode::Spectral);
      std::map<const TemporaryInfo *, const Expr *> tempDefs;
      std::vector<const Stmt *> residuals;
      for (const Stmt &st : block.statements) {
        if (st.kind == StmtKind::Temporary) {
          s.defineTemporary(st);
          tempDefs[st.temporary.get()] = st.value.get();
          continue;
        }
        residuals.push_back(&st);
      }
      // A declared problem lists its equations in the order of its unknowns.
      auto unknownRank = [&](const Stmt *st) {
        for (size_t u = 0; u < block.unknowns.size(); ++u)
          if (block.unknowns[u].name == st->forUnknown)
            return u;
        return block.unknowns.size();
      };
      std::stable_sort(residuals.begin(), residuals.end(),
                       [&](const Stmt *a, const Stmt *b) { return unknownRank(a) < unknownRank(b); });
      for (const Stmt *stp : residuals) {
        const Stmt &st = *stp;
        std::vector<const FieldDecl *> order;
        const FieldDecl *primary = nullptr;
        std::set<const TemporaryInfo *> visiting;
        fieldOrder(*st.value, false, tempDefs, order, primary, visiting);
        if (order.empty()) {
          d_.error(st.targetRange, "spectral residual '" + st.target + "' references no field, so "
                                   "it has no unknown");
          throw CodeGenError{};
        }
        const FieldDecl *declared = nullptr;
        if (!st.forUnknown.empty()) {
          for (const UnknownDecl &u : block.unknowns)
            if (u.name == st.forUnknown)
              declared = u.field;
          if (!declared || std::find(order.begin(), order.end(), declared) == order.end()) {
            d_.error(st.forRange, "residual '" + st.target + "' does not depend on its unknown '" + st.forUnknown + "'");
            throw CodeGenError{};
          }
          primary = declared;
        }
        if (primary) {
          order.erase(std::find(order.begin(), order.end(), primary));
          order.insert(order.begin(), primary);
        }
        const bool vectorResidual = st.field && tensorTypeRank(st.field->type) == 1;
        const unsigned components = vectorResidual ? st.field->componentCount : 1;
        for (unsigned c = 0; c < components; ++c) {
          NodeId residual = vectorResidual ? s.evalAssignment(st, {static_cast<int>(c)}) : s.evalAssignment(st, {});
          // Bundles: the unknown (component c of a vector unknown) first, then every other
          // component of every referenced field in order of appearance.
          std::vector<SpectralBundle> bundles;
          for (const FieldDecl *f : order)
            for (SpectralBundle &b : bundlesOf(f))
              bundles.push_back(std::move(b));
          if (vectorResidual && primary) {
            auto it = std::find_if(bundles.begin(), bundles.end(), [&](const SpectralBundle &b) {
              return b.field == primary && b.component == static_cast<int>(c);
            });
            std::rotate(bundles.begin(), it, it + 1);
          }
          planSpectralResidual(out, g, residual, vectorResidual ? st.target + "_" + std::to_string(c) : st.target,
                               bundles, block.name);
        }
      }
      planBoundaryKernels(out, block, g, s);
      planExactKernels(out, block, g, s);
    }
  }

  /// One flat grid kernel per unknown component with an exact solution: its value and, when
  /// declared, its tolerance at each given point.
  void planExactKernels(std::vector<KernelPlan> &out, const ComputeBlock &block, ScalarGraph &g, Scalarizer &s) {
    for (const ExactSolution &ex : block.exacts) {
      if (!ex.target || !ex.target->field)
        continue;
      const std::vector<std::string> unknowns = spectralComponentNames(*ex.target->field);
      for (size_t c = 0; c < unknowns.size(); ++c) {
        Scalarizer::Env env;
        if (ex.unknownHasIndexList && !ex.unknownIndices.empty())
          env[ex.unknownIndices[0].name] = static_cast<int>(c);
        std::vector<std::pair<const char *, NodeId>> outputs{{"value", s.eval(*ex.value, env)}};
        if (ex.tolerance)
          outputs.push_back({"tolerance", s.eval(*ex.tolerance, env)});
        out.push_back(flatPointKernel(abi::spectralExactSymbol(unknowns[c]), abi::kKindSpectralExactGrid, block, ex.range,
                                      g, outputs));
      }
    }
  }

  /// A flat grid kernel over the points whose Cartesian coordinates x, y, z it is given, writing
  /// one buffer per output.
  KernelPlan flatPointKernel(const std::string &symbol, std::string_view kind, const ComputeBlock &block,
                             const SourceRange &origin, ScalarGraph &g,
                             const std::vector<std::pair<const char *, NodeId>> &outputs) {
    KernelPlan plan;
    plan.family = KernelFamily::InitGrid;
    plan.symbol = symbol;
    plan.kind = std::string(kind);
    plan.loop = LoopStyle::Scf;
    plan.constraintBlock = block.name;
    plan.origin = origin;
    std::map<int, int> paramArg;
    addParamArgs(plan, paramArg);
    std::vector<int> coordArg;
    static const char *cartesian[3] = {"x", "y", "z"};
    for (int axis = 0; axis < 3; ++axis) {
      coordArg.push_back(static_cast<int>(plan.args.size()));
      plan.args.push_back({cartesian[axis], ArgType::Buffer, ArgRole::Coordinate, 0, 1, true, false});
      plan.coordNames.push_back(cartesian[axis]);
    }
    std::unordered_map<NodeId, NodeId> memo;
    auto mapLeaf = [&](const Leaf &l, ScalarGraph &t) -> NodeId {
      Leaf o;
      o.kind = LeafKind::Arg;
      o.a = l.kind == LeafKind::Param ? paramArg.at(l.a) : coordArg.at(static_cast<size_t>(l.a));
      return t.leaf(o);
    };
    for (const auto &[name, node] : outputs) {
      const int arg = static_cast<int>(plan.args.size());
      plan.args.push_back({name, ArgType::Buffer, ArgRole::Output, 0, 1, false, true});
      plan.fieldNames.push_back(name);
      plan.outputNames.push_back(name);
      plan.stores.push_back({arg, 0, g.rebuild(node, plan.graph, mapLeaf, memo)});
    }
    setCommonAttributes(plan);
    return plan;
  }

  /// One flat grid kernel per (unknown component, face): the Robin coefficients a, b, value at
  /// each given point (Dirichlet rows: a = 1, b = 0).
  void planBoundaryKernels(std::vector<KernelPlan> &out, const ComputeBlock &block, ScalarGraph &g, Scalarizer &s) {
    for (const BoundaryCondition &bc : block.boundaries) {
      if (!bc.target || !bc.target->field)
        continue;
      const std::vector<std::string> unknowns = spectralComponentNames(*bc.target->field);
      for (size_t c = 0; c < unknowns.size(); ++c) {
        Scalarizer::Env env;
        if (bc.unknownHasIndexList && !bc.unknownIndices.empty())
          env[bc.unknownIndices[0].name] = static_cast<int>(c);
        const NodeId a = bc.kind == BoundaryKind::Robin ? s.eval(*bc.a, env) : g.constant(1.0);
        const NodeId b = bc.kind == BoundaryKind::Robin ? s.eval(*bc.b, env) : g.constant(0.0);
        const NodeId value = s.eval(*bc.value, env);
        out.push_back(flatPointKernel(abi::spectralBoundarySymbol(unknowns[c], bc.face), abi::kKindSpectralBoundaryGrid,
                                      block, bc.range, g, {{"a", a}, {"b", b}, {"value", value}}));
      }
    }
  }

  void planSpectralResidual(std::vector<KernelPlan> &out, ScalarGraph &g, NodeId residual,
                            const std::string &target, const std::vector<SpectralBundle> &fields,
                            const std::string &blockName) {
    std::map<const FieldDecl *, int> fieldIndex;
    for (size_t i = 0; i < m_.fields.size(); ++i)
      fieldIndex[m_.fields[i].get()] = static_cast<int>(i);
    auto bundleId = [&](const SpectralBundle &b) { return spectralBundleId(fieldIndex.at(b.field), b.component); };
    // Forward-mode tangent: every bundle slot's tangent is the direction's slot.
    std::unordered_map<NodeId, NodeId> dmemo;
    NodeId tangent = g.differentiate(
        residual,
        [&](const Leaf &l) -> NodeId {
          if (l.kind != LeafKind::Bundle)
            return g.constant(0.0);
          Leaf d = l;
          d.kind = LeafKind::Direction;
          return g.leaf(d);
        },
        dmemo);

    // Point kernels always take three coordinates; beyond the module's dimension they are the
    // remaining names of its coordinate system.
    auto coordName = [&](int a) {
      static const char *cartesian[3] = {"x", "y", "z"}, *spherical[3] = {"r", "theta", "phi"};
      return std::string(m_.sim.coordinates == CoordinateSystem::Cartesian ? cartesian[a] : spherical[a]);
    };
    for (int variant = 0; variant < 3; ++variant) {
      KernelPlan plan;
      plan.family = variant == 0 ? KernelFamily::SpectralPoint
                    : variant == 1 ? KernelFamily::SpectralJvp : KernelFamily::SpectralGrid;
      plan.symbol = std::string(variant == 0   ? abi::kSymbolSpectralResidualPrefix
                                : variant == 1 ? abi::kSymbolSpectralResidualJvpPrefix
                                               : abi::kSymbolSpectralResidualGridPrefix) + target;
      plan.kind = std::string(variant == 0   ? abi::kKindSpectralResidual
                              : variant == 1 ? abi::kKindSpectralResidualJvp : abi::kKindSpectralResidualGrid);
      plan.loop = variant == 2 ? LoopStyle::Scf : LoopStyle::None;
      plan.constraintBlock = blockName;
      const ArgType valueType = variant == 2 ? ArgType::Buffer : ArgType::F64;
      std::map<int, int> paramArg;
      std::map<std::pair<int, int>, int> bundleArg, directionArg;
      std::map<int, int> coordArg;
      auto addBundles = [&](std::map<std::pair<int, int>, int> &table, ArgRole role, const char *suffix) {
        for (const SpectralBundle &f : fields)
          for (int slot = 0; slot < abi::kSpectralBundleSize; ++slot) {
            table[{bundleId(f), slot}] = static_cast<int>(plan.args.size());
            plan.args.push_back({f.name + suffix + "_" + std::string(abi::kSpectralBundleSlotNames[slot]),
                                 valueType, role, 0, 1, true, false});
          }
      };
      auto addCoords = [&]() {
        for (int a = 0; a < 3; ++a) {
          coordArg[a] = static_cast<int>(plan.args.size());
          plan.args.push_back({coordName(a), valueType, ArgRole::Coordinate, 0, 1, true, false});
          plan.coordNames.push_back(coordName(a));
        }
      };
      if (variant == 2) {
        plan.args.push_back({"n_points", ArgType::Index, ArgRole::Extent, 0, 1, true, false});
        addParamArgs(plan, paramArg);
        addBundles(bundleArg, ArgRole::Field, "");
        addCoords();
        plan.args.push_back({target, ArgType::Buffer, ArgRole::Output, 0, 1, false, true});
        plan.outputNames.push_back(target);
      } else {
        addBundles(bundleArg, ArgRole::Field, "");
        if (variant == 1)
          addBundles(directionArg, ArgRole::Direction, "_dir");
        addCoords();
        addParamArgs(plan, paramArg);
        plan.outputNames.push_back(target);
      }
      for (const SpectralBundle &f : fields)
        plan.fieldNames.push_back(f.name);
      std::unordered_map<NodeId, NodeId> memo;
      auto mapLeaf = [&](const Leaf &l, ScalarGraph &tg) -> NodeId {
        Leaf o;
        o.kind = LeafKind::Arg;
        switch (l.kind) {
        case LeafKind::Param: o.a = paramArg.at(l.a); break;
        case LeafKind::Coord: o.a = coordArg.at(l.a); break;
        case LeafKind::Bundle: o.a = bundleArg.at({l.a, l.b}); break;
        case LeafKind::Direction: o.a = directionArg.at({l.a, l.b}); break;
        default: break;
        }
        return tg.leaf(o);
      };
      NodeId value = g.rebuild(variant == 1 ? tangent : residual, plan.graph, mapLeaf, memo);
      if (variant == 2)
        plan.stores.push_back({static_cast<int>(plan.args.size()) - 1, 0, value});
      else
        plan.result = value;
      setCommonAttributes(plan);
      out.push_back(std::move(plan));
    }
  }
};

} // namespace

void planSpectralKernels(const Module &m, const CodeGenOptions &o, DiagnosticEngine &d, std::vector<KernelPlan> &out) {
  SpectralPlanner(m, o, d).planSpectral(out);
}

} // namespace tensorium_mlir::codegen::planning
