#pragma once
// Solving an elliptic problem declared in a .tn constraints block (unknowns, boundary
// conditions per face, domain, solve policy) from a generated module's tables alone: no
// problem-specific C++. Boundary rows come from the module's spectral_boundary_grid kernels.
#include "tensorium_mlir/Elliptic/SpectralNewton.h"
#include "tensorium_mlir/Runtime/HostABITypes.h"
#include "tensorium_mlir/Runtime/SpectralProblemTypes.h"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tensorium_mlir::elliptic {

struct DeclaredProblemOptions {
  std::map<std::string, double> params;            // by name; names the module lacks are errors
  std::optional<std::array<int, 3>> resolution;    // overrides the declared domain resolution
  std::optional<double> tolerance;                 // overrides the declared Newton tolerance
  std::optional<int> maxIterations;
  std::ostream *progress = nullptr;                // one line per Newton and Krylov iteration
};

struct DeclaredProblemSolution {
  std::unique_ptr<spectral::SpectralGrid3D> grid; // its physicalPoint() gives Cartesian points
  std::vector<std::string> unknownNames;          // the system's order
  Vector U;                                       // physical unknowns, field-major: U[k * points + p]
  Vector solverVariable;                          // what Newton solved for (U through the map's unknown map)
  std::map<std::string, double> parameters;       // every parameter as used (defaults and --set)
  /// Quantities the domain map derives from the solution, in print order, e.g. the ADM mass of
  /// the two-puncture map.
  std::vector<std::pair<std::string, double>> diagnostics;
  SpectralNewtonResult result;
  std::string linearSolver;                       // dense or gmres, as used
  double seconds = 0.0;
  /// The domain, enough to rebuild the grid (restoreDeclaredSolution): map name, resolution,
  /// box bounds or shell radii, and the two-puncture half separation b.
  std::string map;
  std::array<int, 3> resolution{};
  std::array<double, 6> bounds{};
  double punctureB = 0.0;
  /// Cartesian point -> logical grid point; nullopt outside the domain.
  std::function<std::optional<std::array<double, 3>>(const std::array<double, 3> &)> toLogical;
  /// Physical unknown = unknownFactor(logical) * solver variable (two-puncture map: A - 1).
  std::function<double(const std::array<double, 3> &)> unknownFactor;

  /// Values of unknown `name` at the collocation points.
  std::vector<double> values(const std::string &name) const;
  /// Unknown `name` at a Cartesian point by spectral interpolation; NaN outside the domain.
  double interpolate(const std::string &name, const std::array<double, 3> &x) const;
};

/// A solution from its stored pieces (a solution file): the grid of the map is rebuilt, no
/// solve. Throws ProblemError for an unknown map or sizes that do not match.
DeclaredProblemSolution restoreDeclaredSolution(const std::string &map, const std::array<int, 3> &resolution,
                                                const std::array<double, 6> &bounds, double punctureB,
                                                const std::vector<std::string> &unknownNames, const Vector &solverVariable);

/// The problem of `block` among a module's declared problems (empty block: the only one);
/// throws ProblemError naming the available blocks otherwise.
const tensorium_spectral_problem_desc &findDeclaredProblem(const tensorium_spectral_problem_desc *problems,
                                                           int32_t count, const std::string &block);

/// The parameters of a declared problem's residual system in order, each with whether the
/// problem declares a default for it. Throws ProblemError when the problem names no system.
std::vector<std::pair<std::string, bool>> declaredProblemParameters(const tensorium_module_tables &tables,
                                                                    const tensorium_spectral_problem_desc &problem);

/// Peak memory of the solve in bytes (grid operators, Newton and Krylov vectors, a dense
/// Jacobian and its LU when the dense linear solver is chosen).
double estimateDeclaredProblemBytes(const tensorium_spectral_problem_desc &problem, const std::array<int, 3> &resolution);

/// Builds the grid of the declared map and runs Newton from zero with the declared policy. Maps:
/// - box: Chebyshev-Gauss-Lobatto points over the bounds, boundary rows of every unknown from
///   the generated boundary kernels (at a point on several faces the first face in map order
///   wins: xmin, xmax, ymin, ymax, zmin, zmax);
/// - two_puncture_compact: the (A, B, phi) compactification with punctures at (+-b, 0, 0)
///   (parameter `b`), Chebyshev-Gauss in A and B, Fourier in phi, the unknown U = (A - 1) v
///   (zero at infinity), rows weighted to logical units; diagnostic "ADM mass" = m1 + m2 -
///   2 b v(infinity) when the problem has parameters m1 and m2 (the masses of the singular
///   background 1 + m1/(2 r1) + m2/(2 r2) the residual adds U to).
/// Parameters start from their declared defaults; every parameter needs a value. Set-up errors
/// throw ProblemError; solver failures are in result.status.
DeclaredProblemSolution solveDeclaredProblem(const tensorium_module_tables &tables,
                                             const tensorium_spectral_problem_desc &problem,
                                             const DeclaredProblemOptions &options);

} // namespace tensorium_mlir::elliptic
