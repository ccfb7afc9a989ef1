#pragma once
// A study of any evolution system a fixture declares (kind = "system"): the system evolved from
// its own initial data with its own boundaries on three grids to a final time, every evolved
// field compared with the fixture's initial_data expressions at that time (an exact solution
// with the reserved t) or, for systems without one, with itself across the grids at probe
// points (self-convergence); the constraints blocks' norms on every grid. Verdicts at the
// finite-difference order.
#include "tensorium_mlir/Verification/Report.h"
#include "tensorium_mlir/Verification/StudyFile.h"

#include <array>
#include <map>
#include <string>

namespace tensorium_mlir::verification {

struct SystemStudy {
  std::string name, description;
  std::string module;                  ///< the fixture's module at `order`
  std::map<std::string, double> parameters;
  std::array<int, 3> resolutions{};    ///< cell-centred points per axis, increasing
  double extent = 1;                   ///< the cube [-extent, extent]^3
  int order = 4;
  double finalTime = 1, cfl = 0.25;
  bool selfConvergence = false;        ///< false: against the exact solution
  double probeSpacing = 0.25;
  int expectedOrder = 0;               ///< 0: the finite-difference order
  double tolerance = 0.3;
};

SystemStudy systemStudyFrom(const StudyFile &study, const std::string &module);

/// Runs on the communicator given to configureCases(); throws on a run error (a module that
/// cannot run, a non-finite field).
void runSystemStudy(const SystemStudy &study, Report &report);

} // namespace tensorium_mlir::verification
