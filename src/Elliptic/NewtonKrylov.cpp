#include "tensorium_mlir/Elliptic/NewtonKrylov.h"

#include <cstdio>
#include <cmath>
#include <limits>

namespace tensorium_mlir::elliptic {

namespace {
/// Residuals in messages: "%.3e", never the fixed-point "%f" of std::to_string (4.5e-12 would
/// read 0.000000).
std::string scientific(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3e", v);
  return text;
}
} // namespace


double rmsNorm(const Vector &v) { return v.size() ? v.norm() / std::sqrt(static_cast<double>(v.size())) : 0.0; }

const char *newtonStatusName(NewtonStatus status) {
  switch (status) {
  case NewtonStatus::Converged: return "converged";
  case NewtonStatus::MaxIterations: return "maximum iterations reached";
  case NewtonStatus::Stagnation: return "stagnation";
  case NewtonStatus::NonFiniteResidual: return "non-finite residual";
  case NewtonStatus::SingularJacobian: return "singular Jacobian";
  case NewtonStatus::LinearSolveFailed: return "linear solve failed";
  case NewtonStatus::InvalidProblem: return "invalid problem";
  }
  return "unknown";
}

GmresResult solveGmres(const LinearOperator &A, const Vector &b, Vector &x, const GmresOptions &options,
                       const LinearOperator &preconditioner) {
  GmresResult result;
  const Eigen::Index n = b.size();
  if (x.size() != n) {
    result.message = "initial guess has " + std::to_string(x.size()) + " entries, right-hand side " + std::to_string(n);
    return result;
  }
  if (options.restart < 1 || options.maxIterations < 0) {
    result.message = "restart must be positive and maxIterations non-negative";
    return result;
  }
  auto applyM = [&](const Vector &in, Vector &out) {
    if (preconditioner)
      preconditioner(in, out);
    else
      out = in;
  };
  const double target = options.relativeTolerance * b.norm() + options.absoluteTolerance;
  Vector r(n), Ax(n), z(n), w(n);
  A(x, Ax);
  r = b - Ax;
  double beta = r.norm();
  result.history.push_back(beta);
  if (!std::isfinite(beta)) {
    result.message = "non-finite residual";
    result.residualNorm = beta;
    return result;
  }
  const int m = options.restart;
  while (beta > target && result.iterations < options.maxIterations) {
    // One Arnoldi cycle with modified Gram-Schmidt; Givens rotations keep the least-squares
    // residual of the Hessenberg system available at every step.
    Eigen::MatrixXd V(n, m + 1), H = Eigen::MatrixXd::Zero(m + 1, m);
    Vector cs = Vector::Zero(m), sn = Vector::Zero(m), g = Vector::Zero(m + 1);
    V.col(0) = r / beta;
    g(0) = beta;
    int k = 0;
    for (; k < m && result.iterations < options.maxIterations; ++k) {
      applyM(V.col(k), z);
      A(z, w);
      for (int i = 0; i <= k; ++i) {
        H(i, k) = w.dot(V.col(i));
        w -= H(i, k) * V.col(i);
      }
      H(k + 1, k) = w.norm();
      if (H(k + 1, k) > 0)
        V.col(k + 1) = w / H(k + 1, k);
      for (int i = 0; i < k; ++i) {
        double t = cs(i) * H(i, k) + sn(i) * H(i + 1, k);
        H(i + 1, k) = -sn(i) * H(i, k) + cs(i) * H(i + 1, k);
        H(i, k) = t;
      }
      double denom = std::hypot(H(k, k), H(k + 1, k));
      if (denom == 0.0) {
        result.message = "GMRES breakdown: zero Krylov direction";
        break;
      }
      cs(k) = H(k, k) / denom;
      sn(k) = H(k + 1, k) / denom;
      H(k, k) = denom;
      H(k + 1, k) = 0.0;
      g(k + 1) = -sn(k) * g(k);
      g(k) = cs(k) * g(k);
      ++result.iterations;
      double estimate = std::abs(g(k + 1));
      result.history.push_back(estimate);
      if (options.monitor)
        options.monitor({result.iterations, estimate});
      if (!std::isfinite(estimate)) {
        result.message = "non-finite Krylov residual";
        result.residualNorm = estimate;
        return result;
      }
      if (estimate <= target) {
        ++k;
        break;
      }
    }
    if (k == 0)
      break;
    Vector yk = H.topLeftCorner(k, k).triangularView<Eigen::Upper>().solve(g.head(k));
    Vector update = V.leftCols(k) * yk;
    applyM(update, z);
    x += z;
    A(x, Ax);
    r = b - Ax;
    double newBeta = r.norm();
    if (result.message.empty() && !(newBeta < beta * (1 - 1e-12)))
      result.message = "GMRES stagnated: a restart cycle did not reduce the residual";
    beta = newBeta;
    if (!result.message.empty())
      break;
  }
  result.residualNorm = beta;
  result.converged = beta <= target;
  if (!result.converged && result.message.empty())
    result.message = "GMRES reached " + std::to_string(result.iterations) + " iterations with residual " +
                     scientific(beta) + " (target " + scientific(target) + ")";
  return result;
}

namespace {
bool allFinite(const Vector &v) { return v.allFinite(); }
} // namespace

NewtonResult solveNewton(const NonlinearProblem &problem, Vector &u, const NewtonOptions &options) {
  NewtonResult result;
  if (!problem.residual) {
    result.status = NewtonStatus::LinearSolveFailed;
    result.message = "no residual callback";
    return result;
  }
  const Eigen::Index n = u.size();
  if (!allFinite(u)) {
    result.status = NewtonStatus::NonFiniteResidual;
    result.message = "the initial guess contains NaN or infinite values";
    return result;
  }
  Vector F(n), Fnew(n), delta(n), Jv(n), trial(n);
  auto jvp = [&](const Vector &at, const Vector &v, Vector &out) {
    if (problem.jacobianVector) {
      problem.jacobianVector(at, v, out);
      return;
    }
    // Centred difference with a step scaled to the state and the direction.
    double vn = v.norm();
    if (vn == 0.0) {
      out.setZero(n);
      return;
    }
    double eps = std::cbrt(std::numeric_limits<double>::epsilon()) * (1.0 + at.norm()) / vn;
    Vector plus = at + eps * v, minus = at - eps * v, Fp(n), Fm(n);
    problem.residual(plus, Fp);
    problem.residual(minus, Fm);
    out = (Fp - Fm) / (2 * eps);
  };
  problem.residual(u, F);
  double norm = rmsNorm(F);
  result.residualHistory.push_back(norm);
  const bool dense = options.linearSolve == LinearSolveKind::Dense ||
                     (options.linearSolve == LinearSolveKind::Auto && n <= options.denseJacobianMaxUnknowns);
  for (;;) {
    result.residualNorm = norm;
    if (!std::isfinite(norm)) {
      result.status = NewtonStatus::NonFiniteResidual;
      result.message = "the residual is not finite at iteration " + std::to_string(result.iterations);
      return result;
    }
    if (norm <= options.absoluteTolerance) {
      result.status = NewtonStatus::Converged;
      result.message = "converged in " + std::to_string(result.iterations) + " Newton iterations";
      return result;
    }
    if (result.iterations >= options.maxIterations) {
      result.status = NewtonStatus::MaxIterations;
      result.message = "no convergence after " + std::to_string(result.iterations) + " Newton iterations (residual " +
                       scientific(norm) + ")";
      return result;
    }
    int krylov = 0;
    if (dense) {
      Eigen::MatrixXd J(n, n);
      Vector e = Vector::Zero(n);
      for (Eigen::Index j = 0; j < n; ++j) {
        e(j) = 1.0;
        jvp(u, e, Jv);
        J.col(j) = Jv;
        e(j) = 0.0;
      }
      if (!J.allFinite()) {
        result.status = NewtonStatus::NonFiniteResidual;
        result.message = "the Jacobian has non-finite entries";
        return result;
      }
      // Row equilibration: on mapped domains the rows of a spectral Jacobian can span many
      // decades (near spatial infinity the compactified operator is tiny); scaling rows does not
      // change the Newton step but keeps the LU and its condition estimate meaningful.
      Vector rowScale = J.rowwise().lpNorm<Eigen::Infinity>();
      for (Eigen::Index i = 0; i < n; ++i)
        rowScale(i) = rowScale(i) > 0 ? 1.0 / rowScale(i) : 1.0;
      J = rowScale.asDiagonal() * J;
      Eigen::PartialPivLU<Eigen::MatrixXd> lu(J);
      // Pivoted LU does not report singularity: use its reciprocal condition estimate.
      delta = lu.solve(-(rowScale.asDiagonal() * F));
      const double rcond = lu.rcond();
      if (!(rcond > 10 * std::numeric_limits<double>::epsilon()) || !delta.allFinite()) {
        result.status = NewtonStatus::SingularJacobian;
        result.message = "the Jacobian is singular to working precision at iteration " + std::to_string(result.iterations) +
                         " (reciprocal condition estimate " + scientific(rcond) + ")";
        return result;
      }
    } else {
      GmresOptions g = options.gmres;
      g.relativeTolerance = options.gmresForcing;
      LinearOperator J = [&](const Vector &v, Vector &out) { jvp(u, v, out); };
      LinearOperator M;
      if (problem.preconditioner)
        M = problem.preconditioner(u);
      delta.setZero(n);
      Vector rhs = -F;
      GmresResult gr = solveGmres(J, rhs, delta, g, M);
      krylov = gr.iterations;
      result.krylovIterations += gr.iterations;
      if (!gr.converged && gr.residualNorm > 0.5 * rhs.norm()) {
        result.status = NewtonStatus::LinearSolveFailed;
        result.message = "the Krylov solve failed: " + gr.message;
        return result;
      }
    }
    // Damped step: halve until the residual decreases.
    double step = 1.0;
    double newNorm = norm;
    bool accepted = false;
    for (int h = 0; h <= options.maxLineSearchHalvings; ++h, step *= 0.5) {
      trial = u + step * delta;
      problem.residual(trial, Fnew);
      newNorm = rmsNorm(Fnew);
      if (std::isfinite(newNorm) && (newNorm < norm || !options.lineSearch)) {
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      result.status = NewtonStatus::Stagnation;
      result.message = "the line search found no decrease of the residual (" + scientific(norm) + ")";
      return result;
    }
    u = trial;
    F = Fnew;
    norm = newNorm;
    ++result.iterations;
    result.residualHistory.push_back(norm);
    if (options.monitor)
      options.monitor({result.iterations, norm, step, krylov});
  }
}

} // namespace tensorium_mlir::elliptic
