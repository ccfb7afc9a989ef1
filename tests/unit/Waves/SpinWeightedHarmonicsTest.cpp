// Spin-weighted harmonics against their closed forms for l = 2 (s = -2) and s = 0 (the ordinary
// harmonics), orthonormality under the sphere quadrature, and the projection recovering the
// coefficients of a band-limited spin -2 function exactly.
#include "tensorium_mlir/Waves/SpinWeightedHarmonics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

using namespace tensorium_mlir::waves;
using std::numbers::pi;

TEST(SpinWeightedHarmonics, ClosedFormsOfDegreeTwo) {
  const std::complex<double> I(0, 1);
  for (double theta : {0.3, 1.1, 2.5})
    for (double phi : {0.0, 0.7, 4.0}) {
      const double c = std::cos(theta), s = std::sin(theta);
      // Published forms (e.g. Ajith et al. 2007, the conventions of NR wave extraction).
      EXPECT_LT(std::abs(spinWeightedHarmonic(-2, 2, 2, theta, phi) - std::sqrt(5 / (64 * pi)) * std::pow(1 + c, 2) * std::exp(2.0 * I * phi)), 1e-14);
      EXPECT_LT(std::abs(spinWeightedHarmonic(-2, 2, 1, theta, phi) - std::sqrt(5 / (16 * pi)) * s * (1 + c) * std::exp(I * phi)), 1e-14);
      EXPECT_LT(std::abs(spinWeightedHarmonic(-2, 2, 0, theta, phi) - std::sqrt(15 / (32 * pi)) * s * s), 1e-14);
      EXPECT_LT(std::abs(spinWeightedHarmonic(-2, 2, -1, theta, phi) - std::sqrt(5 / (16 * pi)) * s * (1 - c) * std::exp(-I * phi)), 1e-14);
      EXPECT_LT(std::abs(spinWeightedHarmonic(-2, 2, -2, theta, phi) - std::sqrt(5 / (64 * pi)) * std::pow(1 - c, 2) * std::exp(-2.0 * I * phi)), 1e-14);
      EXPECT_LT(std::abs(spinWeightedHarmonic(0, 1, 0, theta, phi) - std::sqrt(3 / (4 * pi)) * c), 1e-14);
      EXPECT_LT(std::abs(spinWeightedHarmonic(0, 1, 1, theta, phi) + std::sqrt(3 / (8 * pi)) * s * std::exp(I * phi)), 1e-14);
    }
  EXPECT_EQ(spinWeightedHarmonic(-2, 1, 0, 1.0, 0.0), std::complex<double>(0.0));
}

TEST(SpinWeightedHarmonics, OrthonormalAndTheProjectionIsExact) {
  const int lmax = 8;
  const SphereQuadrature q(lmax);
  double worst = 0;
  for (int l1 = 2; l1 <= lmax; ++l1)
    for (int m1 = -l1; m1 <= l1; ++m1)
      for (int l2 = 2; l2 <= lmax; ++l2)
        for (int m2 = -l2; m2 <= l2; ++m2) {
          std::complex<double> sum = 0;
          for (int k = 0; k < q.size(); ++k)
            sum += q.weight(k) * spinWeightedHarmonic(-2, l1, m1, q.theta(k), q.phi(k)) *
                   std::conj(spinWeightedHarmonic(-2, l2, m2, q.theta(k), q.phi(k)));
          worst = std::max(worst, std::abs(sum - (l1 == l2 && m1 == m2 ? 1.0 : 0.0)));
        }
  EXPECT_LT(worst, 1e-13);
  // A random band-limited spin -2 function: its coefficients come back.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> d;
  std::vector<Mode> truth;
  for (int l = 2; l <= lmax; ++l)
    for (int m = -l; m <= l; ++m)
      truth.push_back({l, m, {d(rng), d(rng)}});
  std::vector<std::complex<double>> f(static_cast<size_t>(q.size()));
  for (int k = 0; k < q.size(); ++k)
    for (const Mode &t : truth)
      f[static_cast<size_t>(k)] += t.value * spinWeightedHarmonic(-2, t.l, t.m, q.theta(k), q.phi(k));
  const std::vector<Mode> got = projectSpinWeighted(q, f, -2, lmax);
  ASSERT_EQ(got.size(), truth.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].l, truth[i].l);
    EXPECT_EQ(got[i].m, truth[i].m);
    EXPECT_LT(std::abs(got[i].value - truth[i].value), 1e-12) << got[i].l << " " << got[i].m;
  }
  EXPECT_THROW(projectSpinWeighted(q, f, -2, lmax + 1), std::invalid_argument);
  EXPECT_THROW(SphereQuadrature(-1), std::invalid_argument);
}
