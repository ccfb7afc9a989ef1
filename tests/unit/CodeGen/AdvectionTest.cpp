// Lopsided advection generated from fixtures/codegen/advect_lopsided_3d.tn (order 4): at every
// interior point and axis the kernel must equal the published fourth-order lopsided stencil,
//   beta > 0: beta (-3 u[-1] - 10 u[0] + 18 u[1] - 6 u[2] + u[3]) / (12 h),
//   beta < 0: its mirror image, beta = 0: nothing,
// evaluated here independently; on smooth data it converges to the exact beta^k d_k u at the
// fourth order, like the centred form it replaces.
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "TensoriumAdvectionTests_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

using namespace tensorium_mlir::runtime;

namespace {

const GeneratedHostTables kTables{tensorium_host_kernels, TENSORIUM_HOST_KERNEL_COUNT, tensorium_host_buffers,
                                  TENSORIUM_HOST_BUFFER_COUNT, tensorium_param_names, TENSORIUM_PARAM_COUNT,
                                  TENSORIUM_DIMENSION};

/// A grid of n^3 points x = x0 + i h (i slowest in storage, as the kernels' layout).
struct Cube {
  int n;
  double h, x0;
  size_t at(int i, int j, int l) const { return (static_cast<size_t>(i) * n + static_cast<size_t>(j)) * n + static_cast<size_t>(l); }
  size_t points() const { return static_cast<size_t>(n) * n * n; }
  double x(int i) const { return x0 + i * h; }
};

double field(double x, double y, double z) { return std::sin(1.3 * x + 0.7 * y) * std::cos(0.9 * z) + 0.2 * x * y; }
double fieldGradient(int axis, double x, double y, double z) {
  if (axis == 0)
    return 1.3 * std::cos(1.3 * x + 0.7 * y) * std::cos(0.9 * z) + 0.2 * y;
  if (axis == 1)
    return 0.7 * std::cos(1.3 * x + 0.7 * y) * std::cos(0.9 * z) + 0.2 * x;
  return -0.9 * std::sin(1.3 * x + 0.7 * y) * std::sin(0.9 * z);
}
/// A velocity whose components change sign inside the cube.
double velocity(int axis, double x, double y, double z) {
  return axis == 0 ? std::sin(2 * y + 0.3) : axis == 1 ? x - 0.05 : std::cos(3 * z) * (y + 0.1);
}

/// Runs the generated kernel on the cube; returns du.
std::vector<double> advect(const Cube &c, std::vector<double> *dw = nullptr) {
  GeneratedHostStorage s(kTables, {c.n, c.n, c.n});
  const size_t N = c.points();
  for (int i = 0; i < c.n; ++i)
    for (int j = 0; j < c.n; ++j)
      for (int l = 0; l < c.n; ++l) {
        const double x = c.x(i), y = c.x(j), z = c.x(l);
        s.buffer("u")[c.at(i, j, l)] = field(x, y, z);
        for (int a = 0; a < 3; ++a) {
          s.buffer("beta")[static_cast<size_t>(a) * N + c.at(i, j, l)] = velocity(a, x, y, z);
          s.buffer("w")[static_cast<size_t>(a) * N + c.at(i, j, l)] = (a + 1) * field(x, y, z);
        }
      }
  s.invoke({tensorium_host_kernel_adapters, TENSORIUM_HOST_KERNEL_ADAPTER_COUNT}, "tensorium_rhs_grid_parallel", {},
           {c.h, c.h, c.h});
  const std::span<const double> du = std::as_const(s).buffer("du");
  if (dw) {
    const std::span<const double> w = std::as_const(s).buffer("dw");
    dw->assign(w.begin(), w.end());
  }
  return {du.begin(), du.end()};
}

} // namespace

TEST(Advection, GeneratedKernelIsThePublishedLopsidedStencilOnBothSides) {
  const Cube c{15, 0.11, -0.8};
  GeneratedHostStorage probe(kTables, {c.n, c.n, c.n});
  ASSERT_EQ(probe.binding("tensorium_rhs_grid_parallel").stencilRadius, 3);
  std::vector<double> dw;
  const std::vector<double> du = advect(c, &dw);
  const size_t N = c.points();
  int positive = 0, negative = 0;
  double worst = 0, wrongSide = 0; // wrongSide: the same check with the sides swapped must fail
  for (int i = 3; i < c.n - 3; ++i)
    for (int j = 3; j < c.n - 3; ++j)
      for (int l = 3; l < c.n - 3; ++l) {
        const int p[3] = {i, j, l};
        double expected = 0, swapped = 0;
        for (int a = 0; a < 3; ++a) {
          auto u = [&](int s) {
            int q[3] = {i, j, l};
            q[a] += s;
            return field(c.x(q[0]), c.x(q[1]), c.x(q[2]));
          };
          const double b = velocity(a, c.x(p[0]), c.x(p[1]), c.x(p[2]));
          const double ahead = (-3 * u(-1) - 10 * u(0) + 18 * u(1) - 6 * u(2) + u(3)) / (12 * c.h),
                       behind = (3 * u(1) + 10 * u(0) - 18 * u(-1) + 6 * u(-2) - u(-3)) / (12 * c.h);
          if (b > 0)
            expected += b * ahead, swapped += b * behind, ++positive;
          else if (b < 0)
            expected += b * behind, swapped += b * ahead, ++negative;
        }
        const size_t q = c.at(i, j, l);
        worst = std::max(worst, std::abs(du[q] - expected) / std::max(1.0, std::abs(expected)));
        wrongSide = std::max(wrongSide, std::abs(du[q] - swapped) / std::max(1.0, std::abs(swapped)));
        for (int a = 0; a < 3; ++a) // w^a = (a + 1) u: the same stencils, scaled
          worst = std::max(worst, std::abs(dw[static_cast<size_t>(a) * N + q] - (a + 1) * expected) /
                                      std::max(1.0, std::abs((a + 1) * expected)));
      }
  EXPECT_LT(worst, 1e-12);
  // The sides swapped differ from the kernel by O(h^4) terms (4e-6 here), far above the 1e-12
  // the check allows: it tells the sides apart.
  EXPECT_GT(wrongSide, 1e-8);
  // Both sides were exercised, on every axis together.
  EXPECT_GT(positive, 100);
  EXPECT_GT(negative, 100);
}

TEST(Advection, ConvergesToTheExactAdvectionAtFourthOrder) {
  // The same physical cube [-0.8, 0.8]^3 at h and h/2; errors over the points of the central
  // region both grids share.
  double errors[2];
  for (int level = 0; level < 2; ++level) {
    const int n = level == 0 ? 17 : 33;
    const Cube c{n, 1.6 / (n - 1), -0.8};
    const std::vector<double> du = advect(c);
    double worst = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int l = 0; l < n; ++l) {
          const double x = c.x(i), y = c.x(j), z = c.x(l);
          if (std::abs(x) > 0.4 + 1e-12 || std::abs(y) > 0.4 + 1e-12 || std::abs(z) > 0.4 + 1e-12)
            continue;
          double exact = 0;
          for (int a = 0; a < 3; ++a)
            exact += velocity(a, x, y, z) * fieldGradient(a, x, y, z);
          worst = std::max(worst, std::abs(du[c.at(i, j, l)] - exact));
        }
    errors[level] = worst;
  }
  const double order = std::log2(errors[0] / errors[1]);
  std::printf("lopsided advection: max error %.3e (h = 0.1), %.3e (h = 0.05), order %.2f\n", errors[0], errors[1], order);
  EXPECT_NEAR(order, 4.0, 0.4) << "errors " << errors[0] << ", " << errors[1];
}
