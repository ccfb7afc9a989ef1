// The full-slice initial-data kernels (tensorium_init_slice_grid_affine) of time-dependent
// metric4 fixtures against closed forms: the gauge wave, Kasner and Schwarzschild in Kerr-Schild
// coordinates (static: K_ij in closed form; boosted: its 4-metric in closed form and K_ij from
// finite differences of it, a second method). Gammatilde^i, a derivative of the metric, is
// checked against finite differences of the closed form.
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "tensorium_mlir/Runtime/KernelModule.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <map>
#include <numbers>
#include <string>
#include <vector>

using namespace tensorium_mlir;

namespace {

using Mat = std::array<std::array<double, 3>, 3>;
using Vec = std::array<double, 3>;
using Point = std::array<double, 4>; // t, x, y, z

/// A 3+1 slice at one point, the quantities the slice kernel writes.
struct Slice {
  double alpha = 0, chi = 0, K = 0;
  Vec beta{}, Gammatilde{};
  Mat gamma{}, gammaU{}, Kij{}, gammatilde{}, Atilde{};
};

Mat inverse(const Mat &m, double &det) {
  det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
        m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  Mat inv;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int a = (j + 1) % 3, b = (j + 2) % 3, c = (i + 1) % 3, d = (i + 2) % 3;
      inv[i][j] = (m[a][c] * m[b][d] - m[a][d] * m[b][c]) / det;
    }
  return inv;
}

/// Everything but K_ij and Gammatilde from a 4-metric (the split is algebra), the BSSN
/// variables from K_ij (given in closed form, or by finite differences of the 4-metric).
Slice fromMetric(const std::function<std::array<std::array<double, 4>, 4>(const Point &)> &g4, const Point &p,
                 const Mat *closedK) {
  const auto g = g4(p);
  Slice s;
  Vec betaLow;
  for (int i = 0; i < 3; ++i) {
    betaLow[i] = g[0][i + 1];
    for (int j = 0; j < 3; ++j)
      s.gamma[i][j] = g[i + 1][j + 1];
  }
  double det;
  s.gammaU = inverse(s.gamma, det);
  double bb = 0;
  for (int i = 0; i < 3; ++i) {
    s.beta[i] = 0;
    for (int j = 0; j < 3; ++j)
      s.beta[i] += s.gammaU[i][j] * betaLow[j];
    bb += s.beta[i] * betaLow[i];
  }
  s.alpha = std::sqrt(bb - g[0][0]);
  if (closedK) {
    s.Kij = *closedK;
  } else {
    // K_ij = -(d_t gamma_ij - D_i beta_j - D_j beta_i) / (2 alpha) with fourth-order central
    // differences (step 1e-3) of the closed-form 4-metric.
    const double h = 1e-3;
    auto d = [&](int axis, int r, int c) {
      auto at = [&](double shift) {
        Point q = p;
        q[axis] += shift;
        return g4(q)[r][c];
      };
      return (-at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h)) / (12 * h);
    };
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        auto Dbeta = [&](int a, int b) {
          double v = d(a + 1, 0, b + 1);
          for (int k = 0; k < 3; ++k) {
            double gam = 0;
            for (int l = 0; l < 3; ++l)
              gam += 0.5 * s.gammaU[k][l] * (d(a + 1, l + 1, b + 1) + d(b + 1, a + 1, l + 1) - d(l + 1, a + 1, b + 1));
            v -= gam * betaLow[k];
          }
          return v;
        };
        s.Kij[i][j] = -(d(0, i + 1, j + 1) - Dbeta(i, j) - Dbeta(j, i)) / (2 * s.alpha);
      }
  }
  s.chi = std::cbrt(1 / det);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      s.K += s.gammaU[i][j] * s.Kij[i][j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      s.gammatilde[i][j] = s.chi * s.gamma[i][j];
      s.Atilde[i][j] = s.chi * (s.Kij[i][j] - s.gamma[i][j] * s.K / 3);
    }
  // Gammatilde^i = -d_j (gamma^ij / chi), by central differences of the closed form.
  const double h = 1e-3;
  auto gtU = [&](const Point &q, int i, int j) {
    const auto gq = g4(q);
    Mat m;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        m[a][b] = gq[a + 1][b + 1];
    double dq;
    const Mat inv = inverse(m, dq);
    return inv[i][j] * std::cbrt(dq);
  };
  for (int i = 0; i < 3; ++i) {
    s.Gammatilde[i] = 0;
    for (int j = 0; j < 3; ++j) {
      auto at = [&](double shift) {
        Point q = p;
        q[j + 1] += shift;
        return gtU(q, i, j);
      };
      s.Gammatilde[i] -= (-at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h)) / (12 * h);
    }
  }
  return s;
}

struct Module {
  runtime::KernelModule module;
  runtime::GeneratedHostTables tables() const {
    const tensorium_module_tables &t = module.tables();
    return {t.kernels, static_cast<size_t>(t.kernel_count), t.buffers, static_cast<size_t>(t.buffer_count),
            t.param_names, static_cast<size_t>(t.param_count), static_cast<unsigned>(t.dimension)};
  }
};

/// The slice kernel at points (t fixed) and the largest relative mismatch, per quantity, against
/// `expected` (relative to max(1, |expected|)).
std::map<std::string, double> mismatch(const std::string &fixture, const std::map<std::string, double> &params, double t,
                                       const std::vector<Vec> &points, const std::function<Slice(const Point &)> &expected) {
  Module m{runtime::KernelModule(std::string(TENSORIUM_SLICE_MODULE_DIR) + "/libslice_" + fixture + ".so")};
  const int n = static_cast<int>(points.size());
  runtime::GeneratedHostStorage storage(m.tables(), {n, 1, 1});
  for (int a = 0; a < 3; ++a) {
    std::span<double> c = storage.buffer(a == 0 ? "x" : a == 1 ? "y" : "z");
    for (int p = 0; p < n; ++p)
      c[static_cast<size_t>(p)] = points[static_cast<size_t>(p)][static_cast<size_t>(a)];
  }
  std::vector<double> values;
  const tensorium_module_tables &t0 = m.module.tables();
  for (int i = 0; i < t0.param_count; ++i)
    values.push_back(std::string(t0.param_names[i]) == "t" ? t : params.at(t0.param_names[i]));
  std::span<const tensorium_host_kernel_adapter> adapters(t0.adapters, static_cast<size_t>(t0.adapter_count));
  storage.invoke(adapters, "tensorium_init_slice_grid_affine", values, {1, 1, 1});
  std::map<std::string, double> worst;
  auto compare = [&](const std::string &name, int p, int c, double want) {
    const double got = storage.buffer(name)[static_cast<size_t>(c) * static_cast<size_t>(n) + static_cast<size_t>(p)];
    worst[name] = std::max(worst[name], std::abs(got - want) / std::max(1.0, std::abs(want)));
  };
  for (int p = 0; p < n; ++p) {
    const Vec &x = points[static_cast<size_t>(p)];
    const Slice s = expected({t, x[0], x[1], x[2]});
    compare("alpha", p, 0, s.alpha);
    compare("chi", p, 0, s.chi);
    compare("K", p, 0, s.K);
    for (int i = 0; i < 3; ++i) {
      compare("beta", p, i, s.beta[i]);
      compare("Gammatilde", p, i, s.Gammatilde[i]);
      for (int j = 0; j < 3; ++j) {
        compare("gamma", p, i * 3 + j, s.gamma[i][j]);
        compare("gammaU", p, i * 3 + j, s.gammaU[i][j]);
        compare("Kij", p, i * 3 + j, s.Kij[i][j]);
        compare("gammatilde", p, i * 3 + j, s.gammatilde[i][j]);
        compare("Atilde", p, i * 3 + j, s.Atilde[i][j]);
      }
    }
  }
  return worst;
}

std::vector<Vec> samplePoints(Vec lo, Vec hi) {
  std::vector<Vec> out;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k)
        out.push_back({lo[0] + (hi[0] - lo[0]) * i / 4.0, lo[1] + (hi[1] - lo[1]) * j / 3.0,
                       lo[2] + (hi[2] - lo[2]) * k / 2.0});
  return out;
}

/// Closed forms to 1e-13; Gammatilde (and K_ij where it comes from finite differences) to the
/// differences' accuracy.
void expectAgreement(const std::map<std::string, double> &worst, double derivativeTolerance, bool kFromDifferences) {
  for (const auto &[name, error] : worst) {
    const bool differenced = name == "Gammatilde" ||
                             (kFromDifferences && (name == "Kij" || name == "K" || name == "Atilde"));
    std::printf("  %-11s max relative mismatch %.3e%s\n", name.c_str(), error, differenced ? " (differences)" : "");
    EXPECT_LE(error, differenced ? derivativeTolerance : 1e-13) << name;
  }
}

using Metric4 = std::array<std::array<double, 4>, 4>;

/// A slice kernel against the 3+1 split of a closed-form 4-metric at each time, K_ij from
/// differences of the 4-metric (to 1e-8).
void expectSliceOfMetric(const std::string &fixture, const std::map<std::string, double> &params,
                         std::initializer_list<double> times, const std::function<Metric4(const Point &)> &g4) {
  for (double t : times)
    expectAgreement(mismatch(fixture, params, t, samplePoints({-0.5, 0, 0}, {0.5, 1, 1}),
                             [&](const Point &p) { return fromMetric(g4, p, nullptr); }),
                    1e-8, true);
}

} // namespace

TEST(ExactSliceKernels, GaugeWave) {
  const double A = 0.1, k = 2 * std::numbers::pi;
  auto g4 = [&](const Point &p) {
    const double H = 1 - A * std::sin(k * (p[1] - p[0]));
    Metric4 g{};
    g[0][0] = -H;
    g[1][1] = H;
    g[2][2] = g[3][3] = 1;
    return g;
  };
  for (double t : {0.0, 0.37}) {
    auto expected = [&](const Point &p) {
      const double phase = k * (p[1] - p[0]), H = 1 - A * std::sin(phase);
      Mat K{};
      K[0][0] = -A * k * std::cos(phase) / (2 * std::sqrt(H)); // -(d_t gamma_xx) / (2 alpha)
      return fromMetric(g4, p, &K);
    };
    expectAgreement(mismatch("gauge_wave", {{"A", A}}, t, samplePoints({-0.5, 0, 0}, {0.5, 1, 1}), expected), 1e-9, false);
  }
}

TEST(ExactSliceKernels, ShiftedGaugeWave) {
  // The published metric (Babiuc et al. 2008), -dt^2 + dx^2 + H (dt - dx)^2: g_tx = -H, so
  // alpha = (1 + H)^(-1/2), beta^x = -H / (1 + H), gamma_xx = 1 + H in closed form by the split;
  // K_ij from differences of the 4-metric.
  const double A = 0.1, k = 2 * std::numbers::pi;
  auto g4 = [&](const Point &p) {
    const double H = A * std::sin(k * (p[1] - p[0]));
    Metric4 g{};
    g[0][0] = -(1 - H);
    g[0][1] = g[1][0] = -H;
    g[1][1] = 1 + H;
    g[2][2] = g[3][3] = 1;
    return g;
  };
  expectSliceOfMetric("shifted_gauge_wave", {{"A", A}}, {0.0, 0.37}, g4);
}

TEST(ExactSliceKernels, PolarisedGowdy) {
  // The Gowdy metric in the harmonic time of its collapsing direction, with std::cyl_bessel_j
  // for the Bessel functions; K_ij from differences of the 4-metric.
  const double c = 75, T0 = 9.875332, tp = 2 * std::numbers::pi;
  auto J = [](double n, double v) { return std::cyl_bessel_j(n, v); };
  auto g4 = [&](const Point &p) {
    const double T = T0 * std::exp(-p[0] / c), w = tp * T, cx = std::cos(tp * p[1]);
    const double P = J(0, w) * cx;
    const double lambda = -w * J(0, w) * J(1, w) * cx * cx + 0.5 * w * w * (J(0, w) * J(0, w) + J(1, w) * J(1, w)) -
                          0.5 * (tp * tp * (J(0, tp) * J(0, tp) + J(1, tp) * J(1, tp)) - tp * J(0, tp) * J(1, tp));
    const double conformal = std::exp(lambda / 2) / std::sqrt(T), dT = T / c;
    Metric4 g{};
    g[0][0] = -conformal * dT * dT;
    g[1][1] = conformal;
    g[2][2] = T * std::exp(P);
    g[3][3] = T * std::exp(-P);
    return g;
  };
  expectSliceOfMetric("gowdy", {{"c", c}}, {0.0, 0.6}, g4);
}

TEST(ExactSliceKernels, Kasner) {
  const double p1 = -1.0 / 3, p2 = 2.0 / 3, p3 = 2.0 / 3;
  auto g4 = [&](const Point &p) {
    Metric4 g{};
    g[0][0] = -1;
    g[1][1] = std::pow(p[0], 2 * p1);
    g[2][2] = std::pow(p[0], 2 * p2);
    g[3][3] = std::pow(p[0], 2 * p3);
    return g;
  };
  for (double t : {1.0, 1.7}) {
    auto expected = [&](const Point &p) {
      Mat K{};
      const double ps[3] = {p1, p2, p3};
      for (int i = 0; i < 3; ++i)
        K[i][i] = -ps[i] * std::pow(p[0], 2 * ps[i] - 1);
      Slice s = fromMetric(g4, p, &K);
      EXPECT_NEAR(s.K, -1 / p[0], 1e-14); // sum p_i = 1
      return s;
    };
    expectAgreement(mismatch("kasner", {{"p1", p1}, {"p2", p2}, {"p3", p3}}, t, samplePoints({-1, -1, -1}, {1, 1, 1}),
                             expected),
                    1e-9, false);
  }
}

TEST(ExactSliceKernels, KerrSchildStaticAndBoosted) {
  const double M = 1;
  for (double v : {0.0, 0.5}) {
    const double G = 1 / std::sqrt(1 - v * v);
    auto g4 = [&](const Point &p) {
      const double X = G * (p[1] - v * p[0]), R = std::sqrt(X * X + p[2] * p[2] + p[3] * p[3]), H = M / R;
      const double l[4] = {G * (1 - v * X / R), G * (X / R - v), p[2] / R, p[3] / R};
      Metric4 g{};
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
          g[a][b] = (a == b ? (a == 0 ? -1.0 : 1.0) : 0.0) + 2 * H * l[a] * l[b];
      return g;
    };
    auto expected = [&](const Point &p) {
      if (v != 0)
        return fromMetric(g4, p, nullptr);
      // Static: K_ij = (2 H alpha / r) (delta_ij - (2 + H) l_i l_j).
      const double r = std::sqrt(p[1] * p[1] + p[2] * p[2] + p[3] * p[3]), H = M / r, alpha = 1 / std::sqrt(1 + 2 * H);
      Mat K{};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          K[i][j] = 2 * H * alpha / r * ((i == j ? 1.0 : 0.0) - (2 + H) * p[i + 1] * p[j + 1] / (r * r));
      return fromMetric(g4, p, &K);
    };
    expectAgreement(mismatch("kerr_schild", {{"M", M}, {"v", v}}, 0.3, samplePoints({1.5, -2, 0.5}, {3, 2, 2}), expected),
                    v == 0 ? 1e-9 : 1e-8, v != 0);
  }
}

TEST(ExactSliceKernels, BesselBuiltins) {
  const double a = 0.3, k = 3.7;
  auto g4 = [&](const Point &p) {
    Metric4 g{};
    g[0][0] = -1;
    g[1][1] = 1 + a * std::cyl_bessel_j(0.0, k * p[1] + p[0]);
    g[2][2] = 1 + a * std::cyl_bessel_j(1.0, k * p[2] - p[0]);
    g[3][3] = 1;
    return g;
  };
  for (double t : {0.0, 0.8}) {
    auto expected = [&](const Point &p) {
      const double u = k * p[1] + p[0], v = k * p[2] - p[0];
      Mat K{};
      K[0][0] = a / 2 * std::cyl_bessel_j(1.0, u);                                  // -(1/2) d_t gamma_xx
      K[1][1] = a / 2 * (std::cyl_bessel_j(0.0, v) - std::cyl_bessel_j(1.0, v) / v); // -(1/2) d_t gamma_yy
      return fromMetric(g4, p, &K);
    };
    expectAgreement(mismatch("bessel", {{"a", a}, {"k", k}}, t, samplePoints({0.3, 0.4, -1}, {2.5, 3, 1}), expected), 1e-9,
                    false);
  }
}
