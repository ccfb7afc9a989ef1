#pragma once
// Newton's method with a dense or matrix-free (restarted, right-preconditioned GMRES) linear
// solve, over abstract residual and Jacobian-vector-product callbacks. The spectral residual
// problems plug into this; it knows nothing about grids.
#include <Eigen/Dense>

#include <functional>
#include <string>
#include <vector>

namespace tensorium_mlir::elliptic {

using Vector = Eigen::VectorXd;
/// y = A x. Callers size y.
using LinearOperator = std::function<void(const Vector &x, Vector &y)>;

struct KrylovProgress {
  int iteration;       // total inner iterations so far
  double residualNorm; // ||b - A x|| (preconditioned estimate inside a cycle)
};

struct GmresOptions {
  int restart = 40;
  int maxIterations = 500;
  double relativeTolerance = 1e-10; // stop when ||r|| <= rel * ||b|| + abs
  double absoluteTolerance = 0.0;
  std::function<void(const KrylovProgress &)> monitor;
};

struct GmresResult {
  bool converged = false;
  int iterations = 0;
  double residualNorm = 0.0; // true residual at exit
  std::vector<double> history;
  std::string message;
};

/// Solves A x = b from the initial x; `preconditioner` (may be empty) applies M^-1 on the right,
/// so the method minimises ||b - A M^-1 y|| and returns x = M^-1 y.
GmresResult solveGmres(const LinearOperator &A, const Vector &b, Vector &x, const GmresOptions &options,
                       const LinearOperator &preconditioner = {});

enum class LinearSolveKind { Auto, Dense, Gmres };

enum class NewtonStatus {
  Converged, MaxIterations, Stagnation, NonFiniteResidual, SingularJacobian, LinearSolveFailed, InvalidProblem
};
const char *newtonStatusName(NewtonStatus status);

struct NewtonProgress {
  int iteration;
  double residualNorm;
  double step;         // damping factor accepted by the line search
  int krylovIterations; // of this Newton step
};

struct NewtonOptions {
  int maxIterations = 30;
  double absoluteTolerance = 1e-10; // on the residual's L2 norm / sqrt(n)
  LinearSolveKind linearSolve = LinearSolveKind::Auto;
  int denseJacobianMaxUnknowns = 600;
  GmresOptions gmres;
  double gmresForcing = 1e-3;       // inner relative tolerance per Newton step
  int maxLineSearchHalvings = 12;
  /// false: take every full Newton step whose residual is finite (no damping).
  bool lineSearch = true;
  std::function<void(const NewtonProgress &)> monitor;
};

struct NewtonResult {
  NewtonStatus status = NewtonStatus::MaxIterations;
  int iterations = 0;
  int krylovIterations = 0;
  double residualNorm = 0.0;
  std::vector<double> residualHistory;
  std::string message;
  bool converged() const { return status == NewtonStatus::Converged; }
};

struct NonlinearProblem {
  std::function<void(const Vector &u, Vector &F)> residual;
  /// J(u) v; when empty a centred finite difference of `residual` is used.
  std::function<void(const Vector &u, const Vector &v, Vector &Jv)> jacobianVector;
  /// Optional right preconditioner for GMRES at the current state: y = M^-1 x.
  std::function<LinearOperator(const Vector &u)> preconditioner;
};

/// Root-mean-square norm used for convergence: ||F||_2 / sqrt(n).
double rmsNorm(const Vector &v);

NewtonResult solveNewton(const NonlinearProblem &problem, Vector &u, const NewtonOptions &options);

} // namespace tensorium_mlir::elliptic
