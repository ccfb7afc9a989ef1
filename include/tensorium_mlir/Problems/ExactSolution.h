#pragma once
// A declared problem's solution against the exact solutions its program declares
// (`exact u = expr [tolerance = expr]`, compiled to `tensorium_spectral_exact_<unknown>`
// kernels): errors at the collocation points and, through the spectral interpolant, at points
// drawn between them. No MLIR.
#include "tensorium_mlir/Problems/DeclaredProblem.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tensorium_mlir::elliptic {

struct ExactErrorNorms {
  double max = 0, rms = 0;            ///< of |u - exact| over the points
  std::array<double, 3> worst{};      ///< where the largest error is
  size_t points = 0;
};

struct UnknownExactError {
  std::string unknown;                ///< a scalar unknown or a vector component (W_0, ...)
  ExactErrorNorms collocation, between;
  bool hasTolerance = false;
  /// max over every checked point of |u - exact| / tolerance (above 1: missed) and where.
  double worstRatio = 0;
  std::array<double, 3> worstRatioPoint{};
  bool pass() const { return !hasTolerance || worstRatio <= 1.0; }
};

/// Every unknown of the solution with a generated exact kernel, in the solution's order (empty
/// when the program declares none). `betweenPoints` points are drawn (fixed seed) in random cells
/// of the collocation grid (a random trilinear blend of a cell's corners) and kept when inside
/// the domain. Throws ProblemError when a
/// kernel cannot be invoked, an exact value or tolerance is not finite, or a tolerance is not
/// positive.
std::vector<UnknownExactError> exactSolutionErrors(const tensorium_module_tables &tables,
                                                   const DeclaredProblemSolution &solution, int betweenPoints = 256,
                                                   uint64_t seed = 20261206);

} // namespace tensorium_mlir::elliptic
