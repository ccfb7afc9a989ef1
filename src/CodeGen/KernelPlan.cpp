#include "tensorium_mlir/CodeGen/KernelPlan.h"
#include "tensorium_mlir/Support/FiniteDifferenceWeights.h"
#include "tensorium_mlir/CodeGen/GraphSimplify.h"
#include "tensorium_mlir/Frontend/EllipticProblem.h"
#include "tensorium_mlir/Frontend/Sema.h"
#include "tensorium_mlir/Target/MLIRGen/GeneratedKernelABI.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <functional>
#include <optional>

namespace tensorium_mlir::codegen {

using namespace frontend;

using support::derivativeWeights;
using support::dissipationWeights;
using support::firstDerivativeWeights;
using support::secondDerivativeWeights;

namespace {

/// Terms whose weights agree in magnitude share one multiplication: a centred first
/// derivative is sum_s c_s (u_s - u_-s), a second one sum_s c_s (u_s + u_-s) + c_0 u_0.
/// Magnitude -> (offsets of positive weights, offsets of negative ones).
std::map<double, std::pair<std::vector<std::array<int8_t, 3>>, std::vector<std::array<int8_t, 3>>>>
weightGroups(const std::vector<std::pair<std::array<int8_t, 3>, double>> &terms) {
  std::map<double, std::pair<std::vector<std::array<int8_t, 3>>, std::vector<std::array<int8_t, 3>>>> groups;
  for (const auto &[offset, w] : terms)
    if (w != 0.0)
      (w > 0 ? groups[w].first : groups[-w].second).push_back(offset);
  return groups;
}

NodeId weightedSum(ScalarGraph &g, const std::vector<std::pair<std::array<int8_t, 3>, double>> &terms,
                   const std::function<NodeId(const std::array<int8_t, 3> &)> &valueAt, NodeId scale) {
  NodeId total = g.constant(0.0);
  for (const auto &[magnitude, members] : weightGroups(terms)) {
    const auto &[positive, negative] = members;
    NodeId sum = g.constant(0.0);
    for (const auto &o : positive)
      sum = g.add(sum, valueAt(o));
    for (const auto &o : negative)
      sum = positive.empty() ? g.add(sum, valueAt(o)) : g.sub(sum, valueAt(o));
    NodeId coefficient = g.mul(g.constant(positive.empty() ? -magnitude : magnitude), scale);
    total = g.add(total, g.mul(coefficient, sum));
  }
  return total;
}

// Point: initial data (no fields, no derivatives). Symbolic: derivatives of field components
// stay symbolic, as leaves with per-axis derivative counts in `offset`.
enum class Mode { Point, FiniteDifference, Spectral, Symbolic };

unsigned rangeOf(IndexSpace space, unsigned dim) { return space == IndexSpace::Spatial ? dim : dim + 1; }

/// Row-major flattening of component indices.
int flatten(const std::vector<int> &idx, unsigned n) {
  int c = 0;
  for (int v : idx)
    c = c * static_cast<int>(n) + v;
  return c;
}

std::vector<std::vector<int>> allTuples(unsigned rank, unsigned n) {
  std::vector<std::vector<int>> out;
  std::vector<int> t(rank, 0);
  for (;;) {
    out.push_back(t);
    int slot = static_cast<int>(rank) - 1;
    while (slot >= 0 && ++t[static_cast<size_t>(slot)] == static_cast<int>(n)) {
      t[static_cast<size_t>(slot)] = 0;
      --slot;
    }
    if (slot < 0)
      break;
  }
  return out;
}

struct CodeGenError {};

/// Spectral bundle leaves: one per (field, component); a field has at most 4 components here.
constexpr int kSpectralComponentStride = 4;
int spectralBundleId(int fieldIndex, int component) { return fieldIndex * kSpectralComponentStride + component; }

/// One bundle argument group of a spectral kernel: a scalar field, or one component of a vector
/// field (named `W_0`, `W_1`, ...).
struct SpectralBundle {
  const FieldDecl *field = nullptr;
  int component = 0;
  std::string name;
};

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
    if (mode_ == Mode::Point)
      fail(where, "initial data cannot take derivatives");
    if (static_cast<unsigned>(axis) >= dim_)
      fail(where, "derivative along axis " + std::to_string(axis + 1) + " in dimension " + std::to_string(dim_));
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
  const FieldDecl *metric_ = nullptr;
  const FieldDecl *inverseMetric_ = nullptr;
  std::vector<NodeId> inverse_;
  std::map<std::array<int, 3>, NodeId> christoffel_;
};

// -------------------------------------------------------------------- kernel assembly

/// Collects the abstract leaves a set of roots reads.
struct LeafUse {
  std::set<int> params, coords, fields;
  std::map<int, std::set<int>> bundleSlots;
  std::array<int, 3> radius{0, 0, 0};
};

LeafUse collectLeaves(const ScalarGraph &g, const std::vector<NodeId> &roots, unsigned order) {
  LeafUse use;
  for (NodeId id : g.topologicalOrder(roots)) {
    const Node &n = g.node(id);
    if (n.op != NodeOp::Leaf)
      continue;
    const Leaf &l = n.leaf;
    switch (l.kind) {
    case LeafKind::Param: use.params.insert(l.a); break;
    case LeafKind::Coord: use.coords.insert(l.a); break;
    case LeafKind::Field: use.fields.insert(l.a); break;
    case LeafKind::Bundle: use.fields.insert(l.a); break;
    default: break;
    }
    if (l.kind == LeafKind::Field || l.kind == LeafKind::Coord)
      for (size_t a = 0; a < 3; ++a) {
        int reach = std::abs(static_cast<int>(l.offset[a]));
        if (l.deriv[a])
          reach += static_cast<int>(derivativeWeights(order, static_cast<unsigned>(l.deriv[a])).size() / 2);
        use.radius[a] = std::max(use.radius[a], reach);
      }
  }
  return use;
}

/// Multiplies a tensor-product stencil (terms, scale) by the `count`-th derivative stencil
/// along `axis`, scaled by the reciprocal spacing (arguments 3..5) to the power `count`.
void applyDerivativeAlong(ScalarGraph &g, std::vector<std::pair<std::array<int8_t, 3>, double>> &terms, NodeId &scale,
                          unsigned order, size_t axis, int count) {
  const std::vector<double> w = derivativeWeights(order, static_cast<unsigned>(count));
  const int r = static_cast<int>(w.size() / 2);
  std::vector<std::pair<std::array<int8_t, 3>, double>> next;
  for (const auto &[offset, weight] : terms)
    for (int s = -r; s <= r; ++s) {
      if (w[static_cast<size_t>(s + r)] == 0.0)
        continue;
      std::array<int8_t, 3> o = offset;
      o[axis] = static_cast<int8_t>(o[axis] + s);
      next.push_back({o, weight * w[static_cast<size_t>(s + r)]});
    }
  terms = std::move(next);
  Leaf h;
  h.kind = LeafKind::Arg;
  h.a = 3 + static_cast<int>(axis);
  const NodeId reciprocal = g.div(g.constant(1.0), g.leaf(h));
  for (int k = 0; k < count; ++k)
    scale = g.mul(scale, reciprocal);
}

/// The stencil of a derivative leaf of field argument `arg`: the tensor product of the
/// one-dimensional derivative stencils, scaled by the reciprocal spacings.
NodeId expandDerivativeLeaf(ScalarGraph &g, int arg, const Leaf &leaf, unsigned order) {
  std::vector<std::pair<std::array<int8_t, 3>, double>> terms{{{0, 0, 0}, 1.0}};
  NodeId scale = g.constant(1.0);
  for (size_t a = 0; a < 3; ++a)
    if (leaf.deriv[a])
      applyDerivativeAlong(g, terms, scale, order, a, leaf.deriv[a]);
  return weightedSum(
      g, terms,
      [&](const std::array<int8_t, 3> &o) {
        Leaf l;
        l.kind = LeafKind::Arg;
        l.a = arg;
        l.b = leaf.b;
        for (size_t a = 0; a < 3; ++a)
          l.offset[a] = static_cast<int8_t>(leaf.offset[a] + o[a]);
        return g.leaf(l);
      },
      scale);
}

/// A derivative leaf across z and x or y, expanded into `value` in `g`, as the z stencil of
/// its transverse derivative (KernelPlan::zFactored); the z coefficients are the nodes the
/// stencil of the z derivative alone uses.
void recordZFactoring(std::vector<ZFactoredStencil> &factored, ScalarGraph &g, int arg, const Leaf &leaf,
                      unsigned order, NodeId value) {
  if (leaf.deriv[2] == 0 || (leaf.deriv[0] == 0 && leaf.deriv[1] == 0) || leaf.offset != std::array<int8_t, 3>{0, 0, 0})
    return;
  for (const ZFactoredStencil &known : factored)
    if (known.value == value)
      return;
  ZFactoredStencil f;
  f.value = value;
  Leaf transverse = leaf;
  transverse.deriv[2] = 0;
  f.transverse = expandDerivativeLeaf(g, arg, transverse, order);
  std::vector<std::pair<std::array<int8_t, 3>, double>> terms{{{0, 0, 0}, 1.0}};
  NodeId scale = g.constant(1.0);
  applyDerivativeAlong(g, terms, scale, order, 2, leaf.deriv[2]);
  for (const auto &[magnitude, members] : weightGroups(terms)) {
    // As in weightedSum: a group of negative weights only is a sum times -magnitude.
    const bool negativeOnly = members.first.empty();
    ZFactoredStencil::Group group;
    group.coefficient = g.mul(g.constant(negativeOnly ? -magnitude : magnitude), scale);
    for (const auto &o : members.first)
      group.positive.push_back(o[2]);
    for (const auto &o : members.second)
      (negativeOnly ? group.positive : group.negative).push_back(o[2]);
    f.groups.push_back(std::move(group));
  }
  factored.push_back(std::move(f));
}

} // namespace

bool usesComputedNodesOnly(const ZFactoredStencil &f, const std::vector<char> &computed) {
  auto in = [&](NodeId id) { return id >= 0 && static_cast<size_t>(id) < computed.size() && computed[static_cast<size_t>(id)]; };
  bool all = in(f.value) && in(f.transverse);
  for (const ZFactoredStencil::Group &group : f.groups)
    all = all && in(group.coefficient);
  return all;
}

namespace {

void setCommonAttributes(KernelPlan &plan) {
  // Scalar arguments count as read only when the computation uses them; buffers keep the flag
  // the planner gave them (a coordinate buffer may be read for its length alone).
  std::vector<NodeId> roots;
  for (const KernelStore &s : plan.stores)
    roots.push_back(s.value);
  if (plan.result >= 0)
    roots.push_back(plan.result);
  std::vector<char> used(plan.args.size(), 0);
  for (NodeId id : plan.graph.topologicalOrder(roots)) {
    const Node &n = plan.graph.node(id);
    if (n.op == NodeOp::Leaf && n.leaf.kind == LeafKind::Arg)
      used[static_cast<size_t>(n.leaf.a)] = 1;
  }
  for (size_t i = 0; i < plan.args.size(); ++i)
    if (plan.args[i].type == ArgType::F64)
      plan.args[i].read = used[i] != 0;
  plan.readArgs.clear();
  plan.writeArgs.clear();
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const KernelArg &a = plan.args[i];
    if (a.read)
      plan.readArgs.push_back(static_cast<int64_t>(i));
    if (a.written)
      plan.writeArgs.push_back(static_cast<int64_t>(i));
  }
}

std::string kindOf(std::string_view symbol) {
  return std::string(symbol.substr(abi::kSymbolPrefix.size()));
}

class Planner {
public:
  Planner(const Module &m, const CodeGenOptions &o, DiagnosticEngine &d) : m_(m), o_(o), d_(d) {}

  std::vector<KernelPlan> run() {
    std::vector<KernelPlan> out;
    try {
      if (!o_.symbolic && m_.sim.scheme == Scheme::Spectral)
        for (const ComputeBlock &block : m_.blocks)
          if (block.kind == ComputeKind::Evolution) {
            d_.error(block.nameRange, "evolution blocks need 'scheme = fd'; spectral grids only "
                                      "provide residual kernels");
            throw CodeGenError{};
          }
      if (o_.symbolic) {
        if (o_.kernels & static_cast<unsigned>(KernelSelection::Init))
          planInit(out, true);
        if (o_.kernels & static_cast<unsigned>(KernelSelection::Rhs))
          planSymbolic(out, ComputeKind::Evolution);
        if (o_.kernels & (static_cast<unsigned>(KernelSelection::Residual) | static_cast<unsigned>(KernelSelection::Spectral)))
          planSymbolic(out, ComputeKind::Constraints);
        if (d_.hasErrors())
          out.clear();
        return out;
      }
      if (o_.kernels & static_cast<unsigned>(KernelSelection::Init))
        planInit(out, false);
      if (o_.kernels & static_cast<unsigned>(KernelSelection::Rhs))
        planGrid(out, ComputeKind::Evolution);
      if (m_.sim.scheme == Scheme::FiniteDifference) {
        if (o_.kernels & static_cast<unsigned>(KernelSelection::Residual))
          planGrid(out, ComputeKind::Constraints);
      } else if (o_.kernels & static_cast<unsigned>(KernelSelection::Spectral)) {
        planSpectral(out);
      }
    } catch (CodeGenError &) {
    }
    if (d_.hasErrors())
      out.clear();
    // After the ABI attributes are fixed (setCommonAttributes): what a kernel declares it reads
    // does not depend on how its arithmetic is simplified.
    if (o_.simplify)
      for (KernelPlan &plan : out)
        mergeEquivalentNodes(plan);
    // Bounded compilation: the size of every kernel is known before any MLIR or LLVM exists.
    for (const KernelPlan &plan : out) {
      std::vector<NodeId> roots;
      for (const KernelStore &st : plan.stores)
        roots.push_back(st.value);
      if (plan.result >= 0)
        roots.push_back(plan.result);
      const size_t ops = plan.graph.topologicalOrder(roots).size();
      if (ops > o_.maxKernelOps) {
        SourceRange where = plan.origin;
        if (!where.begin.isValid() && !m_.blocks.empty())
          where = m_.blocks.front().nameRange;
        d_.error(where, "kernel '" + plan.symbol + "' would have " + std::to_string(ops) +
                            " scalar operations per point after simplification, more than the limit of " +
                            std::to_string(o_.maxKernelOps) + " (--max-kernel-ops): split the block into smaller ones "
                            "or raise the limit");
        out.clear();
        return out;
      }
    }
    return out;
  }

private:
  std::vector<std::string> paramNamesUsed(const LeafUse &use) const {
    std::vector<std::string> names;
    for (size_t i = 0; i < m_.params.size(); ++i)
      if (!o_.foldedParams.count(m_.params[i].name))
        names.push_back(m_.params[i].name);
    (void)use;
    return names;
  }

  /// Every component of a `dt` or `residual` target, in row-major order. A declared symmetric
  /// field gets its upper triangle computed and mirrored.
  std::vector<NodeId> evaluateTarget(Scalarizer &s, const Stmt &st, const FieldDecl &f) const {
    const unsigned n = rangeOf(f.space, m_.sim.dimension);
    std::vector<NodeId> values;
    for (const auto &tuple : allTuples(static_cast<unsigned>(st.targetIndices.size()), n)) {
      if (fieldIsSymmetric(f) && tuple[0] > tuple[1])
        values.push_back(values[static_cast<size_t>(tuple[1]) * n + static_cast<size_t>(tuple[0])]);
      else
        values.push_back(s.evalAssignment(st, tuple));
    }
    return values;
  }

  /// Non-folded parameters in declaration order, with their kernel argument slots.
  void addParamArgs(KernelPlan &plan, std::map<int, int> &paramArg) {
    for (size_t i = 0; i < m_.params.size(); ++i) {
      if (o_.foldedParams.count(m_.params[i].name))
        continue;
      paramArg[static_cast<int>(i)] = static_cast<int>(plan.args.size());
      plan.args.push_back({m_.params[i].name, ArgType::F64, ArgRole::Param, 0, 1, true, false});
      plan.paramNames.push_back(m_.params[i].name);
    }
  }

  // ------------------------------------------------------------ initial data

  void planInit(std::vector<KernelPlan> &out, bool symbolic) {
    for (const InitialDataBlock &block : m_.initialData) {
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
      planInitKernels(out, symbolic, outputs, g, false);
      if (!slice.empty() && !symbolic)
        planInitKernels(out, false, slice, g, true);
    }
  }

  struct InitOutput {
    const FieldDecl *field;
    std::vector<NodeId> values;
  };

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

  /// The point, scf and affine kernels (or the symbolic one) writing `outputs` from the
  /// parameters and coordinates; `slice`: the full-slice kernels.
  void planInitKernels(std::vector<KernelPlan> &out, bool symbolic, const std::vector<InitOutput> &outputs, ScalarGraph &g,
                       bool slice) {
    const unsigned dim = m_.sim.dimension;
  for (int variant = 0; variant < (symbolic ? 1 : 3); ++variant) {
    KernelPlan plan;
    plan.family = variant == 0 ? KernelFamily::InitPoint : KernelFamily::InitGrid;
    plan.symbol = std::string(slice ? (variant == 0   ? abi::kSymbolInitSlicePoint
                                     : variant == 1 ? abi::kSymbolInitSliceGridScf
                                                    : abi::kSymbolInitSliceGridAffine)
                             : (variant == 0   ? abi::kSymbolInitPoint
                                : variant == 1 ? abi::kSymbolInitGridScf
                                               : abi::kSymbolInitGridAffine));
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
      plan.args.push_back({o.field->name, variant == 0 ? ArgType::FixedBuffer : ArgType::Buffer,
                           ArgRole::Output, variant == 0 ? static_cast<int64_t>(comps) : 0, comps,
                           false, true});
      plan.fieldNames.push_back(o.field->name);
      plan.outputNames.push_back(o.field->name);
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

  // ------------------------------------------------------------ fd grid kernels

  /// Every `dt` (evolution) or `residual` (constraints) target of the module, scalarized in
  /// `mode`; temporaries are per block. Outputs of `dt X` are the buffers `dX`.
  struct Target {
    std::string bufferName;
    const FieldDecl *field;
    std::vector<NodeId> values;
    SourceRange range; // the statement, for diagnostics
  };
  std::vector<Target> scalarizeTargets(ScalarGraph &g, ComputeKind kind, Mode mode) {
    std::vector<Target> targets;
    for (const ComputeBlock &block : m_.blocks) {
      if (block.kind != kind)
        continue;
      Scalarizer s(m_, o_, d_, g, mode);
      for (const Stmt &st : block.statements) {
        if (st.kind == StmtKind::Temporary) {
          s.defineTemporary(st);
          continue;
        }
        const FieldDecl &f = *st.field;
        targets.push_back({kind == ComputeKind::Evolution ? std::string(abi::kDerivativeOutputPrefix) + f.name : f.name,
                           &f, evaluateTarget(s, st, f), st.range});
      }
    }
    return targets;
  }

  static std::vector<NodeId> allValues(const std::vector<Target> &targets) {
    std::vector<NodeId> roots;
    for (const Target &t : targets)
      roots.insert(roots.end(), t.values.begin(), t.values.end());
    return roots;
  }

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
    bool deriv = underDerivative || e.kind == ExprKind::Derivative || e.kind == ExprKind::Laplacian;
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

  const Module &m_;
  const CodeGenOptions &o_;
  DiagnosticEngine &d_;
};

} // namespace

std::vector<KernelPlan> planKernels(const Module &module, const CodeGenOptions &options,
                                    DiagnosticEngine &diags) {
  return Planner(module, options, diags).run();
}

} // namespace tensorium_mlir::codegen
