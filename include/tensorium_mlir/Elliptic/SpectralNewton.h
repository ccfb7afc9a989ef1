#pragma once
// Newton-Krylov solves of spectral residual problems and systems: picks the linear solver and
// preconditioner, reports progress when asked, and returns every failure as a status.
#include "tensorium_mlir/Elliptic/Preconditioners.h"
#include "tensorium_mlir/Elliptic/SpectralResidual.h"

#include <ostream>

namespace tensorium_mlir::elliptic {

using SpectralLinearSolveKind = LinearSolveKind;

struct SpectralNewtonOptions {
  int maxNewtonIterations = 30;
  double tolerance = 1e-10; // on the residual's root-mean-square norm
  SpectralLinearSolveKind linearSolve = SpectralLinearSolveKind::Auto;
  int denseJacobianMaxUnknowns = 600;
  /// Right preconditioner of the GMRES path. Auto: modal Laplacian when the third axis is
  /// Fourier and the boundary rows allow it, else the dense Laplacian oracle up to
  /// denseJacobianMaxUnknowns * 8 unknowns, else Jacobi from JVPs.
  bool autoPreconditioner = true;
  SpectralPreconditionerKind preconditioner = SpectralPreconditionerKind::None;
  double preconditionerShift = 0.0;
  GmresOptions gmres;
  double gmresForcing = 1e-6;
  /// Damped Newton (halve the step until the residual decreases); false takes full steps.
  bool lineSearch = true;
  /// Progress per Newton and per Krylov iteration goes here when set (for example &std::cerr).
  std::ostream *progress = nullptr;
};

struct SpectralNewtonResult : NewtonResult {
  SpectralPreconditionerKind preconditioner = SpectralPreconditionerKind::None;
  bool usedKrylov = false;
};

SpectralNewtonResult solveSpectralNewton(const SpectralResidualProblem &problem, Vector &v,
                                         const SpectralNewtonOptions &options);
SpectralNewtonResult solveSpectralNewton(const SpectralResidualSystemProblem &problem, Vector &U,
                                         const SpectralNewtonOptions &options);

} // namespace tensorium_mlir::elliptic
