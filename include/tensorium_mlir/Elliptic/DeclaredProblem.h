#pragma once
// Solving an elliptic problem declared in a .tn constraints block (unknowns, boundary
// conditions per face, domain, solve policy) from a generated module's tables alone: no
// problem-specific C++. Boundary rows come from the module's spectral_boundary_grid kernels.
#include "tensorium_mlir/Elliptic/SpectralNewton.h"
#include "tensorium_mlir/Runtime/HostABITypes.h"
#include "tensorium_mlir/Runtime/SpectralProblemTypes.h"

#include <array>
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
  std::unique_ptr<spectral::SpectralGrid3D> grid;
  std::vector<std::string> unknownNames; // the system's order
  Vector U;                              // field-major: U[k * points + p]
  SpectralNewtonResult result;
  std::string linearSolver;              // dense or gmres, as used
  double seconds = 0.0;
  /// Values of unknown `name` at the collocation points.
  std::vector<double> values(const std::string &name) const;
};

/// The problem of `block` among a module's declared problems (empty block: the only one);
/// throws ProblemError naming the available blocks otherwise.
const tensorium_spectral_problem_desc &findDeclaredProblem(const tensorium_spectral_problem_desc *problems,
                                                           int32_t count, const std::string &block);

/// Peak memory of the solve in bytes (grid operators, Newton and Krylov vectors, a dense
/// Jacobian and its LU when the dense linear solver is chosen).
double estimateDeclaredProblemBytes(const tensorium_spectral_problem_desc &problem, const std::array<int, 3> &resolution);

/// Builds the grid of the declared map, the boundary rows of every unknown (at a point on
/// several faces the first face in map order wins: xmin, xmax, ymin, ymax, zmin, zmax), and runs
/// Newton from zero. Set-up errors throw ProblemError; solver failures are in result.status.
DeclaredProblemSolution solveDeclaredProblem(const tensorium_module_tables &tables,
                                             const tensorium_spectral_problem_desc &problem,
                                             const DeclaredProblemOptions &options);

} // namespace tensorium_mlir::elliptic
