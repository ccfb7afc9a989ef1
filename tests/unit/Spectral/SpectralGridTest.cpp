// Unit tests for the 3-D tensor-product spectral grid.
#include "tensorium_mlir/Spectral/Spectral.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

using namespace tensorium_mlir::spectral;

namespace {

constexpr double kPi = std::numbers::pi;

SpectralGrid3D makeGrid() {
  return SpectralGrid3D(SpectralAxis::chebyshevGaussLobatto(6, -1.0, 2.0),
                        SpectralAxis::chebyshevGauss(5, 0.5, 1.5),
                        SpectralAxis::fourier(8, 2 * kPi, -0.4));
}

template <class F> std::vector<double> sampleGrid(const SpectralGrid3D &g, F f) {
  std::vector<double> v(g.size());
  for (std::size_t p = 0; p < g.size(); ++p) {
    auto x = g.logicalPoint(p);
    v[p] = f(x[0], x[1], x[2]);
  }
  return v;
}

} // namespace

TEST(SpectralGrid3D, LayoutAndPoints) {
  auto g = makeGrid();
  EXPECT_EQ(g.size(), 6u * 5u * 8u);
  EXPECT_EQ(g.index(0, 0, 1), 1u);
  EXPECT_EQ(g.index(0, 1, 0), 8u);
  EXPECT_EQ(g.index(1, 0, 0), 40u);
  EXPECT_EQ(g.index(2, 3, 4), (2u * 5u + 3u) * 8u + 4u);
  auto p = g.logicalPoint(g.index(2, 3, 4));
  EXPECT_EQ(p[0], g.axis(0).points()[2]);
  EXPECT_EQ(p[1], g.axis(1).points()[3]);
  EXPECT_EQ(p[2], g.axis(2).points()[4]);
  EXPECT_EQ(g.physicalPoint(17), g.logicalPoint(17));
  EXPECT_THROW(g.axis(3), std::out_of_range);
  EXPECT_THROW(g.logicalPoint(g.size()), std::out_of_range);

  g.setCoordinateMap([](const std::array<double, 3> &x) {
    return std::array<double, 3>{2.0 * x[0], x[1] + 1.0, x[2]};
  });
  auto q = g.physicalPoint(g.index(2, 3, 4));
  EXPECT_EQ(q[0], 2.0 * p[0]);
  EXPECT_EQ(q[1], p[1] + 1.0);
  EXPECT_EQ(q[2], p[2]);
}

TEST(SpectralGrid3D, BundleMatchesAnalyticDerivatives) {
  auto g = makeGrid();
  auto u = sampleGrid(g, [](double x, double y, double z) { return x * x * y + std::sin(z); });
  DerivativeBundle b = g.bundle(u);
  for (auto &s : b.slot)
    ASSERT_EQ(s.size(), g.size());
  double maxErr[10] = {};
  for (std::size_t p = 0; p < g.size(); ++p) {
    auto [x, y, z] = g.logicalPoint(p);
    const double want[10] = {x * x * y + std::sin(z), 2 * x * y, x * x, std::cos(z), 2 * y,
                             2 * x, 0.0, 0.0, 0.0, -std::sin(z)};
    for (int s = 0; s < 10; ++s)
      maxErr[s] = std::max(maxErr[s], std::abs(b.slot[s][p] - want[s]));
  }
  for (int s = 0; s < 10; ++s)
    EXPECT_LT(maxErr[s], 1e-10) << "slot " << s;
  EXPECT_EQ(secondDerivativeSlot(0, 1), DerivativeBundle::D12);
  EXPECT_EQ(secondDerivativeSlot(2, 1), DerivativeBundle::D23);
  EXPECT_EQ(secondDerivativeSlot(2, 2), DerivativeBundle::D33);
}

TEST(SpectralGrid3D, BundleMixedDerivativesAllAxes) {
  // Every mixed derivative non-zero: u = x^3 y^2 cos(z) + x z-independent part.
  auto g = SpectralGrid3D(SpectralAxis::chebyshevGauss(5, 0.0, 1.0),
                          SpectralAxis::fourier(9, 2 * kPi, 0.0),
                          SpectralAxis::chebyshevGaussLobatto(4, -2.0, -1.0));
  // axes: x Chebyshev, y Fourier, z Chebyshev
  auto u = sampleGrid(g, [](double x, double y, double z) {
    return x * x * x * std::sin(2 * y) * z * z + x * z;
  });
  DerivativeBundle b = g.bundle(u);
  double maxErr = 0.0;
  for (std::size_t p = 0; p < g.size(); ++p) {
    auto [x, y, z] = g.logicalPoint(p);
    const double s = std::sin(2 * y), c = std::cos(2 * y);
    const double want[10] = {x * x * x * s * z * z + x * z,
                             3 * x * x * s * z * z + z,
                             2 * x * x * x * c * z * z,
                             2 * x * x * x * s * z + x,
                             6 * x * s * z * z,
                             6 * x * x * c * z * z,
                             6 * x * x * s * z + 1.0,
                             -4 * x * x * x * s * z * z,
                             4 * x * x * x * c * z,
                             2 * x * x * x * s};
    for (int k = 0; k < 10; ++k)
      maxErr = std::max(maxErr, std::abs(b.slot[k][p] - want[k]));
  }
  EXPECT_LT(maxErr, 1e-10);
}

TEST(SpectralGrid3D, ApplyDerivativeMatchesBundleAndAllowsAliasing) {
  auto g = makeGrid();
  auto u = sampleGrid(g, [](double x, double y, double z) {
    return std::exp(0.3 * x) * y * y * std::cos(2 * z);
  });
  auto b = g.bundle(u);
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<double> out(g.size());
    g.applyDerivative(axis, 1, u, out);
    for (std::size_t p = 0; p < g.size(); ++p)
      EXPECT_EQ(out[p], b.slot[1 + axis][p]);
    std::vector<double> inPlace = u;
    g.applyDerivative(axis, 2, inPlace, inPlace);
    for (std::size_t p = 0; p < g.size(); ++p)
      EXPECT_NEAR(inPlace[p], b.slot[secondDerivativeSlot(axis, axis)][p], 1e-14);
  }
  std::vector<double> out(g.size());
  EXPECT_THROW(g.applyDerivative(3, 1, u, out), std::invalid_argument);
  EXPECT_THROW(g.applyDerivative(0, 3, u, out), std::invalid_argument);
}

TEST(SpectralGrid3D, InterpolateAtRandomPoints) {
  auto g = makeGrid();
  auto f = [](double x, double y, double z) {
    return x * x * x * x * x * y * y * y + std::cos(2 * z) - 0.5 * std::sin(3 * z) * x;
  };
  auto u = sampleGrid(g, f);
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> dx(-1.0, 2.0), dy(0.5, 1.5), dz(-5.0, 5.0);
  for (int trial = 0; trial < 50; ++trial) {
    std::array<double, 3> p{dx(gen), dy(gen), dz(gen)};
    EXPECT_NEAR(g.interpolate(u, p), f(p[0], p[1], p[2]), 1e-11);
  }
  for (std::size_t p = 0; p < g.size(); p += 7)
    EXPECT_NEAR(g.interpolate(u, g.logicalPoint(p)), u[p], 1e-15);

  // Spectral accuracy on a non-polynomial function with a finer grid.
  SpectralGrid3D fine(SpectralAxis::chebyshevGaussLobatto(20, -1.0, 2.0),
                      SpectralAxis::chebyshevGauss(16, 0.5, 1.5),
                      SpectralAxis::fourier(24, 2 * kPi, 0.0));
  auto h = [](double x, double y, double z) { return std::exp(std::sin(z)) * std::cos(x * y); };
  auto uh = sampleGrid(fine, h);
  for (int trial = 0; trial < 30; ++trial) {
    std::array<double, 3> p{dx(gen), dy(gen), dz(gen)};
    EXPECT_NEAR(fine.interpolate(uh, p), h(p[0], p[1], p[2]), 1e-9);
  }
}

TEST(SpectralGrid3D, DerivativeMapIsApplied) {
  auto g = makeGrid();
  auto u = sampleGrid(g, [](double x, double y, double z) { return x * x * y + std::sin(z); });
  // No map: physicalBundle == bundle.
  auto plain = g.bundle(u);
  auto same = g.physicalBundle(u);
  for (int s = 0; s < 10; ++s)
    EXPECT_EQ(plain.slot[s], same.slot[s]);

  // Physical X = x / 2  =>  d/dX = 2 d/dx, d2/dX2 = 4 d2/dx2, d2/dXdy = 2 d2/dxdy.
  int calls = 0;
  g.setDerivativeMap([&calls](const std::array<double, 3> &, std::array<double, 10> &v) {
    ++calls;
    v[DerivativeBundle::D1] *= 2.0;
    v[DerivativeBundle::D11] *= 4.0;
    v[DerivativeBundle::D12] *= 2.0;
    v[DerivativeBundle::D13] *= 2.0;
  });
  EXPECT_TRUE(g.hasDerivativeMap());
  auto phys = g.physicalBundle(u);
  EXPECT_EQ(static_cast<std::size_t>(calls), g.size());
  for (std::size_t p = 0; p < g.size(); ++p) {
    EXPECT_EQ(phys.slot[DerivativeBundle::Value][p], plain.slot[DerivativeBundle::Value][p]);
    EXPECT_EQ(phys.slot[DerivativeBundle::D1][p], 2.0 * plain.slot[DerivativeBundle::D1][p]);
    EXPECT_EQ(phys.slot[DerivativeBundle::D11][p], 4.0 * plain.slot[DerivativeBundle::D11][p]);
    EXPECT_EQ(phys.slot[DerivativeBundle::D2][p], plain.slot[DerivativeBundle::D2][p]);
    EXPECT_EQ(phys.slot[DerivativeBundle::D33][p], plain.slot[DerivativeBundle::D33][p]);
  }
  // The map receives the logical point.
  std::vector<std::array<double, 3>> seen;
  g.setDerivativeMap(
      [&seen](const std::array<double, 3> &x, std::array<double, 10> &) { seen.push_back(x); });
  g.physicalBundle(u);
  ASSERT_EQ(seen.size(), g.size());
  EXPECT_EQ(seen[123], g.logicalPoint(123));
}

TEST(SpectralGrid3D, SizeMismatchThrows) {
  auto g = makeGrid();
  std::vector<double> wrong(g.size() - 1, 0.0), right(g.size(), 0.0);
  EXPECT_THROW(g.bundle(wrong), std::invalid_argument);
  EXPECT_THROW(g.physicalBundle(wrong), std::invalid_argument);
  EXPECT_THROW(g.interpolate(wrong, {0.0, 1.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(g.applyDerivative(0, 1, wrong, right), std::invalid_argument);
  EXPECT_THROW(g.applyDerivative(0, 1, right, wrong), std::invalid_argument);
  try {
    g.bundle(wrong);
    FAIL() << "expected throw";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("expected 240"), std::string::npos) << e.what();
  }
}

TEST(SpectralGrid3D, TabulatedDerivativeMapEqualsTheMap) {
  auto g = makeGrid();
  // A linear map that mixes slots with point-dependent weights (like a chain rule).
  g.setDerivativeMap([](const std::array<double, 3> &q, std::array<double, 10> &b) {
    std::array<double, 10> in = b;
    for (std::size_t r = 0; r < 10; ++r) {
      b[r] = 0.0;
      for (std::size_t c = 0; c < 10; ++c)
        b[r] += std::sin(1.0 + static_cast<double>(r * 10 + c) + q[0] - 2 * q[1] + 0.5 * q[2]) * in[c];
    }
  });
  std::vector<double> u(g.size());
  for (std::size_t p = 0; p < g.size(); ++p)
    u[p] = std::cos(0.3 * static_cast<double>(p));
  DerivativeBundle direct = g.physicalBundle(u);
  g.tabulateDerivativeMap();
  ASSERT_TRUE(g.derivativeMapTabulated());
  DerivativeBundle tabulated = g.physicalBundle(u);
  for (int s = 0; s < 10; ++s)
    for (std::size_t p = 0; p < g.size(); ++p)
      EXPECT_NEAR(tabulated.slot[s][p], direct.slot[s][p], 1e-12 * (1 + std::abs(direct.slot[s][p])));
  // Replacing the map drops the table.
  g.setDerivativeMap([](const std::array<double, 3> &, std::array<double, 10> &b) { b[0] *= 2; });
  EXPECT_FALSE(g.derivativeMapTabulated());
  std::array<double, 10> b{};
  b[0] = 1.0;
  EXPECT_THROW(
      {
        g.tabulateDerivativeMap();
        g.applyDerivativeMap(g.size(), b);
      },
      std::out_of_range);
}
