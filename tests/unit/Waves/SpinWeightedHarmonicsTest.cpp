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

#include "tensorium_mlir/Waves/Strain.h"

// Fixed-frequency integration recovers a strain whose second derivative is given in closed form:
// h = exp(-((t - t0) / s)^2) e^{-i w t}, Psi4 = h''. Its broken twin, a cut-off above the
// signal's frequency, distorts it beyond the same tolerance.
TEST(Strain, FixedFrequencyIntegrationRecoversAKnownStrain) {
  const double t0 = 60, s = 12, w = 0.8, dt = 0.1; // spectral content below omega0 = 0.1: e^{-17}
  const int n = 1200;
  std::vector<std::complex<double>> h(n), psi4(n);
  const std::complex<double> I(0, 1);
  for (int k = 0; k < n; ++k) {
    const double t = k * dt, u = (t - t0) / s;
    const std::complex<double> g = std::exp(-u * u) * std::exp(-I * w * t);
    // d/dt of g = g (-2 u / s - i w); twice: g ((-2 u / s - i w)^2 - 2 / s^2).
    const std::complex<double> a = -2.0 * u / s - I * w;
    h[static_cast<size_t>(k)] = g;
    psi4[static_cast<size_t>(k)] = g * (a * a - 2.0 / (s * s));
  }
  auto worst = [&](const std::vector<std::complex<double>> &got) {
    double e = 0;
    for (int k = 0; k < n; ++k)
      e = std::max(e, std::abs(got[static_cast<size_t>(k)] - h[static_cast<size_t>(k)]));
    return e;
  };
  const double good = worst(strainFromPsi4(psi4, dt, 0.1)), twin = worst(strainFromPsi4(psi4, dt, 1.2));
  std::printf("fixed-frequency integration: max |h - h_exact| %.3e (omega0 = 0.1), %.3e (omega0 = 1.2, twin)\n", good, twin);
  EXPECT_LT(good, 1e-6);
  EXPECT_GT(twin, 0.1);
  EXPECT_THROW(strainFromPsi4({}, dt, 0.1), std::invalid_argument);
  EXPECT_THROW(strainFromPsi4(psi4, 0.0, 0.1), std::invalid_argument);
  EXPECT_THROW(strainFromPsi4(psi4, dt, -1.0), std::invalid_argument);
}

#include "tensorium_mlir/Waves/Ringdown.h"

// The fit recovers the fundamental l = 2 quasinormal frequency of a unit-mass Schwarzschild hole
// (M omega = 0.3737 - 0.0890 i, Leaver 1985) from a sampled damped sinusoid started from guesses
// 30 % off; a pure exponential decay without oscillation is fitted badly (the twin).
TEST(Ringdown, DampedSinusoidFitRecoversTheQuasinormalFrequency) {
  std::vector<double> t, y, decay;
  for (int k = 0; k < 200; ++k) {
    const double s = 0.2 * k;
    t.push_back(20 + s);
    y.push_back(0.03 * std::exp(-0.0890 * s) * std::cos(0.3737 * s + 0.4));
    decay.push_back(0.03 * std::exp(-0.0890 * s));
  }
  const DampedSinusoid f = fitDampedSinusoid(t, y, 0.3737 * 1.3, 0.0890 * 0.7);
  std::printf("fit: omega %.10f gamma %.10f A %.6f phase %.6f, rms %.2e, %d evaluations\n", f.omega, f.gamma, f.amplitude, f.phase,
              f.rmsResidual, f.evaluations);
  EXPECT_TRUE(f.converged) << f.message;
  EXPECT_NEAR(f.omega, 0.3737, 1e-9);
  EXPECT_NEAR(f.gamma, 0.0890, 1e-9);
  EXPECT_NEAR(f.amplitude, 0.03, 1e-9);
  EXPECT_NEAR(f.phase, 0.4, 1e-8);
  const DampedSinusoid twin = fitDampedSinusoid(t, decay, 0.3737, 0.0890);
  std::printf("twin (no oscillation): omega %.4f, rms %.2e\n", twin.omega, twin.rmsResidual);
  EXPECT_TRUE(twin.rmsResidual > 1e-3 || std::abs(twin.omega - 0.3737) > 0.1);
  EXPECT_THROW(fitDampedSinusoid({1, 2}, {1, 2}, 0.3, 0.1), std::invalid_argument);
}
