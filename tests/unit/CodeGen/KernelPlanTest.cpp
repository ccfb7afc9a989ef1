// Kernel plans of mixed derivatives across z (KernelPlan::zFactored): the recorded factoring
// is the z stencil applied to the transverse stencil, checked by evaluating the plan's graph
// on a polynomial whose finite differences are exact, against the analytic derivatives.
#include "tensorium_mlir/CodeGen/KernelPlan.h"
#include "tensorium_mlir/Frontend/Frontend.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <string>

using namespace tensorium_mlir;
using namespace tensorium_mlir::codegen;

namespace {

std::string program(unsigned order) {
  return "field scalar f\n"
         "field symmetric cov_tensor2 h[i,j]\n"
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
         "}\n";
}

KernelPlan rhsPlan(unsigned order, bool simplify) {
  const std::string text = program(order);
  frontend::SourceManager sources("mixed.tn", text);
  frontend::DiagnosticEngine diags(sources, nullptr);
  frontend::Module module;
  EXPECT_TRUE(frontend::parseAndAnalyze(sources, diags, module));
  CodeGenOptions options;
  options.kernels = static_cast<unsigned>(KernelSelection::Rhs);
  options.simplify = simplify;
  std::vector<KernelPlan> plans = planKernels(module, options, diags);
  EXPECT_FALSE(diags.hasErrors());
  for (KernelPlan &plan : plans)
    if (plan.family == KernelFamily::RhsGrid)
      return std::move(plan);
  ADD_FAILURE() << "no grid right-hand side planned";
  return {};
}

/// The polynomial the stencils see: quadratic in each axis, so every centred difference of
/// order >= 2 is exact; d_x d_z u = 2 z and d_y d_z u = 2 y.
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
  // d_x d_z and d_y d_z; d_x d_y and the pure second derivatives are not factored.
  ASSERT_EQ(plan.zFactored.size(), 2u);
  const double analytic[2] = {2 * eval.point[2] + 0.3 * eval.point[1], 2 * eval.point[1] + 0.3 * eval.point[0]};
  const double transverse[2] = {eval.point[2] * eval.point[2] + 2 * eval.point[0] * eval.point[1] +
                                    0.3 * eval.point[1] * eval.point[2],
                                2 * eval.point[1] * eval.point[2] + eval.point[0] * eval.point[0] +
                                    0.3 * eval.point[0] * eval.point[2]};
  std::array<bool, 2> seen{false, false};
  for (const ZFactoredStencil &f : plan.zFactored) {
    // One group per distance 1..r of the centred first-derivative stencil: +s and -s.
    ASSERT_EQ(f.groups.size(), order / 2);
    for (const ZFactoredStencil::Group &group : f.groups) {
      ASSERT_EQ(group.positive.size(), 1u);
      ASSERT_EQ(group.negative.size(), 1u);
      EXPECT_EQ(group.positive[0], -group.negative[0]);
    }
    const double t = eval(f.transverse);
    const int axis = std::abs(t - transverse[0]) < 1e-9 ? 0 : 1;
    EXPECT_NEAR(t, transverse[axis], 1e-9) << "the transverse stencil is d_x u or d_y u";
    seen[static_cast<size_t>(axis)] = true;
    const double direct = eval(f.value), viaTransverse = eval.factored(f);
    EXPECT_NEAR(direct, analytic[axis], 1e-9 * std::abs(analytic[axis]));
    EXPECT_NEAR(viaTransverse, direct, 1e-12 * std::abs(direct));
  }
  EXPECT_TRUE(seen[0] && seen[1]);
}

INSTANTIATE_TEST_SUITE_P(OrdersWithAndWithoutSimplification, ZFactoring,
                         ::testing::Combine(::testing::Values(2u, 4u, 6u, 8u), ::testing::Bool()));

} // namespace
