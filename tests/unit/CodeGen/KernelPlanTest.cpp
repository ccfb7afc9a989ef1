// Kernel plans of mixed derivatives across z (KernelPlan::zFactored): the recorded factoring
// is the z stencil applied to the transverse stencil, checked by evaluating the plan's graph
// on a polynomial whose finite differences are exact, against the analytic derivatives.
#include "tensorium_mlir/CodeGen/KernelPlan.h"
#include "tensorium_mlir/Frontend/Frontend.h"
#include "RhsPlanFromSource.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <string>

using namespace tensorium_mlir;
using namespace tensorium_mlir::codegen;

namespace {

std::string program(unsigned order, bool firstDerivatives = true) {
  return "field scalar f\n"
         "field symmetric cov_tensor2 h[i,j]\n"
         "field cov_tensor3 q[i,j,k]\n"
         "field covector v[i]\n"
         "simulation {\n"
         "  coordinates = cartesian\n"
         "  dimension = 3\n"
         "  resolution = [16, 16, 16]\n"
         "  time { dt = 0.01  integrator = rk4 }\n"
         "  spatial { scheme = fd  derivative = centered  order = " +
         std::to_string(order) +
         " }\n"
         "}\n"
         "evolution Mixed {\n"
         "  dt f = f\n"
         "  dt h[i,j] = d_i(d_j(f))\n"
         "  dt q[i,j,k] = d_i(d_j(d_k(f)))\n"
         + (firstDerivatives ? "  dt v[i] = d_i(f)\n" : "  dt v[i] = v[i]\n") + "}\n";
}

/// Every first and second derivative of f is an output (h, v), so the transverse stencils and
/// the z coefficients of the factorings are nodes the kernel computes: the plan keeps the
/// factorings (value numbering drops those it would not use).
KernelPlan rhsPlan(unsigned order, bool simplify, bool firstDerivatives = true) {
  CodeGenOptions options;
  options.simplify = simplify;
  return rhsPlanFromSource(program(order, firstDerivatives), options);
}

/// The polynomial the stencils see: quadratic in each axis, so every centred difference of
/// order >= 2 is exact; d_x d_z u = 2 z + 0.3 y, d_y d_z u = 2 y + 0.3 x, d_x d_z d_z u = 2 and
/// d_y d_z d_z u = 0.
double u(double x, double y, double z) { return x * z * z + y * y * z + x * x * y + 0.3 * x * y * z; }

struct Evaluator {
  const KernelPlan &plan;
  std::array<double, 3> point, spacing;
  int field = -1;

  /// `id` with every buffer read shifted by `dz` points along z.
  double operator()(NodeId id, int dz = 0) const {
    const Node &n = plan.graph.node(id);
    switch (n.op) {
    case NodeOp::Const: return n.value;
    case NodeOp::Leaf: {
      const Leaf &l = n.leaf;
      if (l.a >= 3 && l.a <= 5 && plan.args[static_cast<size_t>(l.a)].type == ArgType::F64)
        return spacing[static_cast<size_t>(l.a - 3)];
      EXPECT_EQ(l.a, field);
      return u(point[0] + l.offset[0] * spacing[0], point[1] + l.offset[1] * spacing[1],
               point[2] + (l.offset[2] + dz) * spacing[2]);
    }
    case NodeOp::Add: return (*this)(n.lhs, dz) + (*this)(n.rhs, dz);
    case NodeOp::Mul: return (*this)(n.lhs, dz) * (*this)(n.rhs, dz);
    case NodeOp::Div: return (*this)(n.lhs, dz) / (*this)(n.rhs, dz);
    case NodeOp::Neg: return -(*this)(n.lhs, dz);
    default: ADD_FAILURE() << "unexpected operation in a stencil"; return NAN;
    }
  }

  /// The factored form: sum over groups of coefficient * (sum of T at the positive shifts minus
  /// the sum at the negative ones).
  double factored(const ZFactoredStencil &f) const {
    double total = 0;
    for (const ZFactoredStencil::Group &group : f.groups) {
      double sum = 0;
      for (int s : group.positive)
        sum += (*this)(f.transverse, s);
      for (int s : group.negative)
        sum -= (*this)(f.transverse, s);
      total += (*this)(group.coefficient) * sum;
    }
    return total;
  }
};

class ZFactoring : public ::testing::TestWithParam<std::tuple<unsigned, bool>> {};

TEST_P(ZFactoring, MixedDerivativesAcrossZAreTheZStencilOfTheTransverseOne) {
  const auto [order, simplify] = GetParam();
  const KernelPlan plan = rhsPlan(order, simplify);
  Evaluator eval{plan, {0.4, -0.7, 1.3}, {0.1, 0.13, 0.07}};
  for (size_t a = 0; a < plan.args.size(); ++a)
    if (plan.args[a].name == "f" && plan.args[a].type == ArgType::Buffer)
      eval.field = static_cast<int>(a);
  ASSERT_GE(eval.field, 0);
  const double x = eval.point[0], y = eval.point[1], z = eval.point[2];
  // The derivatives across z and x or y, each with its transverse derivative (analytic):
  // d_x d_z, d_y d_z, d_x d_z d_z, d_y d_z d_z, d_x d_y d_z, d_x d_x d_z and d_y d_y d_z. Pure z
  // derivatives and those without z are not factored.
  struct Expected {
    double value, transverse;
    size_t groups;
  };
  const double dx = z * z + 2 * x * y + 0.3 * y * z, dy = 2 * y * z + x * x + 0.3 * x * z;
  const size_t first = order / 2, second = order / 2 + 1; // groups +-s (s = 1..r), and the centre
  const std::vector<Expected> expected{
      {2 * z + 0.3 * y, dx, first}, {2 * y + 0.3 * x, dy, first}, {2.0, dx, second},
      {0.0, dy, second},            {0.3, 2 * x + 0.3 * z, first}, {0.0, 2 * y, first},
      {2.0, 2 * z, first},
  };
  ASSERT_EQ(plan.zFactored.size(), expected.size());
  std::vector<bool> seen(expected.size(), false);
  for (const ZFactoredStencil &f : plan.zFactored) {
    const double t = eval(f.transverse), direct = eval(f.value), viaTransverse = eval.factored(f);
    size_t match = expected.size();
    for (size_t e = 0; e < expected.size(); ++e)
      if (!seen[e] && std::abs(t - expected[e].transverse) < 1e-9 * (1 + std::abs(t)) &&
          std::abs(direct - expected[e].value) < 1e-8 * (1 + std::abs(direct)) && f.groups.size() == expected[e].groups)
        match = e;
    ASSERT_LT(match, expected.size()) << "an unexpected factoring: transverse " << t << ", value " << direct;
    seen[match] = true;
    for (const ZFactoredStencil::Group &group : f.groups) {
      // Centred weights: a shift and its opposite are in one group, with the same sign for an
      // even derivative and opposite signs for an odd one.
      EXPECT_EQ(group.positive.size() + group.negative.size(), group.positive.size() == 1 && group.negative.empty() &&
                                                                       group.positive[0] == 0
                                                                   ? 1u
                                                                   : 2u);
    }
    // Both sum terms of order u / (h_x h_z^2) ~ 1e3 that cancel: rounding ~ 1e-12 absolute.
    EXPECT_NEAR(viaTransverse, direct, 1e-10 + 1e-12 * std::abs(direct));
  }
}

TEST(ZFactoringPlan, ValueNumberingKeepsOnlyFactoringsWhoseNodesTheKernelComputes) {
  // Without the outputs d_i f the kernel computes no first derivative: neither the transverse
  // stencils d_x f and d_y f (of d_x d_z, d_y d_z, d_x d_z d_z, d_y d_z d_z) nor the weights
  // c_s / h_z of a first z derivative (of d_x d_y d_z, d_x d_x d_z, d_y d_y d_z, whose
  // transverse stencils h computes). Every factoring is dropped; without value numbering the
  // plan keeps them all (code generation then skips them).
  EXPECT_EQ(rhsPlan(4, /*simplify=*/true, /*firstDerivatives=*/false).zFactored.size(), 0u);
  EXPECT_EQ(rhsPlan(4, /*simplify=*/false, /*firstDerivatives=*/false).zFactored.size(), 7u);
  EXPECT_EQ(rhsPlan(4, /*simplify=*/true, /*firstDerivatives=*/true).zFactored.size(), 7u);
}

INSTANTIATE_TEST_SUITE_P(OrdersWithAndWithoutSimplification, ZFactoring,
                         ::testing::Combine(::testing::Values(2u, 4u, 6u, 8u), ::testing::Bool()));

} // namespace
