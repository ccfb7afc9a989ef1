#include "tensorium_mlir/CodeGen/ScalarGraph.h"

#include <cmath>
#include <cstring>
#include <numeric>
#include <utility>

namespace tensorium_mlir::codegen {

size_t ScalarGraph::KeyHash::operator()(const Node &n) const {
  uint64_t bits;
  std::memcpy(&bits, &n.value, sizeof bits);
  size_t h = static_cast<size_t>(n.op);
  auto mix = [&](uint64_t v) { h ^= std::hash<uint64_t>()(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(bits);
  mix(static_cast<uint64_t>(n.lhs));
  mix(static_cast<uint64_t>(n.rhs));
  mix(static_cast<uint64_t>(n.num));
  mix(static_cast<uint64_t>(n.den));
  if (n.op == NodeOp::Leaf) {
    mix(static_cast<uint64_t>(n.leaf.kind));
    mix(static_cast<uint64_t>(n.leaf.a));
    mix(static_cast<uint64_t>(n.leaf.b));
    mix(static_cast<uint64_t>(static_cast<uint8_t>(n.leaf.offset[0])) |
        (static_cast<uint64_t>(static_cast<uint8_t>(n.leaf.offset[1])) << 8) |
        (static_cast<uint64_t>(static_cast<uint8_t>(n.leaf.offset[2])) << 16) |
        (static_cast<uint64_t>(static_cast<uint8_t>(n.leaf.deriv[0])) << 24) |
        (static_cast<uint64_t>(static_cast<uint8_t>(n.leaf.deriv[1])) << 32) |
        (static_cast<uint64_t>(static_cast<uint8_t>(n.leaf.deriv[2])) << 40));
  }
  return h;
}

bool ScalarGraph::KeyEq::operator()(const Node &a, const Node &b) const {
  if (a.op != b.op || a.lhs != b.lhs || a.rhs != b.rhs || a.num != b.num || a.den != b.den)
    return false;
  if (std::memcmp(&a.value, &b.value, sizeof a.value) != 0)
    return false;
  return a.op != NodeOp::Leaf || a.leaf == b.leaf;
}

NodeId ScalarGraph::intern(const Node &n) {
  auto it = index_.find(n);
  if (it != index_.end())
    return it->second;
  NodeId id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(n);
  index_.emplace(n, id);
  return id;
}

NodeId ScalarGraph::constant(double v) {
  Node n;
  n.op = NodeOp::Const;
  n.value = v == 0.0 ? 0.0 : v; // one zero, not two
  return intern(n);
}

NodeId ScalarGraph::leaf(const Leaf &leaf) {
  Node n;
  n.op = NodeOp::Leaf;
  n.leaf = leaf;
  return intern(n);
}

NodeId ScalarGraph::add(NodeId a, NodeId b) {
  const Node &na = node(a), &nb = node(b);
  if (na.op == NodeOp::Const && nb.op == NodeOp::Const)
    return constant(na.value + nb.value);
  if (isConstant(a, 0.0))
    return b;
  if (isConstant(b, 0.0))
    return a;
  if (a > b)
    std::swap(a, b); // commutative: canonical operand order shares more nodes
  Node n;
  n.op = NodeOp::Add;
  n.lhs = a;
  n.rhs = b;
  return intern(n);
}

NodeId ScalarGraph::mul(NodeId a, NodeId b) {
  const Node &na = node(a), &nb = node(b);
  if (na.op == NodeOp::Const && nb.op == NodeOp::Const)
    return constant(na.value * nb.value);
  // Symbolic zeros come from derivatives of constants; folding them keeps kernels small.
  if (isConstant(a, 0.0) || isConstant(b, 0.0))
    return constant(0.0);
  if (isConstant(a, 1.0))
    return b;
  if (isConstant(b, 1.0))
    return a;
  if (isConstant(a, -1.0))
    return neg(b);
  if (isConstant(b, -1.0))
    return neg(a);
  if (a > b)
    std::swap(a, b);
  Node n;
  n.op = NodeOp::Mul;
  n.lhs = a;
  n.rhs = b;
  return intern(n);
}

NodeId ScalarGraph::div(NodeId a, NodeId b) {
  const Node &na = node(a), &nb = node(b);
  if (na.op == NodeOp::Const && nb.op == NodeOp::Const && nb.value != 0.0)
    return constant(na.value / nb.value);
  if (isConstant(a, 0.0))
    return constant(0.0);
  if (isConstant(b, 1.0))
    return a;
  Node n;
  n.op = NodeOp::Div;
  n.lhs = a;
  n.rhs = b;
  return intern(n);
}

NodeId ScalarGraph::neg(NodeId a) {
  const Node &na = node(a);
  if (na.op == NodeOp::Const)
    return constant(-na.value);
  if (na.op == NodeOp::Neg)
    return na.lhs;
  Node n;
  n.op = NodeOp::Neg;
  n.lhs = a;
  return intern(n);
}

NodeId ScalarGraph::pow(NodeId base, int64_t num, int64_t den) {
  int64_t g = std::gcd(num < 0 ? -num : num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  if (num == 0)
    return constant(1.0);
  if (num == den)
    return base;
  const Node &nb = node(base);
  if (nb.op == NodeOp::Const && den == 1 && num > 0 && num < 64)
    return constant(std::pow(nb.value, static_cast<double>(num)));
  if (nb.op == NodeOp::Pow) {
    // (x^(a/b))^(c/d) = x^(ac/bd) only when the inner power has no sign ambiguity: integer inner.
    if (nb.den == 1 && den == 1)
      return pow(nb.lhs, nb.num * num, 1);
  }
  Node n;
  n.op = NodeOp::Pow;
  n.lhs = base;
  n.num = num;
  n.den = den;
  return intern(n);
}

NodeId ScalarGraph::unary(NodeOp op, NodeId a) {
  const Node &na = node(a);
  if (na.op == NodeOp::Const) {
    double v = na.value;
    switch (op) {
    case NodeOp::Sqrt: if (v >= 0) return constant(std::sqrt(v)); break;
    case NodeOp::Sin: return constant(std::sin(v));
    case NodeOp::Cos: return constant(std::cos(v));
    case NodeOp::Exp: return constant(std::exp(v));
    case NodeOp::Log: if (v > 0) return constant(std::log(v)); break;
    case NodeOp::BesselJ0: return constant(::j0(v));
    case NodeOp::BesselJ1: return constant(::j1(v));
    case NodeOp::Abs: return constant(std::fabs(v));
    case NodeOp::Sign: return constant(std::copysign(1.0, v));
    default: break;
    }
  }
  Node n;
  n.op = op;
  n.lhs = a;
  return intern(n);
}

NodeId ScalarGraph::powGeneral(NodeId a, NodeId b) {
  const Node &nb = node(b);
  if (nb.op == NodeOp::Const && nb.value == std::round(nb.value) && std::fabs(nb.value) < 64)
    return pow(a, static_cast<int64_t>(nb.value), 1);
  Node n;
  n.op = NodeOp::PowGeneral;
  n.lhs = a;
  n.rhs = b;
  return intern(n);
}

NodeId ScalarGraph::rebuilt(const Node &shape, NodeId lhs, NodeId rhs) {
  switch (shape.op) {
  case NodeOp::Const: return constant(shape.value);
  case NodeOp::Leaf: return leaf(shape.leaf);
  case NodeOp::Add: return add(lhs, rhs);
  case NodeOp::Mul: return mul(lhs, rhs);
  case NodeOp::Div: return div(lhs, rhs);
  case NodeOp::Neg: return neg(lhs);
  case NodeOp::Pow: return pow(lhs, shape.num, shape.den);
  case NodeOp::PowGeneral: return powGeneral(lhs, rhs);
  default: return unary(shape.op, lhs);
  }
}

NodeId ScalarGraph::rebuild(NodeId root, ScalarGraph &target,
                            const std::function<NodeId(const Leaf &, ScalarGraph &)> &mapLeaf,
                            std::unordered_map<NodeId, NodeId> &memo) const {
  for (NodeId id : topologicalOrder({root})) {
    if (memo.count(id))
      continue;
    Node n = node(id); // copy: `target` may be this graph and grow below
    const NodeId out = n.op == NodeOp::Leaf ? mapLeaf(n.leaf, target)
                                            : target.rebuilt(n, n.lhs >= 0 ? memo.at(n.lhs) : -1,
                                                             n.rhs >= 0 ? memo.at(n.rhs) : -1);
    memo[id] = out;
  }
  return memo.at(root);
}

NodeId ScalarGraph::differentiate(NodeId root, const std::function<NodeId(const Leaf &)> &leafDerivative,
                                  std::unordered_map<NodeId, NodeId> &memo) {
  for (NodeId id : topologicalOrder({root})) {
    if (memo.count(id))
      continue;
    Node n = node(id); // copy: the graph grows below
    NodeId out;
    switch (n.op) {
    case NodeOp::Const: out = constant(0.0); break;
    case NodeOp::Leaf: out = leafDerivative(n.leaf); break;
    case NodeOp::Add: out = add(memo.at(n.lhs), memo.at(n.rhs)); break;
    case NodeOp::Mul:
      out = add(mul(memo.at(n.lhs), n.rhs), mul(n.lhs, memo.at(n.rhs)));
      break;
    case NodeOp::Div: {
      // (a/b)' = a'/b - a b' / b^2
      NodeId da = memo.at(n.lhs), db = memo.at(n.rhs);
      out = sub(div(da, n.rhs), div(mul(n.lhs, db), pow(n.rhs, 2, 1)));
      break;
    }
    case NodeOp::Neg: out = neg(memo.at(n.lhs)); break;
    case NodeOp::Pow: {
      // (x^q)' = q x^(q-1) x'
      NodeId dx = memo.at(n.lhs);
      NodeId coeff = constant(static_cast<double>(n.num) / static_cast<double>(n.den));
      out = mul(mul(coeff, pow(n.lhs, n.num - n.den, n.den)), dx);
      break;
    }
    case NodeOp::Sqrt:
      out = div(memo.at(n.lhs), mul(constant(2.0), id));
      break;
    case NodeOp::Sin: out = mul(unary(NodeOp::Cos, n.lhs), memo.at(n.lhs)); break;
    case NodeOp::Cos: out = neg(mul(unary(NodeOp::Sin, n.lhs), memo.at(n.lhs))); break;
    case NodeOp::Exp: out = mul(id, memo.at(n.lhs)); break;
    case NodeOp::Log: out = div(memo.at(n.lhs), n.lhs); break;
    // J0' = -J1, J1'(u) = J0(u) - J1(u) / u.
    case NodeOp::BesselJ0: out = neg(mul(unary(NodeOp::BesselJ1, n.lhs), memo.at(n.lhs))); break;
    case NodeOp::BesselJ1:
      out = mul(sub(unary(NodeOp::BesselJ0, n.lhs), div(id, n.lhs)), memo.at(n.lhs));
      break;
    case NodeOp::Abs: out = mul(unary(NodeOp::Sign, n.lhs), memo.at(n.lhs)); break;
    case NodeOp::Sign: out = constant(0.0); break;
    case NodeOp::PowGeneral: {
      // (a^b)' = a^b (b' log a + b a'/a)
      NodeId da = memo.at(n.lhs), db = memo.at(n.rhs);
      out = mul(id, add(mul(db, unary(NodeOp::Log, n.lhs)), div(mul(n.rhs, da), n.lhs)));
      break;
    }
    default: out = constant(0.0); break;
    }
    memo[id] = out;
  }
  return memo.at(root);
}

std::vector<NodeId> ScalarGraph::topologicalOrder(const std::vector<NodeId> &roots) const {
  // Operands always have smaller ids than their users, so sorted reachable ids are a valid order.
  std::vector<char> seen(nodes_.size(), 0);
  std::vector<NodeId> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (id < 0 || seen[static_cast<size_t>(id)])
      continue;
    seen[static_cast<size_t>(id)] = 1;
    const Node &n = node(id);
    if (n.lhs >= 0)
      stack.push_back(n.lhs);
    if (n.rhs >= 0)
      stack.push_back(n.rhs);
  }
  std::vector<NodeId> order;
  for (size_t i = 0; i < seen.size(); ++i)
    if (seen[i])
      order.push_back(static_cast<NodeId>(i));
  return order;
}

} // namespace tensorium_mlir::codegen
