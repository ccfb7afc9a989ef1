#pragma once
// Assembly of a generated spectral residual F(u) on a spectral grid, and its Jacobian-vector
// product, through the generated callback tables (no MLIR: the generated host header's types).
#include "tensorium_mlir/Elliptic/NewtonKrylov.h"
#include "tensorium_mlir/Runtime/HostABITypes.h"
#include "tensorium_mlir/Spectral/Spectral.h"

#include <array>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tensorium_mlir::elliptic {

/// Thrown for inconsistent problem set-up (sizes, names); the message says what is wrong.
class ProblemError : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

/// Maps the solver's variable v (its logical bundle at a point) to the physical unknown u that
/// the generated residual sees. Must be linear in v (the JVP pushes directions through it).
struct SpectralUnknownMap {
  std::function<void(const std::array<double, 3> &logical, std::array<double, 10> &bundle)> apply;
};

/// u = scale * (q_axis - boundary) * v, with q_axis the logical coordinate along `axis`: the
/// factor vanishes on the face q_axis = boundary, which imposes u = 0 there.
SpectralUnknownMap makeLinearBoundaryFactorUnknownMap(int axis, double boundary, double scale = 1.0);

struct SpectralResidualProblem {
  const spectral::SpectralGrid3D *grid = nullptr;
  const tensorium_spectral_residual_kernel_desc *kernel = nullptr;
  /// Optional generated grid kernel for the same residual; assembly then runs through it.
  const tensorium_spectral_residual_grid_kernel_desc *gridKernel = nullptr;
  std::vector<double> params; // in kernel->param_names order
  /// Values of the non-primary fields (kernel->field_names[1..]) at the collocation points.
  std::map<std::string, std::vector<double>> auxiliaryFields;
  SpectralUnknownMap unknownMap; // optional
  /// Boundary rows (optional): at flagged points the equation is u - boundaryValues = 0 for
  /// the physical unknown u instead of the residual (Dirichlet conditions on Chebyshev faces).
  std::vector<char> boundaryMask;
  std::vector<double> boundaryValues;
  /// Optional positive weight per point on the residual rows (boundary rows excluded): the
  /// solver then drives rowScale * F to zero. A coordinate map that compresses infinity or
  /// clusters points near a singularity makes the raw rows span many decades; weighting them
  /// back to logical units keeps the residual's round-off floor at machine precision.
  std::vector<double> rowScale;
  void *userData = nullptr;

  /// Sets a parameter by name; throws ProblemError for a name the kernel does not have.
  void setParameter(const std::string &name, double value);
  /// Throws ProblemError when something is missing or has the wrong size.
  void validate() const;
};

struct ResidualAssembly {
  Vector F;
  double l2 = 0.0;  // root mean square
  double max = 0.0; // max |F|
};

/// F(u) at every collocation point for solver variable v.
ResidualAssembly assembleSpectralResidual(const SpectralResidualProblem &problem, const Vector &v);

/// J(v) dv, through the generated JVP kernel when the descriptor has one, otherwise by a
/// centred finite difference of the assembly. `auxiliaryDirections` gives tangents of
/// auxiliary fields that follow other unknowns (a coupled system); others have zero tangent.
Vector evaluateSpectralJacobianVectorProduct(const SpectralResidualProblem &problem, const Vector &v,
                                             const Vector &dv,
                                             const std::map<std::string, std::vector<double>> &auxiliaryDirections = {});

/// Coefficients of the linearised residual in the logical derivatives of the solver variable:
/// (J(v) dv)(p) = sum_s a[p][s] * (logical bundle of dv at p)[s], slots in bundle order. Exact
/// for the point kernel's JVP (unknown map, derivative map and row scale included); boundary
/// rows give the unknown map's value coefficients. Needs a JVP kernel (throws ProblemError
/// otherwise). Ten JVP evaluations per point.
std::vector<std::array<double, 10>> linearisedLogicalCoefficients(const SpectralResidualProblem &problem,
                                                                  const Vector &v);

/// Several residuals over several unknowns (one constraints block), from the generated system
/// descriptor. Unknown vectors are field-major [u0(points), u1(points), ...] and residual
/// vectors equation-major [F0(points), F1(points), ...].
struct SpectralResidualSystemProblem {
  const spectral::SpectralGrid3D *grid = nullptr;
  const tensorium_spectral_residual_system_desc *system = nullptr;
  const tensorium_spectral_residual_kernel_desc *kernels = nullptr; // the module's kernel table
  std::vector<double> params;                                        // system->param_names order
  std::map<std::string, std::vector<double>> staticFields;           // auxiliaries bound to no unknown
  /// Optional Dirichlet rows shared by every unknown: boundaryValues[unknown][point].
  std::vector<char> boundaryMask;
  std::vector<std::vector<double>> boundaryValues;
  /// Optional general boundary rows, replacing the Dirichlet rows where boundaryMask is set:
  /// boundaryRows[unknown][point] makes that unknown's equation a u + gradient . grad u = value
  /// there (Robin: gradient = b n with n the outward normal; Dirichlet: a = 1, gradient = 0).
  /// Physical gradients, through the grid's derivative map.
  struct BoundaryRow {
    double a = 1.0;
    std::array<double, 3> gradient{0.0, 0.0, 0.0};
    double value = 0.0;
  };
  std::vector<std::vector<BoundaryRow>> boundaryRows;

  void setParameter(const std::string &name, double value);
  void validate() const;
};

ResidualAssembly assembleSpectralResidualSystem(const SpectralResidualSystemProblem &problem, const Vector &U);
/// linearisedLogicalCoefficients of equation `equation` in its own unknown (the diagonal block
/// of the system's Jacobian at U; boundary rows as Dirichlet rows), for block preconditioners.
std::vector<std::array<double, 10>> linearisedLogicalCoefficients(const SpectralResidualSystemProblem &problem,
                                                                  const Vector &U, int32_t equation);
Vector evaluateSpectralResidualSystemJacobianVectorProduct(const SpectralResidualSystemProblem &problem,
                                                           const Vector &U, const Vector &dU);

} // namespace tensorium_mlir::elliptic
