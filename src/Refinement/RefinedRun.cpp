#include "tensorium_mlir/Refinement/RefinedRun.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tensorium_mlir::refinement {

using distributed::ConstraintNorms;
using distributed::RunSettingsError;

namespace {

std::string shortNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

/// Points of every leaf, all ranks.
int64_t globalPoints(const RefinedEvolution &e) {
  const int64_t n = e.options().forest.blockPoints;
  return e.forest().globalCount() * n * n * n;
}

} // namespace

RefinedConstraintMonitor::RefinedConstraintMonitor(const RefinedEvolution &e,
                                                   const distributed::KernelModuleTables &constraints, std::string kernel)
    : module_(constraints), kernel_(std::move(kernel)) {
  const int64_t extent = e.options().forest.blockPoints + 2 * e.options().ghostWidth;
  storage_ = std::make_unique<runtime::GeneratedHostStorage>(module_.tables, runtime::GridShape{extent, extent, extent});
  const runtime::KernelBinding &k = storage_->binding(kernel_);
  if (k.stencilRadius > e.options().ghostWidth)
    throw RefinementError("constraint kernel '" + kernel_ + "' has stencil radius " + std::to_string(k.stencilRadius) +
                          ", more than the ghost width " + std::to_string(e.options().ghostWidth));
  for (const char *name : {"gamma", "gammaU", "Kij", "H", "M2"})
    if (!storage_->hasBuffer(name))
      throw RefinementError(std::string("constraint module has no buffer '") + name + "'");
}

RefinedConstraintMonitor::~RefinedConstraintMonitor() = default;

ConstraintNorms RefinedConstraintMonitor::evaluate(RefinedEvolution &e,
                                                   const std::function<bool(const std::array<double, 3> &)> &excluded) {
  e.fillGhosts();
  const ForestSpec &s = e.options().forest;
  const int64_t margin = s.periodic ? 0 : 2 * e.options().ghostWidth;
  distributed::ConstraintSums sums;
  for (Block &k : e.blocks()) {
    e.applyPreRhsHook(k); // the inverse conformal metric of this state
    distributed::admFromBssn(*k.storage, *storage_);
    storage_->invoke(module_.adapters, kernel_, {}, {k.spacing, k.spacing, k.spacing});
    std::span<const double> H = std::as_const(*storage_).buffer("H"), M2 = std::as_const(*storage_).buffer("M2");
    const double volume = k.spacing * k.spacing * k.spacing;
    for (int i = 0; i < k.n; ++i)
      for (int j = 0; j < k.n; ++j)
        for (int z = 0; z < k.n; ++z) {
          const int m[3] = {i, j, z};
          bool nearFace = false;
          for (int a = 0; a < 3; ++a) {
            const int64_t I = k.leaf.first[a] + m[a];
            nearFace = nearFace || I < margin || I >= s.pointsAt(k.leaf.level, a) - margin;
          }
          if (nearFace || (excluded && excluded(k.coordinate(i, j, z))))
            continue;
          sums.add(H[k.index(i, j, z)], M2[k.index(i, j, z)], volume);
        }
  }
  return sums.reduce(e.forest().comm());
}

double minimumOverBlocks(const RefinedEvolution &e, const std::string &field, unsigned component) {
  const EvolvedField &f = e.field(field);
  if (component >= f.components)
    throw RefinementError("field '" + field + "' has no component " + std::to_string(component));
  double minimum = std::numeric_limits<double>::infinity();
  for (const Block &k : e.blocks()) {
    const double *x = std::as_const(*k.storage).buffer(field).data() +
                      component * static_cast<size_t>(k.extent() * k.extent() * k.extent());
    for (int i = 0; i < k.n; ++i)
      for (int j = 0; j < k.n; ++j)
        for (int z = 0; z < k.n; ++z)
          minimum = std::min(minimum, x[k.index(i, j, z)]);
  }
  MPI_Allreduce(MPI_IN_PLACE, &minimum, 1, MPI_DOUBLE, MPI_MIN, e.forest().comm());
  return minimum;
}

distributed::CheckpointExtras refinedCheckpointExtras(const RefinedPunctureTracker &tracker,
                                                      const RefinementSchedule &schedule, const std::string &runFile) {
  distributed::CheckpointExtras x;
  x.runFile = runFile;
  x.values.push_back(static_cast<double>(tracker.positions().size()));
  for (const auto &p : tracker.positions())
    x.values.insert(x.values.end(), p.begin(), p.end());
  x.values.push_back(static_cast<double>(schedule.regridEvery));
  x.values.insert(x.values.end(), schedule.radii.begin(), schedule.radii.end());
  return x;
}

std::vector<std::array<double, 3>> trackedPointsOf(const RefinedCheckpoint &c, const std::string &path, size_t tracked,
                                                   const RefinementSchedule &schedule) {
  const std::vector<double> &v = c.extras;
  auto fail = [&](const std::string &why) { throw RefinementError("restart file '" + path + "' " + why); };
  if (v.empty() || v[0] != static_cast<double>(tracked) || v.size() != 2 + 3 * tracked + schedule.radii.size())
    fail("was written with another number of tracked points or refinement levels (this run: " +
         std::to_string(tracked) + " points, " + std::to_string(schedule.radii.size()) + " levels)");
  std::vector<std::array<double, 3>> positions;
  for (size_t q = 0; q < tracked; ++q)
    positions.push_back({v[1 + 3 * q], v[2 + 3 * q], v[3 + 3 * q]});
  const size_t at = 1 + 3 * tracked;
  if (v[at] != static_cast<double>(schedule.regridEvery))
    fail("was regridded every " + shortNumber(v[at]) + " steps, this run every " + std::to_string(schedule.regridEvery));
  for (size_t l = 0; l < schedule.radii.size(); ++l)
    if (v[at + 1 + l] != schedule.radii[l])
      fail("has refinement radius " + shortNumber(v[at + 1 + l]) + " for level " + std::to_string(l + 1) +
           ", this run " + shortNumber(schedule.radii[l]));
  return positions;
}

namespace {

class MonitorTable {
public:
  MonitorTable(MPI_Comm comm, std::string path, size_t tracked) : table_(comm, std::move(path), "monitor table") {
    std::string header = "time,step,L2_H,max_H,L2_M,max_M,wall_s,min_alpha";
    for (size_t q = 1; q <= tracked; ++q)
      header += ",x" + std::to_string(q) + ",y" + std::to_string(q) + ",z" + std::to_string(q) + ",alpha" +
                std::to_string(q);
    table_.append(header + ",leaves,points\n");
  }
  void row(const RefinedEvolution &e, const ConstraintNorms &c, double wall, double minAlpha,
           const std::vector<std::array<double, 3>> &positions, const std::vector<double> &alpha) {
    std::string line;
    if (table_.writing()) {
      char text[200];
      std::snprintf(text, sizeof text, "%.10g,%ld,%.10g,%.10g,%.10g,%.10g,%.4f,%.10g", e.time(), e.stepNumber(), c.l2H,
                    c.maxH, c.l2M, c.maxM, wall, minAlpha);
      line = text;
      for (size_t q = 0; q < positions.size(); ++q) {
        std::snprintf(text, sizeof text, ",%.10g,%.10g,%.10g,%.10g", positions[q][0], positions[q][1], positions[q][2],
                      alpha[q]);
        line += text;
      }
      line += "," + std::to_string(e.forest().globalCount()) + "," + std::to_string(globalPoints(e)) + "\n";
    }
    table_.append(line);
  }
  void finish() { table_.finish(); }

private:
  distributed::ProgressTable table_;
};

void printRunHeader(const RefinedEvolution &e, const RefinedRunSettings &s, double dt, long lastStep, int ranks,
                    const std::vector<int64_t> &perLevel) {
  const ForestSpec &f = e.options().forest;
  std::printf("refined grid on [%g, %g]^3: %d levels, h = %g (coarsest) to %g (finest), blocks of %d^3 points, "
              "ghost %d, %d-point interpolation; %lld leaves (",
              f.lower[0], f.upper()[0], f.maxLevel + 1, f.spacing(0), f.spacing(f.maxLevel), f.blockPoints,
              e.options().ghostWidth, e.options().interpolationPoints, static_cast<long long>(e.forest().globalCount()));
  for (size_t l = 0; l < perLevel.size(); ++l)
    std::printf("%s%lld", l ? " " : "", static_cast<long long>(perLevel[l]));
  std::printf(" per level), %lld points; %d rank(s); estimated peak memory of rank 0's blocks %.1f MiB\n",
              static_cast<long long>(globalPoints(e)), ranks, e.memoryEstimate() / (1024.0 * 1024.0));
  std::printf("refinement: level l within r <");
  for (size_t l = 0; l < s.refinement.radii.size(); ++l)
    std::printf(" %g", s.refinement.radii[l]);
  std::printf(" of each tracked point, regridded every %ld steps; dt = %.5f (cfl %g of the finest h, every level), "
              "%ld steps to t = %g\n",
              s.refinement.regridEvery, dt, s.run.cfl, lastStep, s.run.finalTime);
  if (s.run.normBox)
    std::printf("constraint norms (volume-weighted) over |x|, |y|, |z| <= %g outside r < %g around the tracked points\n",
                *s.run.normBox, s.run.excision);
  else
    std::printf("constraint norms (volume-weighted) over the points %d or more from the faces outside r < %g around "
                "the tracked points\n",
                2 * e.options().ghostWidth, s.run.excision);
}

} // namespace

void runRefinedEvolution(RefinedEvolution &e, RefinedConstraintMonitor &monitor, RefinedPunctureTracker &tracker,
                         const RefinedRunSettings &s, bool restarted) {
  const int rank = e.forest().rank();
  const distributed::MonitoredRunSettings &run = s.run;
  if (!run.profileFile.empty())
    throw RunSettingsError("the axis profile does not run on the refined grid yet");
  std::unique_ptr<RefinedPsi4Sampler> psi4;
  if (run.waves.every > 0) {
    if (!run.weylModule)
      throw RunSettingsError("wave extraction needs the Weyl-scalar module");
    const ForestSpec &f = e.options().forest;
    const std::array<double, 3> upper = f.upper();
    for (double R : run.waves.radii)
      for (int a = 0; a < 3; ++a) // two coarsest spacings inside the faces, where the ghost fill is the blocks'
        if (run.waves.center[a] - R < f.lower[a] + 2 * f.spacing(0) || run.waves.center[a] + R > upper[a] - 2 * f.spacing(0))
          throw RunSettingsError("the extraction sphere of radius " + shortNumber(R) + " leaves the domain's interior along " +
                                 std::string(1, "xyz"[a]));
    try {
      psi4 = std::make_unique<RefinedPsi4Sampler>(e, *run.weylModule, run.waves.center);
    } catch (const RefinementError &err) {
      throw RunSettingsError(err.what());
    }
  }
  if (s.refinement.regridEvery < 1)
    throw RunSettingsError("the regrid interval must be at least one step");
  const ForestSpec &f = e.options().forest;
  const double dt = run.cfl * f.spacing(f.maxLevel);
  const double steps = std::ceil(run.finalTime / dt - 1e-9);
  if (!(steps <= 1e12))
    throw RunSettingsError("--final-time " + shortNumber(run.finalTime) + " takes more than 1e12 steps of dt = " +
                           shortNumber(dt));
  const long lastStep = std::max(0L, static_cast<long>(steps));
  if (e.stepNumber() > lastStep)
    throw RunSettingsError("the restart file is at t = " + shortNumber(e.time()) + " (step " +
                           std::to_string(e.stepNumber()) + "), past --final-time " + shortNumber(run.finalTime));
  if (rank == 0 && restarted && e.stepNumber() == lastStep)
    std::printf("the restart file is already at --final-time %g: no steps to take\n", run.finalTime);

  auto excluded = [&](const std::array<double, 3> &x) {
    if (run.normBox && (std::abs(x[0]) > *run.normBox || std::abs(x[1]) > *run.normBox || std::abs(x[2]) > *run.normBox))
      return true;
    for (const auto &c : tracker.positions())
      if (std::hypot(x[0] - c[0], x[1] - c[1], x[2] - c[2]) < run.excision)
        return true;
    return false;
  };
  // The first norms before any output exists: an empty norm region is a setting that cannot run.
  ConstraintNorms first = monitor.evaluate(e, excluded);
  if (first.points == 0)
    throw RunSettingsError("the constraint-norm region holds no grid point (" +
                           (run.normBox ? "--norm-box " + shortNumber(*run.normBox) + ", " : std::string()) +
                           "--excision " + shortNumber(run.excision) + ")");
  const std::vector<int64_t> perLevel = e.forest().leavesPerLevel(); // collective
  if (rank == 0)
    printRunHeader(e, s, dt, lastStep, e.forest().size(), perLevel);

  distributed::HorizonMonitor horizons(e.forest().comm(), run.horizons, tracker.positions().size());
  auto observeHorizons = [&] {
    if (horizons.enabled())
      horizons.observe(refinedSliceGeometry(e, e.options().ghostWidth >= 3 ? 6 : 4), e.forest().comm(), e.time(),
                       e.stepNumber(), tracker.positions());
  };
  std::unique_ptr<distributed::WaveExtractor> waves;
  if (psi4)
    waves = std::make_unique<distributed::WaveExtractor>(e.forest().comm(), run.waves);
  double waveSeconds = 0;
  auto observeWaves = [&] {
    if (!waves)
      return;
    const auto started = std::chrono::steady_clock::now();
    const std::vector<horizons::Point3> &points = waves->points();
    // One ghost fill for both samplers: the slice sampler's.
    const horizons::GeometrySampler geometry = refinedSliceGeometry(e, e.options().ghostWidth >= 3 ? 6 : 4);
    const std::vector<double> values = psi4->sample(e, points);
    std::vector<horizons::SpatialGeometry> slice(points.size());
    geometry(points, slice);
    waves->record(e.forest().comm(), e.time(), e.stepNumber(), values, slice);
    waveSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  std::unique_ptr<RefinedSnapshotWriter> snapshots;
  if (!run.output.empty())
    snapshots = std::make_unique<RefinedSnapshotWriter>(e, run.output, run.runFile);
  MonitorTable table(e.forest().comm(), run.monitorFile, tracker.positions().size());
  const auto start = std::chrono::steady_clock::now();
  double pointsUpdated = 0;
  e.resetTimers();
  auto report = [&](const ConstraintNorms *given) {
    const ConstraintNorms c = given ? *given : monitor.evaluate(e, excluded);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto &p = tracker.positions();
    const double minAlpha = minimumOverBlocks(e, "alpha");
    const std::vector<double> alpha = p.empty() ? std::vector<double>{} : interpolateField(e, "alpha", {0}, p)[0];
    if (rank == 0) {
      std::printf("t = %8.4f step %6ld  H L2 %.3e max %.3e  M L2 %.3e max %.3e  alpha min %.4f  wall %7.1f s  "
                  "%.3g points/s  %lld leaves%s",
                  e.time(), e.stepNumber(), c.l2H, c.maxH, c.l2M, c.maxM, minAlpha, wall,
                  wall > 0 ? pointsUpdated / wall : 0.0, static_cast<long long>(e.forest().globalCount()),
                  p.empty() ? "\n" : "  punctures");
      for (size_t q = 0; q < p.size(); ++q)
        std::printf(" (%.4f, %.4f, %.4f) alpha %.4f%s", p[q][0], p[q][1], p[q][2], alpha[q], q + 1 == p.size() ? "\n" : "");
      std::fflush(stdout);
    }
    table.row(e, c, wall, minAlpha, p, alpha);
  };
  const std::vector<double> &radii = s.refinement.radii;
  try {
    report(&first);
    observeHorizons();
    observeWaves();
    if (snapshots)
      snapshots->write(e);
    while (e.stepNumber() < lastStep) {
      tracker.sampleBefore(e);
      pointsUpdated += static_cast<double>(globalPoints(e));
      e.advance(1, dt);
      tracker.advance(e, dt);
      if (e.stepNumber() % s.refinement.regridEvery == 0)
        e.regrid(regionsAround(tracker.positions(), radii));
      if (e.stepNumber() % run.monitorEvery == 0 || e.stepNumber() == lastStep)
        report(nullptr);
      if (horizons.enabled() && (e.stepNumber() % horizons.every() == 0 || e.stepNumber() == lastStep))
        observeHorizons();
      if (waves && (e.stepNumber() % waves->every() == 0 || e.stepNumber() == lastStep))
        observeWaves();
      if (snapshots && e.stepNumber() % run.outputEvery == 0)
        snapshots->write(e);
      if (run.checkpointEvery && e.stepNumber() % run.checkpointEvery == 0)
        writeRefinedCheckpoint(e, run.checkpoint, refinedCheckpointExtras(tracker, s.refinement, run.runFile));
    }
  } catch (const std::exception &failure) {
    if (snapshots) {
      const bool nonFinite = dynamic_cast<const NonFiniteRefinedState *>(&failure) != nullptr;
      if (nonFinite && !snapshots->wrote(e.stepNumber())) {
        try {
          snapshots->write(e); // the failing state is the snapshot a user most wants to see
        } catch (const std::exception &) {
        }
      }
      const bool indexed = snapshots->abandon(e);
      if (rank == 0)
        std::fprintf(stderr, indexed ? "the snapshots written before the run stopped are indexed in %s (data in %s)\n"
                                     : "no snapshot index written (%s): %s holds no complete snapshot\n",
                     snapshots->partialXdmfPath().c_str(), snapshots->partialPath().c_str());
    }
    throw;
  }
  const RefinedTimers &t = e.timers();
  if (rank == 0 && t.steps > 0) {
    const double n = static_cast<double>(t.steps), total = std::max(t.total(), 1e-30);
    std::printf("rank 0 seconds per step: kernel %.4f, ghost exchange %.4f, ghost fill (copy, restriction, "
                "prolongation) %.4f, radiative %.4f, RK updates %.4f, post-step %.4f, regrid %.4f (%ld regrids); "
                "fill + exchange + regrid = %.0f%% of the step\n",
                t.kernel / n, t.exchange / n, t.fill / n, t.radiative / n, t.update / n, t.postStep / n, t.regrid / n,
                t.regrids, 100 * (t.fill + t.exchange + t.regrid) / total);
  }
  if (!run.checkpoint.empty() && e.stepNumber() % run.checkpointEvery != 0)
    writeRefinedCheckpoint(e, run.checkpoint, refinedCheckpointExtras(tracker, s.refinement, run.runFile));
  if (rank == 0 && horizons.enabled()) {
    std::printf("horizon searches: %.2f s in all", horizons.seconds());
    if (horizons.commonHorizonTime())
      std::printf(", common horizon first found at t = %.4f", *horizons.commonHorizonTime());
    std::printf("\n");
  }
  if (snapshots)
    snapshots->finish(e);
  if (rank == 0 && waves)
    std::printf("wave extraction: %.2f s in all\n", waveSeconds);
  table.finish();
  horizons.finish();
  if (waves)
    waves->finish();
}

} // namespace tensorium_mlir::refinement
