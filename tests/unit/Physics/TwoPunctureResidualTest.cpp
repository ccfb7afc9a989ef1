// The generated two-puncture Hamiltonian residual (fixtures/elliptic/two_puncture_hamiltonian_3d.tn)
// against closed forms from the physics note and an independent C++ evaluation.
#include "TensoriumTwoPunctureResidualTests_kernels.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

namespace {

struct Params {
  double m1 = 0, m2 = 0;
  std::array<double, 3> c1{}, c2{}, P1{}, P2{}, S1{}, S2{};
  std::array<double, 20> flat() const {
    return {m1, m2, c1[0], c1[1], c1[2], c2[0], c2[1], c2[2], P1[0], P1[1], P1[2],
            P2[0], P2[1], P2[2], S1[0], S1[1], S1[2], S2[0], S2[1], S2[2]};
  }
};

/// H at a point for U = 0 and a flat U bundle: laplacian(U) = 0, so H = A2/8 psi^-7.
double residual(const Params &p, const std::array<double, 3> &x, const std::array<double, 10> &U) {
  tensorium_spectral_residual_point point{};
  point.value = U[0];
  for (int i = 0; i < 3; ++i)
    point.d[i] = U[1 + static_cast<size_t>(i)];
  for (int i = 0; i < 6; ++i)
    point.dd[i] = U[4 + static_cast<size_t>(i)];
  for (int i = 0; i < 3; ++i)
    point.physical[i] = x[static_cast<size_t>(i)];
  auto params = p.flat();
  return tensorium_spectral_residual_kernels[0].evaluate(&point, params.data(), nullptr);
}

/// Independent Bowen-York: Ahat^ij for one puncture, summed, contracted with the flat metric.
double referenceA2(const Params &p, const std::array<double, 3> &x) {
  double A[3][3] = {};
  auto add = [&](const std::array<double, 3> &c, const std::array<double, 3> &P, const std::array<double, 3> &S) {
    double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    double r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double n[3] = {d[0] / r, d[1] / r, d[2] / r};
    double Pn = P[0] * n[0] + P[1] * n[1] + P[2] * n[2];
    // The physics note's spin term eps^{kil} S_l n_k, written out with the Levi-Civita symbol.
    double eps[3][3][3] = {};
    eps[0][1][2] = eps[1][2][0] = eps[2][0][1] = 1;
    eps[0][2][1] = eps[2][1][0] = eps[1][0][2] = -1;
    double w[3] = {};
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l)
          w[i] += eps[k][i][l] * S[static_cast<size_t>(l)] * n[k];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double delta = i == j ? 1.0 : 0.0;
        A[i][j] += 3.0 / (2 * r * r) * (P[static_cast<size_t>(i)] * n[j] + P[static_cast<size_t>(j)] * n[i] - (delta - n[i] * n[j]) * Pn);
        A[i][j] += 3.0 / (r * r * r) * (w[i] * n[j] + w[j] * n[i]);
      }
  };
  add(p.c1, p.P1, p.S1);
  add(p.c2, p.P2, p.S2);
  double sum = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      sum += A[i][j] * A[i][j];
  return sum;
}

double psi(const Params &p, const std::array<double, 3> &x, double U) {
  auto dist = [&](const std::array<double, 3> &c) {
    return std::sqrt((x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) + (x[2] - c[2]) * (x[2] - c[2]));
  };
  return 1.0 + p.m1 / (2 * dist(p.c1)) + p.m2 / (2 * dist(p.c2)) + U;
}

} // namespace

TEST(TwoPunctureResidual, SinglePunctureMomentumContractionClosedForm) {
  Params p;
  p.m1 = 0.5;
  p.c1 = {0.3, -0.2, 0.1};
  p.c2 = {50, 0, 0}; // second puncture far away and without momentum or spin
  p.P1 = {0.2, -0.1, 0.3};
  std::array<double, 3> x{1.1, 0.4, -0.7};
  double d[3] = {x[0] - p.c1[0], x[1] - p.c1[1], x[2] - p.c1[2]};
  double r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double Pn = (p.P1[0] * d[0] + p.P1[1] * d[1] + p.P1[2] * d[2]) / r;
  double P2 = p.P1[0] * p.P1[0] + p.P1[1] * p.P1[1] + p.P1[2] * p.P1[2];
  double closed = 9.0 / (2 * std::pow(r, 4)) * (P2 + 2 * Pn * Pn);
  double H = residual(p, x, {});
  double A2 = 8 * H * std::pow(psi(p, x, 0.0), 7);
  EXPECT_NEAR(A2, closed, 1e-12 * closed);
}

TEST(TwoPunctureResidual, SinglePunctureSpinContractionClosedForm) {
  Params p;
  p.m1 = 0.7;
  p.c1 = {-0.4, 0.0, 0.2};
  p.c2 = {60, 0, 0};
  p.S1 = {0.1, 0.25, -0.2};
  std::array<double, 3> x{0.5, -0.6, 0.9};
  double d[3] = {x[0] - p.c1[0], x[1] - p.c1[1], x[2] - p.c1[2]};
  double r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double Sn = (p.S1[0] * d[0] + p.S1[1] * d[1] + p.S1[2] * d[2]) / r;
  double S2 = p.S1[0] * p.S1[0] + p.S1[1] * p.S1[1] + p.S1[2] * p.S1[2];
  double closed = 18.0 / std::pow(r, 6) * (S2 - Sn * Sn);
  double A2 = 8 * residual(p, x, {}) * std::pow(psi(p, x, 0.0), 7);
  EXPECT_NEAR(A2, closed, 1e-12 * closed);
}

TEST(TwoPunctureResidual, BrillLindquistLimitHasZeroResidualAtZeroU) {
  Params p;
  p.m1 = 0.6;
  p.m2 = 0.4;
  p.c1 = {1.0, 0, 0};
  p.c2 = {-1.0, 0, 0};
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> X(-3, 3);
  for (int t = 0; t < 20; ++t)
    EXPECT_EQ(residual(p, {X(rng), X(rng), X(rng)}, {}), 0.0);
}

TEST(TwoPunctureResidual, RandomPointsMatchIndependentEvaluation) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> X(-3, 3), V(-0.4, 0.4), M(0.2, 1.0);
  for (int t = 0; t < 50; ++t) {
    Params p;
    p.m1 = M(rng);
    p.m2 = M(rng);
    p.c1 = {1.2, 0, 0};
    p.c2 = {-1.2, 0, 0};
    for (int i = 0; i < 3; ++i) {
      p.P1[static_cast<size_t>(i)] = V(rng);
      p.P2[static_cast<size_t>(i)] = V(rng);
      p.S1[static_cast<size_t>(i)] = V(rng);
      p.S2[static_cast<size_t>(i)] = V(rng);
    }
    std::array<double, 3> x{X(rng), X(rng), X(rng)};
    std::array<double, 10> U{0.05, 0.1, -0.2, 0.3, 0.4, 0.0, 0.0, -0.1, 0.0, 0.2};
    double lapU = U[4] + U[7] + U[9];
    double want = lapU + referenceA2(p, x) / 8 * std::pow(psi(p, x, U[0]), -7);
    double got = residual(p, x, U);
    EXPECT_NEAR(got, want, 1e-12 * std::max(1.0, std::abs(want)));
  }
}

#include "tensorium_mlir/Physics/TwoPunctures.h"

using namespace tensorium_mlir;

TEST(TwoPunctureSolve, BrillLindquistLimitIsExact) {
  physics::TwoPunctureParameters p;
  p.b = 1.0;
  p.m1 = 0.6;
  p.m2 = 0.4;
  physics::TwoPunctureOptions options;
  options.nA = options.nB = 8;
  options.nPhi = 4;
  physics::TwoPunctureSolution s = physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], p, options);
  ASSERT_TRUE(s.result().converged()) << s.result().message;
  EXPECT_LT(s.v().cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_NEAR(s.admMass(), 1.0, 1e-12);
}

namespace {
physics::TwoPunctureParameters boosted() {
  physics::TwoPunctureParameters p;
  p.b = 1.5;
  p.m1 = p.m2 = 0.45;
  p.P1 = {0.0, 0.15, 0.0};
  p.P2 = {0.0, -0.15, 0.0};
  return p;
}
} // namespace

TEST(TwoPunctureSolve, BoostedEqualMassAdmMassMatchesTheFarField) {
  physics::TwoPunctureOptions options;
  options.nA = options.nB = 20;
  options.nPhi = 8;
  physics::TwoPunctureParameters p = boosted();
  physics::TwoPunctureSolution s = physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], p, options);
  ASSERT_TRUE(s.result().converged()) << s.result().message;
  EXPECT_TRUE(s.result().usedKrylov);
  EXPECT_LE(s.result().residualNorm, 1e-10);
  // Second method: U ~ (M - m1 - m2) / (2 r) + O(1/r^2) far away; Richardson-extrapolate 2 r U
  // from two radii along an oblique direction.
  auto estimate = [&](double r) {
    const double c = r / std::sqrt(3.0);
    return p.m1 + p.m2 + 2 * r * s.U({c, c, c});
  };
  const double r = 2e4, farField = 2 * estimate(2 * r) - estimate(r);
  EXPECT_NEAR(s.admMass(), farField, 1e-9);
  EXPECT_GT(s.admMass(), p.m1 + p.m2 + 1e-3); // momentum adds energy: U > 0
  // Equal and opposite momenta: the two punctures are mirror images.
  std::array<double, 2> masses = s.punctureAdmMasses();
  EXPECT_NEAR(masses[0], masses[1], 1e-12);
  EXPECT_NEAR(s.U({0.3, 0.2, 0.1}), s.U({-0.3, -0.2, 0.1}), 1e-12); // rotation by pi about z
  EXPECT_TRUE(std::isfinite(s.psi({0.0, 0.0, 0.0})));
}

TEST(TwoPunctureSolve, RowWeightingDoesNotChangeTheSolution) {
  physics::TwoPunctureOptions options;
  options.nA = options.nB = 12;
  options.nPhi = 6;
  physics::TwoPunctureParameters p = boosted();
  p.S1 = {0.05, 0.0, 0.1};
  physics::TwoPunctureSolution weighted = physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], p, options);
  options.scaleResidual = false;
  options.newton.tolerance = 1e-9;
  physics::TwoPunctureSolution raw = physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], p, options);
  ASSERT_TRUE(weighted.result().converged()) << weighted.result().message;
  ASSERT_TRUE(raw.result().converged()) << raw.result().message;
  EXPECT_LT((weighted.v() - raw.v()).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT(weighted.rawResidualNorms()[0], 1e-7); // raw rows near the punctures carry large round-off
}

TEST(TwoPunctureSolve, BareMassSearchReachesTargetPunctureMasses) {
  physics::TwoPunctureOptions options;
  options.nA = options.nB = 12;
  options.nPhi = 6;
  physics::TwoPunctureParameters p = boosted();
  p.S2 = {0.0, 0.0, 0.05};
  const std::array<double, 2> targets{0.5, 0.4};
  physics::BareMassSearch search =
      physics::findBareMasses(&tensorium_spectral_residual_kernels[0], p, targets, options, 1e-11);
  ASSERT_TRUE(search.converged) << search.message;
  // An independent solve at the bare masses found reproduces the targets.
  physics::TwoPunctureSolution s = physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], search.parameters, options);
  ASSERT_TRUE(s.result().converged());
  EXPECT_NEAR(s.punctureAdmMasses()[0], targets[0], 1e-10);
  EXPECT_NEAR(s.punctureAdmMasses()[1], targets[1], 1e-10);
  EXPECT_LT(search.parameters.m1, targets[0]); // binding: bare masses are below the ADM masses
  EXPECT_LE(search.iterations, 10);
}

TEST(TwoPunctureSolve, BadParametersAreRejected) {
  physics::TwoPunctureOptions options;
  physics::TwoPunctureParameters p = boosted();
  p.m1 = -0.1;
  EXPECT_THROW(physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], p, options), std::invalid_argument);
  p = boosted();
  p.b = 0.0;
  EXPECT_THROW(physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], p, options), std::invalid_argument);
  p = boosted();
  p.P1[2] = std::nan("");
  EXPECT_THROW(physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], p, options), std::invalid_argument);
  options.nA = 2;
  EXPECT_THROW(physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], boosted(), options), std::invalid_argument);
  EXPECT_THROW(physics::findBareMasses(&tensorium_spectral_residual_kernels[0], boosted(), {0.5, -1.0}, {}),
               std::invalid_argument);
}
