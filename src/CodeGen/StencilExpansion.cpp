// Finite-difference stencils in the scalar graph: weight groups, derivative leaves expanded into
// tensor-product stencils, mixed derivatives across z recorded with their transverse stencil.
#include "PlanningSupport.h"

#include <algorithm>
#include <cstdlib>

namespace tensorium_mlir::codegen {
namespace planning {

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

namespace {
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

} // namespace

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

} // namespace planning

bool usesComputedNodesOnly(const ZFactoredStencil &f, const std::vector<char> &computed) {
  auto in = [&](NodeId id) { return id >= 0 && static_cast<size_t>(id) < computed.size() && computed[static_cast<size_t>(id)]; };
  bool all = in(f.value) && in(f.transverse);
  for (const ZFactoredStencil::Group &group : f.groups)
    all = all && in(group.coefficient);
  return all;
}

} // namespace tensorium_mlir::codegen
