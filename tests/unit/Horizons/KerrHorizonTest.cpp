// Kerr (M = 1, a = 0.6) in Kerr-Schild coordinates from its fixture's slice kernel: the horizon's
// area 8 pi M r_+, irreducible mass, equatorial circumference 4 pi M, polar circumference
// 4 sqrt(r_+^2 + a^2) E(a^2 / (r_+^2 + a^2)) and the flat rotational-vector spin J = a M, all
// from the Kerr closed forms. The broken twin (K_ij with the wrong sign) is rejected.
#include "tensorium_mlir/Horizons/FixtureSlice.h"
#include "tensorium_mlir/Horizons/HorizonFinder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

using namespace tensorium_mlir::horizons;

namespace {

constexpr double kPi = std::numbers::pi;

std::string modulePath() { return std::string(TENSORIUM_HORIZON_MODULE_DIR) + "/libhorizon_kerr_schild.so"; }

struct KerrExpectation {
  double rPlus, area, irreducible, equatorial, polar;
  KerrExpectation(double M, double a) {
    rPlus = M + std::sqrt(M * M - a * a);
    area = 8 * kPi * M * rPlus;
    irreducible = std::sqrt(area / (16 * kPi));
    equatorial = 4 * kPi * M;
    // comp_ellint_2 takes the modulus k, with k^2 = a^2 / (r_+^2 + a^2).
    polar = 4 * std::sqrt(rPlus * rPlus + a * a) * std::comp_ellint_2(std::sqrt(a * a / (rPlus * rPlus + a * a)));
  }
};

} // namespace

TEST(KerrHorizon, AreaCircumferencesAndSpinFromTheFixture) {
  const double M = 1, a = 0.6;
  const FixtureSlice slice(modulePath(), {{"M", M}, {"a", a}});
  const GeometrySampler geometry = differentiatedGeometry(slice.sampler(), 1e-3);
  const KerrExpectation want(M, a);
  HorizonOptions options;
  options.lmax = 12;
  const HorizonResult r = findHorizon(geometry, StarSurface::sphere({0.05, -0.03, 0.02}, 2.5, 12), options);
  ASSERT_TRUE(r.found) << r.message;
  const SurfaceMeasures &m = r.measures;
  std::printf("Kerr a = 0.6: area %.12f (want %.12f), C_eq %.10f (%.10f), C_p %.10f / %.10f (%.10f), J (%.2e, %.2e, %.10f), "
              "M_irr %.10f, M %.10f, chi %.10f, %d iterations, rms Theta %.1e\n",
              m.area, want.area, m.equatorialCircumference, want.equatorial, m.polarCircumferenceXZ, m.polarCircumferenceYZ,
              want.polar, m.spin[0], m.spin[1], m.spin[2], m.irreducibleMass, m.christodoulouMass, m.dimensionlessSpin,
              r.iterations, m.rmsExpansion);
  EXPECT_NEAR(m.area / want.area, 1.0, 1e-8);
  EXPECT_NEAR(m.irreducibleMass, want.irreducible, 1e-8);
  EXPECT_NEAR(m.equatorialCircumference / want.equatorial, 1.0, 1e-8);
  EXPECT_NEAR(m.polarCircumferenceXZ / want.polar, 1.0, 1e-8);
  EXPECT_NEAR(m.polarCircumferenceYZ / want.polar, 1.0, 1e-8);
  EXPECT_NEAR(m.spin[2], a * M, 1e-8);
  EXPECT_NEAR(m.spin[0], 0.0, 1e-8);
  EXPECT_NEAR(m.spin[1], 0.0, 1e-8);
  EXPECT_NEAR(m.christodoulouMass, M, 1e-8);
  EXPECT_NEAR(m.dimensionlessSpin, a / M, 1e-8);
  // The spheroid (x^2 + y^2) / (r_+^2 + a^2) + z^2 / r_+^2 = 1 about the centroid (the origin).
  for (double c : m.centroid)
    EXPECT_NEAR(c, 0.0, 1e-8);
  StarSurface centred = r.surface;
  const double theta = 1.1, phi = 0.4;
  const double h = r.surface.radiusAt(theta, phi);
  const double x = r.surface.center[0] + h * std::sin(theta) * std::cos(phi),
               y = r.surface.center[1] + h * std::sin(theta) * std::sin(phi), z = r.surface.center[2] + h * std::cos(theta);
  EXPECT_NEAR((x * x + y * y) / (want.rPlus * want.rPlus + a * a) + z * z / (want.rPlus * want.rPlus), 1.0, 1e-6);
}

TEST(KerrHorizon, TheWrongSignOfKijIsRejected) {
  const FixtureSlice slice(modulePath(), {{"M", 1.0}, {"a", 0.6}});
  const MetricSampler good = slice.sampler();
  const MetricSampler flipped = [good](std::span<const Point3> points, std::span<Sym3> gamma, std::span<Sym3> K) {
    good(points, gamma, K);
    for (Sym3 &k : K)
      for (double &v : k)
        v = -v;
  };
  const HorizonResult r =
      findHorizon(differentiatedGeometry(flipped, 1e-3), StarSurface::sphere({0, 0, 0}, 2.5, 12), {.lmax = 12});
  const double area = 8 * kPi * 1.8;
  std::printf("K_ij flipped: found %d, area %.6f (Kerr %.6f), %s\n", r.found, r.measures.area, area, r.message.c_str());
  EXPECT_TRUE(!r.found || std::abs(r.measures.area / area - 1) > 1e-3 || std::abs(r.measures.spin[2] - 0.6) > 1e-3);
}

TEST(KerrHorizon, FixtureErrorsNameTheParameter) {
  EXPECT_THROW(FixtureSlice(modulePath(), {{"M", 1.0}}), std::runtime_error);
  EXPECT_THROW(FixtureSlice(modulePath(), {{"M", 1.0}, {"a", 0.6}, {"spin", 0.1}}), std::runtime_error);
  try {
    FixtureSlice(modulePath(), {{"M", 1.0}});
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("'a'"), std::string::npos) << e.what();
  }
}
