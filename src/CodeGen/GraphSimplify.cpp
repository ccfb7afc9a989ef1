#include "tensorium_mlir/CodeGen/GraphSimplify.h"
#include "tensorium_mlir/CodeGen/KernelPlan.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

namespace tensorium_mlir::codegen {

namespace {

// ---------------------------------------------------------------- arithmetic modulo 2^61 - 1

constexpr uint64_t kPrime = (uint64_t{1} << 61) - 1;

uint64_t reduce(unsigned __int128 x) {
  uint64_t r = static_cast<uint64_t>(x & kPrime) + static_cast<uint64_t>(x >> 61);
  r = (r & kPrime) + (r >> 61);
  return r >= kPrime ? r - kPrime : r;
}
uint64_t addMod(uint64_t a, uint64_t b) { return reduce(static_cast<unsigned __int128>(a) + b); }
uint64_t negMod(uint64_t a) { return a == 0 ? 0 : kPrime - a; }
uint64_t mulMod(uint64_t a, uint64_t b) { return reduce(static_cast<unsigned __int128>(a) * b); }
uint64_t powMod(uint64_t a, uint64_t e) {
  uint64_t r = 1;
  while (e) {
    if (e & 1)
      r = mulMod(r, a);
    a = mulMod(a, a);
    e >>= 1;
  }
  return r;
}
uint64_t invMod(uint64_t a) { return powMod(a, kPrime - 2); } // a != 0

/// SplitMix64: deterministic pseudo-random values for leaves, symbols and opaque functions.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
uint64_t hashAll(std::initializer_list<uint64_t> parts) {
  uint64_t h = 0x243f6a8885a308d3ULL;
  for (uint64_t p : parts)
    h = mix(h ^ p);
  return h % kPrime;
}

/// The value of a node at the two evaluation points.
struct Value2 {
  uint64_t v[2];
  bool operator==(const Value2 &o) const { return v[0] == o.v[0] && v[1] == o.v[1]; }
};
struct Value2Hash {
  size_t operator()(const Value2 &x) const { return static_cast<size_t>(mix(x.v[0] ^ mix(x.v[1]))); }
};

/// Exact residue of a double that is a small dyadic rational: v * 2^30 an integer below 2^60 in
/// magnitude. Distinct such numbers have distinct residues (their difference times 2^30 is
/// smaller than the prime). Returns false for any other double.
bool exactResidue(double v, uint64_t &out) {
  if (!std::isfinite(v))
    return false;
  const double scaled = std::ldexp(v, 30);
  if (std::fabs(scaled) >= std::ldexp(1.0, 60) || scaled != std::trunc(scaled))
    return false;
  const int64_t integer = static_cast<int64_t>(scaled);
  uint64_t r = integer < 0 ? negMod(static_cast<uint64_t>(-integer) % kPrime) : static_cast<uint64_t>(integer) % kPrime;
  static const uint64_t inverse2to30 = invMod(uint64_t{1} << 30);
  out = mulMod(r, inverse2to30);
  return true;
}

class Evaluator {
public:
  explicit Evaluator(const ScalarGraph &g) : g_(g) {}

  /// Values of every node up to `g.size()`, computed incrementally.
  const Value2 &at(NodeId id) {
    while (values_.size() <= static_cast<size_t>(id))
      values_.push_back(compute(static_cast<NodeId>(values_.size())));
    return values_[static_cast<size_t>(id)];
  }

private:
  Value2 compute(NodeId id) {
    const Node &n = g_.node(id);
    Value2 out{};
    for (int k = 0; k < 2; ++k) {
      const uint64_t salt = static_cast<uint64_t>(k) + 1;
      auto L = [&] { return values_[static_cast<size_t>(n.lhs)].v[k]; };
      auto R = [&] { return values_[static_cast<size_t>(n.rhs)].v[k]; };
      auto opaque = [&](uint64_t a, uint64_t b) {
        return hashAll({salt, static_cast<uint64_t>(n.op), a, b, static_cast<uint64_t>(n.num), static_cast<uint64_t>(n.den)});
      };
      uint64_t v = 0;
      switch (n.op) {
      case NodeOp::Const: {
        uint64_t bits;
        std::memcpy(&bits, &n.value, sizeof bits);
        if (!exactResidue(n.value, v))
          v = hashAll({salt, 0xc0de, bits});
        break;
      }
      case NodeOp::Leaf: {
        const Leaf &l = n.leaf;
        auto pack = [](const std::array<int8_t, 3> &a) {
          return static_cast<uint64_t>(static_cast<uint8_t>(a[0])) | static_cast<uint64_t>(static_cast<uint8_t>(a[1])) << 8 |
                 static_cast<uint64_t>(static_cast<uint8_t>(a[2])) << 16;
        };
        v = hashAll({salt, 0x1eaf, static_cast<uint64_t>(l.kind), static_cast<uint64_t>(l.a), static_cast<uint64_t>(l.b),
                     pack(l.offset), pack(l.deriv)});
        break;
      }
      case NodeOp::Add: v = addMod(L(), R()); break;
      case NodeOp::Mul: v = mulMod(L(), R()); break;
      case NodeOp::Neg: v = negMod(L()); break;
      case NodeOp::Div: v = R() ? mulMod(L(), invMod(R())) : opaque(L(), R()); break;
      case NodeOp::Pow:
        if (n.den != 1)
          v = opaque(L(), 0);
        else if (n.num >= 0)
          v = powMod(L(), static_cast<uint64_t>(n.num));
        else
          v = L() ? powMod(invMod(L()), static_cast<uint64_t>(-n.num)) : opaque(L(), 0);
        break;
      case NodeOp::PowGeneral: v = opaque(L(), R()); break;
      default: v = opaque(L(), 0); break; // sqrt, sin, cos, exp, log
      }
      out.v[k] = v;
    }
    return out;
  }

  const ScalarGraph &g_;
  std::vector<Value2> values_;
};

} // namespace

ScalarGraph mergeEquivalentNodes(const ScalarGraph &graph, std::vector<NodeId> &roots, SimplifyStats *stats) {
  ScalarGraph out;
  Evaluator values(out);
  std::unordered_map<Value2, NodeId, Value2Hash> representative;
  std::unordered_map<NodeId, NodeId> map;
  const Value2 zero{{0, 0}};
  const std::vector<NodeId> order = graph.topologicalOrder(roots);
  size_t merged = 0;
  for (NodeId id : order) {
    const Node &n = graph.node(id);
    const NodeId built = out.rebuilt(n, n.lhs >= 0 ? map.at(n.lhs) : -1, n.rhs >= 0 ? map.at(n.rhs) : -1);
    const Value2 value = values.at(built);
    if (value == zero && out.node(built).op != NodeOp::Const) {
      map[id] = out.constant(0.0);
      ++merged;
      continue;
    }
    if (auto it = representative.find(value); it != representative.end()) {
      merged += it->second != built;
      map[id] = it->second;
      continue;
    }
    const Value2 opposite{{negMod(value.v[0]), negMod(value.v[1])}};
    if (auto it = representative.find(opposite); it != representative.end() && out.node(built).op != NodeOp::Const) {
      ++merged;
      map[id] = out.neg(it->second);
      representative.emplace(value, map[id]);
      continue;
    }
    representative.emplace(value, built);
    map[id] = built;
  }
  for (NodeId &r : roots)
    r = map.at(r);
  if (stats) {
    stats->nodesBefore = order.size();
    stats->nodesAfter = out.topologicalOrder(roots).size();
    stats->merged = merged;
  }
  return out;
}

void mergeEquivalentNodes(KernelPlan &plan, SimplifyStats *stats) {
  std::vector<NodeId> roots;
  for (const KernelStore &s : plan.stores)
    roots.push_back(s.value);
  if (plan.result >= 0)
    roots.push_back(plan.result);
  const size_t kernelRoots = roots.size();
  // The factorings name nodes too: those the kernel computes anyway (the only ones code
  // generation can use) follow the merge as extra roots, which adds no node to the graph.
  std::vector<char> reached(plan.graph.size(), 0);
  for (NodeId id : plan.graph.topologicalOrder(roots))
    reached[static_cast<size_t>(id)] = 1;
  std::erase_if(plan.zFactored, [&](const ZFactoredStencil &f) { return !usesComputedNodesOnly(f, reached); });
  for (const ZFactoredStencil &f : plan.zFactored) {
    roots.push_back(f.value);
    roots.push_back(f.transverse);
    for (const ZFactoredStencil::Group &group : f.groups)
      roots.push_back(group.coefficient);
  }
  ScalarGraph simplified = mergeEquivalentNodes(plan.graph, roots, stats);
  for (size_t i = 0; i < plan.stores.size(); ++i)
    plan.stores[i].value = roots[i];
  if (plan.result >= 0)
    plan.result = roots[kernelRoots - 1];
  size_t next = kernelRoots;
  for (ZFactoredStencil &f : plan.zFactored) {
    f.value = roots[next++];
    f.transverse = roots[next++];
    for (ZFactoredStencil::Group &group : f.groups)
      group.coefficient = roots[next++];
  }
  plan.graph = std::move(simplified);
}

} // namespace tensorium_mlir::codegen
