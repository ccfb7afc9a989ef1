// Semantic value numbering: equal functions of the leaves merge, different ones never do.
#include "tensorium_mlir/CodeGen/GraphSimplify.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tensorium_mlir::codegen;

namespace {

struct Fixture {
  ScalarGraph g;
  NodeId leaf(int a, int8_t dx = 0) {
    Leaf l;
    l.kind = LeafKind::Arg;
    l.a = a;
    l.offset = {dx, 0, 0};
    return g.leaf(l);
  }
  /// Simplifies the pair of roots; returns the two rewritten roots and the graph.
  std::pair<NodeId, NodeId> simplify(NodeId a, NodeId b, ScalarGraph &out, SimplifyStats *stats = nullptr) {
    std::vector<NodeId> roots{a, b};
    out = mergeEquivalentNodes(g, roots, stats);
    return {roots[0], roots[1]};
  }
};

TEST(GraphSimplify, ReassociatedSumsAndProductsMerge) {
  Fixture f;
  NodeId a = f.leaf(0), b = f.leaf(1), c = f.leaf(2);
  NodeId left = f.g.add(f.g.add(a, b), c), right = f.g.add(a, f.g.add(b, c));
  ASSERT_NE(left, right); // hash-consing alone keeps them apart
  ScalarGraph out;
  auto [l, r] = f.simplify(left, right, out);
  EXPECT_EQ(l, r);
  NodeId p = f.g.mul(f.g.mul(a, b), c), q = f.g.mul(f.g.mul(c, a), b);
  auto [l2, r2] = f.simplify(p, q, out);
  EXPECT_EQ(l2, r2);
}

TEST(GraphSimplify, SymmetricTensorComponentsBuiltInDifferentOrdersMerge) {
  // T_ij = g_ik g_kl g_lj with g symmetric (upper-triangle leaves): T_01 == T_10.
  Fixture f;
  auto g = [&](int i, int j) { return f.leaf(i <= j ? i * 3 + j : j * 3 + i); };
  auto T = [&](int i, int j) {
    NodeId sum = f.g.constant(0.0);
    for (int k = 0; k < 3; ++k)
      for (int l = 0; l < 3; ++l)
        sum = f.g.add(sum, f.g.mul(f.g.mul(g(i, k), g(k, l)), g(l, j)));
    return sum;
  };
  NodeId t01 = T(0, 1), t10 = T(1, 0);
  ASSERT_NE(t01, t10);
  ScalarGraph out;
  SimplifyStats stats;
  auto [a, b] = f.simplify(t01, t10, out, &stats);
  EXPECT_EQ(a, b);
  EXPECT_LT(stats.nodesAfter, stats.nodesBefore);
  // Their difference is exactly zero and becomes the constant 0.
  NodeId diff = f.g.sub(t01, t10);
  auto [d, unused] = f.simplify(diff, t01, out);
  EXPECT_TRUE(out.isConstant(d, 0.0));
}

TEST(GraphSimplify, CancellationsAndOppositesAndExactConstants) {
  Fixture f;
  NodeId x = f.leaf(0), y = f.leaf(1);
  ScalarGraph out;
  // x - x - x ... collapses term by term: (x - x) - x = -x.
  NodeId chain = f.g.sub(f.g.sub(x, x), x);
  auto [c, negx] = f.simplify(chain, f.g.neg(x), out);
  EXPECT_EQ(c, negx);
  // b - a is the negation of a - b.
  NodeId ab = f.g.sub(x, y), ba = f.g.sub(y, x);
  auto [p, q] = f.simplify(ab, ba, out);
  EXPECT_EQ(out.node(q).op, NodeOp::Neg);
  EXPECT_EQ(out.node(q).lhs, p);
  // x + x == 2 x (2 is an exact dyadic constant); x / y * y == x.
  auto [twice, doubled] = f.simplify(f.g.add(x, x), f.g.mul(f.g.constant(2.0), x), out);
  EXPECT_EQ(twice, doubled);
  auto [quot, same] = f.simplify(f.g.mul(f.g.div(x, y), y), x, out);
  EXPECT_EQ(quot, same);
  auto [half, halves] = f.simplify(f.g.mul(f.g.constant(0.5), f.g.add(x, x)), x, out);
  EXPECT_EQ(half, halves);
}

TEST(GraphSimplify, DifferentFunctionsNeverMerge) {
  Fixture f;
  NodeId x = f.leaf(0), y = f.leaf(1);
  ScalarGraph out;
  struct Case {
    const char *what;
    NodeId a, b;
  } cases[] = {
      // A tiny constant is not rounded away.
      {"x + 1e-20 vs x", f.g.add(x, f.g.constant(1e-20)), x},
      // 2^61 is congruent to 1 modulo the prime; such constants are symbols, not residues.
      {"2^61 x vs x", f.g.mul(f.g.constant(std::ldexp(1.0, 61)), x), x},
      {"2^-40 x vs x", f.g.mul(f.g.constant(std::ldexp(1.0, -40)), x), x},
      // sqrt is uninterpreted: sqrt(x)^2 is not known to be x (conservative, never wrong).
      {"sqrt(x)^2 vs x", f.g.pow(f.g.unary(NodeOp::Sqrt, x), 2, 1), x},
      // Non-dyadic constants are symbols: (1/3) * 3 is not 1 in floating point either.
      {"((1/3) x) 3 vs x", f.g.mul(f.g.mul(f.g.constant(1.0 / 3.0), x), f.g.constant(3.0)), x},
      {"x y vs x + y", f.g.mul(x, y), f.g.add(x, y)},
      {"neighbour vs centre", f.leaf(0, 1), x},
      {"exp(x) vs exp(y)", f.g.unary(NodeOp::Exp, x), f.g.unary(NodeOp::Exp, y)},
  };
  for (const Case &c : cases) {
    auto [a, b] = f.simplify(c.a, c.b, out);
    EXPECT_NE(a, b) << c.what;
  }
}

TEST(GraphSimplify, DeterministicAcrossRuns) {
  Fixture f;
  NodeId x = f.leaf(0), y = f.leaf(1);
  NodeId e = f.g.add(f.g.mul(x, y), f.g.mul(y, f.g.add(x, f.g.constant(0.25))));
  ScalarGraph first, second;
  auto r1 = f.simplify(e, x, first);
  auto r2 = f.simplify(e, x, second);
  EXPECT_EQ(r1, r2);
  EXPECT_EQ(first.size(), second.size());
}

} // namespace
