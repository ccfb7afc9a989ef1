#include "tensorium_mlir/Distributed/MonitoredRun.h"

#include "tensorium_mlir/Distributed/EvolutionIO.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>

namespace tensorium_mlir::distributed {

namespace {

/// The most time steps one run takes (far beyond any run's wall time; keeps counts exact).
constexpr double kMaxSteps = 1e12;

std::string shortNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

/// The step count of the run, refused when it cannot be reached.
long lastStepOf(const DistributedEvolution &e, const MonitoredRunSettings &s, double dt) {
  // The count in double first: a final time far beyond the step limit must not reach an
  // out-of-range conversion.
  const double steps = std::ceil(s.finalTime / dt - 1e-9);
  if (!(steps <= kMaxSteps))
    throw RunSettingsError("--final-time " + shortNumber(s.finalTime) + " takes more than " + shortNumber(kMaxSteps) +
                           " steps of dt = " + shortNumber(dt));
  const long lastStep = std::max(0L, static_cast<long>(steps));
  if (e.stepNumber() > lastStep)
    throw RunSettingsError("the restart file is at t = " + shortNumber(e.time()) + " (step " +
                           std::to_string(e.stepNumber()) + "), past --final-time " + shortNumber(s.finalTime));
  return lastStep;
}

/// Points of the constraint-norm region before excision: two ghost widths from the faces (their
/// ghosts are boundary fill) and inside the norm box. An empty region is refused.
int64_t regionPointsOf(const DistributedEvolution &e, const MonitoredRunSettings &s) {
  const GridSpec &spec = e.grid().spec();
  const int64_t margin = 2 * static_cast<int64_t>(spec.ghostWidth);
  int64_t points = 1;
  for (size_t a = 0; a < 3; ++a) {
    int64_t count = 0;
    for (int64_t i = margin; i < spec.points[a] - margin; ++i)
      count += !s.normBox || std::abs(spec.lower[a] + static_cast<double>(i) * spec.spacing[a]) <= *s.normBox;
    points *= count;
  }
  if (points == 0)
    throw RunSettingsError("the constraint-norm region holds no grid point (" +
                           (s.normBox ? "--norm-box " + shortNumber(*s.normBox) + " and " : std::string()) + "points " +
                           std::to_string(margin) + " or more from the faces of a " + std::to_string(spec.points[0]) +
                           "^3 grid)");
  return points;
}

/// The lapse's minimum over the grid and its values at the tracked points (cubic interpolation).
struct LapseValues {
  double minimum = 0;
  std::vector<double> atTracked;
};

LapseValues lapseValues(DistributedEvolution &e, const std::vector<std::array<double, 3>> &tracked) {
  LapseValues v;
  v.minimum = minimumOverGrid(e, "alpha");
  for (const auto &x : tracked)
    v.atTracked.push_back(interpolateField(e, "alpha", 0, x));
  return v;
}

/// The BSSN fields along +x from `from` at the grid's x coordinates beyond it, with the areal
/// radius R = r sqrt(gammatilde_yy / chi) (exact for a spherically symmetric slice, whose
/// tangential metric on the x axis is gamma_yy = R^2 / r^2). Collective; rank 0 writes.
void writeAxisProfile(DistributedEvolution &e, const std::string &path, const std::array<double, 3> &from) {
  ProgressTable table(e.grid().comm(), path, "axis profile");
  table.append("x,r,alpha,K,chi,gammatilde_yy,areal_radius\n");
  const GridSpec &g = e.grid().spec();
  // Cubic interpolation needs one point below and two above in every direction.
  const double last = g.lower[0] + static_cast<double>(g.points[0] - 3) * g.spacing[0];
  for (int64_t i = 0; i < g.points[0]; ++i) {
    const double x = g.lower[0] + static_cast<double>(i) * g.spacing[0];
    if (x <= from[0] || x > last)
      continue;
    const std::array<double, 3> at{x, from[1], from[2]};
    const double alpha = interpolateField(e, "alpha", 0, at), K = interpolateField(e, "K", 0, at),
                 chi = interpolateField(e, "chi", 0, at), gyy = interpolateField(e, "gammatilde", 4, at);
    const double r = x - from[0];
    char text[200];
    std::snprintf(text, sizeof text, "%.10g,%.10g,%.12g,%.12g,%.12g,%.12g,%.12g\n", x, r, alpha, K, chi, gyy,
                  r * std::sqrt(gyy / chi));
    table.append(text);
  }
  table.finish();
}

/// The monitor table: time, step, constraint norms, wall time and the tracked points per row.
class MonitorTable {
public:
  MonitorTable(const DistributedEvolution &e, std::string path, size_t tracked)
      : table_(e.grid().comm(), std::move(path), "monitor table") {
    std::string header = "time,step,L2_H,max_H,L2_M,max_M,wall_s,min_alpha";
    for (size_t q = 1; q <= tracked; ++q)
      header += ",x" + std::to_string(q) + ",y" + std::to_string(q) + ",z" + std::to_string(q) + ",alpha" +
                std::to_string(q);
    table_.append(header + "\n");
  }
  void row(const DistributedEvolution &e, const ConstraintNorms &c, double wall, const LapseValues &lapse,
           const std::vector<std::array<double, 3>> &positions) {
    std::string line;
    if (table_.writing()) {
      char text[200];
      std::snprintf(text, sizeof text, "%.10g,%ld,%.10g,%.10g,%.10g,%.10g,%.4f,%.10g", e.time(), e.stepNumber(),
                    c.l2H, c.maxH, c.l2M, c.maxM, wall, lapse.minimum);
      line = text;
      for (size_t q = 0; q < positions.size(); ++q) {
        const auto &x = positions[q];
        std::snprintf(text, sizeof text, ",%.10g,%.10g,%.10g,%.10g", x[0], x[1], x[2], lapse.atTracked[q]);
        line += text;
      }
      line += "\n";
    }
    table_.append(line);
  }
  void finish() { table_.finish(); }

private:
  ProgressTable table_;
};

} // namespace

void keepSnapshotsOfAStoppedRun(const DistributedEvolution &e, SnapshotWriter *snapshots, bool nonFinite) {
  if (!snapshots)
    return;
  // The failing state is the snapshot a user most wants to see.
  if (nonFinite && !snapshots->wrote(e.stepNumber())) {
    try {
      snapshots->write(e);
    } catch (const std::exception &) {
      // The index below still lists what was written before.
    }
  }
  const bool indexed = snapshots->abandon(e);
  if (e.grid().rank() != 0)
    return;
  if (indexed)
    std::fprintf(stderr, "the snapshots written before the run stopped%s are indexed in %s (data in %s)\n",
                 nonFinite && snapshots->wrote(e.stepNumber()) ? " (and the non-finite state)" : "",
                 snapshots->partialXdmfPath().c_str(), snapshots->partialPath().c_str());
  else
    std::fprintf(stderr, "no snapshot index written: %s holds no complete snapshot\n", snapshots->partialPath().c_str());
}

namespace {

void printRunHeader(const DistributedEvolution &e, const MonitoredRunSettings &s, double dt, long lastStep,
                    int64_t regionPoints) {
  const GridSpec &spec = e.grid().spec();
  const auto p = e.grid().ranksPerAxis();
  const double extent = -spec.lower[0] + spec.spacing[0] / 2;
  // Process, engine and constraint storage (29 values per ghosted point) of rank 0.
  const double memory = 25e6 + e.memoryEstimate() + 8.0 * 29 * static_cast<double>(e.grid().ghosted().points());
  std::printf("estimated peak memory: %.1f MiB (%.0f bytes, rank 0)\n", memory / (1024.0 * 1024.0), memory);
  std::printf("grid %ld^3 on [-%g, %g]^3, h = %.5f, dt = %.5f, %ld steps to t = %g; %d rank(s) as %dx%dx%d, ghost %d, "
              "%s, %d values per point\n",
              static_cast<long>(spec.points[0]), extent, extent, spec.spacing[0], dt, lastStep, s.finalTime,
              e.grid().size(), p[0], p[1], p[2], spec.ghostWidth, integratorName(e.options().integrator), e.grid().dof());
  if (s.normBox)
    std::printf("constraint norms over |x|, |y|, |z| <= %g outside r < %g around the tracked points (%ld points "
                "before excision)\n",
                *s.normBox, s.excision, static_cast<long>(regionPoints));
  else
    std::printf("constraint norms over the points %ld or more from the faces outside r < %g around the tracked points "
                "(%ld points before excision; --norm-box fixes the region in physical units)\n",
                static_cast<long>(2 * spec.ghostWidth), s.excision, static_cast<long>(regionPoints));
}

} // namespace

PunctureTracker restartFromCheckpoint(DistributedEvolution &e, const std::string &path, size_t tracked) {
  const CheckpointExtras extras = readCheckpoint(e, path);
  if (extras.values.size() != 3 * tracked)
    throw DistributedError("restart file '" + path + "' tracks " + std::to_string(extras.values.size() / 3) +
                           " points, this run " + std::to_string(tracked));
  std::vector<std::array<double, 3>> positions;
  for (size_t q = 0; q + 2 < extras.values.size(); q += 3)
    positions.push_back({extras.values[q], extras.values[q + 1], extras.values[q + 2]});
  return PunctureTracker(positions);
}

void runMonitoredEvolution(DistributedEvolution &e, ConstraintMonitor &monitor, PunctureTracker &tracker,
                           const MonitoredRunSettings &s, bool restarted) {
  int rank = 0;
  MPI_Comm_rank(e.grid().comm(), &rank);
  const GridSpec &spec = e.grid().spec();
  const double dt = s.cfl * spec.spacing[0];
  const long lastStep = lastStepOf(e, s, dt);
  if (rank == 0 && restarted && e.stepNumber() == lastStep)
    std::printf("the restart file is already at --final-time %g: no steps to take\n", s.finalTime);
  const int64_t regionPoints = regionPointsOf(e, s);
  if (rank == 0)
    printRunHeader(e, s, dt, lastStep, regionPoints);
  if (!s.profileFile.empty())
    for (const char *name : {"alpha", "K", "chi", "gammatilde"})
      (void)e.field(name); // refused now, not at the end of the run
  if (s.horizons.every > 0)
    (void)bssnSliceGeometry(e); // a system without the BSSN variables is refused before any output
  if (s.waves.every > 0 && !s.weylModule)
    throw RunSettingsError("wave extraction needs the Weyl-scalar module");
  // Outputs are created only now, after every input has been checked (the extractor checks its
  // spheres and module before it creates its tables).
  std::unique_ptr<WaveExtractor> waves;
  if (s.waves.every > 0)
    waves = std::make_unique<WaveExtractor>(e, *s.weylModule, s.waves);
  HorizonMonitor horizons(e, s.horizons, tracker.positions().size());
  std::unique_ptr<SnapshotWriter> snapshots;
  if (!s.output.empty())
    snapshots = std::make_unique<SnapshotWriter>(e, s.output, s.runFile);
  MonitorTable table(e, s.monitorFile, tracker.positions().size());

  auto excluded = [&](const std::array<double, 3> &x) {
    if (s.normBox && (std::abs(x[0]) > *s.normBox || std::abs(x[1]) > *s.normBox || std::abs(x[2]) > *s.normBox))
      return true;
    for (const auto &c : tracker.positions())
      if (std::hypot(x[0] - c[0], x[1] - c[1], x[2] - c[2]) < s.excision)
        return true;
    return false;
  };
  const auto start = std::chrono::steady_clock::now();
  const double gridPoints = static_cast<double>(spec.points[0] * spec.points[1] * spec.points[2]);
  long stepsDone = 0;
  auto report = [&]() {
    const ConstraintNorms c = monitor.evaluate(e, excluded);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto &p = tracker.positions();
    const LapseValues lapse = lapseValues(e, p);
    if (rank == 0) {
      const double rate = wall > 0 ? gridPoints * static_cast<double>(stepsDone) / wall : 0;
      std::printf("t = %8.4f step %6ld  H L2 %.3e max %.3e  M L2 %.3e max %.3e  alpha min %.4f  wall %7.1f s  "
                  "%.3g points/s%s",
                  e.time(), e.stepNumber(), c.l2H, c.maxH, c.l2M, c.maxM, lapse.minimum, wall, rate,
                  p.empty() ? "\n" : "  punctures");
      for (size_t q = 0; q < p.size(); ++q)
        std::printf(" (%.4f, %.4f, %.4f) alpha %.4f%s", p[q][0], p[q][1], p[q][2], lapse.atTracked[q],
                    q + 1 == p.size() ? "\n" : "");
      std::fflush(stdout);
    }
    table.row(e, c, wall, lapse, p);
    if (!std::isfinite(c.l2H) || !std::isfinite(c.maxH) || !std::isfinite(c.l2M))
      throw DistributedError("the evolution became non-finite at t = " + std::to_string(e.time()));
  };
  auto checkpointExtras = [&]() {
    CheckpointExtras x;
    x.runFile = s.runFile;
    for (const auto &p : tracker.positions())
      x.values.insert(x.values.end(), p.begin(), p.end());
    return x;
  };

  try {
    e.loadStorage(e.state());
    report();
    horizons.observe(e, tracker.positions());
    if (waves)
      waves->observe(e);
    if (snapshots)
      snapshots->write(e);
    tracker.sampleBefore(e);
    while (e.stepNumber() < lastStep) {
      e.advance(1, dt);
      ++stepsDone;
      // Every step, before the tracker interpolates at positions a broken state would give.
      e.checkFinite();
      e.loadStorage(e.state());
      tracker.advance(e, dt);
      if (e.stepNumber() % s.monitorEvery == 0 || e.stepNumber() == lastStep)
        report();
      if (horizons.enabled() && (e.stepNumber() % horizons.every() == 0 || e.stepNumber() == lastStep))
        horizons.observe(e, tracker.positions());
      if (waves && (e.stepNumber() % waves->every() == 0 || e.stepNumber() == lastStep))
        waves->observe(e);
      if (snapshots && e.stepNumber() % s.outputEvery == 0)
        snapshots->write(e);
      if (s.checkpointEvery && e.stepNumber() % s.checkpointEvery == 0)
        writeCheckpoint(e, s.checkpoint, checkpointExtras());
      tracker.sampleBefore(e);
    }
  } catch (const DistributedError &failure) {
    keepSnapshotsOfAStoppedRun(e, snapshots.get(), dynamic_cast<const NonFiniteState *>(&failure) != nullptr);
    throw;
  }
  const EvolutionTimers &t = e.timers();
  if (rank == 0 && stepsDone > 0) {
    const double n = static_cast<double>(stepsDone);
    std::printf("rank 0 seconds per step: kernel %.4f, ghost exchange %.4f, copies %.4f, boundary %.4f, hook %.4f, "
                "post-step %.4f (%ld right-hand sides)\n",
                t.kernel / n, t.exchange / n, (t.copyIn + t.copyOut) / n, (t.boundary + t.radiative) / n, t.hook / n,
                t.postStep / n, t.rhsEvaluations);
  }
  if (!s.checkpoint.empty() && e.stepNumber() % s.checkpointEvery != 0)
    writeCheckpoint(e, s.checkpoint, checkpointExtras());
  if (rank == 0 && horizons.enabled()) {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("horizon searches: %.2f s in all (%.1f%% of the run's wall time)", horizons.seconds(),
                100 * horizons.seconds() / std::max(wall, 1e-9));
    if (horizons.commonHorizonTime())
      std::printf(", common horizon first found at t = %.4f", *horizons.commonHorizonTime());
    std::printf("\n");
  }
  if (snapshots) {
    // The horizons and waves of the run beside its snapshots.
    snapshots->writeTable(e, "horizons", HorizonMonitor::columns(), horizons.rows());
    if (waves) {
      snapshots->writeTable(e, "waves", WaveExtractor::modeColumns(), waves->modeRows());
      snapshots->writeTable(e, "adm_integrals", WaveExtractor::integralColumns(), waves->integralRows());
    }
    snapshots->finish(e);
  }
  if (rank == 0 && waves)
    std::printf("wave extraction: %.2f s in all\n", waves->seconds());
  table.finish();
  horizons.finish();
  if (waves)
    waves->finish();
  // Last, so that a profile that cannot be written leaves the run's other outputs complete.
  if (!s.profileFile.empty())
    writeAxisProfile(e, s.profileFile,
                     tracker.positions().empty() ? std::array<double, 3>{0, 0, 0} : tracker.positions().front());
}

} // namespace tensorium_mlir::distributed
