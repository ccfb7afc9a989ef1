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

/// Independent Bowen-York: Ahat^ij of both punctures, written with the Levi-Civita symbol.
std::array<std::array<double, 3>, 3> referenceTensor(const Params &p, const std::array<double, 3> &x) {
  std::array<std::array<double, 3>, 3> A{};
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
        A[static_cast<size_t>(i)][static_cast<size_t>(j)] += 3.0 / (2 * r * r) * (P[static_cast<size_t>(i)] * n[j] + P[static_cast<size_t>(j)] * n[i] - (delta - n[i] * n[j]) * Pn);
        A[static_cast<size_t>(i)][static_cast<size_t>(j)] += 3.0 / (r * r * r) * (w[i] * n[j] + w[j] * n[i]);
      }
  };
  add(p.c1, p.P1, p.S1);
  add(p.c2, p.P2, p.S2);
  return A;
}

/// Its contraction with the flat metric.
double referenceA2(const Params &p, const std::array<double, 3> &x) {
  std::array<std::array<double, 3>, 3> A = referenceTensor(p, x);
  double sum = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      sum += A[static_cast<size_t>(i)][static_cast<size_t>(j)] * A[static_cast<size_t>(i)][static_cast<size_t>(j)];
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

namespace {
/// nA = nB = nAB Chebyshev-Gauss points, nPhi Fourier points, default solver settings.
physics::TwoPunctureOptions gridOf(int nAB, int nPhi) {
  physics::TwoPunctureOptions options;
  options.nA = options.nB = nAB;
  options.nPhi = nPhi;
  return options;
}
physics::TwoPunctureSolution solve(const physics::TwoPunctureParameters &p, const physics::TwoPunctureOptions &options) {
  return physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], p, options);
}
} // namespace

TEST(TwoPunctureSolve, BrillLindquistLimitIsExact) {
  physics::TwoPunctureParameters p;
  p.b = 1.0;
  p.m1 = 0.6;
  p.m2 = 0.4;
  physics::TwoPunctureOptions options = gridOf(8, 4);
  physics::TwoPunctureSolution s = solve(p, options);
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
  physics::TwoPunctureOptions options = gridOf(20, 8);
  physics::TwoPunctureParameters p = boosted();
  physics::TwoPunctureSolution s = solve(p, options);
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
  physics::TwoPunctureOptions options = gridOf(12, 6);
  physics::TwoPunctureParameters p = boosted();
  p.S1 = {0.05, 0.0, 0.1};
  physics::TwoPunctureSolution weighted = solve(p, options);
  options.scaleResidual = false;
  options.newton.tolerance = 1e-9;
  physics::TwoPunctureSolution raw = solve(p, options);
  ASSERT_TRUE(weighted.result().converged()) << weighted.result().message;
  ASSERT_TRUE(raw.result().converged()) << raw.result().message;
  EXPECT_LT((weighted.v() - raw.v()).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT(weighted.rawResidualNorms()[0], 1e-7); // raw rows near the punctures carry large round-off
}

TEST(TwoPunctureSolve, BareMassSearchReachesTargetPunctureMasses) {
  physics::TwoPunctureOptions options = gridOf(12, 6);
  physics::TwoPunctureParameters p = boosted();
  p.S2 = {0.0, 0.0, 0.05};
  const std::array<double, 2> targets{0.5, 0.4};
  physics::BareMassSearch search =
      physics::findBareMasses(&tensorium_spectral_residual_kernels[0], p, targets, options, 1e-11);
  ASSERT_TRUE(search.converged) << search.message;
  // An independent solve at the bare masses found reproduces the targets.
  physics::TwoPunctureSolution s = solve(search.parameters, options);
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
  EXPECT_THROW(solve(p, options), std::invalid_argument);
  p = boosted();
  p.b = 0.0;
  EXPECT_THROW(solve(p, options), std::invalid_argument);
  p = boosted();
  p.P1[2] = std::nan("");
  EXPECT_THROW(solve(p, options), std::invalid_argument);
  options.nA = 2;
  EXPECT_THROW(solve(boosted(), options), std::invalid_argument);
  EXPECT_THROW(physics::findBareMasses(&tensorium_spectral_residual_kernels[0], boosted(), {0.5, -1.0}, {}),
               std::invalid_argument);
}

#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"

#include <numbers>

namespace {
constexpr int kSym[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};

physics::TwoPunctureParameters spinningBoosted() {
  physics::TwoPunctureParameters p = boosted();
  p.P1 = {0.05, 0.15, -0.02};
  p.S1 = {0.02, -0.03, 0.08};
  p.S2 = {-0.01, 0.04, 0.05};
  return p;
}
Params asParams(const physics::TwoPunctureParameters &q) {
  Params p;
  p.m1 = q.m1, p.m2 = q.m2;
  p.c1 = {q.b, 0, 0}, p.c2 = {-q.b, 0, 0};
  p.P1 = q.P1, p.P2 = q.P2, p.S1 = q.S1, p.S2 = q.S2;
  return p;
}
} // namespace

TEST(BowenYork, TensorMatchesTheLeviCivitaForm) {
  physics::TwoPunctureParameters q = spinningBoosted();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (int t = 0; t < 50; ++t) {
    std::array<double, 3> x{u(rng), u(rng), u(rng)};
    auto want = referenceTensor(asParams(q), x);
    physics::SymmetricTensor got = physics::bowenYorkCurvature(q, x);
    for (int a = 0; a < 6; ++a) {
      double w = want[static_cast<size_t>(kSym[a][0])][static_cast<size_t>(kSym[a][1])];
      EXPECT_NEAR(got[static_cast<size_t>(a)], w, 1e-12 * (1 + std::abs(w)));
    }
  }
}

TEST(BowenYork, SurfaceIntegralsReturnEachPuncturesMomentumAndSpin) {
  // P^i = (1/8 pi) oint Ahat^ij n_j dA and S^i = (1/8 pi) oint eps^ijk (x - c)_j Ahat_kl n^l dA on
  // a sphere around puncture 1 (the other puncture's divergence-free field integrates to zero).
  physics::TwoPunctureParameters q = spinningBoosted();
  const std::array<double, 3> c{q.b, 0, 0};
  const double R = 0.6;
  const int nTheta = 120, nPhi = 64;
  std::array<double, 3> P{}, S{};
  for (int it = 0; it < nTheta; ++it) {
    // Gauss-Chebyshev-like midpoint rule in theta (smooth periodic integrand in phi).
    const double theta = std::numbers::pi * (it + 0.5) / nTheta;
    for (int ip = 0; ip < nPhi; ++ip) {
      const double phi = 2 * std::numbers::pi * ip / nPhi;
      const std::array<double, 3> n{std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)};
      const std::array<double, 3> x{c[0] + R * n[0], c[1] + R * n[1], c[2] + R * n[2]};
      physics::SymmetricTensor A = physics::bowenYorkCurvature(q, x);
      double M[3][3];
      for (int a = 0; a < 6; ++a)
        M[kSym[a][0]][kSym[a][1]] = M[kSym[a][1]][kSym[a][0]] = A[static_cast<size_t>(a)];
      const double dA = R * R * std::sin(theta) * (std::numbers::pi / nTheta) * (2 * std::numbers::pi / nPhi);
      double An[3];
      for (int i = 0; i < 3; ++i)
        An[i] = M[i][0] * n[0] + M[i][1] * n[1] + M[i][2] * n[2];
      for (int i = 0; i < 3; ++i)
        P[static_cast<size_t>(i)] += An[i] * dA / (8 * std::numbers::pi);
      const double r[3] = {R * n[0], R * n[1], R * n[2]};
      const double rxAn[3] = {r[1] * An[2] - r[2] * An[1], r[2] * An[0] - r[0] * An[2], r[0] * An[1] - r[1] * An[0]};
      for (int i = 0; i < 3; ++i)
        S[static_cast<size_t>(i)] += rxAn[i] * dA / (8 * std::numbers::pi);
    }
  }
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(P[i], q.P1[i], 2e-5) << i;
    EXPECT_NEAR(S[i], q.S1[i], 2e-5) << i;
  }
}

TEST(TwoPunctureHandoff, BssnFieldsFromTheSolutionAreConsistentAndFiniteAtThePunctures) {
  physics::TwoPunctureOptions options = gridOf(16, 8);
  physics::TwoPunctureParameters q = spinningBoosted();
  physics::TwoPunctureSolution s = solve(q, options);
  ASSERT_TRUE(s.result().converged()) << s.result().message;
  // Points: both punctures exactly, points 1e-14 .. 1e-3 away, and a spread of ordinary points.
  std::vector<double> x, y, z;
  auto add = [&](double a, double b, double c) { x.push_back(a), y.push_back(b), z.push_back(c); };
  add(q.b, 0, 0);
  add(-q.b, 0, 0);
  for (double e : {1e-14, 1e-9, 1e-6, 1e-3})
    add(q.b + e, 0.5 * e, -e), add(-q.b - e, e, 0.0);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  for (int t = 0; t < 40; ++t)
    add(u(rng), u(rng), u(rng));
  const size_t n = x.size();
  std::vector<double> chi(n), gt(6 * n), K(n), At(6 * n), Gt(3 * n), alpha(n), beta(3 * n), B(3 * n), phi(n), W(n);
  physics::BSSNFieldBuffers buffers{chi, gt, K, At, Gt, alpha, beta, B, phi, W};
  physics::TwoPunctureHandoff handoff(s);
  handoff.write(x, y, z, buffers);
  for (auto *field : {&chi, &gt, &K, &At, &Gt, &alpha, &beta, &B, &phi, &W})
    for (double v : *field)
      ASSERT_TRUE(std::isfinite(v));
  for (size_t p = 0; p < n; ++p) {
    const std::array<double, 3> at{x[p], y[p], z[p]};
    const physics::PunctureFieldValues v = handoff.evaluate(at);
    const double psiFromChi = std::pow(chi[p], -0.25);
    EXPECT_NEAR(psiFromChi, v.psi, 1e-13 * v.psi);
    EXPECT_NEAR(alpha[p], std::sqrt(chi[p]), 1e-15 + 1e-13 * alpha[p]);
    EXPECT_NEAR(W[p], std::sqrt(chi[p]), 1e-15 + 1e-13 * W[p]);
    EXPECT_NEAR(phi[p], -0.25 * std::log(chi[p]), 1e-12 * std::abs(phi[p]) + 1e-14);
    EXPECT_EQ(K[p], 0.0);
    for (size_t a = 0; a < 6; ++a) {
      EXPECT_EQ(gt[a * n + p], (a == 0 || a == 3 || a == 5) ? 1.0 : 0.0);
      EXPECT_NEAR(At[a * n + p], std::pow(chi[p], 1.5) * v.Ahat[a], 1e-13 * std::abs(v.Ahat[a]) * std::pow(chi[p], 1.5) + 1e-300);
    }
    for (size_t i = 0; i < 3; ++i)
      EXPECT_TRUE(Gt[i * n + p] == 0.0 && beta[i * n + p] == 0.0 && B[i * n + p] == 0.0);
    const double r1 = std::hypot(x[p] - q.b, y[p], z[p]), r2 = std::hypot(x[p] + q.b, y[p], z[p]);
    if (std::min(r1, r2) > 1e-2) {
      // Away from the punctures psi also matches direct interpolation of the solution, and
      // Ahat the independent Bowen-York form.
      EXPECT_NEAR(psiFromChi, s.psi(at), 1e-12 * psiFromChi);
      auto want = referenceTensor(asParams(q), at);
      for (int a = 0; a < 6; ++a)
        EXPECT_NEAR(v.Ahat[static_cast<size_t>(a)], want[static_cast<size_t>(kSym[a][0])][static_cast<size_t>(kSym[a][1])],
                    1e-12 * (1 + std::abs(v.Ahat[static_cast<size_t>(a)])));
    }
  }
  // Towards a puncture chi, alpha and Atilde go to zero; exactly at it they stay finite.
  EXPECT_LT(chi[0], 1e-30);
  EXPECT_LT(alpha[0], 1e-15);
  EXPECT_GT(chi[n - 1], 1e-3);
  // alpha = 1 on request.
  physics::HandoffOptions one;
  one.lapse = physics::InitialLapse::One;
  physics::TwoPunctureHandoff(s, one).write(x, y, z, buffers);
  for (double a : alpha)
    EXPECT_EQ(a, 1.0);
}

TEST(TwoPunctureHandoff, BadBuffersAreRejectedBeforeAnythingIsWritten) {
  physics::TwoPunctureOptions options = gridOf(8, 4);
  physics::TwoPunctureSolution s = solve(boosted(), options);
  ASSERT_TRUE(s.result().converged());
  physics::TwoPunctureHandoff handoff(s);
  std::vector<double> x{0.1, 0.2}, y{0.0, 0.1}, z{0.3, 0.0};
  const size_t n = 2;
  std::vector<double> chi(n, 7.0), gt(6 * n, 7.0), K(n, 7.0), At(6 * n - 1, 7.0), Gt(3 * n, 7.0), alpha(n, 7.0),
      beta(3 * n, 7.0), B(3 * n, 7.0);
  physics::BSSNFieldBuffers buffers{chi, gt, K, At, Gt, alpha, beta, B, {}, {}};
  try {
    handoff.write(x, y, z, buffers);
    FAIL() << "expected a size error";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("'Atilde' has 11 entries, expected 6 x 2"), std::string::npos) << e.what();
  }
  for (double v : chi)
    EXPECT_EQ(v, 7.0);
  std::vector<double> shortY{0.0};
  EXPECT_THROW(handoff.write(x, shortY, z, buffers), std::invalid_argument);
  std::vector<double> nanX{0.1, std::nan("")};
  At.resize(6 * n);
  EXPECT_THROW(handoff.write(nanX, y, z, buffers), std::invalid_argument);
  EXPECT_EQ(chi[0], 7.0);
  physics::HandoffOptions bad;
  bad.punctureRadiusFloor = 0.0;
  EXPECT_THROW(physics::TwoPunctureHandoff(s, bad), std::invalid_argument);
}

TEST(TwoPunctureMomenta, SurfaceIntegralsReproduceTheBowenYorkClosedForms) {
  // The conformal integrands (Ahat_ij, transverse) give the closed forms on any sphere that
  // encloses both punctures; the physical ones (psi^-2 Ahat_ij) approach them as O(M / R).
  physics::TwoPunctureParameters p;
  p.P1 = {0.1, 0.2, 0.0};
  p.P2 = {0.0, -0.2, 0.05};
  p.S1 = {0.0, 0.0, 0.1};
  p.S2 = {0.05, 0.0, 0.0};
  const physics::TwoPunctureSolution s = solve(p, gridOf(16, 8));
  ASSERT_TRUE(s.result().converged());
  const physics::AdmMomenta closed = physics::bowenYorkAdmMomenta(p);
  EXPECT_DOUBLE_EQ(closed.P[0], 0.1);
  EXPECT_DOUBLE_EQ(closed.P[2], 0.05);
  EXPECT_DOUBLE_EQ(closed.J[0], 0.05);
  EXPECT_DOUBLE_EQ(closed.J[1], 0.05);
  EXPECT_DOUBLE_EQ(closed.J[2], 0.5); // (c1 x P1)_z + (c2 x P2)_z + S1z = 0.2 + 0.2 + 0.1
  for (double R : {5.0, 50.0}) {
    const physics::AdmMomenta c = physics::surfaceAdmMomenta(s, R, 48, 96, true);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_NEAR(c.P[i], closed.P[i], 1e-12) << "R = " << R;
      EXPECT_NEAR(c.J[i], closed.J[i], 1e-12) << "R = " << R;
    }
  }
  const double M = s.admMass();
  double previous = 0.0;
  for (double R : {100.0, 1000.0}) {
    const physics::AdmMomenta q = physics::surfaceAdmMomenta(s, R);
    const double error = std::abs(q.J[2] - closed.J[2]);
    EXPECT_LT(error, 2.0 * M / R * std::abs(closed.J[2])) << "R = " << R;
    if (previous > 0) {
      EXPECT_NEAR(previous / error, 10.0, 1.0); // O(1/R)
    }
    previous = error;
  }
}
