#pragma once
// The time loop of a BSSN evolution as tensorium-evolve runs it: steps of dt = cfl h to a final
// time, constraint norms over a region (fixed in physical units with a norm box, outside an
// excision radius around the tracked points) printed and written to a monitor table, puncture
// tracking, the lapse (its minimum and its value at each tracked point), HDF5/XDMF snapshots,
// checkpoints and a radial profile at the end. Every check runs before any output is created.
#include "tensorium_mlir/Distributed/BssnDiagnostics.h"
#include "tensorium_mlir/Distributed/BssnHorizons.h"
#include "tensorium_mlir/Distributed/WaveExtraction.h"
#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Distributed/EvolutionIO.h"

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
  std::string runFile; // the run file's text, copied into snapshots and checkpoints ("" for none)
  // At the final time: alpha, K, chi, gammatilde_yy and the areal radius along +x from the first
  // tracked point (the origin without one), one row per grid x beyond it ("" for none).
  std::string profileFile;
  /// Apparent horizons every horizons.every steps (0: none).
  HorizonMonitorSettings horizons;
  /// Psi4 modes and ADM integrals on spheres every waves.every steps (0: none), with the Weyl
  /// module `weylModule` (required then).
  WaveExtractionSettings waves;
  const KernelModuleTables *weylModule = nullptr;
};

/// Reads checkpoint `path` into `e` and returns the tracked points it saved; refuses a checkpoint
/// that tracks another number of points than `tracked`.
PunctureTracker restartFromCheckpoint(DistributedEvolution &e, const std::string &path, size_t tracked);

/// For a run that stops with an error (collective): adds the non-finite state as the last
/// snapshot when `nonFinite`, keeps the snapshots under their .partial name with an XDMF index
/// of their own (FILE.partial.xmf) and names both on rank 0's stderr. Nothing without snapshots.
void keepSnapshotsOfAStoppedRun(const DistributedEvolution &e, SnapshotWriter *snapshots, bool nonFinite);

/// Runs `e` from its present state (initial data or a restart) to the final time. Collective.
/// Throws RunSettingsError for settings that cannot run, NonFiniteState when the state turns
/// non-finite (checked after every step: the time, step, field and grid point) and
/// DistributedError when an output cannot be written (the monitor table then keeps its
/// .partial name; the snapshots so far are indexed in FILE.partial.xmf).
void runMonitoredEvolution(DistributedEvolution &e, ConstraintMonitor &monitor, PunctureTracker &tracker,
                           const MonitoredRunSettings &settings, bool restarted);

} // namespace tensorium_mlir::distributed
