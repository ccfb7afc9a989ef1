// The spacetime check's finite-difference curvature against closed forms: a flat FRW-like
// metric, ds^2 = -dt^2 + a(t)^2 dx^2 with a = t^q, has the textbook Ricci tensor
// R_tt = -3 a''/a, R_ij = (a a'' + 2 a'^2) delta_ij and box t = -3 a'/a; Schwarzschild in
// isotropic coordinates is vacuum. Both at the stencil's order.
#include "tensorium_mlir/Verification/SpacetimeCheck.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tensorium_mlir::verification;

namespace {

MetricSampler frw(double q) {
  return [q](double t, std::span<const std::array<double, 3>> points, std::span<std::array<double, 16>> g) {
    for (size_t p = 0; p < points.size(); ++p) {
      g[p] = {};
      g[p][0] = -1;
      for (int i = 1; i < 4; ++i)
        g[p][static_cast<size_t>(i * 5)] = std::pow(t, 2 * q);
    }
  };
}

MetricSampler isotropicSchwarzschild(double M) {
  return [M](double, std::span<const std::array<double, 3>> points, std::span<std::array<double, 16>> g) {
    for (size_t p = 0; p < points.size(); ++p) {
      const double r = std::hypot(points[p][0], points[p][1], points[p][2]);
      const double psi = 1 + M / (2 * r), alpha = (1 - M / (2 * r)) / psi;
      g[p] = {};
      g[p][0] = -alpha * alpha;
      for (int i = 1; i < 4; ++i)
        g[p][static_cast<size_t>(i * 5)] = std::pow(psi, 4);
    }
  };
}

/// Largest deviation from the closed form over the events at step h.
double frwError(double q, const std::vector<std::array<double, 4>> &events, double h, int order) {
  double worst = 0;
  const std::vector<SpacetimeResidual> r = spacetimeResiduals(frw(q), events, h, order);
  for (size_t e = 0; e < events.size(); ++e) {
    const double t = events[e][0], a = std::pow(t, q), da = q * std::pow(t, q - 1), dda = q * (q - 1) * std::pow(t, q - 2);
    for (int b = 0; b < 4; ++b)
      for (int d = 0; d < 4; ++d) {
        const double exact = b != d ? 0 : b == 0 ? -3 * dda / a : a * dda + 2 * da * da;
        worst = std::max(worst, std::abs(r[e].ricci[static_cast<size_t>(b * 4 + d)] - exact));
      }
    worst = std::max(worst, std::abs(r[e].box[0] + 3 * da / a));
    for (int m = 1; m < 4; ++m)
      worst = std::max(worst, std::abs(r[e].box[static_cast<size_t>(m)]));
  }
  return worst;
}

} // namespace

TEST(SpacetimeCheck, CurvedMetricMatchesClosedFormAtStencilOrder) {
  const std::vector<std::array<double, 4>> events{{1.3, 0.2, -0.4, 0.1}, {2.1, -1.0, 0.5, 0.7}};
  for (int order : {2, 4, 6}) {
    const double coarse = frwError(2.0 / 3, events, 0.16, order), fine = frwError(2.0 / 3, events, 0.08, order);
    const double observed = std::log2(coarse / fine);
    EXPECT_NEAR(observed, order, 0.3) << "order " << order << ": errors " << coarse << ", " << fine;
    EXPECT_LT(fine, 1e-3);
  }
}

TEST(SpacetimeCheck, SchwarzschildIsVacuumAtStencilOrder) {
  const std::vector<std::array<double, 4>> events = sampleEvents({0.0}, {-5, -5, -5}, {5, 5, 5}, 8, {{0, 0, 0}}, 2.5);
  auto worst = [&](double h) {
    double w = 0;
    for (const SpacetimeResidual &r : spacetimeResiduals(isotropicSchwarzschild(1.0), events, h, 4))
      for (double v : r.ricci)
        w = std::max(w, std::abs(v));
    return w;
  };
  const double coarse = worst(0.08), fine = worst(0.04);
  EXPECT_GT(coarse, 1e-9); // a truncation error to measure, not round-off
  EXPECT_NEAR(std::log2(coarse / fine), 4.0, 0.3);
}

TEST(SpacetimeCheck, SamplesStayOutsideExcisionAndRefuseBadBoxes) {
  const auto events = sampleEvents({0.0, 1.0}, {-3, -3, -3}, {3, 3, 3}, 20, {{1, 0, 0}}, 1.5);
  ASSERT_EQ(events.size(), 40u);
  for (const auto &e : events)
    EXPECT_GE(std::hypot(e[1] - 1, e[2], e[3]), 1.5);
  EXPECT_THROW(sampleEvents({0.0}, {0, 0, 0}, {0, 1, 1}, 4, {}, 0), std::invalid_argument);
  EXPECT_THROW(sampleEvents({0.0}, {-1, -1, -1}, {1, 1, 1}, 4, {{0, 0, 0}}, 10), std::invalid_argument);
  EXPECT_THROW(spacetimeResiduals(frw(0.5), events, 0.01, 3), std::invalid_argument);
}
