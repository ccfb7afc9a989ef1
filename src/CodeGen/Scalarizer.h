#pragma once
// The Scalarizer: analysed tensor expressions turned into scalar graph nodes whose leaves are
// abstract (parameters, coordinates, field components, spectral bundle slots, grid spacings);
// derivatives become stencils, chain rules or symbolic leaves by evaluation mode. Private to
// src/CodeGen.
#include "PlanningSupport.h"

#include "tensorium_mlir/Frontend/EllipticProblem.h"
#include "tensorium_mlir/Frontend/Sema.h"
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace tensorium_mlir::codegen::planning {

/// Turns analysed tensor expressions into scalar graph nodes (abstract leaves: parameters,
/// coordinates, field components, spectral bundle slots, grid spacings).
class Scalarizer {
public:
  Scalarizer(const Module &m, const CodeGenOptions &opts, DiagnosticEngine &d, ScalarGraph &g, Mode mode)
      : m_(m), opts_(opts), d_(d), g_(g), mode_(mode), dim_(m.sim.dimension), order_(m.sim.order) {
    for (size_t i = 0; i < m.fields.size(); ++i)
      fieldIndex_[m.fields[i].get()] = static_cast<int>(i);
    for (size_t i = 0; i < m.params.size(); ++i)
      paramIndex_[m.params[i].name] = static_cast<int>(i);
    for (const auto &f : m.fields) {
      if (f->type == TensorType::Metric && f->space == IndexSpace::Spatial && !metric_)
        metric_ = f.get();
      if (f->type == TensorType::InverseMetric && f->space == IndexSpace::Spatial && !inverseMetric_)
        inverseMetric_ = f.get();
    }
  }

  using Env = std::map<std::string, int>;

  [[noreturn]] void fail(SourceRange r, const std::string &msg) {
    d_.error(r, msg);
    throw CodeGenError{};
  }

  /// Evaluates a statement's temporaries table entry for all components.
  void defineTemporary(const Stmt &s) {
    const TemporaryInfo &t = *s.temporary;
    std::map<std::vector<int>, NodeId> values;
    if (t.indices.empty()) {
      Env env;
      values[{}] = eval(*s.value, env);
    } else {
      std::vector<unsigned> ranges;
      for (const TypedIndex &ti : t.indices)
        ranges.push_back(rangeOf(ti.space, dim_));
      // Indices of one temporary share a space in practice; use the first one's range.
      for (const auto &tuple : allTuples(static_cast<unsigned>(t.indices.size()), ranges[0])) {
        Env env;
        for (size_t slot = 0; slot < tuple.size(); ++slot)
          env[t.indices[slot].name] = tuple[slot];
        values[tuple] = eval(*s.value, env);
      }
    }
    temps_[&t] = std::move(values);
  }

  /// Value of the statement's right-hand side for the target component tuple (in slot order).
  NodeId evalAssignment(const Stmt &s, const std::vector<int> &tuple) {
    Env env;
    for (size_t slot = 0; slot < tuple.size(); ++slot)
      env[s.targetIndices[slot].name] = tuple[slot];
    return eval(*s.value, env);
  }

  NodeId eval(const Expr &e, Env &env) {
    switch (e.kind) {
    case ExprKind::Number:
      return g_.constant(e.number);
    case ExprKind::Ref:
      return evalRef(e, env);
    case ExprKind::Negate:
      return g_.neg(eval(*e.operands[0], env));
    case ExprKind::Binary: {
      NodeId a = eval(*e.operands[0], env);
      NodeId b = eval(*e.operands[1], env);
      switch (e.op) {
      case '+': return g_.add(a, b);
      case '-': return g_.sub(a, b);
      case '*': return g_.mul(a, b);
      default: return g_.div(a, b);
      }
    }
    case ExprKind::Power:
      return g_.pow(eval(*e.operands[0], env), e.exponent.num, e.exponent.den);
    case ExprKind::Call:
      return evalCall(e, env);
    case ExprKind::Contract: {
      std::vector<unsigned> ranges;
      for (const std::string &name : e.summedIndices)
        ranges.push_back(rangeOf(isSpatialIndexName(name) ? IndexSpace::Spatial : IndexSpace::Spacetime, dim_));
      NodeId sum = g_.constant(0.0);
      std::function<void(size_t)> loop = [&](size_t k) {
        if (k == e.summedIndices.size()) {
          sum = g_.add(sum, eval(*e.operands[0], env));
          return;
        }
        for (unsigned v = 0; v < ranges[k]; ++v) {
          env[e.summedIndices[k]] = static_cast<int>(v);
          loop(k + 1);
        }
        env.erase(e.summedIndices[k]);
      };
      loop(0);
      return sum;
    }
    case ExprKind::Derivative: {
      int axis = env.at(e.indices.front().name);
      const Expr &inner = *e.operands[0];
      if (mode_ == Mode::FiniteDifference && inner.kind == ExprKind::Derivative &&
          env.at(inner.indices.front().name) == axis)
        return secondDerivativeFd(eval(*inner.operands[0], env), axis);
      return derivative(eval(inner, env), axis, e.range);
    }
    case ExprKind::Laplacian: {
      NodeId u = eval(*e.operands[0], env);
      NodeId sum = g_.constant(0.0);
      for (unsigned a = 0; a < dim_; ++a) {
        NodeId second = mode_ == Mode::FiniteDifference
                            ? secondDerivativeFd(u, static_cast<int>(a))
                            : derivative(derivative(u, static_cast<int>(a), e.range), static_cast<int>(a), e.range);
        sum = g_.add(sum, second);
      }
      return sum;
    }
    case ExprKind::Covariant:
      return evalCovariant(e, env);
    case ExprKind::Dissipation: {
      if (mode_ != Mode::FiniteDifference)
        fail(e.range, "dissipation() needs a finite-difference scheme (spatial { scheme = fd })");
      NodeId u = eval(*e.operands[0], env);
      NodeId sigma = eval(*e.operands[1], env);
      NodeId sum = g_.constant(0.0);
      for (unsigned a = 0; a < dim_; ++a)
        sum = g_.add(sum, stencil(u, static_cast<int>(a), dissipationWeights(order_), spacing(static_cast<int>(a))));
      return g_.mul(sigma, sum);
    }
    case ExprKind::Advect: {
      // sum_k beta^k d_k u, accumulated as contract(beta[k] * d_k(u)) accumulates it, so that
      // `advection = centered` gives that very kernel.
      const std::string k = e.operands[0]->freeIndices.front().name;
      // The summed index may also name a free index outside advect(): keep that binding.
      const auto outer = env.find(k);
      const std::optional<int> outerValue = outer == env.end() ? std::nullopt : std::optional<int>(outer->second);
      NodeId sum = g_.constant(0.0);
      for (unsigned a = 0; a < dim_; ++a) {
        env[k] = static_cast<int>(a);
        NodeId beta = eval(*e.operands[0], env);
        if (outerValue)
          env[k] = *outerValue;
        else
          env.erase(k);
        NodeId u = eval(*e.operands[1], env);
        const int axis = static_cast<int>(a);
        sum = g_.add(sum, mode_ == Mode::FiniteDifference && m_.sim.lopsidedAdvection
                              ? lopsided(beta, u, axis)
                              : g_.mul(beta, derivative(u, axis, e.range)));
      }
      return sum;
    }
    }
    fail(e.range, "internal: unhandled expression");
  }

  // ---------------------------------------------------------------- leaves

  NodeId paramNode(const std::string &name) {
    auto folded = opts_.foldedParams.find(name);
    if (folded != opts_.foldedParams.end())
      return g_.constant(folded->second);
    Leaf l;
    l.kind = LeafKind::Param;
    l.a = paramIndex_.at(name);
    return g_.leaf(l);
  }

  int coordinateAxis(const std::string &name) const {
    for (size_t i = 0; i < m_.sim.coordinateNames.size(); ++i)
      if (m_.sim.coordinateNames[i] == name)
        return static_cast<int>(i);
    return 0;
  }

  NodeId fieldNode(const FieldDecl &f, int component, SourceRange where) {
    Leaf l;
    if (mode_ == Mode::Spectral) {
      // Every component of a scalar or spatial vector field is its own bundle.
      if (tensorTypeRank(f.type) > 1 || (tensorTypeRank(f.type) == 1 && f.space != IndexSpace::Spatial))
        fail(where, "spectral residuals take scalar and spatial vector fields only; '" + f.name + "' has rank " +
                        std::to_string(tensorTypeRank(f.type)));
      l.kind = LeafKind::Bundle;
      l.a = spectralBundleId(fieldIndex_.at(&f), component);
      l.b = 0;
      return g_.leaf(l);
    }
    if (mode_ == Mode::Point)
      fail(where, "initial data cannot read field '" + f.name + "'");
    if (fieldIsSymmetric(f)) {
      // Declared symmetric: read the upper triangle only, so g[j,i] and g[i,j] share one load.
      int n = static_cast<int>(rangeOf(f.space, dim_));
      int i = component / n, j = component % n;
      if (i > j)
        component = j * n + i;
    }
    l.kind = LeafKind::Field;
    l.a = fieldIndex_.at(&f);
    l.b = component;
    return g_.leaf(l);
  }

  NodeId evalRef(const Expr &e, Env &env) {
    switch (e.refKind) {
    case RefKind::Param:
      return paramNode(e.text);
    case RefKind::Coordinate: {
      Leaf l;
      l.kind = LeafKind::Coord;
      l.a = coordinateAxis(e.text);
      return g_.leaf(l);
    }
    case RefKind::Temporary: {
      std::vector<int> tuple;
      for (const IndexName &idx : e.indices)
        tuple.push_back(env.at(idx.name));
      return temps_.at(e.temporary).at(tuple);
    }
    case RefKind::Field: {
      const FieldDecl &f = *e.field;
      std::vector<int> tuple;
      for (const IndexName &idx : e.indices)
        tuple.push_back(env.at(idx.name));
      return fieldNode(f, flatten(tuple, rangeOf(f.space, dim_)), e.range);
    }
    case RefKind::FlatMetric:
      return g_.constant(env.at(e.indices[0].name) == env.at(e.indices[1].name) ? 1.0 : 0.0);
    case RefKind::Unresolved:
      break;
    }
    fail(e.range, "internal: unresolved reference '" + e.text + "'");
  }

  NodeId evalCall(const Expr &e, Env &env) {
    if (e.externDecl)
      fail(e.range, "extern function '" + e.text + "' has no body; executable kernels can call "
                    "only the built-ins sqrt, sin, cos, exp, log and pow");
    NodeId a = eval(*e.operands[0], env);
    switch (e.builtin) {
    case Builtin::Sqrt: return g_.unary(NodeOp::Sqrt, a);
    case Builtin::Sin: return g_.unary(NodeOp::Sin, a);
    case Builtin::Cos: return g_.unary(NodeOp::Cos, a);
    case Builtin::Exp: return g_.unary(NodeOp::Exp, a);
    case Builtin::Log: return g_.unary(NodeOp::Log, a);
    case Builtin::BesselJ0: return g_.unary(NodeOp::BesselJ0, a);
    case Builtin::BesselJ1: return g_.unary(NodeOp::BesselJ1, a);
    case Builtin::Abs: return g_.unary(NodeOp::Abs, a);
    case Builtin::Pow: return g_.powGeneral(a, eval(*e.operands[1], env));
    case Builtin::None: break;
    }
    fail(e.range, "internal: unknown built-in '" + e.text + "'");
  }

  // ---------------------------------------------------------------- derivatives

  NodeId spacing(int axis) {
    Leaf l;
    l.kind = LeafKind::Spacing;
    l.a = axis;
    return g_.leaf(l);
  }

  NodeId shifted(NodeId node, int axis, int by) {
    std::unordered_map<NodeId, NodeId> memo;
    return g_.rebuild(
        node, g_,
        [&](const Leaf &leaf, ScalarGraph &target) {
          Leaf l = leaf;
          if (l.kind == LeafKind::Field || l.kind == LeafKind::Coord)
            l.offset[static_cast<size_t>(axis)] = static_cast<int8_t>(l.offset[static_cast<size_t>(axis)] + by);
          return target.leaf(l);
        },
        memo);
  }

  NodeId stencil(NodeId u, int axis, const std::vector<double> &w, NodeId scale) {
    int r = static_cast<int>(w.size() / 2);
    if (!opts_.derivativeSharing) {
      // The first code generator's form: sum_s c_s u(x + s h), then times 1/h.
      NodeId sum = g_.constant(0.0);
      for (int s = -r; s <= r; ++s)
        if (w[static_cast<size_t>(s + r)] != 0.0)
          sum = g_.add(sum, g_.mul(g_.constant(w[static_cast<size_t>(s + r)]), shifted(u, axis, s)));
      return g_.mul(sum, g_.div(g_.constant(1.0), scale));
    }
    std::vector<std::pair<std::array<int8_t, 3>, double>> terms;
    for (int s = -r; s <= r; ++s) {
      std::array<int8_t, 3> offset{0, 0, 0};
      offset[static_cast<size_t>(axis)] = static_cast<int8_t>(s);
      terms.push_back({offset, w[static_cast<size_t>(s + r)]});
    }
    // The reciprocal spacing is one loop-invariant division shared by every stencil along
    // this axis instead of one division per derivative per point.
    return weightedSum(
        g_, terms, [&](const std::array<int8_t, 3> &o) { return shifted(u, axis, o[static_cast<size_t>(axis)]); },
        g_.div(g_.constant(1.0), scale));
  }

  /// beta d u/dx_axis with the stencil biased toward where information comes from, chosen per
  /// point without a branch: beta+ D+ u + beta- D- u, beta+- = (beta +- |beta|) / 2 (exactly
  /// max(beta, 0) and min(beta, 0) in floating point), D+ the lopsided stencil for beta > 0 and
  /// D- its mirror image.
  NodeId lopsided(NodeId beta, NodeId u, int axis) {
    const support::OffsetWeights &w = support::lopsidedFirstDerivativeWeights(order_);
    std::vector<std::pair<std::array<int8_t, 3>, double>> plus, minus;
    for (size_t j = 0; j < w.weights.size(); ++j) {
      const int s = w.first + static_cast<int>(j);
      std::array<int8_t, 3> ahead{0, 0, 0}, behind{0, 0, 0};
      ahead[static_cast<size_t>(axis)] = static_cast<int8_t>(s);
      behind[static_cast<size_t>(axis)] = static_cast<int8_t>(-s);
      plus.push_back({ahead, w.weights[j]});
      minus.push_back({behind, -w.weights[j]});
    }
    auto at = [&](const std::array<int8_t, 3> &o) { return shifted(u, axis, o[static_cast<size_t>(axis)]); };
    NodeId inverse = g_.div(g_.constant(1.0), spacing(axis));
    NodeId dPlus = weightedSum(g_, plus, at, inverse), dMinus = weightedSum(g_, minus, at, inverse);
    NodeId magnitude = g_.unary(NodeOp::Abs, beta), half = g_.constant(0.5);
    return g_.add(g_.mul(g_.mul(half, g_.add(beta, magnitude)), dPlus),
                  g_.mul(g_.mul(half, g_.sub(beta, magnitude)), dMinus));
  }

  /// A field component itself (not one of its derivatives).
  bool isPlainFieldLeaf(NodeId u) const {
    const Node &n = g_.node(u);
    return n.op == NodeOp::Leaf && n.leaf.kind == LeafKind::Field && n.leaf.deriv == std::array<int8_t, 3>{0, 0, 0};
  }

  /// d/dx_axis by the chain rule down to field leaves, whose derivatives become derivative
  /// leaves (expanded into stencils once per kernel, so each is computed once per point).
  NodeId chainRule(NodeId u, int axis) {
    std::unordered_map<NodeId, NodeId> memo;
    return g_.differentiate(
        u,
        [&](const Leaf &leaf) -> NodeId {
          switch (leaf.kind) {
          case LeafKind::Field: {
            Leaf l = leaf;
            l.deriv[static_cast<size_t>(axis)] = static_cast<int8_t>(l.deriv[static_cast<size_t>(axis)] + 1);
            return g_.leaf(l);
          }
          case LeafKind::Coord: return g_.constant(leaf.a == axis ? 1.0 : 0.0);
          default: return g_.constant(0.0);
          }
        },
        memo);
  }

  NodeId secondDerivativeFd(NodeId u, int axis) {
    if (!opts_.derivativeSharing || (m_.sim.stencilOfExpressions && !isPlainFieldLeaf(u))) {
      NodeId h = spacing(axis);
      return stencil(u, axis, secondDerivativeWeights(order_), g_.mul(h, h));
    }
    return chainRule(chainRule(u, axis), axis);
  }

  NodeId derivative(NodeId u, int axis, SourceRange where) {
    if (static_cast<unsigned>(axis) >= dim_)
      fail(where, "derivative along axis " + std::to_string(axis + 1) + " in dimension " + std::to_string(dim_));
    if (mode_ == Mode::Point) {
      // Initial data are closed forms of the coordinates: their derivatives are exact.
      std::unordered_map<NodeId, NodeId> &memo = pointDerivativeMemo_[static_cast<size_t>(axis)];
      return g_.differentiate(
          u, [&](const Leaf &leaf) { return g_.constant(leaf.kind == LeafKind::Coord && leaf.a == axis ? 1.0 : 0.0); },
          memo);
    }
    if (mode_ == Mode::FiniteDifference) {
      if (!opts_.derivativeSharing || (m_.sim.stencilOfExpressions && !isPlainFieldLeaf(u)))
        return stencil(u, axis, firstDerivativeWeights(order_), spacing(axis));
      return chainRule(u, axis);
    }
    if (mode_ == Mode::Symbolic) {
      std::unordered_map<NodeId, NodeId> memo;
      return g_.differentiate(
          u,
          [&](const Leaf &leaf) -> NodeId {
            if (leaf.kind == LeafKind::Coord)
              return g_.constant(leaf.a == axis ? 1.0 : 0.0);
            if (leaf.kind != LeafKind::Field)
              return g_.constant(0.0);
            Leaf l = leaf;
            l.offset[static_cast<size_t>(axis)] = static_cast<int8_t>(l.offset[static_cast<size_t>(axis)] + 1);
            return g_.leaf(l);
          },
          memo);
    }
    // Spectral: chain rule down to the runtime-supplied bundle slots.
    bool tooDeep = false;
    std::unordered_map<NodeId, NodeId> memo;
    NodeId out = g_.differentiate(
        u,
        [&](const Leaf &leaf) -> NodeId {
          switch (leaf.kind) {
          case LeafKind::Coord: return g_.constant(leaf.a == axis ? 1.0 : 0.0);
          case LeafKind::Bundle: {
            Leaf l = leaf;
            if (leaf.b == 0)
              l.b = abi::spectralFirstDerivativeSlot(axis);
            else if (leaf.b <= 3)
              l.b = abi::spectralSecondDerivativeSlot(leaf.b - 1, axis);
            else {
              tooDeep = true;
              return g_.constant(0.0);
            }
            return g_.leaf(l);
          }
          default: return g_.constant(0.0);
          }
        },
        memo);
    if (tooDeep)
      fail(where, "spectral derivative bundles carry at most second derivatives; this expression "
                  "needs a third");
    return out;
  }

  // ---------------------------------------------------------------- covariant derivative

  NodeId metricComponent(int i, int j) {
    return fieldNode(*metric_, i * static_cast<int>(dim_) + j, metric_->nameRange);
  }

  NodeId inverseMetricComponent(int i, int j) {
    if (inverseMetric_)
      return fieldNode(*inverseMetric_, i * static_cast<int>(dim_) + j, inverseMetric_->nameRange);
    if (inverse_.empty()) {
      std::vector<NodeId> gm;
      for (unsigned a = 0; a < dim_; ++a)
        for (unsigned b = 0; b < dim_; ++b)
          gm.push_back(metricComponent(static_cast<int>(a), static_cast<int>(b)));
      inverse_ = symmetricInverse(g_, gm, dim_);
    }
    return inverse_[static_cast<size_t>(i) * dim_ + static_cast<size_t>(j)];
  }

  /// Christoffel symbol Gamma^a_{bc}.
  NodeId christoffel(int a, int b, int c, SourceRange where) {
    auto key = std::array<int, 3>{a, b, c};
    if (auto it = christoffel_.find(key); it != christoffel_.end())
      return it->second;
    NodeId sum = g_.constant(0.0);
    for (unsigned dd = 0; dd < dim_; ++dd) {
      int d = static_cast<int>(dd);
      NodeId term = g_.sub(g_.add(derivative(metricComponent(d, c), b, where),
                                  derivative(metricComponent(d, b), c, where)),
                           derivative(metricComponent(b, c), d, where));
      sum = g_.add(sum, g_.mul(inverseMetricComponent(a, d), term));
    }
    NodeId value = g_.mul(g_.constant(0.5), sum);
    christoffel_[key] = value;
    return value;
  }

  NodeId evalCovariant(const Expr &e, Env &env) {
    if (mode_ == Mode::Spectral)
      fail(e.range, "nabla_k is not available in spectral residuals; write the Christoffel terms "
                    "explicitly");
    const Expr &arg = *e.operands[0];
    const FieldDecl &f = *arg.field;
    int k = env.at(e.indices.front().name);
    std::vector<int> tuple;
    for (const IndexName &idx : arg.indices)
      tuple.push_back(env.at(idx.name));
    unsigned n = rangeOf(f.space, dim_);
    NodeId value = derivative(fieldNode(f, flatten(tuple, n), arg.range), k, e.range);
    for (size_t slot = 0; slot < tuple.size(); ++slot) {
      for (unsigned mm = 0; mm < dim_; ++mm) {
        std::vector<int> t = tuple;
        t[slot] = static_cast<int>(mm);
        NodeId comp = fieldNode(f, flatten(t, n), arg.range);
        if (f.variances[slot] == Variance::Up)
          value = g_.add(value, g_.mul(christoffel(tuple[slot], k, static_cast<int>(mm), e.range), comp));
        else
          value = g_.sub(value, g_.mul(christoffel(static_cast<int>(mm), k, tuple[slot], e.range), comp));
      }
    }
    return value;
  }

public:
  /// Inverse of a symmetric n x n matrix (n <= 3) by cofactors; row-major in and out.
  static std::vector<NodeId> symmetricInverse(ScalarGraph &g, const std::vector<NodeId> &a, unsigned n) {
    auto at = [&](unsigned i, unsigned j) { return a[i * n + j]; };
    std::vector<NodeId> inv(n * n);
    if (n == 1) {
      inv[0] = g.div(g.constant(1.0), at(0, 0));
      return inv;
    }
    if (n == 2) {
      NodeId det = g.sub(g.mul(at(0, 0), at(1, 1)), g.mul(at(0, 1), at(1, 0)));
      inv[0] = g.div(at(1, 1), det);
      inv[1] = g.div(g.neg(at(0, 1)), det);
      inv[2] = g.div(g.neg(at(1, 0)), det);
      inv[3] = g.div(at(0, 0), det);
      return inv;
    }
    auto cof = [&](unsigned i, unsigned j) {
      unsigned r0 = (i + 1) % 3, r1 = (i + 2) % 3, c0 = (j + 1) % 3, c1 = (j + 2) % 3;
      return g.sub(g.mul(at(r0, c0), at(r1, c1)), g.mul(at(r0, c1), at(r1, c0)));
    };
    NodeId det = g.add(g.add(g.mul(at(0, 0), cof(0, 0)), g.mul(at(0, 1), cof(0, 1))),
                       g.mul(at(0, 2), cof(0, 2)));
    NodeId rdet = g.div(g.constant(1.0), det);
    for (unsigned i = 0; i < 3; ++i)
      for (unsigned j = 0; j < 3; ++j)
        inv[i * 3 + j] = g.mul(cof(j, i), rdet); // adjugate is the cofactor transpose
    return inv;
  }

private:
  const Module &m_;
  const CodeGenOptions &opts_;
  DiagnosticEngine &d_;
  ScalarGraph &g_;
  Mode mode_;
  unsigned dim_;
  unsigned order_;
  std::map<const FieldDecl *, int> fieldIndex_;
  std::map<std::string, int> paramIndex_;
  std::map<const TemporaryInfo *, std::map<std::vector<int>, NodeId>> temps_;
  std::array<std::unordered_map<NodeId, NodeId>, 3> pointDerivativeMemo_; // per axis, initial data
  const FieldDecl *metric_ = nullptr;
  const FieldDecl *inverseMetric_ = nullptr;
  std::vector<NodeId> inverse_;
  std::map<std::array<int, 3>, NodeId> christoffel_;
};

} // namespace tensorium_mlir::codegen::planning
