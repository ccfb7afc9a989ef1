#include "tensorium_mlir/Distributed/SystemRun.h"

#include "tensorium_mlir/Distributed/EvolutionIO.h"
#include "tensorium_mlir/Distributed/MonitoredRun.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>

namespace tensorium_mlir::distributed {

namespace {

/// The run's table: time, step, each field's error and each constraint's norms, wall time.
class SystemTable {
public:
  SystemTable(MPI_Comm comm, std::string path) : table_(comm, std::move(path), "table") {}
  void row(double t, long step, const SystemEvolution::Norms &errors, const SystemEvolution::Norms &constraints,
           double wall) {
    std::string line;
    if (table_.writing()) {
      if (!headerWritten_) {
        line = "time,step";
        for (const std::string &n : errors.names)
          line += ",L2_error_" + n + ",max_error_" + n;
        for (const std::string &n : constraints.names)
          line += ",L2_" + n + ",max_" + n;
        line += ",wall_s\n";
        headerWritten_ = true;
      }
      char text[64];
      std::snprintf(text, sizeof text, "%.10g,%ld", t, step);
      line += text;
      for (const SystemEvolution::Norms *norms : {&errors, &constraints})
        for (size_t q = 0; q < norms->names.size(); ++q) {
          std::snprintf(text, sizeof text, ",%.10g,%.10g", norms->l2[q], norms->max[q]);
          line += text;
        }
      std::snprintf(text, sizeof text, ",%.4f\n", wall);
      line += text;
    }
    table_.append(line);
  }
  void finish() { table_.finish(); }

private:
  ProgressTable table_;
  bool headerWritten_ = false;
};

/// The largest value of a set of norms and its name ("" when empty).
std::pair<double, std::string> largest(const std::vector<double> &values, const std::vector<std::string> &names) {
  std::pair<double, std::string> out{0.0, ""};
  for (size_t q = 0; q < values.size(); ++q)
    if (std::isnan(values[q]) || values[q] > out.first || out.second.empty())
      out = {values[q], names[q]};
  return out;
}

} // namespace

SystemRunResult runSystemEvolution(SystemEvolution &s, const SystemRunSettings &settings) {
  DistributedEvolution &e = s.engine();
  int rank = 0;
  MPI_Comm_rank(e.grid().comm(), &rank);
  const GridSpec &spec = e.grid().spec();
  if (!(settings.cfl > 0) || settings.cfl > 1 || !(settings.finalTime >= 0))
    throw DistributedError("the run needs a CFL factor in (0, 1] and a non-negative final time");
  SystemRunResult result;
  result.dt = settings.cfl * spec.spacing[0];
  const double steps = std::ceil(settings.finalTime / result.dt - 1e-9);
  if (!(steps <= 1e12))
    throw DistributedError("the final time takes more than 1e12 steps");
  const long lastStep = std::max(0L, static_cast<long>(steps));
  // Steps of dt = cfl h whatever the final time (so that a run continued from a checkpoint takes
  // the same steps as one that never stopped); only a last step that dt would overshoot is
  // shortened to land on the final time.
  if (e.stepNumber() > lastStep)
    throw DistributedError("the restart file is at step " + std::to_string(e.stepNumber()) + " (t = " +
                           std::to_string(e.time()) + "), past the final time " + std::to_string(settings.finalTime));
  const bool exact = s.description().timeParameter >= 0;
  if (rank == 0 && !settings.quiet) {
    const auto p = e.grid().ranksPerAxis();
    const double extent = -spec.lower[0] + spec.spacing[0] / 2;
    std::printf("estimated peak memory: %.1f MiB (%.0f bytes, rank 0)\n", (25e6 + 2 * e.memoryEstimate()) / 1048576.0,
                25e6 + 2 * e.memoryEstimate());
    std::printf("grid %ld^3 on [-%g, %g]^3 (%s), h = %.5f, dt = %.5f, %ld steps to t = %g; %d rank(s) as %dx%dx%d, "
                "ghost %d, %s, %d values per point\n",
                static_cast<long>(spec.points[0]), extent, extent, boundaryName(spec.boundary), spec.spacing[0],
                result.dt, lastStep, settings.finalTime, e.grid().size(), p[0], p[1], p[2], spec.ghostWidth,
                integratorName(e.options().integrator), e.grid().dof());
    if (!exact)
      std::printf("the initial data do not depend on t: no exact solution to compare with\n");
  }
  CheckpointExtras runFileExtras;
  runFileExtras.runFile = settings.runFile;
  std::unique_ptr<SnapshotWriter> snapshots;
  if (!settings.output.empty())
    snapshots = std::make_unique<SnapshotWriter>(e, settings.output, settings.runFile);
  SystemTable table(e.grid().comm(), settings.monitorFile);
  const auto start = std::chrono::steady_clock::now();
  auto report = [&](bool print) {
    result.errors = exact ? s.exactErrors() : SystemEvolution::Norms{};
    result.constraints = s.constraintNorms();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto worstError = largest(result.errors.max, result.errors.names);
    const auto worstConstraint = largest(result.constraints.l2, result.constraints.names);
    if (rank == 0 && print && !settings.quiet) {
      std::printf("t = %8.4f step %6ld", e.time(), e.stepNumber());
      if (exact)
        std::printf("  max error %.3e (%s)", worstError.first, worstError.second.c_str());
      if (!result.constraints.names.empty())
        std::printf("  constraint L2 %.3e (%s)", worstConstraint.first, worstConstraint.second.c_str());
      std::printf("  wall %7.1f s\n", wall);
      std::fflush(stdout);
    }
    table.row(e.time(), e.stepNumber(), result.errors, result.constraints, wall);
    for (const SystemEvolution::Norms *n : {&result.errors, &result.constraints})
      for (size_t q = 0; q < n->names.size(); ++q)
        if (!std::isfinite(n->l2[q]) || !std::isfinite(n->max[q]))
          throw DistributedError("the evolution became non-finite at t = " + std::to_string(e.time()) + " ('" +
                                 n->names[q] + "')");
  };
  try {
    report(true);
    if (snapshots)
      snapshots->write(e);
    while (e.stepNumber() < lastStep) {
      const double remaining = settings.finalTime - e.time();
      e.advance(1, e.stepNumber() + 1 == lastStep && remaining < result.dt * (1 - 1e-9) ? remaining : result.dt);
      ++result.steps;
      e.checkFinite();
      const bool last = e.stepNumber() == lastStep;
      if (e.stepNumber() % settings.monitorEvery == 0 || last)
        report(true);
      if (snapshots && settings.outputEvery && e.stepNumber() % settings.outputEvery == 0)
        snapshots->write(e);
      if (settings.checkpointEvery && e.stepNumber() % settings.checkpointEvery == 0)
        writeCheckpoint(e, settings.checkpoint, runFileExtras);
    }
  } catch (const DistributedError &failure) {
    keepSnapshotsOfAStoppedRun(e, snapshots.get(), dynamic_cast<const NonFiniteState *>(&failure) != nullptr);
    throw;
  }
  if (!settings.checkpoint.empty() && (!settings.checkpointEvery || e.stepNumber() % settings.checkpointEvery != 0))
    writeCheckpoint(e, settings.checkpoint, runFileExtras);
  if (lastStep == 0 && rank == 0 && !settings.quiet)
    std::printf("final time 0: no steps to take\n");
  if (rank == 0 && !settings.quiet) {
    for (size_t q = 0; q < result.errors.names.size(); ++q)
      std::printf("error of %-12s at t = %g: L2 %.6e  max %.6e\n", result.errors.names[q].c_str(), e.time(),
                  result.errors.l2[q], result.errors.max[q]);
    for (size_t q = 0; q < result.constraints.names.size(); ++q)
      std::printf("constraint %-12s at t = %g: L2 %.6e  max %.6e\n", result.constraints.names[q].c_str(), e.time(),
                  result.constraints.l2[q], result.constraints.max[q]);
  }
  if (snapshots)
    snapshots->finish(e);
  table.finish();
  return result;
}

} // namespace tensorium_mlir::distributed
