#pragma once
// The time loop of a system evolution as tensorium-evolve runs it: steps of dt = cfl h to a final
// time, progress lines with the constraints blocks' norms and, when the module's initial data
// depend on the reserved time t (an exact solution), the error of every evolved field; a CSV
// table of the same, HDF5/XDMF snapshots and checkpoints (EvolutionIO.h: a run continued from
// one takes the same steps as one that never stopped). Outputs are created only after every
// check.
#include "tensorium_mlir/Distributed/SystemEvolution.h"

#include <string>

namespace tensorium_mlir::distributed {

struct SystemRunSettings {
  double finalTime = 1, cfl = 0.25;
  long monitorEvery = 1, outputEvery = 0, checkpointEvery = 0;
  std::string monitorFile, output, checkpoint; // "" for none; a checkpoint is also written at the end
  bool quiet = false;              // no progress lines (studies)
  std::string runFile; // the run file's text, copied into snapshots and checkpoints ("" for none)
};

struct SystemRunResult {
  SystemEvolution::Norms errors;      // at the final time; empty without an exact solution
  SystemEvolution::Norms constraints; // at the final time; empty without constraints blocks
  double dt = 0;
  long steps = 0;
};

/// Runs `s` from its present state (initial data or a checkpoint read with readCheckpoint) to the
/// final time. Collective. Throws DistributedError when the run becomes non-finite, a restart is
/// past the final time, or an output cannot be written.
SystemRunResult runSystemEvolution(SystemEvolution &s, const SystemRunSettings &settings);

} // namespace tensorium_mlir::distributed
