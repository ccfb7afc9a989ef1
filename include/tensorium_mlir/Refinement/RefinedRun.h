#pragma once
// The time loop of a BSSN evolution on the refined grid, as tensorium-evolve runs it: one global
// step dt = cfl h_finest to a final time, refinement regions about the tracked punctures moved
// every K steps, constraint norms over the finest data at every point (volume-weighted, outside
// an excision radius around the tracked points and inside an optional norm box), the lapse,
// apparent horizons, Psi4 modes and ADM integrals on spheres, HDF5/XDMF snapshots of every
// block, checkpoints that restart bit for bit on any rank count, and the cost of each part of
// the step. Every check runs before any output is created.
#include "tensorium_mlir/Distributed/BssnDiagnostics.h"
#include "tensorium_mlir/Distributed/MonitoredRun.h"
#include "tensorium_mlir/Refinement/RefinedBssn.h"
#include "tensorium_mlir/Refinement/RefinedIO.h"
#include "tensorium_mlir/Refinement/RefinedWaves.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tensorium_mlir::refinement {

/// The refined grid of a run: spheres of radii[l - 1] about every tracked point ask for level l
/// (radii decreasing), regridded every `regridEvery` steps.
struct RefinementSchedule {
  std::vector<double> radii;
  long regridEvery = 8;
};

struct RefinedRunSettings {
  /// Final time, cfl, norm region, monitor table, snapshots, checkpoints, apparent horizons, wave
  /// extraction and the run file as on the uniform grid; the axis profile is refused here.
  distributed::MonitoredRunSettings run;
  RefinementSchedule refinement;
};

/// ADM constraints through a generated residual kernel block by block (the kernel's stencil in
/// the blocks' ghost layers), volume-weighted over the leaves' points: L2 = sqrt(sum H^2 h^3 /
/// sum h^3), the grid function's continuum L2 mean on any mix of levels.
class RefinedConstraintMonitor {
public:
  RefinedConstraintMonitor(const RefinedEvolution &e, const distributed::KernelModuleTables &constraints,
                           std::string kernel = "tensorium_residual_grid_affine");
  ~RefinedConstraintMonitor();
  /// Norms over the points at least two ghost widths (at their level) from the outer faces for
  /// which `excluded(x)` is false. Collective.
  distributed::ConstraintNorms evaluate(RefinedEvolution &e,
                                        const std::function<bool(const std::array<double, 3> &)> &excluded);

private:
  distributed::KernelModuleTables module_;
  std::string kernel_;
  std::unique_ptr<runtime::GeneratedHostStorage> storage_;
};

/// The smallest value of a field component over every leaf's points (the same on every rank).
double minimumOverBlocks(const RefinedEvolution &e, const std::string &field, unsigned component = 0);

/// Checkpoint extras of a refined run: the tracked points, the regrid interval and the radii.
distributed::CheckpointExtras refinedCheckpointExtras(const RefinedPunctureTracker &tracker,
                                                      const RefinementSchedule &schedule, const std::string &runFile);
/// The tracked points a checkpoint saved; refuses one written with another number of tracked
/// points, other radii or another regrid interval (a continuation would not be the same run).
std::vector<std::array<double, 3>> trackedPointsOf(const RefinedCheckpoint &c, const std::string &path, size_t tracked,
                                                   const RefinementSchedule &schedule);

/// Runs `e` from its present state to the final time. Collective. Throws
/// distributed::RunSettingsError for settings that cannot run, NonFiniteRefinedState when the
/// state turns non-finite (the snapshots so far then indexed in FILE.partial.xmf, the failing
/// state last) and RefinementError when an output cannot be written.
void runRefinedEvolution(RefinedEvolution &e, RefinedConstraintMonitor &monitor, RefinedPunctureTracker &tracker,
                         const RefinedRunSettings &settings, bool restarted);

} // namespace tensorium_mlir::refinement
