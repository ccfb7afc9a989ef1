// The Weyl-scalar kernel (fixtures/gr/weyl_scalars_3d.tn) against closed forms and a second
// method: Schwarzschild in isotropic and in Kerr-Schild coordinates (Psi2 = -M / R^3 with R the
// areal radius, Psi4 = 0, both approached at the differences' order 4), and Kerr (a = 0.6) in
// Kerr-Schild coordinates against E_ij and B_ij assembled here with the Levi-Civita tensor
// written out (B_ij = eps_i^kl D_k K_lj, eps_ikl = sqrt(det gamma) [ikl]) from nested
// high-order differences of the Kerr fixture's slice. The broken twin (the K K_ij term of E_ij
// with the wrong sign) keeps an error that does not fall.
#include "TensoriumWeylTests_kernels.h"

#include "tensorium_mlir/Horizons/FixtureSlice.h"
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "tensorium_mlir/Runtime/KernelModule.h"
#include "tensorium_mlir/Waves/SpinWeightedHarmonics.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <string>

using namespace tensorium_mlir;
using horizons::Point3;
using horizons::Sym3;

namespace {

using Mat = std::array<std::array<double, 3>, 3>;
/// gamma_ij and K_ij at a point.
using Slice = std::function<void(const Point3 &, Mat &gamma, Mat &K)>;

Mat inverse(const Mat &m) {
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  Mat inv;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int a = (j + 1) % 3, b = (j + 2) % 3, c = (i + 1) % 3, d = (i + 2) % 3;
      inv[i][j] = (m[a][c] * m[b][d] - m[a][d] * m[b][c]) / det;
    }
  return inv;
}

struct Weyl {
  double psi4re = 0, psi4im = 0, psi2re = 0, psi2im = 0;
};

/// The kernel on an n^3 box centred on `centre` with spacing h; the values at the centre.
Weyl kernelAt(const runtime::GeneratedHostTables &tables, std::span<const tensorium_host_kernel_adapter> adapters,
              const Slice &slice, const Point3 &centre, double h, const char *kernel = "tensorium_residual_grid_affine") {
  const int n = 9; // the centre and 4 points each side (the stencil reaches 2)
  runtime::GeneratedHostStorage s(tables, {n, n, n});
  std::span<double> X = s.buffer("x"), Y = s.buffer("y"), Z = s.buffer("z"), g = s.buffer("gamma"), gu = s.buffer("gammaU"),
                    K = s.buffer("Kij");
  const size_t np = static_cast<size_t>(n) * n * n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        const size_t p = static_cast<size_t>((i * n + j) * n + k);
        const Point3 x = {centre[0] + (i - n / 2) * h, centre[1] + (j - n / 2) * h, centre[2] + (k - n / 2) * h};
        X[p] = x[0], Y[p] = x[1], Z[p] = x[2];
        Mat gm, km;
        slice(x, gm, km);
        const Mat inv = inverse(gm);
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) {
            g[static_cast<size_t>(a * 3 + b) * np + p] = gm[a][b];
            gu[static_cast<size_t>(a * 3 + b) * np + p] = inv[a][b];
            K[static_cast<size_t>(a * 3 + b) * np + p] = km[a][b];
          }
      }
  s.invoke(adapters, kernel, std::vector<double>{0, 0, 0}, {h, h, h});
  const size_t c = static_cast<size_t>((n / 2 * n + n / 2) * n + n / 2);
  return {s.buffer("psi4re")[c], s.buffer("psi4im")[c], s.buffer("psi2re")[c], s.buffer("psi2im")[c]};
}

runtime::GeneratedHostTables staticTables() {
  return {tensorium_host_kernels, TENSORIUM_HOST_KERNEL_COUNT, tensorium_host_buffers, TENSORIUM_HOST_BUFFER_COUNT,
          tensorium_param_names, TENSORIUM_PARAM_COUNT, TENSORIUM_DIMENSION};
}
std::span<const tensorium_host_kernel_adapter> staticAdapters() {
  return {tensorium_host_kernel_adapters, TENSORIUM_HOST_KERNEL_ADAPTER_COUNT};
}

Slice schwarzschildIsotropic(double M) {
  return [M](const Point3 &x, Mat &g, Mat &K) {
    const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), psi4 = std::pow(1 + M / (2 * r), 4);
    g = K = Mat{};
    for (int i = 0; i < 3; ++i)
      g[i][i] = psi4;
  };
}

/// Static Schwarzschild in Kerr-Schild coordinates: gamma_ij = delta_ij + 2 H l_i l_j, H = M / r,
/// K_ij = (2 H alpha / r) (delta_ij - (2 + H) l_i l_j), alpha = 1 / sqrt(1 + 2 H).
Slice schwarzschildKerrSchild(double M) {
  return [M](const Point3 &x, Mat &g, Mat &K) {
    const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), H = M / r, alpha = 1 / std::sqrt(1 + 2 * H);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double ll = x[i] * x[j] / (r * r);
        g[i][j] = (i == j) + 2 * H * ll;
        K[i][j] = 2 * H * alpha / r * ((i == j) - (2 + H) * ll);
      }
  };
}

/// A batch sampler of the slice as a function of one point.
Slice pointwise(const horizons::MetricSampler &metric) {
  return [metric](const Point3 &x, Mat &g, Mat &K) {
    Sym3 gs, ks;
    metric(std::span<const Point3>(&x, 1), std::span<Sym3>(&gs, 1), std::span<Sym3>(&ks, 1));
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        g[i][j] = gs[static_cast<size_t>(horizons::symIndex(i, j))], K[i][j] = ks[static_cast<size_t>(horizons::symIndex(i, j))];
  };
}

} // namespace

TEST(WeylScalars, SchwarzschildIsotropicPsi2AndPsi4) {
  const double M = 1;
  const Point3 x = {1.7, -0.9, 1.1};
  const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), R = r * std::pow(1 + M / (2 * r), 2);
  double e2[2], e4[2];
  for (int level = 0; level < 2; ++level) {
    const Weyl w = kernelAt(staticTables(), staticAdapters(), schwarzschildIsotropic(M), x, 0.1 / (1 << level));
    e2[level] = std::abs(w.psi2re + M / (R * R * R)) + std::abs(w.psi2im);
    e4[level] = std::hypot(w.psi4re, w.psi4im);
  }
  std::printf("isotropic: |Psi2 + M/R^3| %.3e -> %.3e (order %.2f), |Psi4| %.3e -> %.3e (order %.2f); Psi2 = %.6f\n", e2[0],
              e2[1], std::log2(e2[0] / e2[1]), e4[0], e4[1], std::log2(e4[0] / e4[1]), -M / (R * R * R));
  EXPECT_GT(std::log2(e2[0] / e2[1]), 3.5);
  EXPECT_GT(std::log2(e4[0] / e4[1]), 3.5);
  EXPECT_LT(e2[1], 1e-5);
}

TEST(WeylScalars, SchwarzschildKerrSchildPsi2AndPsi4AndTheBrokenTwin) {
  const double M = 1;
  const Point3 x = {2.3, 1.2, -0.8};
  const double R = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); // Kerr-Schild r is areal
  double e2[2], e4[2], twin[2];
  runtime::KernelModule twinModule(std::string(TENSORIUM_WEYL_TWIN_DIR) + "/libweyl_twin.so");
  const tensorium_module_tables &t = twinModule.tables();
  const runtime::GeneratedHostTables twinTables{t.kernels, static_cast<size_t>(t.kernel_count), t.buffers,
                                                static_cast<size_t>(t.buffer_count), t.param_names,
                                                static_cast<size_t>(t.param_count), static_cast<unsigned>(t.dimension)};
  for (int level = 0; level < 2; ++level) {
    const double h = 0.1 / (1 << level);
    const Weyl w = kernelAt(staticTables(), staticAdapters(), schwarzschildKerrSchild(M), x, h);
    e2[level] = std::abs(w.psi2re + M / (R * R * R)) + std::abs(w.psi2im);
    e4[level] = std::hypot(w.psi4re, w.psi4im);
    const Weyl b = kernelAt(twinTables, {t.adapters, static_cast<size_t>(t.adapter_count)}, schwarzschildKerrSchild(M), x, h);
    twin[level] = std::abs(b.psi2re + M / (R * R * R)) + std::hypot(b.psi4re, b.psi4im);
  }
  std::printf("Kerr-Schild: |Psi2 + M/R^3| %.3e -> %.3e (order %.2f), |Psi4| %.3e -> %.3e (order %.2f); twin %.3e -> %.3e\n",
              e2[0], e2[1], std::log2(e2[0] / e2[1]), e4[0], e4[1], std::log2(e4[0] / e4[1]), twin[0], twin[1]);
  EXPECT_GT(std::log2(e2[0] / e2[1]), 3.5);
  EXPECT_GT(std::log2(e4[0] / e4[1]), 3.5);
  EXPECT_LT(e2[1], 1e-5);
  // The twin: an error that does not fall with h.
  EXPECT_GT(twin[1], 1e-3);
  EXPECT_LT(std::log2(twin[0] / twin[1]), 0.5);
}

namespace {

/// E_ij and B_ij by nested order-6 differences of gamma_ij and K_ij, with eps written out; then
/// Psi4 and Psi2 on the same triad definition as the fixture (a second method for the kernel).
Weyl referenceWeyl(const horizons::MetricSampler &metric, const Point3 &x0) {
  const Slice slice = pointwise(metric);
  const double e = 2e-3;
  constexpr double w[3] = {3.0 / 4, -3.0 / 20, 1.0 / 60};
  // d_a of a matrix-valued function by order-6 differences.
  auto dmat = [&](const std::function<Mat(const Point3 &)> &f, const Point3 &x, int a) {
    Mat d{};
    for (int s = 1; s <= 3; ++s) {
      Point3 p = x, m = x;
      p[static_cast<size_t>(a)] += s * e, m[static_cast<size_t>(a)] -= s * e;
      const Mat fp = f(p), fm = f(m);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          d[i][j] += w[s - 1] * (fp[i][j] - fm[i][j]) / e;
    }
    return d;
  };
  auto gammaAt = [&](const Point3 &x) { Mat g, K; slice(x, g, K); return g; };
  auto kAt = [&](const Point3 &x) { Mat g, K; slice(x, g, K); return K; };
  // Christoffel symbols Gamma^k_ij at a point.
  using Gamma = std::array<Mat, 3>;
  auto christoffel = [&](const Point3 &x) {
    const Mat g = gammaAt(x), gi = inverse(g);
    std::array<Mat, 3> dg;
    for (int a = 0; a < 3; ++a)
      dg[a] = dmat(gammaAt, x, a);
    Gamma G{};
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          for (int l = 0; l < 3; ++l)
            G[k][i][j] += 0.5 * gi[k][l] * (dg[i][l][j] + dg[j][l][i] - dg[l][i][j]);
    return G;
  };
  Mat g, K;
  slice(x0, g, K);
  const Mat gi = inverse(g);
  const Gamma G = christoffel(x0);
  std::array<Gamma, 3> dG; // dG[a][k][i][j] = d_a Gamma^k_ij
  for (int a = 0; a < 3; ++a)
    for (int k = 0; k < 3; ++k)
      dG[a][k] = dmat([&](const Point3 &x) { return christoffel(x)[k]; }, x0, a);
  std::array<Mat, 3> dK;
  for (int a = 0; a < 3; ++a)
    dK[a] = dmat(kAt, x0, a);
  Mat Ric{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) {
        Ric[i][j] += dG[k][k][i][j] - dG[j][k][i][k];
        for (int l = 0; l < 3; ++l)
          Ric[i][j] += G[k][k][l] * G[l][i][j] - G[k][j][l] * G[l][i][k];
      }
  double trK = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      trK += gi[i][j] * K[i][j];
  Mat E{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      E[i][j] = Ric[i][j] + trK * K[i][j];
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l)
          E[i][j] -= K[i][k] * gi[k][l] * K[l][j];
    }
  // D_k K_lj and B_ij = eps_i^kl D_k K_lj.
  double DK[3][3][3];
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l)
      for (int j = 0; j < 3; ++j) {
        DK[k][l][j] = dK[k][l][j];
        for (int m = 0; m < 3; ++m)
          DK[k][l][j] -= G[m][k][l] * K[m][j] + G[m][k][j] * K[l][m];
      }
  const double sqrtDet = std::sqrt(g[0][0] * (g[1][1] * g[2][2] - g[1][2] * g[2][1]) - g[0][1] * (g[1][0] * g[2][2] - g[1][2] * g[2][0]) +
                                   g[0][2] * (g[1][0] * g[2][1] - g[1][1] * g[2][0]));
  auto levi = [](int i, int j, int k) { return (i - j) * (j - k) * (k - i) / 2.0; };
  Mat B{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          for (int k = 0; k < 3; ++k)
            for (int l = 0; l < 3; ++l)
              B[i][j] += sqrtDet * levi(i, a, b) * gi[a][k] * gi[b][l] * DK[k][l][j];
  // The triad: Gram-Schmidt of phi, r, theta covectors in gamma^ij, raised.
  const double X = x0[0], Y = x0[1], Z = x0[2];
  std::array<std::array<double, 3>, 3> w3 = {{{-Y, X, 0}, {X, Y, Z}, {X * Z, Y * Z, -(X * X + Y * Y)}}};
  auto dot = [&](const std::array<double, 3> &a, const std::array<double, 3> &b) {
    double s = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        s += gi[i][j] * a[i] * b[j];
    return s;
  };
  std::array<std::array<double, 3>, 3> ecov;
  for (int v = 0; v < 3; ++v) {
    std::array<double, 3> a = w3[v];
    for (int u = 0; u < v; ++u) {
      const double c = dot(w3[v], ecov[u]);
      for (int i = 0; i < 3; ++i)
        a[i] -= c * ecov[u][i];
    }
    const double nrm = std::sqrt(dot(a, a));
    for (int i = 0; i < 3; ++i)
      ecov[v][i] = a[i] / nrm;
  }
  std::array<std::array<double, 3>, 3> up{}; // phihat, rhat, thetahat (vectors)
  for (int v = 0; v < 3; ++v)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        up[v][i] += gi[i][j] * ecov[v][j];
  const std::complex<double> I(0, 1);
  std::array<std::complex<double>, 3> mbar, rr;
  for (int i = 0; i < 3; ++i)
    mbar[i] = (up[2][i] - I * up[0][i]) / std::sqrt(2.0), rr[i] = up[1][i];
  std::complex<double> psi4 = 0, psi2 = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const std::complex<double> Q = E[i][j] - I * B[i][j];
      psi4 += Q * mbar[i] * mbar[j];
      psi2 += Q * rr[i] * rr[j] / 2.0;
    }
  return {psi4.real(), psi4.imag(), psi2.real(), psi2.imag()};
}

} // namespace

TEST(WeylScalars, KerrAgainstExplicitLeviCivita) {
  const horizons::FixtureSlice kerr(std::string(TENSORIUM_HORIZON_MODULE_DIR) + "/libhorizon_kerr_schild.so",
                                    {{"M", 1.0}, {"a", 0.6}});
  const horizons::MetricSampler metric = kerr.sampler();
  const Slice slice = pointwise(metric);
  const Point3 x = {2.1, 1.3, 1.6};
  const Weyl ref = referenceWeyl(metric, x);
  double err[2];
  for (int level = 0; level < 2; ++level) {
    const Weyl w = kernelAt(staticTables(), staticAdapters(), slice, x, 0.08 / (1 << level));
    err[level] = std::max({std::abs(w.psi4re - ref.psi4re), std::abs(w.psi4im - ref.psi4im), std::abs(w.psi2re - ref.psi2re),
                           std::abs(w.psi2im - ref.psi2im)});
    std::printf("h = %.3f: kernel Psi4 = %.8e %+.8ei, Psi2 = %.8e %+.8ei\n", 0.08 / (1 << level), w.psi4re, w.psi4im, w.psi2re,
                w.psi2im);
  }
  std::printf("reference Psi4 = %.8e %+.8ei, Psi2 = %.8e %+.8ei; kernel error %.3e -> %.3e (order %.2f)\n", ref.psi4re,
              ref.psi4im, ref.psi2re, ref.psi2im, err[0], err[1], std::log2(err[0] / err[1]));
  EXPECT_GT(std::abs(ref.psi2im), 1e-3); // the magnetic part is exercised
  EXPECT_GT(std::hypot(ref.psi4re, ref.psi4im), 1e-4);
  EXPECT_GT(std::log2(err[0] / err[1]), 3.5);
  EXPECT_LT(err[1], 1e-5);
}

// The even-parity quadrupole Teukolsky wave (fixtures/gr/teukolsky_wave_3d.tn, amp = 1e-8,
// lam = 1, t = 2): the kernel's Psi4 at the nodes of the sphere r = 3 (each from its own 9^3
// box, no interpolation), projected onto -2Y_lm. The (2, 0) mode converges at order 4; the
// printed values are compared with the symbolic derivation by the CTest weyl_teukolsky
// (tests/waves/teukolsky_psi4.py); every other mode vanishes for this wave.
namespace {

/// C20 of the kernel's Psi4 on the sphere r = 3 for a Teukolsky module, at h = 0.1 and 0.05
/// (printed with `label`), and the largest other mode.
std::vector<std::complex<double>> teukolskyModes(const std::string &module, const char *label, double &otherModes) {
  const horizons::FixtureSlice wave(std::string(TENSORIUM_HORIZON_MODULE_DIR) + "/" + module,
                                    {{"amp", 1e-8}, {"lam", 1.0}, {"t", 2.0}});
  const Slice slice = pointwise(wave.sampler());
  const waves::SphereQuadrature q(4);
  const double R = 3;
  std::vector<std::complex<double>> c20;
  otherModes = 0;
  for (double h : {0.1, 0.05}) {
    std::vector<std::complex<double>> psi4(static_cast<size_t>(q.size()));
    for (int k = 0; k < q.size(); ++k) {
      const Point3 x = {R * std::sin(q.theta(k)) * std::cos(q.phi(k)), R * std::sin(q.theta(k)) * std::sin(q.phi(k)),
                        R * std::cos(q.theta(k))};
      const Weyl w = kernelAt(staticTables(), staticAdapters(), slice, x, h);
      psi4[static_cast<size_t>(k)] = {w.psi4re, w.psi4im};
    }
    for (const waves::Mode &m : waves::projectSpinWeighted(q, psi4, -2, 4)) {
      if (m.l == 2 && m.m == 0)
        c20.push_back(m.value);
      else
        otherModes = std::max(otherModes, std::abs(m.value));
    }
    std::printf("%s C20 h=%.3f: %.15e %.15e\n", label, h, c20.back().real(), c20.back().imag());
  }
  return c20;
}

} // namespace

TEST(WeylScalars, TeukolskyWaveQuadrupoleMode) {
  double others = 0, twinOthers = 0;
  const std::vector<std::complex<double>> c20 = teukolskyModes("libweyl_teukolsky.so", "teukolsky", others);
  const std::vector<std::complex<double>> twin = teukolskyModes("libweyl_teukolsky_twin.so", "twin", twinOthers);
  std::printf("largest other mode %.3e, |C20| %.3e; C20 changed by %.2e between h = 0.1 and 0.05\n", others,
              std::abs(c20.back()), std::abs(c20[1] - c20[0]));
  EXPECT_GT(std::abs(c20.back()), 1e-8);
  EXPECT_LT(others, 1e-4 * std::abs(c20.back()));
  // The closed-form comparison is the CTest weyl_teukolsky; here the twin differs visibly.
  EXPECT_GT(std::abs(twin.back() - c20.back()), 1e-3 * std::abs(c20.back()));
}
