#pragma once
// Manufactured-solution resolution studies of generated spectral residuals: each suite solves
// F(u) = 0 from a non-exact guess with Newton's method at a resolution and measures the error
// against the analytic solution (tensorium-converge is their command-line front end).
#include "tensorium_mlir/Elliptic/SpectralNewton.h"
#include "tensorium_mlir/Runtime/HostABITypes.h"

#include <array>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tensorium_mlir::verification {

struct ManufacturedSuite {
  std::string name, fixture, description;
  /// Systems: the analytic solution of every unknown, by name (empty for single residuals).
  std::map<std::string, std::function<double(const std::array<double, 3> &)>> unknowns;
  std::vector<std::pair<std::string, double>> params;
  std::function<double(const std::array<double, 3> &)> exact;
  /// Auxiliary field values at a point, by name (source included).
  std::function<double(const std::string &, const std::array<double, 3> &)> aux;
  std::function<double(const std::array<double, 3> &)> perturbation; // vanishes on the Chebyshev faces
};

/// The suites: poisson, nonlinear-toy, lichnerowicz, two-field.
const std::vector<ManufacturedSuite> &manufacturedSuites();

/// The linear solver: the dense Jacobian without a preconditioner, restarted GMRES with one.
struct ManufacturedSolver {
  elliptic::SpectralPreconditionerKind preconditioner = elliptic::SpectralPreconditionerKind::None;
  bool progress = false;
  int fourierPoints = 0; ///< 0: as many as the Chebyshev axes
};

struct ManufacturedRow {
  int n = 0;
  size_t unknowns = 0;
  double error = 0.0, residual = 0.0, seconds = 0.0;
  long peakKB = 0; // the process's peak resident size after this solve (monotone)
  int newton = 0, krylov = 0;
  std::string status;
};

/// One resolution of a suite with its module's tables (single residual or system).
ManufacturedRow solveManufactured(const ManufacturedSuite &suite, const tensorium_module_tables &tables, int n,
                                  const ManufacturedSolver &solver);

/// The verdict of a suite's rows: exponential decay means log10(error) falls linearly with n, so
/// the slope fitted over the errors above the round-off floor (1e-12) must be at most -0.5 per
/// point over at least three resolutions, every solve converged and the finest error below 1e-9.
struct ManufacturedVerdict {
  double slope = 0;
  size_t fitted = 0;
  bool pass = false;
  std::string line;  ///< "verdict: ..." without the newline
  std::string table; ///< the human report: suite, grid, solver, rows, verdict
};
ManufacturedVerdict judgeManufactured(const ManufacturedSuite &suite, const std::vector<ManufacturedRow> &rows,
                                      const ManufacturedSolver &solver);

/// The rows as CSV (n, unknowns, max_error, residual, newton, krylov, seconds, peak_kb, status)
/// and the suite, verdict and rows as one JSON object.
std::string manufacturedCsv(const std::vector<ManufacturedRow> &rows);
std::string manufacturedJson(const ManufacturedSuite &suite, const std::vector<ManufacturedRow> &rows,
                             const ManufacturedVerdict &verdict);

/// Peak memory of a manufactured-solution solve at the largest resolution (docs/memory.md): the
/// dense Newton path holds the Jacobian, its LU factors and a work copy (3 x unknowns^2 doubles);
/// the preconditioned GMRES path about 2 kB per unknown, like the two-puncture solves.
double manufacturedMemoryEstimate(int n, int unknownsPerPoint, int fourierPoints, bool dense);

} // namespace tensorium_mlir::verification
