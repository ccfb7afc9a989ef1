#include "tensorium_mlir/Physics/TwoPunctureGeometry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

using tensorium_mlir::physics::TwoPunctureGeometry;

TEST(TwoPunctureGeometry, CompactAndCartesianRoundTrip) {
  TwoPunctureGeometry geo(1.7);
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> A(0.02, 0.98), B(-0.98, 0.98), phi(0.0, 2 * M_PI);
  for (int t = 0; t < 500; ++t) {
    std::array<double, 3> q{A(rng), B(rng), phi(rng)};
    std::array<double, 3> back = geo.toCompact(geo.toCartesian(q));
    for (int a = 0; a < 3; ++a)
      EXPECT_NEAR(back[static_cast<size_t>(a)], q[static_cast<size_t>(a)], 1e-13) << "axis " << a;
  }
  std::uniform_real_distribution<double> X(-6.0, 6.0);
  for (int t = 0; t < 500; ++t) {
    std::array<double, 3> x{X(rng), X(rng), X(rng)};
    std::array<double, 3> back = geo.toCartesian(geo.toCompact(x));
    double scale = 1.0 + std::hypot(x[0], std::hypot(x[1], x[2]));
    for (int a = 0; a < 3; ++a)
      EXPECT_NEAR(back[static_cast<size_t>(a)], x[static_cast<size_t>(a)], 1e-13 * scale);
  }
  // The punctures sit at x = +-b on the A = 0 segment's ends.
  std::array<double, 3> p = geo.toCompact({1.7, 0.0, 0.0});
  EXPECT_NEAR(p[0], 0.0, 1e-12);
  EXPECT_NEAR(std::abs(p[1]), 1.0, 1e-12);
  EXPECT_THROW(TwoPunctureGeometry(0.0), std::invalid_argument);
}

TEST(TwoPunctureGeometry, CartesianBundleIsTheChainRule) {
  // f(x, y, z) with known Cartesian derivatives; its logical bundle by centred differences of
  // f(x(q)); the transformed bundle must match the analytic one.
  TwoPunctureGeometry geo(1.3);
  auto f = [](const std::array<double, 3> &x) { return std::exp(0.2 * x[0]) * std::sin(0.5 * x[1]) + x[1] * x[2] * x[2]; };
  auto exact = [](const std::array<double, 3> &x) {
    double e = std::exp(0.2 * x[0]), s = std::sin(0.5 * x[1]), c = std::cos(0.5 * x[1]);
    return std::array<double, 10>{e * s + x[1] * x[2] * x[2], 0.2 * e * s, 0.5 * e * c + x[2] * x[2], 2 * x[1] * x[2],
                                  0.04 * e * s, 0.1 * e * c, 0.0, -0.25 * e * s, 2 * x[2], 2 * x[1]};
  };
  const int second[3][3] = {{4, 5, 6}, {5, 7, 8}, {6, 8, 9}};
  for (std::array<double, 3> q : {std::array<double, 3>{0.3, 0.2, 1.0}, {0.7, -0.5, 4.0}, {0.5, 0.8, 2.5}}) {
    auto F = [&](std::array<double, 3> qq) { return f(geo.toCartesian(qq)); };
    const double h = 1e-4;
    std::array<double, 10> bundle{};
    bundle[0] = F(q);
    for (int a = 0; a < 3; ++a) {
      auto qp = q, qm = q;
      qp[static_cast<size_t>(a)] += h;
      qm[static_cast<size_t>(a)] -= h;
      bundle[1 + static_cast<size_t>(a)] = (F(qp) - F(qm)) / (2 * h);
      for (int c = a; c < 3; ++c) {
        auto d = [&](double sa, double sc) {
          auto qq = q;
          qq[static_cast<size_t>(a)] += sa * h;
          qq[static_cast<size_t>(c)] += sc * h;
          return F(qq);
        };
        bundle[static_cast<size_t>(second[a][c])] =
            a == c ? (F(qp) - 2 * F(q) + F(qm)) / (h * h) : (d(1, 1) - d(1, -1) - d(-1, 1) + d(-1, -1)) / (4 * h * h);
      }
    }
    geo.toCartesianBundle(q, bundle);
    std::array<double, 10> want = exact(geo.toCartesian(q));
    for (size_t s = 0; s < 10; ++s)
      EXPECT_NEAR(bundle[s], want[s], 2e-5 * std::max(1.0, std::abs(want[s]))) << "slot " << s;
  }
}
