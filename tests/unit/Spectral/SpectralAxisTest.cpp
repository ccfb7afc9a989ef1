// Unit tests for the 1-D spectral axes (Chebyshev Gauss-Lobatto / Gauss, Fourier).
#include "tensorium_mlir/Spectral/Spectral.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

using namespace tensorium_mlir::spectral;

namespace {

constexpr double kPi = std::numbers::pi;

std::vector<double> sample(const SpectralAxis &axis, const std::function<double(double)> &f) {
  std::vector<double> v;
  for (double x : axis.points())
    v.push_back(f(x));
  return v;
}

std::vector<double> applyMatrix(const Eigen::MatrixXd &d, const std::vector<double> &u) {
  Eigen::Map<const Eigen::VectorXd> uv(u.data(), static_cast<Eigen::Index>(u.size()));
  Eigen::VectorXd r = d * uv;
  return {r.data(), r.data() + r.size()};
}

// Polynomial with fixed pseudo-random coefficients in the scaled variable s = (x - c) / h.
struct Poly {
  std::vector<double> c;
  double center, scale;
  double operator()(double x) const {
    double s = (x - center) / scale, r = 0.0;
    for (std::size_t k = c.size(); k-- > 0;)
      r = r * s + c[k];
    return r;
  }
  double d1(double x) const {
    double s = (x - center) / scale, r = 0.0;
    for (std::size_t k = c.size(); k-- > 1;)
      r = r * s + static_cast<double>(k) * c[k];
    return r / scale;
  }
  double d2(double x) const {
    double s = (x - center) / scale, r = 0.0;
    for (std::size_t k = c.size(); k-- > 2;)
      r = r * s + static_cast<double>(k * (k - 1)) * c[k];
    return r / (scale * scale);
  }
};

Poly randomPoly(int degree, double a, double b, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Poly p{{}, 0.5 * (a + b), 0.5 * (b - a)};
  for (int k = 0; k <= degree; ++k)
    p.c.push_back(dist(gen));
  return p;
}

double maxError(const std::vector<double> &got, const std::vector<double> &want) {
  double e = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i)
    e = std::max(e, std::abs(got[i] - want[i]));
  return e;
}

SpectralAxis makeCheb(bool lobatto, int n, double a, double b) {
  return lobatto ? SpectralAxis::chebyshevGaussLobatto(n, a, b)
                 : SpectralAxis::chebyshevGauss(n, a, b);
}

double expSin(double x) { return std::exp(std::sin(x)); }
double expSinD1(double x) { return std::cos(x) * std::exp(std::sin(x)); }
double expSinD2(double x) {
  return (std::cos(x) * std::cos(x) - std::sin(x)) * std::exp(std::sin(x));
}

class ChebyshevKinds : public ::testing::TestWithParam<bool> {};

} // namespace

TEST(SpectralAxis, ChebyshevLobattoNodesAscendingWithEndpoints) {
  auto axis = SpectralAxis::chebyshevGaussLobatto(9, -2.0, 3.0);
  EXPECT_EQ(axis.kind(), AxisKind::ChebyshevGaussLobatto);
  EXPECT_EQ(axis.size(), 9);
  EXPECT_DOUBLE_EQ(axis.lower(), -2.0);
  EXPECT_DOUBLE_EQ(axis.upper(), 3.0);
  const auto &x = axis.points();
  ASSERT_EQ(x.size(), 9u);
  EXPECT_EQ(x.front(), -2.0);
  EXPECT_EQ(x.back(), 3.0);
  for (int j = 0; j < 9; ++j) {
    EXPECT_NEAR(x[j], 0.5 - 2.5 * std::cos(kPi * j / 8.0), 1e-14);
    if (j > 0) {
      EXPECT_LT(x[j - 1], x[j]);
    }
  }
  EXPECT_NEAR(x[4], 0.5, 1e-15);
}

TEST(SpectralAxis, ChebyshevGaussNodesAreInteriorRoots) {
  auto axis = SpectralAxis::chebyshevGauss(7, 1.0, 2.0);
  EXPECT_EQ(axis.kind(), AxisKind::ChebyshevGauss);
  const auto &x = axis.points();
  for (int j = 0; j < 7; ++j) {
    EXPECT_GT(x[j], 1.0);
    EXPECT_LT(x[j], 2.0);
    double t = 2.0 * (x[j] - 1.5);
    EXPECT_NEAR(std::cos(7.0 * std::acos(t)), 0.0, 1e-13); // root of T_7
    if (j > 0) {
      EXPECT_LT(x[j - 1], x[j]);
    }
  }
}

TEST_P(ChebyshevKinds, DerivativesExactOnPolynomials) {
  const bool lobatto = GetParam();
  const double a = -0.7, b = 2.9;
  for (int n : {2, 3, 5, 8, 12, 16}) {
    auto axis = makeCheb(lobatto, n, a, b);
    for (int degree = 0; degree <= n - 1; ++degree) {
      Poly p = randomPoly(degree, a, b, 17u * n + degree);
      auto u = sample(axis, p);
      auto du = applyMatrix(axis.firstDerivative(), u);
      auto ddu = applyMatrix(axis.secondDerivative(), u);
      std::vector<double> w1, w2;
      for (double x : axis.points()) {
        w1.push_back(p.d1(x));
        w2.push_back(p.d2(x));
      }
      EXPECT_LT(maxError(du, w1), 1e-12) << "n=" << n << " degree=" << degree;
      EXPECT_LT(maxError(ddu, w2), 1e-11 * std::max(1.0, double(n * n) / 16.0))
          << "n=" << n << " degree=" << degree;
    }
  }
}

TEST_P(ChebyshevKinds, SecondDerivativeMatchesSquareOfFirst) {
  auto axis = makeCheb(GetParam(), 14, 0.0, 5.0);
  Eigen::MatrixXd sq = axis.firstDerivative() * axis.firstDerivative();
  EXPECT_LT((sq - axis.secondDerivative()).cwiseAbs().maxCoeff(), 1e-10);
}

TEST_P(ChebyshevKinds, ExponentialConvergenceOnSmoothFunction) {
  // Shifted interval of length 2 (the convergence rate depends on the interval length: on a
  // length-3 interval the Gauss-point error at n = 24 is ~1.4e-10 and drops below 1e-12 at n = 28).
  const bool lobatto = GetParam();
  const double a = -0.5, b = 1.5;
  std::vector<double> err1, err2;
  for (int n : {8, 16, 24}) {
    auto axis = makeCheb(lobatto, n, a, b);
    auto u = sample(axis, expSin);
    auto du = applyMatrix(axis.firstDerivative(), u);
    auto ddu = applyMatrix(axis.secondDerivative(), u);
    err1.push_back(maxError(du, sample(axis, expSinD1)));
    err2.push_back(maxError(ddu, sample(axis, expSinD2)));
  }
  EXPECT_LT(err1[2], 1e-10);
  EXPECT_LT(err1[1], 1e-2 * err1[0]);
  EXPECT_LT(err1[2], 1e-2 * err1[1]);
  EXPECT_LT(err2[2], 1e-8);
  EXPECT_LT(err2[1], 1e-2 * err2[0]);
  EXPECT_LT(err2[2], 1e-2 * err2[1]);
}

TEST_P(ChebyshevKinds, ModalRoundTripAndKnownCoefficients) {
  const bool lobatto = GetParam();
  const double a = 0.25, b = 1.75;
  for (int n : {2, 4, 7, 10, 21}) {
    auto axis = makeCheb(lobatto, n, a, b);
    std::mt19937 gen(n);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> u(n);
    for (double &v : u)
      v = dist(gen);
    auto c = axis.toModal(u);
    EXPECT_LT(maxError(axis.fromModal(c), u), 1e-13);
    auto back = axis.toModal(axis.fromModal(c));
    EXPECT_LT(maxError(back, c), 1e-13);
  }
  // u = T_3(t) + 0.5 T_0(t) -> c = (0.5, 0, 0, 1, 0, ...)
  auto axis = makeCheb(lobatto, 8, a, b);
  auto u = sample(axis, [&](double x) {
    double t = (2.0 * x - (a + b)) / (b - a);
    return 4.0 * t * t * t - 3.0 * t + 0.5;
  });
  auto c = axis.toModal(u);
  ASSERT_EQ(c.size(), 8u);
  for (int k = 0; k < 8; ++k) {
    double want = k == 3 ? 1.0 : (k == 0 ? 0.5 : 0.0);
    EXPECT_NEAR(c[k], want, 1e-14) << "k=" << k;
  }
  // The highest Lobatto/Gauss mode is also recovered exactly.
  auto uTop = sample(axis, [&](double x) {
    double t = (2.0 * x - (a + b)) / (b - a);
    return std::cos(7.0 * std::acos(std::clamp(t, -1.0, 1.0)));
  });
  auto cTop = axis.toModal(uTop);
  for (int k = 0; k < 8; ++k)
    EXPECT_NEAR(cTop[k], k == 7 ? 1.0 : 0.0, 1e-13) << "k=" << k;
}

TEST_P(ChebyshevKinds, InterpolationExactOnPolynomialsOffGrid) {
  const bool lobatto = GetParam();
  const double a = -3.0, b = -0.5;
  std::mt19937 gen(42);
  std::uniform_real_distribution<double> where(a, b);
  for (int n : {2, 5, 11, 17}) {
    auto axis = makeCheb(lobatto, n, a, b);
    Poly p = randomPoly(n - 1, a, b, 99u + n);
    auto u = sample(axis, p);
    for (int trial = 0; trial < 25; ++trial) {
      double x = where(gen);
      EXPECT_NEAR(axis.interpolate(u, x), p(x), 1e-12) << "n=" << n << " x=" << x;
      auto row = axis.interpolationRow(x);
      double viaRow = 0.0, rowSum = 0.0;
      for (int j = 0; j < n; ++j) {
        viaRow += row[j] * u[j];
        rowSum += row[j];
      }
      EXPECT_NEAR(viaRow, p(x), 1e-12);
      EXPECT_NEAR(rowSum, 1.0, 1e-13); // constants are reproduced
    }
  }
}

TEST_P(ChebyshevKinds, InterpolationSpectrallyAccurateAndNodal) {
  const bool lobatto = GetParam();
  const double a = -1.0, b = 2.0;
  auto axis = makeCheb(lobatto, 26, a, b);
  auto u = sample(axis, expSin);
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> where(a, b);
  for (int trial = 0; trial < 50; ++trial) {
    double x = where(gen);
    EXPECT_NEAR(axis.interpolate(u, x), expSin(x), 1e-12) << "x=" << x;
  }
  for (int j = 0; j < axis.size(); ++j) {
    EXPECT_EQ(axis.interpolate(u, axis.points()[j]), u[j]);
    auto row = axis.interpolationRow(axis.points()[j]);
    for (int i = 0; i < axis.size(); ++i)
      EXPECT_EQ(row[i], i == j ? 1.0 : 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Spectral, ChebyshevKinds, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "GaussLobatto" : "Gauss";
                         });

TEST(SpectralAxis, FourierNodesAndDerivativesOnShiftedPeriod) {
  const double origin = -1.3;
  auto f = [](double x) { return std::sin(3 * x) + std::cos(5 * x); };
  auto f1 = [](double x) { return 3 * std::cos(3 * x) - 5 * std::sin(5 * x); };
  auto f2 = [](double x) { return -9 * std::sin(3 * x) - 25 * std::cos(5 * x); };
  for (int n : {12, 13, 16, 31, 64}) {
    auto axis = SpectralAxis::fourier(n, 2 * kPi, origin);
    EXPECT_EQ(axis.kind(), AxisKind::Fourier);
    EXPECT_DOUBLE_EQ(axis.lower(), origin);
    EXPECT_NEAR(axis.upper(), origin + 2 * kPi, 1e-15);
    for (int j = 0; j < n; ++j)
      EXPECT_NEAR(axis.points()[j], origin + 2 * kPi * j / n, 1e-14);
    auto u = sample(axis, f);
    EXPECT_LT(maxError(applyMatrix(axis.firstDerivative(), u), sample(axis, f1)), 1e-12) << "n=" << n;
    EXPECT_LT(maxError(applyMatrix(axis.secondDerivative(), u), sample(axis, f2)), 1e-11) << "n=" << n;
  }
}

TEST(SpectralAxis, FourierDerivativeOnGeneralPeriod) {
  const double period = 3.0, origin = 0.4;
  const double w = 2 * kPi / period;
  auto f = [&](double x) { return std::cos(2 * w * x) - 0.3 * std::sin(4 * w * x) + 1.5; };
  auto f1 = [&](double x) { return -2 * w * std::sin(2 * w * x) - 1.2 * w * std::cos(4 * w * x); };
  auto f2 = [&](double x) {
    return -4 * w * w * std::cos(2 * w * x) + 4.8 * w * w * std::sin(4 * w * x);
  };
  auto axis = SpectralAxis::fourier(11, period, origin);
  auto u = sample(axis, f);
  EXPECT_LT(maxError(applyMatrix(axis.firstDerivative(), u), sample(axis, f1)), 1e-12);
  EXPECT_LT(maxError(applyMatrix(axis.secondDerivative(), u), sample(axis, f2)), 1e-10);
}

TEST(SpectralAxis, FourierExponentialConvergence) {
  std::vector<double> err;
  for (int n : {8, 16, 32}) {
    auto axis = SpectralAxis::fourier(n, 2 * kPi, 0.5);
    auto du = applyMatrix(axis.firstDerivative(), sample(axis, expSin));
    err.push_back(maxError(du, sample(axis, expSinD1)));
  }
  EXPECT_LT(err[1], 1e-3 * err[0]);
  EXPECT_LT(err[2], 1e-12);
}

TEST(SpectralAxis, FourierModalLayoutAndRoundTrip) {
  // Odd n = 7: [a0, a1, b1, a2, b2, a3, b3]
  {
    auto axis = SpectralAxis::fourier(7, 2 * kPi, 0.0);
    auto u = sample(axis, [](double x) {
      return 0.25 + 2 * std::cos(x) - std::sin(2 * x) + 0.5 * std::sin(3 * x);
    });
    auto c = axis.toModal(u);
    std::vector<double> want{0.25, 2.0, 0.0, 0.0, -1.0, 0.0, 0.5};
    EXPECT_LT(maxError(c, want), 1e-14);
  }
  // Even n = 6: [a0, a1, b1, a2, b2, a3(Nyquist)]
  {
    auto axis = SpectralAxis::fourier(6, 2 * kPi, 0.0);
    auto u = sample(axis, [](double x) { return -1.0 + 0.5 * std::sin(x) + 3 * std::cos(3 * x); });
    auto c = axis.toModal(u);
    std::vector<double> want{-1.0, 0.0, 0.5, 0.0, 0.0, 3.0};
    EXPECT_LT(maxError(c, want), 1e-14);
  }
  for (int n : {1, 2, 5, 8, 33}) {
    auto axis = SpectralAxis::fourier(n, 1.7, -0.2);
    std::mt19937 gen(n);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> u(n);
    for (double &v : u)
      v = dist(gen);
    auto c = axis.toModal(u);
    EXPECT_LT(maxError(axis.fromModal(c), u), 1e-13) << "n=" << n;
    EXPECT_LT(maxError(axis.toModal(axis.fromModal(c)), c), 1e-13) << "n=" << n;
  }
}

TEST(SpectralAxis, FourierInterpolation) {
  const double origin = 0.3;
  auto f = [](double x) { return std::sin(3 * x) + std::cos(5 * x) - 0.5; };
  auto axis = SpectralAxis::fourier(13, 2 * kPi, origin);
  auto u = sample(axis, f);
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> where(-10.0, 10.0); // periodic: any x
  for (int trial = 0; trial < 40; ++trial) {
    double x = where(gen);
    EXPECT_NEAR(axis.interpolate(u, x), f(x), 1e-12) << "x=" << x;
  }
  for (int j = 0; j < axis.size(); ++j)
    EXPECT_EQ(axis.interpolate(u, axis.points()[j]), u[j]);

  auto smooth = SpectralAxis::fourier(40, 2 * kPi, 0.0);
  auto us = sample(smooth, expSin);
  for (int trial = 0; trial < 40; ++trial) {
    double x = where(gen);
    EXPECT_NEAR(smooth.interpolate(us, x), expSin(x), 1e-12) << "x=" << x;
  }
}

TEST(SpectralAxis, InvalidArgumentsThrow) {
  EXPECT_THROW(SpectralAxis::chebyshevGaussLobatto(1), std::invalid_argument);
  EXPECT_THROW(SpectralAxis::chebyshevGauss(0), std::invalid_argument);
  EXPECT_THROW(SpectralAxis::chebyshevGaussLobatto(5, 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(SpectralAxis::chebyshevGauss(5, 2.0, 1.0), std::invalid_argument);
  EXPECT_THROW(SpectralAxis::chebyshevGauss(5, 0.0, NAN), std::invalid_argument);
  EXPECT_THROW(SpectralAxis::fourier(0), std::invalid_argument);
  EXPECT_THROW(SpectralAxis::fourier(4, 0.0), std::invalid_argument);
  EXPECT_THROW(SpectralAxis::fourier(4, -1.0), std::invalid_argument);
  EXPECT_NO_THROW(SpectralAxis::fourier(1));

  auto axis = SpectralAxis::chebyshevGaussLobatto(5);
  std::vector<double> wrong(4, 0.0);
  EXPECT_THROW(axis.toModal(wrong), std::invalid_argument);
  EXPECT_THROW(axis.fromModal(wrong), std::invalid_argument);
  EXPECT_THROW(axis.interpolate(wrong, 0.1), std::invalid_argument);
  try {
    axis.toModal(wrong);
    FAIL() << "expected throw";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("expected 5"), std::string::npos) << e.what();
  }
}
