#pragma once
// The time loop of a BSSN evolution as tensorium-evolve runs it: steps of dt = cfl h to a final
// time, constraint norms over a region (fixed in physical units with a norm box, outside an
// excision radius around the tracked points) printed and written to a monitor table, puncture
// tracking, HDF5/XDMF snapshots and checkpoints. Every check runs before any output is created.
#include "tensorium_mlir/Distributed/BssnDiagnostics.h"
#include "tensorium_mlir/Distributed/DistributedEvolution.h"

#include <optional>
#include <string>

namespace tensorium_mlir::distributed {

/// A setting that cannot run (an empty norm region, a final time out of reach): the caller's
/// input is wrong, as opposed to a failure of the run.
struct RunSettingsError : DistributedError {
  using DistributedError::DistributedError;
};

struct MonitoredRunSettings {
  double finalTime = 1, cfl = 0.25;
  double excision = 0;           // constraint norms skip r < excision around each tracked point
  std::optional<double> normBox; // and, when set, every point with some |x_a| > normBox
  long monitorEvery = 1, outputEvery = 0, checkpointEvery = 0;
  std::string monitorFile, output, checkpoint; // "" for none
};

/// Reads checkpoint `path` into `e` and returns the tracked points it saved; refuses a checkpoint
/// that tracks another number of points than `tracked`.
PunctureTracker restartFromCheckpoint(DistributedEvolution &e, const std::string &path, size_t tracked);

/// Runs `e` from its present state (initial data or a restart) to the final time. Collective.
/// Throws RunSettingsError for settings that cannot run and DistributedError when the evolution
/// becomes non-finite or an output cannot be written (the monitor table then keeps its .partial
/// name).
void runMonitoredEvolution(DistributedEvolution &e, ConstraintMonitor &monitor, PunctureTracker &tracker,
                           const MonitoredRunSettings &settings, bool restarted);

} // namespace tensorium_mlir::distributed
