#include "tensorium_mlir/Elliptic/NewtonKrylov.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace tensorium_mlir::elliptic;

namespace {
Eigen::MatrixXd randomDominant(int n, unsigned seed, double diagonalSpread) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Eigen::MatrixXd A(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      A(i, j) = dist(rng) / n;
  for (int i = 0; i < n; ++i)
    A(i, i) += 1.0 + diagonalSpread * i; // nonsymmetric, diagonally dominant, badly scaled
  return A;
}

// Manufactured discrete Bratu problem: F_i = (u_{i-1} - 2 u_i + u_{i+1}) / h^2 + lambda exp(u_i) + s_i,
// with s chosen so that u*_i = sin(pi x_i) is the exact discrete root (u = 0 on the boundary).
struct Bratu {
  int n;
  double h, lambda = 1.5;
  Vector s, exact;
  explicit Bratu(int n) : n(n), h(1.0 / (n + 1)), s(n), exact(n) {
    for (int i = 0; i < n; ++i)
      exact(i) = std::sin(M_PI * (i + 1) * h);
    s.setZero();
    Vector F(n);
    residual(exact, F);
    s = -F;
  }
  void residual(const Vector &u, Vector &F) const {
    F.resize(n);
    for (int i = 0; i < n; ++i) {
      double left = i > 0 ? u(i - 1) : 0.0, right = i + 1 < n ? u(i + 1) : 0.0;
      F(i) = (left - 2 * u(i) + right) / (h * h) + lambda * std::exp(u(i)) + s(i);
    }
  }
  void jvp(const Vector &u, const Vector &v, Vector &Jv) const {
    Jv.resize(n);
    for (int i = 0; i < n; ++i) {
      double left = i > 0 ? v(i - 1) : 0.0, right = i + 1 < n ? v(i + 1) : 0.0;
      Jv(i) = (left - 2 * v(i) + right) / (h * h) + lambda * std::exp(u(i)) * v(i);
    }
  }
  NonlinearProblem problem(bool analyticJvp) const {
    NonlinearProblem p;
    p.residual = [this](const Vector &u, Vector &F) { residual(u, F); };
    if (analyticJvp)
      p.jacobianVector = [this](const Vector &u, const Vector &v, Vector &Jv) { jvp(u, v, Jv); };
    return p;
  }
};
} // namespace

TEST(Gmres, MatchesDirectSolveAndPreconditioningHelps) {
  const int n = 200;
  Eigen::MatrixXd A = randomDominant(n, 1, 50.0);
  Vector b = Vector::LinSpaced(n, -1.0, 2.0);
  Vector reference = A.partialPivLu().solve(b);
  LinearOperator op = [&](const Vector &x, Vector &y) { y = A * x; };
  GmresOptions options;
  options.restart = 30;
  options.relativeTolerance = 1e-12;
  options.maxIterations = 2000;
  Vector x = Vector::Zero(n);
  GmresResult plain = solveGmres(op, b, x, options);
  ASSERT_TRUE(plain.converged) << plain.message;
  EXPECT_LT((x - reference).norm() / reference.norm(), 1e-9);
  Vector diag = A.diagonal();
  LinearOperator jacobi = [&](const Vector &in, Vector &out) { out = in.cwiseQuotient(diag); };
  Vector y = Vector::Zero(n);
  GmresResult pre = solveGmres(op, b, y, options, jacobi);
  ASSERT_TRUE(pre.converged) << pre.message;
  EXPECT_LT((y - reference).norm() / reference.norm(), 1e-9);
  EXPECT_LT(pre.iterations, plain.iterations);
}

TEST(Gmres, ReportsFailuresAsValues) {
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(4, 4);
  S(0, 0) = 1.0; // rank one: b outside the range cannot be reached
  LinearOperator op = [&](const Vector &x, Vector &y) { y = S * x; };
  Vector b = Vector::Ones(4), x = Vector::Zero(4);
  GmresResult r = solveGmres(op, b, x, GmresOptions{});
  EXPECT_FALSE(r.converged);
  EXPECT_FALSE(r.message.empty());
  Vector wrong = Vector::Zero(3);
  EXPECT_FALSE(solveGmres(op, b, wrong, GmresOptions{}).converged);
}

TEST(Newton, DenseAndKrylovPathsFindTheManufacturedRoot) {
  Bratu bratu(60);
  for (LinearSolveKind kind : {LinearSolveKind::Dense, LinearSolveKind::Gmres}) {
    for (bool analytic : {true, false}) {
      Vector u = Vector::Zero(bratu.n);
      NewtonOptions options;
      options.linearSolve = kind;
      options.absoluteTolerance = 1e-10;
      options.gmresForcing = 1e-8;
      options.gmres.maxIterations = 400;
      options.gmres.restart = 60;
      NewtonResult r = solveNewton(bratu.problem(analytic), u, options);
      ASSERT_TRUE(r.converged()) << r.message;
      EXPECT_LT((u - bratu.exact).cwiseAbs().maxCoeff(), 1e-9);
      EXPECT_LE(r.iterations, 8);
      if (kind == LinearSolveKind::Gmres) {
        EXPECT_GT(r.krylovIterations, 0);
      }
    }
  }
}

TEST(Newton, ConvergesQuadraticallyNearTheRoot) {
  Bratu bratu(40);
  Vector u = 0.8 * bratu.exact;
  NewtonOptions options;
  options.absoluteTolerance = 1e-11;
  NewtonResult r = solveNewton(bratu.problem(true), u, options);
  ASSERT_TRUE(r.converged()) << r.message;
  const auto &h = r.residualHistory;
  ASSERT_GE(h.size(), 3u);
  // Quadratic convergence: e_{k+1} ~ C e_k^2, so log-ratios roughly double.
  size_t k = h.size() - 2;
  while (k > 1 && h[k] < 1e-9)
    --k;
  EXPECT_GT(std::log(h[k + 1]) / std::log(h[k]), 1.6);
}

TEST(Newton, StatusesForBadProblems) {
  NewtonOptions options;
  Vector nan(2);
  nan << 1.0, std::nan("");
  NonlinearProblem identity;
  identity.residual = [](const Vector &u, Vector &F) { F = u; };
  EXPECT_EQ(solveNewton(identity, nan, options).status, NewtonStatus::NonFiniteResidual);

  NonlinearProblem flat; // F = u^2 - 1 has a zero derivative at u = 0
  flat.residual = [](const Vector &u, Vector &F) { F = u.array().square() - 1.0; };
  flat.jacobianVector = [](const Vector &u, const Vector &v, Vector &Jv) { Jv = 2 * u.cwiseProduct(v); };
  Vector zero = Vector::Zero(1);
  EXPECT_EQ(solveNewton(flat, zero, options).status, NewtonStatus::SingularJacobian);

  NonlinearProblem noRoot; // u^2 + 1 = 0 has no real root
  noRoot.residual = [](const Vector &u, Vector &F) { F = u.array().square() + 1.0; };
  Vector start = Vector::Constant(1, 0.5);
  NewtonResult r = solveNewton(noRoot, start, options);
  EXPECT_FALSE(r.converged());
  EXPECT_TRUE(r.status == NewtonStatus::Stagnation || r.status == NewtonStatus::MaxIterations ||
              r.status == NewtonStatus::SingularJacobian)
      << newtonStatusName(r.status);
  EXPECT_FALSE(r.message.empty());
}

TEST(Newton, FailureMessagesPrintSmallResidualsInScientificNotation) {
  // F = u - 1 + 4.5e-12: one Newton step leaves |F| at round-off, short of a tolerance of 1e-30;
  // the message must give that residual ("1.1e-16"), not "residual 0.000000".
  NonlinearProblem nearlyLinear;
  nearlyLinear.residual = [](const Vector &u, Vector &F) { F = (u.array() - 1.0 + 4.5e-12).matrix(); };
  NewtonOptions options;
  options.absoluteTolerance = 1e-30;
  options.maxIterations = 1;
  Vector u = Vector::Constant(1, 3.0);
  NewtonResult r = solveNewton(nearlyLinear, u, options);
  ASSERT_FALSE(r.converged());
  EXPECT_EQ(r.message.find("0.000000"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("e-"), std::string::npos) << r.message;
}
