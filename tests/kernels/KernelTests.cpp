// Numerical checks of kernels generated at build time from fixtures/codegen and fixtures/gr.
#include "KernelLibrary.h"
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "tensorium_layout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <set>

using namespace tensorium_test;

namespace {
std::string modulePath(const std::string &name) {
  return std::string(TENSORIUM_KERNEL_DIR) + "/lib" + name + ".so";
}

struct Grid {
  int n[3];
  double h[3];
  double origin[3];
  int64_t points() const { return int64_t(n[0]) * n[1] * n[2]; }
  // The documented layout (tensorium_layout.h): these tests check it against the kernels.
  int64_t linear(int i, int j, int k) const { return tensorium_point_index(n[1], n[2], i, j, k); }
  double coord(int axis, int idx) const { return origin[axis] + idx * h[axis]; }
};

// ------------------------------------------------------------------ finite differences

struct Polynomial {
  int p;
  // u = x^p + 0.5 y^p - 0.3 z^p + 0.7 x^q y^q + 0.2 x y z + 1 with q = p/2
  static double pw(double v, int e) { return e <= 0 ? (e == 0 ? 1.0 : 0.0) : std::pow(v, e); }
  static double fall(int e, int k) { // e (e-1) ... (e-k+1)
    double r = 1;
    for (int i = 0; i < k; ++i)
      r *= e - i;
    return r;
  }
  // d^a/dx^a d^b/dy^b d^c/dz^c of each monomial c0 x^ex y^ey z^ez
  double deriv(const double x[3], int a, int b, int c) const {
    struct Mono { double c; int e[3]; };
    int q = p / 2;
    Mono monos[] = {{1, {p, 0, 0}}, {0.5, {0, p, 0}}, {-0.3, {0, 0, p}}, {0.7, {q, q, 0}}, {0.2, {1, 1, 1}}, {1, {0, 0, 0}}};
    int order[3] = {a, b, c};
    double sum = 0;
    for (const Mono &m : monos) {
      double t = m.c;
      for (int ax = 0; ax < 3; ++ax)
        t *= fall(m.e[ax], order[ax]) * pw(x[ax], m.e[ax] - order[ax]);
      sum += t;
    }
    return sum;
  }
};

using Field = std::function<double(const double *, int, int, int)>; // value or derivative

struct FdRun {
  std::vector<double> u, dg, dh;
};

FdRun runFd(const KernelLibrary &lib, const std::string &symbol, const Grid &g,
            const std::function<double(const double *)> &u) {
  FdRun r;
  int64_t N = g.points();
  r.u.resize(N);
  r.dg.assign(3 * N, 0.0);
  r.dh.assign(9 * N, 0.0);
  for (int i = 0; i < g.n[0]; ++i)
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k) {
        double x[3] = {g.coord(0, i), g.coord(1, j), g.coord(2, k)};
        r.u[g.linear(i, j, k)] = u(x);
      }
  std::vector<int64_t> ints;
  pushMemref(ints, r.u.data(), N);
  pushMemref(ints, r.dg.data(), 3 * N);
  pushMemref(ints, r.dh.data(), 9 * N);
  callKernel<3, 3, 15>(lib.symbol(symbol), {g.n[0], g.n[1], g.n[2]}, {g.h[0], g.h[1], g.h[2]}, ints);
  return r;
}

/// (order, code path): "" is this machine's default, w1 the scalar path, w4/w8 SIMD widths.
class FdDerivatives : public ::testing::TestWithParam<std::tuple<int, std::string>> {
protected:
  int order() const { return std::get<0>(GetParam()); }
  std::string module() const {
    const std::string &path = std::get<1>(GetParam());
    return "fd_derivatives_o" + std::to_string(order()) + (path.empty() ? "" : "_" + path);
  }
};

TEST_P(FdDerivatives, ExactOnPolynomialsOfDegreeOrder) {
  const int p = order();
  KernelLibrary lib(modulePath(module()));
  Grid g{{13, 12, 14}, {0.11, 0.07, 0.13}, {0.3, -0.2, 0.1}};
  Polynomial poly{p};
  const int r = p / 2;
  for (const char *variant : {"tensorium_rhs_grid_scf", "tensorium_rhs_grid_affine", "tensorium_rhs_grid_parallel"}) {
    FdRun run = runFd(lib, variant, g, [&](const double *x) { return poly.deriv(x, 0, 0, 0); });
    int64_t N = g.points();
    double worst = 0;
    for (int i = r; i < g.n[0] - r; ++i)
      for (int j = r; j < g.n[1] - r; ++j)
        for (int k = r; k < g.n[2] - r; ++k) {
          double x[3] = {g.coord(0, i), g.coord(1, j), g.coord(2, k)};
          int64_t pt = g.linear(i, j, k);
          for (int a = 0; a < 3; ++a) {
            int o1[3] = {0, 0, 0};
            o1[a] = 1;
            double exact = poly.deriv(x, o1[0], o1[1], o1[2]);
            worst = std::max(worst, std::abs(run.dg[tensorium_component_index(N, a, pt)] - exact) / std::max(1.0, std::abs(exact)));
            for (int b = 0; b < 3; ++b) {
              int o2[3] = {0, 0, 0};
              o2[a] += 1;
              o2[b] += 1;
              double exact2 = poly.deriv(x, o2[0], o2[1], o2[2]);
              worst = std::max(worst, std::abs(run.dh[tensorium_component_index(N, tensorium_tensor2_component(3, a, b), pt)] - exact2) / std::max(1.0, std::abs(exact2)));
            }
          }
        }
    EXPECT_LT(worst, 1e-9) << variant << " order " << p;
    // Boundary points (outside the stencil domain) are left untouched.
    EXPECT_EQ(run.dg[0], 0.0);
  }
}

TEST_P(FdDerivatives, ObservedOrderOnSmoothFunction) {
  const int p = order();
  KernelLibrary lib(modulePath(module()));
  const double h0 = p == 2 ? 0.04 : p == 4 ? 0.08 : p == 6 ? 0.16 : 0.6;
  auto u = [](const double *x) { return std::sin(x[0]) * std::cos(2 * x[1]) * std::exp(0.5 * x[2]); };
  const double c[3] = {0.3, 0.2, 0.1};
  // exact derivatives at c
  double sx = std::sin(c[0]), cx = std::cos(c[0]), sy = std::sin(2 * c[1]), cy = std::cos(2 * c[1]), ez = std::exp(0.5 * c[2]);
  double exact[3] = {cx * cy * ez, -sx * cy * ez, -2 * cx * sy * ez}; // d_x, d_xx, d_xy
  double errors[3][3];
  for (int level = 0; level < 3; ++level) {
    double h = h0 / (1 << level);
    Grid g{{13, 13, 13}, {h, h, h}, {c[0] - 6 * h, c[1] - 6 * h, c[2] - 6 * h}};
    FdRun run = runFd(lib, "tensorium_rhs_grid_scf", g, u);
    int64_t N = g.points(), pt = g.linear(6, 6, 6);
    double got[3] = {run.dg[0 * N + pt], run.dh[0 * N + pt], run.dh[1 * N + pt]};
    for (int q = 0; q < 3; ++q)
      errors[q][level] = std::abs(got[q] - exact[q]);
  }
  const char *names[3] = {"d_x", "d_xx", "d_xy"};
  for (int q = 0; q < 3; ++q) {
    double order = std::log2(errors[q][1] / errors[q][2]);
    EXPECT_NEAR(order, p, 0.2) << names[q] << " errors " << errors[q][0] << " " << errors[q][1] << " " << errors[q][2];
  }
}

INSTANTIATE_TEST_SUITE_P(Orders, FdDerivatives,
                         ::testing::Combine(::testing::Values(2, 4, 6, 8), ::testing::Values("", "w1", "w4", "w8")),
                         [](const ::testing::TestParamInfo<std::tuple<int, std::string>> &info) {
                           const std::string &path = std::get<1>(info.param);
                           return "Order" + std::to_string(std::get<0>(info.param)) +
                                  (path.empty() ? "Default" : path == "w1" ? "Scalar" : "Simd" + path.substr(1));
                         });

// ------------------------------------------------------------------ derivatives of expressions

TEST(ExpressionDerivatives, ChainRuleAndStencilMatchTheirDiscreteFormulas) {
  Grid g{{12, 13, 11}, {0.09, 0.11, 0.1}, {0.2, -0.3, 0.4}};
  const int64_t N = g.points();
  std::vector<double> u(N), v(N);
  for (int i = 0; i < g.n[0]; ++i)
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k) {
        const double x = g.coord(0, i), y = g.coord(1, j), z = g.coord(2, k);
        u[g.linear(i, j, k)] = std::sin(2 * x + y) * std::exp(0.3 * z);
        v[g.linear(i, j, k)] = std::cos(x - 2 * z) + y * y;
      }
  // 4th-order stencils of any grid function f at (i, j, k).
  auto shifted = [&](const std::vector<double> &f, int axis, int s, int i, int j, int k) {
    int q[3] = {i, j, k};
    q[axis] += s;
    return f[g.linear(q[0], q[1], q[2])];
  };
  auto D = [&](const std::vector<double> &f, int axis, int i, int j, int k) {
    auto at = [&](int s) { return shifted(f, axis, s, i, j, k); };
    return (at(-2) / 12 - 2 * at(-1) / 3 + 2 * at(1) / 3 - at(2) / 12) / g.h[axis];
  };
  auto L = [&](const std::vector<double> &f, int i, int j, int k) {
    double sum = 0;
    for (int axis = 0; axis < 3; ++axis) {
      auto at = [&](int s) { return shifted(f, axis, s, i, j, k); };
      sum += (-at(-2) / 12 + 4 * at(-1) / 3 - 5 * at(0) / 2 + 4 * at(1) / 3 - at(2) / 12) / (g.h[axis] * g.h[axis]);
    }
    return sum;
  };
  std::vector<double> uv(N);
  for (int64_t p = 0; p < N; ++p)
    uv[p] = u[p] * v[p];
  for (const char *mode : {"chain_rule", "stencil"}) {
    KernelLibrary lib(modulePath(std::string("expression_derivatives_") + mode + "_3d"));
    std::vector<double> dg(3 * N, 0.0), dq(N, 0.0);
    std::vector<int64_t> ints;
    for (auto *b : {&u, &v, &dg, &dq})
      pushMemref(ints, b->data(), static_cast<int64_t>(b->size()));
    callKernel<3, 3, 20>(lib.symbol("tensorium_rhs_grid_scf"), {g.n[0], g.n[1], g.n[2]}, {g.h[0], g.h[1], g.h[2]}, ints);
    const bool chain = std::string(mode) == "chain_rule";
    double worst = 0;
    for (int i = 2; i < g.n[0] - 2; ++i)
      for (int j = 2; j < g.n[1] - 2; ++j)
        for (int k = 2; k < g.n[2] - 2; ++k) {
          const int64_t p = g.linear(i, j, k);
          for (int a = 0; a < 3; ++a) {
            const double expected = chain ? v[p] * D(u, a, i, j, k) + u[p] * D(v, a, i, j, k) : D(uv, a, i, j, k);
            worst = std::max(worst, std::abs(dg[a * N + p] - expected) / std::max(1.0, std::abs(expected)));
          }
          double cross = 0;
          for (int a = 0; a < 3; ++a)
            cross += D(u, a, i, j, k) * D(v, a, i, j, k);
          const double expected = chain ? v[p] * L(u, i, j, k) + 2 * cross + u[p] * L(v, i, j, k) : L(uv, i, j, k);
          worst = std::max(worst, std::abs(dq[p] - expected) / std::max(1.0, std::abs(expected)));
        }
    EXPECT_LT(worst, 1e-12) << mode;
  }
}

// ------------------------------------------------------------------ RHS variants

TEST(RhsVariants, ScfAffineParallelAgreeBitwiseAndMatchIndependentStencil) {
  KernelLibrary lib(modulePath("variants_mix_3d"));
  Grid g{{12, 11, 13}, {0.1, 0.12, 0.09}, {-0.4, 0.3, -0.2}};
  const int64_t N = g.points();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(0.5, 1.5);
  // Arguments in ABI order: coords x,y,z; fields alpha, K, beta, gamma, gammaU; outputs.
  std::vector<double> x(N), y(N), z(N), alpha(N), K(N), beta(3 * N), gamma(9 * N), gammaU(9 * N);
  for (int i = 0; i < g.n[0]; ++i)
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k) {
        int64_t pt = g.linear(i, j, k);
        x[pt] = g.coord(0, i);
        y[pt] = g.coord(1, j);
        z[pt] = g.coord(2, k);
      }
  for (auto *v : {&alpha, &K, &beta, &gamma, &gammaU})
    for (double &e : *v)
      e = dist(rng);
  const double eta = 0.75, kappa = 0.3;
  std::vector<std::vector<double>> results;
  for (const char *variant : {"tensorium_rhs_grid_scf", "tensorium_rhs_grid_affine", "tensorium_rhs_grid_parallel"}) {
    std::vector<double> dalpha(N, 0.0), dK(N, 0.0), dbeta(3 * N, 0.0), dgamma(9 * N, 0.0);
    std::vector<int64_t> ints;
    for (auto *v : {&x, &y, &z, &alpha, &K, &beta, &gamma, &gammaU, &dalpha, &dK, &dbeta, &dgamma})
      pushMemref(ints, v->data(), static_cast<int64_t>(v->size()));
    callKernel<3, 5, 60>(lib.symbol(variant), {g.n[0], g.n[1], g.n[2]}, {g.h[0], g.h[1], g.h[2], eta, kappa}, ints);
    std::vector<double> all;
    for (auto *v : {&dalpha, &dK, &dbeta, &dgamma})
      all.insert(all.end(), v->begin(), v->end());
    results.push_back(std::move(all));
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  for (size_t i = 0; i < results[0].size(); ++i) {
    ASSERT_EQ(results[0][i], results[1][i]) << "affine differs at " << i;
    ASSERT_EQ(results[0][i], results[2][i]) << "parallel differs at " << i;
  }
  // gamma is a declared metric: its right-hand side is computed on the upper triangle and
  // mirrored, so dgamma is exactly symmetric.
  const size_t dgammaStart = 5 * static_cast<size_t>(N);
  for (int a = 0; a < 3; ++a)
    for (int b = a + 1; b < 3; ++b)
      for (int64_t pt = 0; pt < N; ++pt)
        ASSERT_EQ(results[0][dgammaStart + (a * 3 + b) * N + pt], results[0][dgammaStart + (b * 3 + a) * N + pt]);
  // Independent evaluation of dalpha = -2 alpha K + beta^k d_k alpha (4th-order stencil).
  auto d1 = [&](const std::vector<double> &f, int64_t base, int axis, int i, int j, int k) {
    int idx[3] = {i, j, k};
    auto at = [&](int s) {
      int q[3] = {idx[0], idx[1], idx[2]};
      q[axis] += s;
      return f[base + g.linear(q[0], q[1], q[2])];
    };
    return (at(-2) / 12 - 2 * at(-1) / 3 + 2 * at(1) / 3 - at(2) / 12) / g.h[axis];
  };
  for (int i = 2; i < g.n[0] - 2; i += 3)
    for (int j = 2; j < g.n[1] - 2; j += 3)
      for (int k = 2; k < g.n[2] - 2; k += 3) {
        int64_t pt = g.linear(i, j, k);
        double expected = -2 * alpha[pt] * K[pt];
        for (int a = 0; a < 3; ++a)
          expected += beta[a * N + pt] * d1(alpha, 0, a, i, j, k);
        EXPECT_NEAR(results[0][pt], expected, 1e-12 * std::max(1.0, std::abs(expected)));
      }
}

// ------------------------------------------------------------------ symbolic mode

TEST(SymbolicMode, RhsWithExactDerivativesMatchesFdKernelOnQuintic) {
  // The 4th-order second-derivative stencil is exact on quintics, so the fd kernel and the
  // symbolic source function fed with analytic derivatives must agree to round-off.
  KernelLibrary fd(modulePath("wave_fd")), sym(modulePath("wave_symbolic"));
  auto phi = [](double x, double y, double z) { return std::pow(x, 5) - 2 * x * x * y * y * y + 0.5 * z * z * z * z + x * y * z; };
  auto lap = [](double x, double y, double z) { return 20 * std::pow(x, 3) - 4 * y * y * y - 12 * x * x * y + 6 * z * z; };
  Grid g{{9, 9, 9}, {0.1, 0.15, 0.12}, {0.2, -0.4, 0.3}};
  const int64_t N = g.points();
  std::vector<double> vphi(N), vPi(N), dphi(N, 0.0), dPi(N, 0.0);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j)
      for (int k = 0; k < 9; ++k) {
        int64_t pt = g.linear(i, j, k);
        vphi[pt] = phi(g.coord(0, i), g.coord(1, j), g.coord(2, k));
        vPi[pt] = 0.1 * i - 0.2 * j + 0.05 * k;
      }
  const double c2 = 1.7;
  std::vector<int64_t> ints;
  for (auto *v : {&vphi, &vPi, &dphi, &dPi})
    pushMemref(ints, v->data(), N);
  callKernel<3, 4, 20>(fd.symbol("tensorium_rhs_grid_scf"), {9, 9, 9}, {g.h[0], g.h[1], g.h[2], c2}, ints);
  for (int i = 2; i < 7; ++i)
    for (int j = 2; j < 7; ++j)
      for (int k = 2; k < 7; ++k) {
        double x = g.coord(0, i), y = g.coord(1, j), z = g.coord(2, k);
        int64_t pt = g.linear(i, j, k);
        double outPhi = 0, outPi = 0;
        // tensorium_rhs(c2, phi_dzz, phi_dyy, phi_dxx, Pi, dphi[1], dPi[1])
        double dzz = 6 * z * z, dyy = -12 * x * x * y, dxx = 20 * x * x * x - 4 * y * y * y;
        std::vector<int64_t> out;
        pushMemref(out, &outPhi, 1);
        pushMemref(out, &outPi, 1);
        callKernel<0, 5, 10>(sym.symbol("tensorium_rhs"), {}, {c2, dzz, dyy, dxx, vPi[pt]}, out);
        EXPECT_EQ(outPhi, vPi[pt]);
        EXPECT_NEAR(outPi, c2 * lap(x, y, z), 1e-13 * std::max(1.0, std::abs(outPi)));
        EXPECT_NEAR(dPi[pt], outPi, 1e-9 * std::max(1.0, std::abs(outPi)));
      }
}

// ------------------------------------------------------------------ initial data

TEST(InitialData, SchwarzschildPointKernelIsExactAndMetricTimesInverseIsIdentity) {
  KernelLibrary lib(modulePath("schwarzschild_isotropic_3d"));
  void *point = lib.symbol("tensorium_init_point");
  const double M = 1.3;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> dist(-4.0, 4.0);
  for (int trial = 0; trial < 50; ++trial) {
    double x = dist(rng), y = dist(rng), z = dist(rng);
    double r = std::sqrt(x * x + y * y + z * z);
    if (r < 0.2)
      continue;
    double alpha = 0, gamma[9] = {}, gammaU[9] = {};
    std::vector<int64_t> ints;
    pushMemref(ints, &alpha, 1);
    pushMemref(ints, gamma, 9);
    pushMemref(ints, gammaU, 9);
    callKernel<0, 4, 15>(point, {}, {M, x, y, z}, ints);
    double psi = 1 + M / (2 * r);
    // The split recovers alpha = sqrt(-g_00) > 0, so inside r = M/2 it is |lapse|.
    EXPECT_NEAR(alpha, std::abs(1 - M / (2 * r)) / psi, 1e-14);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        EXPECT_NEAR(gamma[i * 3 + j], i == j ? std::pow(psi, 4) : 0.0, 1e-13 * std::pow(psi, 4));
        double product = 0;
        for (int k = 0; k < 3; ++k)
          product += gamma[i * 3 + k] * gammaU[k * 3 + j];
        EXPECT_NEAR(product, i == j ? 1.0 : 0.0, 1e-13);
      }
  }
}

TEST(InitialData, GridKernelsMatchPointKernel) {
  KernelLibrary lib(modulePath("schwarzschild_isotropic_3d"));
  const double M = 0.8;
  const int64_t n = 57;
  std::vector<double> x(n), y(n), z(n);
  for (int64_t p = 0; p < n; ++p) {
    x[p] = 0.3 + 0.11 * p;
    y[p] = -1.0 + 0.05 * p;
    z[p] = 0.7 - 0.02 * p;
  }
  for (const char *variant : {"tensorium_init_grid_scf", "tensorium_init_grid_affine"}) {
    std::vector<double> alpha(n), gamma(9 * n), gammaU(9 * n);
    std::vector<int64_t> ints;
    for (auto *v : {&x, &y, &z, &alpha, &gamma, &gammaU})
      pushMemref(ints, v->data(), static_cast<int64_t>(v->size()));
    callKernel<0, 1, 30>(lib.symbol(variant), {}, {M}, ints);
    for (int64_t p = 0; p < n; ++p) {
      double a = 0, gm[9], gu[9];
      std::vector<int64_t> pi;
      pushMemref(pi, &a, 1);
      pushMemref(pi, gm, 9);
      pushMemref(pi, gu, 9);
      callKernel<0, 4, 15>(lib.symbol("tensorium_init_point"), {}, {M, x[p], y[p], z[p]}, pi);
      ASSERT_EQ(alpha[p], a) << variant;
      for (int c = 0; c < 9; ++c) {
        ASSERT_EQ(gamma[c * n + p], gm[c]) << variant;
        ASSERT_EQ(gammaU[c * n + p], gu[c]) << variant;
      }
    }
  }
}

// ------------------------------------------------------------------ spectral residuals

struct Bundle {
  double v[10];
};

double referenceResidual(const Bundle &u, const Bundle &w, const double *x, double a, double b) {
  double lu = u.v[4] + u.v[7] + u.v[9], lw = w.v[4] + w.v[7] + w.v[9];
  double U = u.v[0], W = w.v[0];
  return lu + a * std::pow(U, 5) + b * std::pow(2 + U * U, -3.5) + std::sin(W) * std::cos(U) +
         std::exp(0.1 * U * W) + std::log(2 + U * U) + std::sqrt(1 + W * W) / (1 + U * U) + x[0] * lw +
         x[1] * U * std::cbrt(W) + std::pow(1 + W * W, 0.3 * U);
}

TEST(SpectralResidual, PointKernelMatchesIndependentEvaluation) {
  KernelLibrary lib(modulePath("spectral_nonlinear_3d"));
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> value(0.5, 1.5), slope(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    Bundle u, w;
    for (int s = 0; s < 10; ++s) {
      u.v[s] = s == 0 ? value(rng) : slope(rng);
      w.v[s] = s == 0 ? value(rng) : slope(rng);
    }
    double x[3] = {slope(rng), slope(rng), slope(rng)}, a = 0.4, b = -1.1;
    std::array<double, 25> args{};
    for (int s = 0; s < 10; ++s) {
      args[s] = u.v[s];
      args[10 + s] = w.v[s];
    }
    args[20] = x[0], args[21] = x[1], args[22] = x[2], args[23] = a, args[24] = b;
    double got = callScalar(lib.symbol("tensorium_spectral_residual_F"), args);
    double want = referenceResidual(u, w, x, a, b);
    EXPECT_NEAR(got, want, 1e-13 * std::max(1.0, std::abs(want)));
  }
}

TEST(SpectralResidual, JvpMatchesCentralDifference) {
  KernelLibrary lib(modulePath("spectral_nonlinear_3d"));
  void *F = lib.symbol("tensorium_spectral_residual_F");
  void *J = lib.symbol("tensorium_spectral_residual_jvp_F");
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> value(0.5, 1.5), slope(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    std::array<double, 20> q, dir;
    for (int s = 0; s < 20; ++s) {
      q[s] = s % 10 == 0 ? value(rng) : slope(rng);
      dir[s] = slope(rng);
    }
    double tail[5] = {slope(rng), slope(rng), slope(rng), 0.4, -1.1};
    auto evalAt = [&](double eps) {
      std::array<double, 25> args{};
      for (int s = 0; s < 20; ++s)
        args[s] = q[s] + eps * dir[s];
      for (int t = 0; t < 5; ++t)
        args[20 + t] = tail[t];
      return callScalar(F, args);
    };
    const double eps = 1e-6;
    double fd = (evalAt(eps) - evalAt(-eps)) / (2 * eps);
    std::array<double, 45> jargs{};
    for (int s = 0; s < 20; ++s) {
      jargs[s] = q[s];
      jargs[20 + s] = dir[s];
    }
    for (int t = 0; t < 5; ++t)
      jargs[40 + t] = tail[t];
    double jvp = callScalar(J, jargs);
    EXPECT_NEAR(jvp, fd, 1e-7 * std::max(1.0, std::abs(fd)));
  }
}

TEST(SpectralResidual, GridKernelMatchesPointKernel) {
  KernelLibrary lib(modulePath("spectral_nonlinear_3d"));
  const int64_t n = 31;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> value(0.5, 1.5), slope(-1.0, 1.0);
  std::vector<std::vector<double>> bundles(20, std::vector<double>(n));
  std::vector<std::vector<double>> coords(3, std::vector<double>(n));
  for (int s = 0; s < 20; ++s)
    for (double &v : bundles[s])
      v = s % 10 == 0 ? value(rng) : slope(rng);
  for (auto &c : coords)
    for (double &v : c)
      v = slope(rng);
  std::vector<double> out(n, 0.0);
  std::vector<int64_t> ints;
  for (auto &b : bundles)
    pushMemref(ints, b.data(), n);
  for (auto &c : coords)
    pushMemref(ints, c.data(), n);
  pushMemref(ints, out.data(), n);
  callKernel<1, 2, 120>(lib.symbol("tensorium_spectral_residual_grid_F"), {n}, {0.4, -1.1}, ints);
  for (int64_t p = 0; p < n; ++p) {
    std::array<double, 25> args{};
    for (int s = 0; s < 20; ++s)
      args[s] = bundles[s][p];
    for (int a = 0; a < 3; ++a)
      args[20 + a] = coords[a][p];
    args[23] = 0.4;
    args[24] = -1.1;
    EXPECT_EQ(out[p], callScalar(lib.symbol("tensorium_spectral_residual_F"), args));
  }
}

// ------------------------------------------------------------------ BSSN: SIMD + FMA vs scalar

/// Right-hand sides of fixtures/gr/bssn_evolution_3d.tn from one module on a smooth, strongly
/// varying state (every term of the equations is far from zero); the outputs start as NaN so
/// that a write outside the interior shows.
/// Loads `module`, builds its grid storage on `g`, lets `fill` set the buffers, runs `symbol`
/// with `params` and returns the buffers that `isOutput` names.
std::map<std::string, std::vector<double>>
runModule(const std::string &module, const std::string &symbol, const Grid &g, std::span<const double> params,
          const std::function<void(tensorium_mlir::runtime::GeneratedHostStorage &)> &fill,
          const std::function<bool(const tensorium_mlir::runtime::GeneratedHostStorage &, const std::string &)> &isOutput) {
  KernelLibrary lib(modulePath(module));
  auto get = reinterpret_cast<tensorium_get_module_tables_fn>(lib.symbol("tensorium_get_module_tables"));
  const tensorium_module_tables &t = *get();
  tensorium_mlir::runtime::GeneratedHostTables tables{t.kernels, static_cast<size_t>(t.kernel_count), t.buffers,
                                                      static_cast<size_t>(t.buffer_count), t.param_names,
                                                      static_cast<size_t>(t.param_count), 3};
  tensorium_mlir::runtime::GeneratedHostStorage storage(tables, {g.n[0], g.n[1], g.n[2]});
  fill(storage);
  std::span<const tensorium_host_kernel_adapter> adapters(t.adapters, static_cast<size_t>(t.adapter_count));
  storage.invoke(adapters, symbol, params, {g.h[0], g.h[1], g.h[2]});
  std::map<std::string, std::vector<double>> out;
  for (const auto &b : storage.buffers())
    if (isOutput(storage, b.name)) {
      std::span<const double> v = storage.buffer(b.name);
      out[b.name].assign(v.begin(), v.end());
    }
  return out;
}

std::map<std::string, std::vector<double>> bssnRhs(const std::string &module, const std::string &symbol,
                                                   const Grid &g) {
  const int64_t N = g.points();
  auto isOutput = [](const tensorium_mlir::runtime::GeneratedHostStorage &storage, const std::string &name) {
    return name[0] == 'd' && storage.hasBuffer(name.substr(1));
  };
  auto wave = [&](int64_t p, int c, double amplitude) {
    const int i = static_cast<int>(p / (int64_t(g.n[1]) * g.n[2])), j = static_cast<int>(p / g.n[2] % g.n[1]),
              k = static_cast<int>(p % g.n[2]);
    const double x = g.coord(0, i), y = g.coord(1, j), z = g.coord(2, k);
    return amplitude * std::sin((1 + c % 3) * x - (2 - c % 2) * y + (0.5 + 0.3 * c) * z + 0.7 * c);
  };
  auto fill = [&](tensorium_mlir::runtime::GeneratedHostStorage &storage) {
    for (const auto &b : storage.buffers()) {
      std::span<double> v = storage.buffer(b.name);
      const bool output = isOutput(storage, b.name);
      for (int64_t p = 0; p < N; ++p)
        for (unsigned c = 0; c < b.componentCount; ++c) {
          const int cc = static_cast<int>(c), sym = cc / 3 <= cc % 3 ? cc : (cc % 3) * 3 + cc / 3;
          double value = output ? std::nan("") : wave(p, sym + 3 * static_cast<int>(b.name.size()), 0.1);
          if (!output && (b.name == "chi" || b.name == "alpha" ||
                          (b.componentCount == 9 && b.name.rfind("gammatilde", 0) == 0 && c % 4 == 0)))
            value += 1;
          v[static_cast<size_t>(c * N + p)] = value;
        }
    }
    // gammatildeU: the inverse of gammatilde at every point.
    std::span<double> gd = storage.buffer("gammatilde"), gu = storage.buffer("gammatildeU");
    for (int64_t p = 0; p < N; ++p) {
      auto m = [&](int a, int b) { return gd[static_cast<size_t>((a * 3 + b) * N + p)]; };
      const double det = m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) -
                         m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0)) + m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0));
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          const int a1 = (b + 1) % 3, a2 = (b + 2) % 3, b1 = (a + 1) % 3, b2 = (a + 2) % 3;
          gu[static_cast<size_t>((a * 3 + b) * N + p)] = (m(a1, b1) * m(a2, b2) - m(a1, b2) * m(a2, b1)) / det;
        }
    }
  };
  const double params[5] = {2.0, 1.0, 0.75, 0.1, 1.0}; // eta, 1+log, Gamma-driver, KO sigma, advected
  return runModule(module, symbol, g, params, fill, isOutput);
}

/// Whether value `q` of a buffer on `g` (components one after another) lies at least `r`
/// points inside the grid along every axis.
bool insideInterior(const Grid &g, size_t q, int r) {
  const int64_t p = static_cast<int64_t>(q % static_cast<size_t>(g.points()));
  const int i = static_cast<int>(p / (int64_t(g.n[1]) * g.n[2])), j = static_cast<int>(p / g.n[2] % g.n[1]),
            k = static_cast<int>(p % g.n[2]);
  return i >= r && i < g.n[0] - r && j >= r && j < g.n[1] - r && k >= r && k < g.n[2] - r;
}

/// The modules `<prefix>_scalar`, `<prefix>_simd`, `<prefix>_simd_strict` and
/// `<prefix>_simd_factored` on `grids`: every variant of each SIMD module within 1e-12 of the
/// scalar path's largest value per field, the strict one bitwise equal, and none writing
/// outside the interior (stencil radius `r`). `extraStrict` names further modules that must
/// agree bitwise, `extraClose` further ones held to 1e-12 only.
void expectBssnAgreement(const std::string &prefix, std::initializer_list<Grid> grids, int r,
                         std::initializer_list<std::string> extraStrict = {},
                         std::initializer_list<std::string> extraClose = {}) {
  std::vector<std::string> modules{prefix + "_scalar", prefix + "_simd", prefix + "_simd_strict",
                                   prefix + "_simd_factored"};
  modules.insert(modules.end(), extraStrict.begin(), extraStrict.end());
  std::set<std::string> close{prefix + "_simd", prefix + "_simd_factored"};
  close.insert(extraClose.begin(), extraClose.end());
  modules.insert(modules.end(), extraClose.begin(), extraClose.end());
  for (const Grid &g : grids) {
    const auto reference = bssnRhs(prefix + "_scalar", "tensorium_rhs_grid_scf", g);
    ASSERT_EQ(reference.size(), 8u); // every state field but gammatildeU
    for (const std::string &module : modules)
      for (const char *symbol : {"tensorium_rhs_grid_scf", "tensorium_rhs_grid_affine", "tensorium_rhs_grid_parallel"}) {
        const auto result = bssnRhs(module, symbol, g);
        bool differs = false; // modules held to 1e-12 round differently somewhere (FMA, factoring)
        for (const auto &[name, expected] : reference) {
          const std::vector<double> &got = result.at(name);
          double scale = 0, worst = 0;
          size_t interior = 0;
          for (size_t q = 0; q < expected.size(); ++q) {
            if (!insideInterior(g, q, r)) {
              ASSERT_TRUE(std::isnan(got[q])) << module << " " << symbol << " wrote " << name << " outside the interior";
              continue;
            }
            ++interior;
            ASSERT_TRUE(std::isfinite(got[q])) << module << " " << symbol << " " << name;
            scale = std::max(scale, std::abs(expected[q]));
            worst = std::max(worst, std::abs(got[q] - expected[q]));
          }
          EXPECT_GT(interior, 0u);
          EXPECT_GT(scale, 1e-3) << name << ": the state should drive every equation";
          EXPECT_LE(worst, 1e-12 * scale) << module << " " << symbol << " " << name << " relative difference "
                                          << worst / scale;
          differs = differs || worst > 0;
          if (!close.count(module)) {
            // Per lane the strict vector kernel performs the scalar path's operations in the
            // same order, in two passes or one, with its z-shifted reads as lane shifts.
            EXPECT_EQ(worst, 0.0) << module << " agrees bitwise with the scalar path: " << symbol << " " << name;
          } else {
            std::printf("%s %s %s: relative difference %.2e\n", module.c_str(), symbol, name.c_str(), worst / scale);
          }
        }
        if (close.count(module)) {
          EXPECT_TRUE(differs) << module << " " << symbol << " rounds exactly as the scalar path: nothing contracted or factored";
        }
      }
  }
}

TEST(BssnSimd, AgreesWithScalarPathPerFieldAndWritesOnlyTheInterior) {
  // 19 - 6 = 13 interior points per line: one full 8-wide step and one overlapping step;
  // 9 - 6 = 3: a line shorter than the width, lanes masked off; 143 - 6 = 137: two chunks of
  // the two-pass rows (128 points, then 9 in two steps, the second overlapping). The tiled
  // modules compute rows in tiles of 5 points: steps that start and end inside a row. The
  // factored module forms the mixed derivatives across z from the transverse derivatives
  // without contraction: it differs from the scalar path by the rounding of that order alone.
  expectBssnAgreement("bssn",
                      {Grid{{15, 12, 19}, {0.11, 0.09, 0.1}, {-0.3, 0.2, 0.1}},
                       Grid{{10, 11, 9}, {0.12, 0.1, 0.08}, {0.2, -0.4, 0.3}},
                       Grid{{8, 9, 143}, {0.1, 0.12, 0.09}, {0.1, 0.3, -0.7}}},
                      3, {"bssn_simd_strict_tiled"}, {"bssn_simd_tiled"}); // Kreiss-Oliger at 4th order
}

extern "C" {
void omp_set_num_threads(int);
int omp_get_max_threads(void);
}

TEST(BssnSimd, ParallelRowTilesCoverEveryRowForAnyTeamSize) {
  // The parallel variant splits the rows over the OpenMP team it will get: 11 interior rows
  // here, shares of 11, 6 + 5, 4 + 4 + 3, ..., and more threads than rows (empty tiles). For
  // every team size it computes what the scf variant of the same module computes, bitwise, at
  // every interior point and nowhere else (outputs start as NaN).
  const Grid g{{10, 17, 12}, {0.11, 0.09, 0.1}, {-0.3, 0.2, 0.1}};
  const int r = 3;
  // The team size is restored however the test ends (a failed ASSERT returns early).
  struct RestoreTeam {
    int size = omp_get_max_threads();
    ~RestoreTeam() { omp_set_num_threads(size); }
  } restore;
  for (const char *module : {"bssn_simd", "bssn_scalar"}) {
    const auto reference = bssnRhs(module, "tensorium_rhs_grid_scf", g);
    for (int team : {1, 2, 3, 4, 7, 16}) {
      omp_set_num_threads(team);
      const auto result = bssnRhs(module, "tensorium_rhs_grid_parallel", g);
      for (const auto &[name, expected] : reference) {
        const std::vector<double> &got = result.at(name);
        size_t written = 0;
        for (size_t q = 0; q < expected.size(); ++q) {
          if (!insideInterior(g, q, r)) {
            ASSERT_TRUE(std::isnan(got[q])) << module << " team " << team << " wrote " << name << " outside the interior";
            continue;
          }
          ASSERT_EQ(std::memcmp(&got[q], &expected[q], sizeof(double)), 0)
              << module << " team " << team << " " << name << " at value " << q;
          ++written;
        }
        EXPECT_GT(written, 0u);
      }
    }
  }
}

TEST(BssnSimd, EighthOrderAgreesWithScalarPath) {
  // Stencil radius 5 (Kreiss-Oliger of order 10): lane shifts by up to 5 of 8 lanes, the
  // vector before a step read in its last 5 lanes and the one after in up to its first 5.
  // 21 - 10 = 11 interior points per line: a full step and an overlapping one; 13 - 10 = 3:
  // masked lanes; 147 - 10 = 137: two chunks.
  expectBssnAgreement("bssn8",
                      {Grid{{12, 13, 21}, {0.11, 0.09, 0.1}, {-0.3, 0.2, 0.1}},
                       Grid{{11, 12, 13}, {0.12, 0.1, 0.08}, {0.2, -0.4, 0.3}},
                       Grid{{11, 11, 147}, {0.1, 0.12, 0.09}, {0.1, 0.3, -0.7}}},
                      5);
}

// ------------------------------------------------------------------ third derivatives

/// Right-hand sides of fixtures/codegen/third_derivatives_3d.tn from one module on smooth,
/// strongly varying state fields; the outputs start as NaN so that a write outside the
/// interior shows.
std::map<std::string, std::vector<double>> thirdDerivativeRhs(const std::string &module, const std::string &symbol,
                                                              const Grid &g) {
  const int64_t N = g.points();
  // The kernel writes du, dw, ds, dqu, dqw and dqs and reads u, w and s only.
  auto isOutput = [](const tensorium_mlir::runtime::GeneratedHostStorage &, const std::string &name) {
    return name[0] == 'd';
  };
  auto fill = [&](tensorium_mlir::runtime::GeneratedHostStorage &storage) {
    for (const auto &b : storage.buffers()) {
      std::span<double> v = storage.buffer(b.name);
      const double c = static_cast<double>(b.name[0] % 7);
      for (int i = 0; i < g.n[0]; ++i)
        for (int j = 0; j < g.n[1]; ++j)
          for (int k = 0; k < g.n[2]; ++k) {
            const double x = g.coord(0, i), y = g.coord(1, j), z = g.coord(2, k);
            for (unsigned comp = 0; comp < b.componentCount; ++comp)
              v[static_cast<size_t>(comp * N + g.linear(i, j, k))] =
                  isOutput(storage, b.name)
                      ? std::nan("")
                      : 1 + 0.3 * std::sin((1 + c) * x - 2 * y + (0.7 + 0.2 * c) * z * z + 0.1 * comp);
          }
    }
  };
  return runModule(module, symbol, g, {}, fill, isOutput);
}

TEST(FactoredMixedDerivatives, ThirdDerivativesAgreeWithScalarPath) {
  // Stencil radius 4. 21 - 8 = 13 interior points per line: a full step and an overlapping
  // one; 11 - 8 = 3: masked lanes; 145 - 8 = 137: two chunks of the two-pass rows. The
  // factored modules round d_x d_z u and its kind as z stencils of d_x u: within 1e-12 of
  // the scalar path's largest value per output, but not bitwise equal to it everywhere.
  const int r = 4;
  for (const Grid &g : {Grid{{12, 13, 21}, {0.11, 0.09, 0.1}, {-0.3, 0.2, 0.1}},
                        Grid{{10, 11, 11}, {0.12, 0.1, 0.08}, {0.2, -0.4, 0.3}},
                        Grid{{9, 10, 145}, {0.1, 0.12, 0.09}, {0.1, 0.3, -0.7}}}) {
    const auto reference = thirdDerivativeRhs("third_scalar", "tensorium_rhs_grid_scf", g);
    ASSERT_EQ(reference.size(), 6u);
    for (const char *module : {"third_simd", "third_simd_factored", "third_simd_factored_tiled"})
      for (const char *symbol : {"tensorium_rhs_grid_scf", "tensorium_rhs_grid_affine", "tensorium_rhs_grid_parallel"}) {
        const auto result = thirdDerivativeRhs(module, symbol, g);
        bool differs = false;
        for (const auto &[name, expected] : reference) {
          const std::vector<double> &got = result.at(name);
          double scale = 0, worst = 0;
          for (size_t q = 0; q < expected.size(); ++q) {
            const int64_t p = static_cast<int64_t>(q % static_cast<size_t>(g.points()));
            const int i = static_cast<int>(p / (int64_t(g.n[1]) * g.n[2])), j = static_cast<int>(p / g.n[2] % g.n[1]),
                      k = static_cast<int>(p % g.n[2]);
            if (i < r || i >= g.n[0] - r || j < r || j >= g.n[1] - r || k < r || k >= g.n[2] - r) {
              ASSERT_TRUE(std::isnan(got[q])) << module << " " << symbol << " wrote " << name << " outside the interior";
              continue;
            }
            ASSERT_TRUE(std::isfinite(got[q])) << module << " " << symbol << " " << name;
            scale = std::max(scale, std::abs(expected[q]));
            worst = std::max(worst, std::abs(got[q] - expected[q]));
          }
          EXPECT_GT(scale, 1e-3) << name;
          EXPECT_LE(worst, 1e-12 * scale) << module << " " << symbol << " " << name << " relative difference "
                                          << worst / scale;
          differs = differs || worst > 0;
        }
        EXPECT_TRUE(differs) << module << " " << symbol << " rounds exactly as the scalar path: nothing factored";
      }
  }
}

} // namespace
