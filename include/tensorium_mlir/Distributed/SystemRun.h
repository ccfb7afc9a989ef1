#pragma once
// The time loop of a system evolution as tensorium-evolve runs it: steps of dt = cfl h to a final
// time, progress lines with the constraints blocks' norms and, when the module's initial data
// depend on the reserved time t (an exact solution), the error of every evolved field; a CSV
// table of the same and HDF5/XDMF snapshots. Outputs are created only after every check.
#include "tensorium_mlir/Distributed/SystemEvolution.h"

#include <string>

namespace tensorium_mlir::distributed {

struct SystemRunSettings {
  double finalTime = 1, cfl = 0.25;
  long monitorEvery = 1, outputEvery = 0;
  std::string monitorFile, output; // "" for none
  bool quiet = false;              // no progress lines (studies)
};

struct SystemRunResult {
  SystemEvolution::Norms errors;      // at the final time; empty without an exact solution
  SystemEvolution::Norms constraints; // at the final time; empty without constraints blocks
  double dt = 0;
  long steps = 0;
};

/// Runs `s` from its present state to the final time. Collective. Throws DistributedError when
/// the run becomes non-finite or an output cannot be written.
SystemRunResult runSystemEvolution(SystemEvolution &s, const SystemRunSettings &settings);

} // namespace tensorium_mlir::distributed
