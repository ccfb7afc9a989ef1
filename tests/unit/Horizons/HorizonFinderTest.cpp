// The apparent-horizon finder against closed forms: the harmonics' orthonormality and derivatives,
// the expansion of arbitrary surfaces against finite differences of the divergence of their unit
// normal, Schwarzschild (r = M/2, area 16 pi M^2) from closed-form and from grid data, and the
// Brill-Lindquist critical separation of a common horizon (published 1.53-1.56 M).
#include "tensorium_mlir/Horizons/HorizonFinder.h"
#include "tensorium_mlir/Horizons/SphericalHarmonics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

using namespace tensorium_mlir::horizons;

namespace {

constexpr double kPi = std::numbers::pi;

GeometrySampler schwarzschild(double M, double coefficient = 0.5) {
  return conformallyFlatGeometry([M, coefficient](const Point3 &x, double &psi, Point3 &grad, Sym3 &K) {
    const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    psi = 1 + coefficient * M / r;
    for (size_t k = 0; k < 3; ++k)
      grad[k] = -coefficient * M * x[k] / (r * r * r);
    K = {};
  });
}

/// A lumpy surface about `center`: a sphere of radius 1 plus a few low harmonics.
StarSurface lumpy(const Point3 &center) {
  StarSurface s = StarSurface::sphere(center, 1.0, 4);
  s.coefficients[static_cast<size_t>(harmonicIndex(1, 1))] = 0.12;
  s.coefficients[static_cast<size_t>(harmonicIndex(2, -1))] = -0.08;
  s.coefficients[static_cast<size_t>(harmonicIndex(2, 0))] = 0.1;
  s.coefficients[static_cast<size_t>(harmonicIndex(3, 2))] = 0.05;
  s.coefficients[static_cast<size_t>(harmonicIndex(4, -3))] = 0.03;
  return s;
}

/// F = |x - c| - h(theta(x), phi(x)), evaluated from the surface's values only.
double levelSet(const StarSurface &s, const Point3 &x) {
  const double dx = x[0] - s.center[0], dy = x[1] - s.center[1], dz = x[2] - s.center[2];
  const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
  return r - s.radiusAt(std::acos(dz / r), std::atan2(dy, dx));
}

/// Fourth-order central difference of f along axis a.
template <class F> double derivative(const F &f, Point3 x, int a, double e) {
  auto at = [&](double shift) {
    Point3 y = x;
    y[static_cast<size_t>(a)] += shift;
    return f(y);
  };
  return (8 * (at(e) - at(-e)) - (at(2 * e) - at(-2 * e))) / (12 * e);
}

} // namespace

TEST(SphericalHarmonics, OrthonormalUnderTheProductRule) {
  const SphereGrid grid(6, 7, 13);
  for (int a = 0; a < grid.harmonics(); ++a)
    for (int b = 0; b < grid.harmonics(); ++b) {
      double sum = 0;
      for (int k = 0; k < grid.nodeCount(); ++k)
        sum += grid.weight(k) * grid.basis(k, a).y * grid.basis(k, b).y;
      EXPECT_NEAR(sum, a == b ? 1.0 : 0.0, 1e-13) << a << " " << b;
    }
}

TEST(SphericalHarmonics, KnownLowOrderFormsAndDerivatives) {
  const double theta = 0.7, phi = 1.3;
  const std::vector<HarmonicValues> y = realHarmonics(5, theta, phi);
  EXPECT_NEAR(y[0].y, 1 / std::sqrt(4 * kPi), 1e-15);
  EXPECT_NEAR(y[static_cast<size_t>(harmonicIndex(1, 0))].y, std::sqrt(3 / (4 * kPi)) * std::cos(theta), 1e-15);
  EXPECT_NEAR(y[static_cast<size_t>(harmonicIndex(1, 1))].y, std::sqrt(3 / (4 * kPi)) * std::sin(theta) * std::cos(phi), 1e-15);
  EXPECT_NEAR(y[static_cast<size_t>(harmonicIndex(2, -2))].y,
              std::sqrt(15 / (16 * kPi)) * std::pow(std::sin(theta), 2) * std::sin(2 * phi), 1e-15);
  const double e = 1e-4;
  for (int k = 0; k < harmonicCount(5); ++k) {
    auto value = [&](double t, double p) { return realHarmonics(5, t, p)[static_cast<size_t>(k)]; };
    const HarmonicValues &v = y[static_cast<size_t>(k)];
    EXPECT_NEAR(v.dTheta, (value(theta + e, phi).y - value(theta - e, phi).y) / (2 * e), 1e-6) << k;
    EXPECT_NEAR(v.dPhi, (value(theta, phi + e).y - value(theta, phi - e).y) / (2 * e), 1e-6) << k;
    EXPECT_NEAR(v.dThetaTheta, (value(theta + e, phi).dTheta - value(theta - e, phi).dTheta) / (2 * e), 1e-6) << k;
    EXPECT_NEAR(v.dThetaPhi, (value(theta, phi + e).dTheta - value(theta, phi - e).dTheta) / (2 * e), 1e-6) << k;
    EXPECT_NEAR(v.dPhiPhi, (value(theta, phi + e).dPhi - value(theta, phi - e).dPhi) / (2 * e), 1e-6) << k;
  }
  EXPECT_THROW(SphereGrid(6, 6, 13), std::invalid_argument);
  EXPECT_THROW(realHarmonics(3, -0.1, 1.0), std::invalid_argument);
  EXPECT_NEAR(realHarmonics(3, 0.0, 1.0)[static_cast<size_t>(harmonicIndex(3, 0))].y, std::sqrt(7 / (4 * kPi)), 1e-15);
  EXPECT_TRUE(std::isnan(realHarmonics(3, 0.0, 1.0)[1].dTheta));
}

// Flat space with K_ij = kappa delta_ij: Theta = d_i (d_i F / |dF|) - 2 kappa, the divergence by
// differences of F alone (no angular derivatives, no chain rule of the finder).
TEST(HorizonExpansion, FlatSpaceEqualsTheDivergenceOfTheUnitNormal) {
  const double kappa = 0.3;
  const GeometrySampler flat = [kappa](std::span<const Point3> points, std::span<SpatialGeometry> out) {
    for (size_t p = 0; p < points.size(); ++p)
      out[p] = {{1, 0, 0, 1, 0, 1}, {}, {kappa, 0, 0, kappa, 0, kappa}};
  };
  const StarSurface s = lumpy({0.2, -0.1, 0.3});
  const SphereGrid grid(4, 6, 11);
  const std::vector<double> theta = expansionAt(flat, s, grid);
  const double e = 1e-3;
  for (int k = 0; k < grid.nodeCount(); k += 7) {
    const double h = s.radiusAt(grid.theta(k), grid.phi(k));
    const Point3 x = {s.center[0] + h * std::sin(grid.theta(k)) * std::cos(grid.phi(k)),
                      s.center[1] + h * std::sin(grid.theta(k)) * std::sin(grid.phi(k)), s.center[2] + h * std::cos(grid.theta(k))};
    double divergence = 0;
    for (int a = 0; a < 3; ++a)
      divergence += derivative(
          [&](const Point3 &y) {
            double g[3], norm = 0;
            for (int b = 0; b < 3; ++b)
              g[b] = derivative([&](const Point3 &z) { return levelSet(s, z); }, y, b, e), norm += g[b] * g[b];
            return g[a] / std::sqrt(norm);
          },
          x, a, e);
    EXPECT_NEAR(theta[static_cast<size_t>(k)], divergence - 2 * kappa, 2e-6) << "node " << k;
  }
}

// Conformally flat gamma = psi^4 delta: D_i s^i = psi^-2 d_i n_i + 4 psi^-3 n_i d_i psi with n the
// flat unit normal, which exercises the Christoffel symbols.
TEST(HorizonExpansion, ConformallyFlatMatchesTheConformalDivergence) {
  const std::vector<Puncture> punctures = {{0.6, {0.1, 0.2, -0.1}}, {0.3, {-0.2, -0.1, 0.2}}};
  const GeometrySampler geometry = brillLindquistGeometry(punctures);
  auto psi = [&](const Point3 &x) {
    double v = 1;
    for (const Puncture &p : punctures)
      v += p.mass / (2 * std::hypot(x[0] - p.position[0], x[1] - p.position[1], x[2] - p.position[2]));
    return v;
  };
  const StarSurface s = lumpy({0.05, 0.0, 0.1});
  const SphereGrid grid(4, 6, 11);
  const std::vector<double> theta = expansionAt(geometry, s, grid);
  const double e = 1e-3;
  for (int k = 3; k < grid.nodeCount(); k += 9) {
    const double h = s.radiusAt(grid.theta(k), grid.phi(k));
    const Point3 x = {s.center[0] + h * std::sin(grid.theta(k)) * std::cos(grid.phi(k)),
                      s.center[1] + h * std::sin(grid.theta(k)) * std::sin(grid.phi(k)), s.center[2] + h * std::cos(grid.theta(k))};
    auto normal = [&](const Point3 &y, int a) {
      double g[3], norm = 0;
      for (int b = 0; b < 3; ++b)
        g[b] = derivative([&](const Point3 &z) { return levelSet(s, z); }, y, b, e), norm += g[b] * g[b];
      return g[a] / std::sqrt(norm);
    };
    double divergence = 0, advect = 0;
    for (int a = 0; a < 3; ++a) {
      divergence += derivative([&](const Point3 &y) { return normal(y, a); }, x, a, e);
      advect += normal(x, a) * derivative(psi, x, a, e);
    }
    const double p = psi(x);
    EXPECT_NEAR(theta[static_cast<size_t>(k)], divergence / (p * p) + 4 * advect / (p * p * p), 2e-6) << "node " << k;
  }
}

TEST(HorizonFinder, SchwarzschildFromClosedFormData) {
  const double M = 1.0;
  HorizonOptions options;
  options.lmax = 8;
  const HorizonResult r = findHorizon(schwarzschild(M), StarSurface::sphere({0, 0, 0}, 0.8, 8), options);
  ASSERT_TRUE(r.found) << r.message;
  const SurfaceMeasures &m = r.measures;
  std::printf("Schwarzschild: %d iterations, mean radius %.15f, area / 16 pi %.15f\n", r.iterations, m.meanRadius,
              m.area / (16 * kPi));
  EXPECT_NEAR(m.meanRadius, M / 2, 1e-10);
  EXPECT_NEAR(m.area / (16 * kPi * M * M), 1.0, 1e-8);
  EXPECT_NEAR(m.irreducibleMass, M, 1e-8);
  EXPECT_NEAR(m.equatorialCircumference, 4 * kPi * M, 1e-8);
  EXPECT_NEAR(m.polarCircumferenceXZ, 4 * kPi * M, 1e-8);
  EXPECT_NEAR(m.polarCircumferenceYZ, 4 * kPi * M, 1e-8);
  EXPECT_LT(m.spinMagnitude, 1e-14);
  EXPECT_LT(m.maxExpansion, 1e-9);
  for (double c : m.centroid)
    EXPECT_NEAR(c, 0.0, 1e-12);
}

// The same horizon expanded about an off-centre point: a shifted sphere, represented by the
// harmonics up to lmax, whose area converges as lmax grows.
TEST(HorizonFinder, SchwarzschildAboutAnOffCentrePoint) {
  double previous = 1;
  for (int lmax : {4, 8, 12}) {
    HorizonOptions options;
    options.lmax = lmax;
    const HorizonResult r = findHorizon(schwarzschild(2.0), StarSurface::sphere({0.2, -0.1, 0.15}, 1.5, lmax), options);
    ASSERT_TRUE(r.found) << r.message;
    const double error = std::abs(r.measures.area / (64 * kPi) - 1);
    std::printf("off-centre lmax %2d: area error %.3e, centroid (%.2e, %.2e, %.2e)\n", lmax, error, r.measures.centroid[0],
                r.measures.centroid[1], r.measures.centroid[2]);
    EXPECT_LT(error, previous);
    previous = error;
  }
  EXPECT_LT(previous, 1e-8);
}

namespace {

std::shared_ptr<UniformGridData> schwarzschildGrid(int n, double extent, double coefficient = 0.5) {
  auto d = std::make_shared<UniformGridData>();
  d->n = {n, n, n};
  const double h = 2 * extent / (n - 1);
  d->origin = {-extent, -extent, -extent};
  d->spacing = {h, h, h};
  const size_t points = static_cast<size_t>(n) * static_cast<size_t>(n) * static_cast<size_t>(n);
  for (size_t c = 0; c < 6; ++c)
    d->gamma[c].assign(points, 0.0), d->K[c].assign(points, 0.0);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double x = -extent + i * h, y = -extent + j * h, z = -extent + k * h;
        const double psi = 1 + coefficient / std::sqrt(x * x + y * y + z * z), psi4 = std::pow(psi, 4);
        const size_t index = static_cast<size_t>(i + n * (j + n * k));
        d->gamma[0][index] = d->gamma[3][index] = d->gamma[5][index] = psi4;
      }
  return d;
}

} // namespace

// Grid data: gamma_ij sampled on grids of spacing h (the puncture between nodes), interpolated by
// 6-point Lagrange polynomials; the area error falls at the interpolant derivative's order.
TEST(HorizonFinder, SchwarzschildFromGridDataConverges) {
  std::vector<double> errors;
  const int sizes[] = {24, 48, 96};
  for (int n : sizes) {
    const HorizonResult r =
        findHorizon(interpolatedGeometry(schwarzschildGrid(n, 1.0)), StarSurface::sphere({0, 0, 0}, 0.8, 6), {.lmax = 6});
    ASSERT_TRUE(r.found) << r.message;
    errors.push_back(std::abs(r.measures.area / (16 * kPi) - 1));
    std::printf("grid %3d^3 (h = %.4f): area error %.3e\n", n, 2.0 / (n - 1), errors.back());
  }
  for (size_t i = 1; i < errors.size(); ++i) {
    const double order = std::log(errors[i - 1] / errors[i]) / std::log((sizes[i] - 1.0) / (sizes[i - 1] - 1.0));
    std::printf("observed order %.2f\n", order);
    EXPECT_GT(order, 4.0);
  }
  EXPECT_LT(errors.back(), 1e-6);
  // The broken twin: psi = 1 + 0.55 M / r (a wrong coefficient) gives a horizon whose area is
  // not 16 pi M^2 at any resolution.
  const HorizonResult twin =
      findHorizon(interpolatedGeometry(schwarzschildGrid(48, 1.0, 0.55)), StarSurface::sphere({0, 0, 0}, 0.8, 6), {.lmax = 6});
  ASSERT_TRUE(twin.found) << twin.message;
  EXPECT_GT(std::abs(twin.measures.area / (16 * kPi) - 1), 0.05);
}

TEST(HorizonFinder, ReportsNoHorizonClearly) {
  // Flat space has no marginally outer trapped surface; a sphere larger than the grid leaves it.
  const GeometrySampler flat = [](std::span<const Point3> points, std::span<SpatialGeometry> out) {
    for (size_t p = 0; p < points.size(); ++p)
      out[p] = {{1, 0, 0, 1, 0, 1}, {}, {}};
  };
  const HorizonResult none = findHorizon(flat, StarSurface::sphere({0, 0, 0}, 1.0, 4), {.lmax = 4});
  EXPECT_FALSE(none.found);
  EXPECT_FALSE(none.message.empty());
  std::printf("flat space: %s\n", none.message.c_str());
  const HorizonResult outside =
      findHorizon(interpolatedGeometry(schwarzschildGrid(24, 1.0)), StarSurface::sphere({0, 0, 0}, 2.0, 4), {.lmax = 4});
  EXPECT_FALSE(outside.found);
  EXPECT_NE(outside.message.find("left the data"), std::string::npos) << outside.message;
  EXPECT_THROW(findHorizon(flat, StarSurface::sphere({0, 0, 0}, -1.0, 4), {.lmax = 4}), std::invalid_argument);
  EXPECT_THROW(findHorizon(flat, StarSurface::sphere({0, 0, 0}, 1.0, 4), {.lmax = -1}), std::invalid_argument);
  EXPECT_THROW(brillLindquistGeometry({{-1.0, {0, 0, 0}}}), std::invalid_argument);
  auto bad = std::make_shared<UniformGridData>();
  bad->n = {4, 4, 4};
  bad->spacing = {1, 1, 1};
  EXPECT_THROW(interpolatedGeometry(bad), std::invalid_argument);
}

// Two Brill-Lindquist punctures of equal bare mass m = M/2: a common horizon exists up to a
// coordinate separation of 1.53 m (Brill and Lindquist 1963 about 1.56 m; Cadez 1974 and the
// finder test beds of Alcubierre et al. 2000 and Thornburg 2004, with m1 = m2 = 1: 1.53-1.532),
// that is 0.766 M in units of the total bare mass.
TEST(HorizonFinder, BrillLindquistCommonHorizonCriticalSeparation) {
  HorizonOptions options;
  options.lmax = 12;
  const CommonHorizonSearch s = commonHorizonSeparation(0.5, 0.5, options, 1e-3);
  std::printf("Brill-Lindquist m1 = m2 = m: common horizon at d = %.4f m, none at d = %.4f m (lmax %d, %d finder calls); "
              "M_irr at the last %.6f M\n",
              2 * s.lastFound, 2 * s.firstMissing, options.lmax, s.finderCalls, s.lastMeasures.irreducibleMass);
  EXPECT_GE(2 * s.lastFound, 1.50);
  EXPECT_LE(2 * s.firstMissing, 1.58);
  EXPECT_LE(s.firstMissing - s.lastFound, 1e-3);
  // The broken twin: psi = 1 + sum m / r (the coefficient 1 for 1/2), which the same check rejects.
  const auto wrongCoefficient = [](std::vector<Puncture> punctures) {
    for (Puncture &p : punctures)
      p.mass *= 2; // m / (2 r) with twice the mass is m / r
    return brillLindquistGeometry(punctures);
  };
  const CommonHorizonSearch twin = commonHorizonSeparation(0.5, 0.5, options, 1e-3, wrongCoefficient);
  std::printf("twin (psi = 1 + m/r): common horizon up to d = %.4f m\n", 2 * twin.lastFound);
  EXPECT_FALSE(2 * twin.lastFound >= 1.50 && 2 * twin.firstMissing <= 1.58);
}

TEST(HorizonGeometry, GridInterpolationMatchesTheClosedForm) {
  const GeometrySampler exact = schwarzschild(1.0);
  std::vector<double> values, derivatives;
  for (int n : {24, 48}) {
    const GeometrySampler grid = interpolatedGeometry(schwarzschildGrid(n, 1.0));
    double worst = 0, worstD = 0;
    for (double t = 0.1; t < 3; t += 0.37) {
      const Point3 x = {0.6 * std::sin(t) * std::cos(2 * t), 0.6 * std::sin(t) * std::sin(2 * t), 0.6 * std::cos(t)};
      SpatialGeometry a, b;
      exact(std::span<const Point3>(&x, 1), std::span<SpatialGeometry>(&a, 1));
      grid(std::span<const Point3>(&x, 1), std::span<SpatialGeometry>(&b, 1));
      for (size_t c = 0; c < 6; ++c) {
        worst = std::max(worst, std::abs(a.gamma[c] - b.gamma[c]));
        for (size_t k = 0; k < 3; ++k)
          worstD = std::max(worstD, std::abs(a.dgamma[k][c] - b.dgamma[k][c]));
      }
    }
    std::printf("grid %d: max |gamma error| %.3e, max |d gamma error| %.3e\n", n, worst, worstD);
    values.push_back(worst), derivatives.push_back(worstD);
  }
  // 6-point Lagrange: values at order 6, derivatives at order 5 (h ratio 47/23 ~ 2.04).
  EXPECT_GT(values[0] / values[1], std::pow(47.0 / 23.0, 5.5));
  EXPECT_GT(derivatives[0] / derivatives[1], std::pow(47.0 / 23.0, 4.0));
}
