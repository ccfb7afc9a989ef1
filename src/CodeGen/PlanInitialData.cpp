// Initial-data kernels: the point, scf and affine kernels of initial_data blocks, and the slice
// kernels of a metric4 with its 3+1 split (alpha, beta, gamma, K_ij and the BSSN variables).
#include "Planner.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace tensorium_mlir::codegen::planning {

namespace {

class InitialDataPlanner : public PlannerBase {
public:
  using PlannerBase::PlannerBase;

  // ------------------------------------------------------------ initial data

  void planInit(std::vector<KernelPlan> &out, bool symbolic) {
    for (const InitialDataBlock &block : m_.initialData) {
      if (!symbolic)
        planFieldValues(out, block);
      if (!block.metric4 || !block.hasSplit)
        continue;
      for (const char *q : {"alpha", "gamma", "gammaU"})
        if (std::none_of(block.split.begin(), block.split.end(), [&](const SplitEntry &e) { return e.quantity == q; })) {
          // The init kernels' signature is frozen: (..., alpha, gamma, gammaU).
          d_.error(block.splitRange, std::string("split_3p1 does not map '") + q +
                                         "'; the initial-data kernels write alpha, gamma and gammaU");
          throw CodeGenError{};
        }
      ScalarGraph g;
      Scalarizer s(m_, o_, d_, g, Mode::Point);
      for (const Stmt &t : block.temporaries)
        if (t.kind == StmtKind::Temporary)
          s.defineTemporary(t);
      const Metric4 &metric = *block.metric4;
      unsigned dim = m_.sim.dimension;
      bool enforce = block.enforceSymmetry.present && block.enforceSymmetry.value;
      auto entry = [&](unsigned r, unsigned c) {
        if (enforce && r > c)
          std::swap(r, c);
        Scalarizer::Env env;
        return s.eval(*metric.rows[r][c], env);
      };
      // 3+1 split: gamma_ij = g_ij, beta_i = g_0i, alpha^2 = beta_k beta^k - g_00.
      std::vector<NodeId> gamma(dim * dim), beta(dim);
      for (unsigned i = 0; i < dim; ++i) {
        beta[i] = entry(0, i + 1);
        for (unsigned j = 0; j < dim; ++j)
          gamma[i * dim + j] = entry(i + 1, j + 1);
      }
      std::vector<NodeId> gammaU = Scalarizer::symmetricInverse(g, gamma, dim);
      NodeId betaSq = g.constant(0.0);
      for (unsigned i = 0; i < dim; ++i)
        for (unsigned j = 0; j < dim; ++j)
          betaSq = g.add(betaSq, g.mul(g.mul(gammaU[i * dim + j], beta[i]), beta[j]));
      NodeId alpha = g.unary(NodeOp::Sqrt, g.sub(betaSq, entry(0, 0)));

      std::vector<InitOutput> outputs;
      for (const char *q : {"alpha", "gamma", "gammaU"})
        for (const SplitEntry &e : block.split)
          if (e.quantity == q && e.field)
            outputs.push_back({e.field, e.quantity == "alpha" ? std::vector<NodeId>{alpha}
                                        : e.quantity == "gamma" ? gamma : gammaU});
      // The full slice (beta^i, K_ij, the BSSN variables) comes from symbolic derivatives of
      // the metric4 entries in t and the coordinates: additive kernels of their own.
      std::vector<InitOutput> slice = sliceOutputs(block, g, gamma, gammaU, beta, alpha, dim);
      planInitKernels(out, symbolic, outputs, g, InitSymbols::Split);
      if (!slice.empty() && !symbolic)
        planInitKernels(out, false, slice, g, InitSymbols::Slice);
    }
  }

  struct InitOutput {
    const FieldDecl *field;
    std::vector<NodeId> values;
    std::string buffer; // the written buffer; "" for the field's own
    const std::string &bufferName() const { return buffer.empty() ? field->name : buffer; }
  };

  /// The fields the block assigns (`u = ...`), in the order written: the init_fields kernels.
  void planFieldValues(std::vector<KernelPlan> &out, const InitialDataBlock &block) {
    if (std::none_of(block.temporaries.begin(), block.temporaries.end(),
                     [](const Stmt &st) { return st.kind == StmtKind::FieldValue; }))
      return;
    ScalarGraph g;
    Scalarizer s(m_, o_, d_, g, Mode::Point);
    std::vector<InitOutput> outputs;
    for (const Stmt &st : block.temporaries) {
      if (st.kind == StmtKind::Temporary)
        s.defineTemporary(st);
      else if (st.kind == StmtKind::FieldValue)
        outputs.push_back({st.field, evaluateTarget(s, st, *st.field)});
    }
    planInitKernels(out, false, outputs, g, InitSymbols::Fields);
    // `exact` evolution boundaries follow d/dt of these values (t: the reserved time).
    const bool exactBoundary = std::any_of(m_.blocks.begin(), m_.blocks.end(), [](const ComputeBlock &b) {
      return std::any_of(b.evolutionBoundaries.begin(), b.evolutionBoundaries.end(),
                         [](const EvolutionBoundary &bc) { return bc.kind == EvolutionBoundaryKind::Exact; });
    });
    if (!exactBoundary)
      return;
    std::unordered_map<NodeId, NodeId> memo;
    const int timeParam = m_.timeParam;
    std::vector<InitOutput> rates;
    for (const InitOutput &o : outputs) {
      InitOutput rate{o.field, {}, std::string(abi::kDerivativeOutputPrefix) + o.field->name};
      for (NodeId v : o.values)
        rate.values.push_back(g.differentiate(
            v, [&](const Leaf &l) { return g.constant(l.kind == LeafKind::Param && l.a == timeParam ? 1.0 : 0.0); },
            memo));
      rates.push_back(std::move(rate));
    }
    planInitKernels(out, false, rates, g, InitSymbols::FieldRates);
  }

  /// Every quantity of the split besides alpha, gamma and gammaU, in the order alpha, beta,
  /// gamma, gammaU, Kij, chi, gammatilde, K, Atilde, Gammatilde (empty when the split maps none
  /// of beta, Kij or the BSSN variables). With g_0i = beta_i:
  ///   K_ij = -(d_t gamma_ij - D_i beta_j - D_j beta_i) / (2 alpha),
  ///   chi = det(gamma)^(-1/3), gammatilde_ij = chi gamma_ij, K = gamma^ij K_ij,
  ///   Atilde_ij = chi (K_ij - gamma_ij K / 3), Gammatilde^i = -d_j (gamma^ij / chi).
  std::vector<InitOutput> sliceOutputs(const InitialDataBlock &block, ScalarGraph &g, const std::vector<NodeId> &gamma,
                                       const std::vector<NodeId> &gammaU, const std::vector<NodeId> &betaLow,
                                       NodeId alpha, unsigned dim) {
    auto mapped = [&](const char *q) -> const FieldDecl * {
      for (const SplitEntry &e : block.split)
        if (e.quantity == q && e.field)
          return e.field;
      return nullptr;
    };
    bool any = false;
    for (const char *q : {"beta", "Kij", "chi", "gammatilde", "K", "Atilde", "Gammatilde"})
      any = any || mapped(q);
    if (!any)
      return {};
    const bool bssn = mapped("chi") || mapped("gammatilde") || mapped("K") || mapped("Atilde") || mapped("Gammatilde");
    if (bssn && dim != 3) {
      d_.error(block.splitRange, "the BSSN variables of split_3p1 need a three-dimensional module");
      throw CodeGenError{};
    }
    // d/dt (the reserved coordinate t, a parameter) and d/dx^a of graph nodes.
    std::unordered_map<NodeId, NodeId> memoT;
    std::vector<std::unordered_map<NodeId, NodeId>> memoX(dim);
    const int timeParam = m_.timeParam;
    auto dt = [&](NodeId n) {
      return g.differentiate(
          n, [&](const Leaf &l) { return g.constant(l.kind == LeafKind::Param && l.a == timeParam ? 1.0 : 0.0); }, memoT);
    };
    auto dx = [&](NodeId n, unsigned a) {
      return g.differentiate(
          n, [&](const Leaf &l) { return g.constant(l.kind == LeafKind::Coord && l.a == static_cast<int>(a) ? 1.0 : 0.0); },
          memoX[a]);
    };
    auto at = [&](const std::vector<NodeId> &m, unsigned i, unsigned j) { return m[i * dim + j]; };
    std::vector<NodeId> betaUp(dim, g.constant(0.0));
    for (unsigned i = 0; i < dim; ++i)
      for (unsigned j = 0; j < dim; ++j)
        betaUp[i] = g.add(betaUp[i], g.mul(at(gammaU, i, j), betaLow[j]));
    // Christoffel symbols Gamma^k_ij = gamma^kl (d_i gamma_lj + d_j gamma_il - d_l gamma_ij) / 2.
    std::vector<std::vector<NodeId>> dGamma(dim); // [axis][i * dim + j]
    for (unsigned a = 0; a < dim; ++a)
      for (unsigned c = 0; c < dim * dim; ++c)
        dGamma[a].push_back(dx(gamma[c], a));
    auto christoffel = [&](unsigned k, unsigned i, unsigned j) {
      NodeId sum = g.constant(0.0);
      for (unsigned l = 0; l < dim; ++l) {
        NodeId first = g.sub(g.add(dGamma[i][l * dim + j], dGamma[j][i * dim + l]), dGamma[l][i * dim + j]);
        sum = g.add(sum, g.mul(at(gammaU, k, l), first));
      }
      return g.mul(g.constant(0.5), sum);
    };
    std::vector<NodeId> Kij(dim * dim);
    for (unsigned i = 0; i < dim; ++i)
      for (unsigned j = 0; j < dim; ++j) {
        if (j < i) {
          Kij[i * dim + j] = Kij[j * dim + i];
          continue;
        }
        auto covariantDerivative = [&](unsigned a, unsigned b) { // D_a beta_b
          NodeId v = dx(betaLow[b], a);
          for (unsigned k = 0; k < dim; ++k)
            v = g.sub(v, g.mul(christoffel(k, a, b), betaLow[k]));
          return v;
        };
        NodeId numerator = g.sub(g.sub(dt(gamma[i * dim + j]), covariantDerivative(i, j)), covariantDerivative(j, i));
        Kij[i * dim + j] = g.div(g.neg(numerator), g.mul(g.constant(2.0), alpha));
      }
    std::vector<InitOutput> out;
    auto push = [&](const char *q, std::vector<NodeId> values) {
      if (const FieldDecl *f = mapped(q))
        out.push_back({f, std::move(values)});
    };
    push("alpha", {alpha});
    push("beta", betaUp);
    push("gamma", gamma);
    push("gammaU", gammaU);
    push("Kij", Kij);
    if (bssn) {
      NodeId det = g.sub(g.add(g.mul(at(gamma, 0, 0), g.sub(g.mul(at(gamma, 1, 1), at(gamma, 2, 2)),
                                                              g.mul(at(gamma, 1, 2), at(gamma, 2, 1)))),
                               g.mul(at(gamma, 0, 2), g.sub(g.mul(at(gamma, 1, 0), at(gamma, 2, 1)),
                                                            g.mul(at(gamma, 1, 1), at(gamma, 2, 0))))),
                         g.mul(at(gamma, 0, 1), g.sub(g.mul(at(gamma, 1, 0), at(gamma, 2, 2)),
                                                      g.mul(at(gamma, 1, 2), at(gamma, 2, 0)))));
      NodeId chi = g.pow(det, -1, 3);
      NodeId trace = g.constant(0.0);
      for (unsigned c = 0; c < dim * dim; ++c)
        trace = g.add(trace, g.mul(gammaU[c], Kij[c]));
      std::vector<NodeId> gammatilde(dim * dim), Atilde(dim * dim), Gammatilde(dim, g.constant(0.0));
      for (unsigned c = 0; c < dim * dim; ++c) {
        gammatilde[c] = g.mul(chi, gamma[c]);
        Atilde[c] = g.mul(chi, g.sub(Kij[c], g.div(g.mul(gamma[c], trace), g.constant(3.0))));
      }
      for (unsigned i = 0; i < dim; ++i)
        for (unsigned j = 0; j < dim; ++j)
          Gammatilde[i] = g.sub(Gammatilde[i], dx(g.div(at(gammaU, i, j), chi), j));
      push("chi", {chi});
      push("gammatilde", gammatilde);
      push("K", {trace});
      push("Atilde", Atilde);
      push("Gammatilde", Gammatilde);
    }
    return out;
  }

  /// Which kernels: alpha, gamma, gammaU of a split; the full slice; assigned fields.
  enum class InitSymbols { Split, Slice, Fields, FieldRates };

  /// The point, scf and affine kernels (or the symbolic one) writing `outputs` from the
  /// parameters and coordinates.
  void planInitKernels(std::vector<KernelPlan> &out, bool symbolic, const std::vector<InitOutput> &outputs, ScalarGraph &g,
                       InitSymbols which) {
    const unsigned dim = m_.sim.dimension;
    static constexpr std::string_view symbols[4][3] = {
        {abi::kSymbolInitPoint, abi::kSymbolInitGridScf, abi::kSymbolInitGridAffine},
        {abi::kSymbolInitSlicePoint, abi::kSymbolInitSliceGridScf, abi::kSymbolInitSliceGridAffine},
        {abi::kSymbolInitFieldsPoint, abi::kSymbolInitFieldsGridScf, abi::kSymbolInitFieldsGridAffine},
        {{}, {}, abi::kSymbolInitFieldsRateGridAffine}}; // the rates: the runtime's affine kernel only
  for (int variant = 0; variant < (symbolic ? 1 : 3); ++variant) {
    if (symbols[static_cast<int>(which)][variant].empty())
      continue;
    KernelPlan plan;
    plan.family = variant == 0 ? KernelFamily::InitPoint : KernelFamily::InitGrid;
    plan.symbol = std::string(symbols[static_cast<int>(which)][variant]);
    if (symbolic) {
      plan.family = KernelFamily::Symbolic;
      plan.symbol = std::string(abi::kSymbolInit);
    }
    plan.kind = kindOf(plan.symbol);
    plan.loop = variant == 0 ? LoopStyle::None : variant == 1 ? LoopStyle::Scf : LoopStyle::Affine;
    std::map<int, int> paramArg;
    addParamArgs(plan, paramArg);
    std::vector<int> coordArg;
    for (unsigned a = 0; a < dim; ++a) {
      coordArg.push_back(static_cast<int>(plan.args.size()));
      plan.args.push_back({m_.sim.coordinateNames[a], variant == 0 ? ArgType::F64 : ArgType::Buffer,
                           ArgRole::Coordinate, 0, 1, true, false});
      plan.coordNames.push_back(m_.sim.coordinateNames[a]);
    }
    std::vector<int> outArg;
    for (const InitOutput &o : outputs) {
      outArg.push_back(static_cast<int>(plan.args.size()));
      unsigned comps = o.field->componentCount;
      plan.args.push_back({o.bufferName(), variant == 0 ? ArgType::FixedBuffer : ArgType::Buffer,
                           ArgRole::Output, variant == 0 ? static_cast<int64_t>(comps) : 0, comps,
                           false, true});
      plan.fieldNames.push_back(o.bufferName());
      plan.outputNames.push_back(o.bufferName());
    }
    std::unordered_map<NodeId, NodeId> memo;
    auto mapLeaf = [&](const Leaf &l, ScalarGraph &t) -> NodeId {
      Leaf out;
      out.kind = LeafKind::Arg;
      out.a = l.kind == LeafKind::Param ? paramArg.at(l.a) : coordArg.at(static_cast<size_t>(l.a));
      return t.leaf(out);
    };
    for (size_t k = 0; k < outputs.size(); ++k)
      for (size_t c = 0; c < outputs[k].values.size(); ++c)
        plan.stores.push_back({outArg[k], static_cast<int>(c),
                               g.rebuild(outputs[k].values[c], plan.graph, mapLeaf, memo)});
    setCommonAttributes(plan);
    out.push_back(std::move(plan));
  }
  }
};

} // namespace

void planInitialData(const Module &m, const CodeGenOptions &o, DiagnosticEngine &d, std::vector<KernelPlan> &out,
                     bool symbolic) {
  InitialDataPlanner(m, o, d).planInit(out, symbolic);
}

} // namespace tensorium_mlir::codegen::planning
