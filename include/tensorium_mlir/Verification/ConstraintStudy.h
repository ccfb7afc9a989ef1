#pragma once
// A constraint study assembled from a study file: initial data (an exact-slice kernel module or
// solved two-puncture data) on cubes at several resolutions, the ADM constraints evaluated by a
// constraint kernel module per finite-difference order, weighted norms over a norm region, and
// the observed order of the finest pair judged against the expected one.
#include "tensorium_mlir/Physics/TwoPunctures.h"
#include "tensorium_mlir/Verification/Norms.h"
#include "tensorium_mlir/Verification/Report.h"

#include <map>
#include <string>
#include <vector>

namespace tensorium_mlir::verification {

struct ConstraintStudy {
  std::string name, description;
  /// Exact-slice data: a module whose `tensorium_init_grid_affine` writes gamma, gammaU (and Kij
  /// when it has that buffer; else K_ij = 0) from the coordinates x, y, z; its parameters in the
  /// module's order.
  std::string dataModule;
  std::vector<double> dataParameters;
  /// Or two-puncture data (solved spectrally, handed off to the grid).
  bool twoPuncture = false;
  physics::TwoPunctureParameters punctures;
  /// Finite-difference order -> constraint module (`tensorium_residual_grid_parallel` over
  /// gamma, gammaU, Kij into H, and M2 = gamma^ij M_i M_j when the momentum is compared).
  std::map<int, std::string> constraintModules;
  double halfWidth = 2.5; ///< the grids are [-halfWidth, halfWidth]^3
  std::vector<int> resolutions;
  NormRegion region;
  int expectedOrder = 0; ///< 0: each finite-difference order itself
  double tolerance = 0.3;
  bool judgeMomentum = true;
};

/// What a module lacks for a role ("" when it has everything): the kernel and buffers an
/// exact-slice data module (`data`) or a constraint module (`constraints`) must provide, or
/// the loader's message when it cannot be loaded.
std::string missingForRole(const std::string &modulePath, const std::string &role);
/// The parameter names a module declares, in order.
std::vector<std::string> moduleParameterNames(const std::string &modulePath);
/// Whether a module has a buffer of that name.
bool moduleHasBuffer(const std::string &modulePath, const std::string &buffer);

/// Runs the study on the communicator given to configureCases(); tables and verdicts go to
/// `report`. Throws std::runtime_error on a run error (such as a non-finite norm).
void runConstraintStudy(const ConstraintStudy &study, Report &report);

} // namespace tensorium_mlir::verification
