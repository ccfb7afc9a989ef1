// tensorium-evolve: evolves two-puncture initial data with a generated BSSN right-hand side on
// a PETSc-distributed grid (run it under mpirun for several ranks), with constraint monitoring,
// puncture tracking, HDF5/XDMF snapshots and checkpoint/restart.
#include "cli_numbers.h"
#include "fixture_module.h"
#include "mpi_text.h"
#include "output_paths.h"
#include "tensorium_mlir/Runtime/KernelModule.h"

#include "tensorium_mlir/Distributed/BssnDiagnostics.h"
#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Distributed/BssnSetup.h"
#include "tensorium_mlir/Distributed/EvolutionIO.h"
#include "tensorium_mlir/Distributed/TwoPunctureBroadcast.h"
#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using namespace tensorium_mlir::distributed;
using namespace tensorium_cli;

namespace {

/// The most time steps one run takes (far beyond any run's wall time; keeps counts exact).
constexpr double kMaxSteps = 1e12;

std::string shortNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

const char *kUsage =
    "usage: tensorium-evolve [initial data] [grid and time] [output]   (mpirun -n N for N ranks)\n"
    "initial data (two punctures, as tensorium-two-punctures):\n"
    "  --b B --m1 M --m2 M --p1 x,y,z --p2 x,y,z --s1 x,y,z --s2 x,y,z --npoints nA,nB,nphi\n"
    "  (defaults: b = 1.5, m1 = m2 = 0.5, at rest, npoints 24,24,12; precollapsed lapse psi^-2)\n"
    "  or an exact solution: --initial-data FILE.tn|FILE.so --initial-params p1,p2,...: the fixture's\n"
    "  slice kernel gives alpha, gamma_ij, K_ij (its split_3p1 must map Kij) and, when mapped, beta^i\n"
    "  on Cartesian x, y, z; --track x,y,z (repeatable) tracks and excises points such as punctures\n"
    "evolution:\n"
    "  --order P            finite-difference order of the built BSSN and constraint modules (2, 4, 6; default 4)\n"
    "  --module FILE.so     evolution module (default: fixtures/gr/bssn_evolution_3d.tn at --order)\n"
    "  --fixture FILE.tn    evolution fixture, compiled now (BSSN variables, params eta, slicing,\n"
    "                       shift_driver, ko_sigma, shift_advect as fixtures/gr/bssn_evolution_3d.tn)\n"
    "  --constraints-module FILE.so   ADM constraint module (default: fixtures/gr/adm_constraints_3d.tn)\n"
    "  --grid N             points per side, cell-centred (default 48); --extent L: the cube [-L, L]^3 (default 6)\n"
    "  --ghost W            ghost width (default: the kernel's stencil radius)\n"
    "  --final-time T (default 1)  --cfl C: dt = C h (default 0.25)  --integrator rk4|ssprk3\n"
    "  --eta E (Gamma-driver damping, default 2)  --ko-sigma S (Kreiss-Oliger, default 0.1)\n"
    "  --excision R         constraint norms skip r < R around each puncture (default: max(m1, m2))\n"
    "  --norm-box R         constraint norms only over |x|, |y|, |z| <= R: a region fixed in physical\n"
    "                       units, the same on every grid (default: all points two ghost widths from\n"
    "                       the faces, a region that grows towards the faces as h shrinks)\n"
    "output:\n"
    "  --monitor-every K    progress line every K steps (default 1); --monitor-file FILE.csv\n"
    "  --output FILE.h5 --output-every K   snapshots (state, XDMF index FILE.xmf)\n"
    "  --checkpoint FILE.h5 --checkpoint-every K   checkpoints; --restart FILE.h5 continues one\n"
    "Exit status: 0 done, 1 failure (message from rank 0), 2 bad arguments or not enough memory.\n";

struct Options {
  physics::TwoPunctureParameters punctures;
  physics::TwoPunctureOptions solver;
  int order = 4;
  std::string module, constraintsModule, fixture, initialData;
  std::vector<double> initialParams;
  std::vector<std::array<double, 3>> tracks;
  bool tracksGiven = false;
  long grid = 48;
  double extent = 6, finalTime = 1, cfl = 0.25, eta = 2, koSigma = 0.1;
  std::optional<double> excision; // default: the larger mass, or 0.5 for exact data
  std::optional<double> normBox;  // constraint norms over |x_a| <= normBox
  int ghost = 0;
  TimeIntegrator integrator = TimeIntegrator::RK4;
  long monitorEvery = 1, outputEvery = 0, checkpointEvery = 0;
  std::string monitorFile, output, checkpoint, restart;
};

Options parse(int argc, char **argv) {
  Options o;
  o.punctures.b = 1.5;
  o.solver.nA = o.solver.nB = 24;
  o.solver.nPhi = 12;
  bool afterPetscOption = false; // the previous word was a PETSc option (single dash)
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      // PETSc options (single dash) are PETSc's, and so is a word after one (its value);
      // any other word is a mistake, such as a fixture given without --fixture.
      const bool petscOption = !arg.empty() && arg[0] == '-';
      if (!petscOption && !afterPetscOption)
        throw UsageError("unexpected argument '" + arg + "' (options start with --)");
      afterPetscOption = petscOption;
      continue;
    }
    afterPetscOption = false;
    static const std::set<std::string> known{
        "--b", "--m1", "--m2", "--p1", "--p2", "--s1", "--s2", "--npoints", "--order", "--module",
        "--constraints-module", "--fixture", "--initial-data", "--initial-params", "--track", "--grid", "--extent",
        "--ghost", "--final-time", "--cfl", "--eta", "--ko-sigma", "--excision", "--norm-box", "--integrator", "--monitor-every",
        "--monitor-file", "--output", "--output-every", "--checkpoint", "--checkpoint-every", "--restart"};
    if (!known.count(arg))
      throw UsageError("unknown option '" + arg + "'");
    if (i + 1 >= argc)
      throw UsageError("option '" + arg + "' needs a value");
    const std::string v = argv[++i];
    if (arg == "--b") o.punctures.b = parseNumber(arg, v);
    else if (arg == "--m1") o.punctures.m1 = parseNumber(arg, v);
    else if (arg == "--m2") o.punctures.m2 = parseNumber(arg, v);
    else if (arg == "--p1") o.punctures.P1 = vec3(arg, v);
    else if (arg == "--p2") o.punctures.P2 = vec3(arg, v);
    else if (arg == "--s1") o.punctures.S1 = vec3(arg, v);
    else if (arg == "--s2") o.punctures.S2 = vec3(arg, v);
    else if (arg == "--npoints") {
      // The range only keeps products in double range; the memory estimate decides what runs.
      const std::vector<long> n = parseIntegers(arg, v, 1, 1000000, 3, 3);
      if (n[0] < 4 || n[1] < 4)
        throw UsageError("--npoints needs nA, nB >= 4 and nphi >= 1, got '" + v + "'");
      o.solver.nA = static_cast<int>(n[0]), o.solver.nB = static_cast<int>(n[1]), o.solver.nPhi = static_cast<int>(n[2]);
    } else if (arg == "--order") {
      o.order = static_cast<int>(parseInteger(arg, v, 2, 6));
      if (o.order % 2)
        throw UsageError("--order must be 2, 4 or 6");
    } else if (arg == "--module") o.module = v;
    else if (arg == "--constraints-module") o.constraintsModule = v;
    else if (arg == "--fixture") o.fixture = v;
    else if (arg == "--initial-data") o.initialData = v == "two-punctures" ? "" : v;
    else if (arg == "--initial-params") {
      o.initialParams.clear();
      for (const std::string &item : splitList(arg, v, 1, 4096))
        o.initialParams.push_back(parseNumber(arg, item));
    } else if (arg == "--track") {
      o.tracks.push_back(vec3(arg, v));
      o.tracksGiven = true;
    }
    else if (arg == "--grid") o.grid = parseInteger(arg, v, 1, 100000);
    else if (arg == "--extent") o.extent = parseNumber(arg, v);
    else if (arg == "--ghost") o.ghost = static_cast<int>(parseInteger(arg, v, 1, 64));
    else if (arg == "--final-time") o.finalTime = parseNumber(arg, v);
    else if (arg == "--cfl") o.cfl = parseNumber(arg, v);
    else if (arg == "--eta") o.eta = parseNumber(arg, v);
    else if (arg == "--ko-sigma") o.koSigma = parseNumber(arg, v);
    else if (arg == "--excision") o.excision = parseNumber(arg, v);
    else if (arg == "--norm-box") o.normBox = parseNumber(arg, v);
    else if (arg == "--integrator") {
      if (v == "rk4") o.integrator = TimeIntegrator::RK4;
      else if (v == "ssprk3") o.integrator = TimeIntegrator::SSPRK3;
      else throw UsageError("--integrator expects rk4 or ssprk3, got '" + v + "'");
    } else if (arg == "--monitor-every") o.monitorEvery = parseInteger(arg, v, 1, 1L << 40);
    else if (arg == "--monitor-file") o.monitorFile = v;
    else if (arg == "--output") o.output = v;
    else if (arg == "--output-every") o.outputEvery = parseInteger(arg, v, 1, 1L << 40);
    else if (arg == "--checkpoint") o.checkpoint = v;
    else if (arg == "--checkpoint-every") o.checkpointEvery = parseInteger(arg, v, 1, 1L << 40);
    else if (arg == "--restart") o.restart = v;
    else throw UsageError("unknown option '" + arg + "'");
  }
  if (!(o.extent > 0))
    throw UsageError("--extent must be positive");
  if (!(o.cfl > 0) || o.cfl > 1)
    throw UsageError("--cfl must be in (0, 1]");
  if (!(o.finalTime >= 0))
    throw UsageError("--final-time must be non-negative");
  if (o.koSigma < 0 || o.eta < 0)
    throw UsageError("--ko-sigma and --eta must be non-negative");
  if (!o.output.empty() && !o.outputEvery)
    o.outputEvery = 10;
  if (o.outputEvery && o.output.empty())
    throw UsageError("--output-every needs --output FILE.h5");
  if (!o.checkpoint.empty() && !o.checkpointEvery)
    throw UsageError("--checkpoint needs --checkpoint-every K");
  if (o.checkpointEvery && o.checkpoint.empty())
    throw UsageError("--checkpoint-every needs --checkpoint FILE.h5");
  if (!o.fixture.empty() && !o.module.empty())
    throw UsageError("give --module or --fixture, not both");
  if (o.normBox && !(*o.normBox > 0))
    throw UsageError("--norm-box must be positive");
  if (o.excision && !(*o.excision >= 0))
    throw UsageError("--excision must be non-negative (0: no excision)");
  if (!o.excision)
    o.excision = o.initialData.empty() ? std::max(o.punctures.m1, o.punctures.m2) : 0.5;
  // Outputs are checked before any work; they are created only after every input was checked.
  if (!o.output.empty())
    requireWritableOutput("--output", o.output);
  if (!o.checkpoint.empty())
    requireWritableOutput("--checkpoint", o.checkpoint);
  if (!o.monitorFile.empty())
    requireWritableOutput("--monitor-file", o.monitorFile);
  if (!o.tracksGiven && o.initialData.empty())
    o.tracks = {{o.punctures.b, 0, 0}, {-o.punctures.b, 0, 0}};
  return o;
}

KernelModuleTables tablesOf(const runtime::KernelModule &m) {
  const tensorium_module_tables &t = m.tables();
  return {{t.kernels, static_cast<size_t>(t.kernel_count), t.buffers, static_cast<size_t>(t.buffer_count), t.param_names,
           static_cast<size_t>(t.param_count), static_cast<unsigned>(t.dimension)},
          {t.adapters, static_cast<size_t>(t.adapter_count)}};
}

/// Modules named on the command line: a .so is loaded as it is; a .tn fixture is compiled once,
/// on rank 0, into a scratch folder every rank reads (the ranks share a file system), removed
/// at exit. Collective: a compile error reaches every rank.
class ModuleLoader {
public:
  ModuleLoader(MPI_Comm comm, int rank) : comm_(comm), rank_(rank) {}
  ~ModuleLoader() {
    if (rank_ == 0 && !scratch_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_, ignored);
    }
  }
  std::unique_ptr<runtime::KernelModule> load(const std::string &source, const std::string &name) {
    if (source.size() < 3 || source.substr(source.size() - 3) != ".tn")
      return std::make_unique<runtime::KernelModule>(source);
    std::string path, error;
    if (rank_ == 0) {
      try {
        if (scratch_.empty()) {
          std::string pattern = (std::filesystem::temp_directory_path() / "tensorium-evolve-XXXXXX").string();
          if (!mkdtemp(pattern.data()))
            throw std::runtime_error("cannot create a scratch folder for compiled fixtures");
          scratch_ = pattern;
        }
        path = compileFixtureModule(source, scratch_, name, TENSORIUM_EVOLVE_CC, TENSORIUM_EVOLVE_C_COMPILER,
                                    TENSORIUM_EVOLVE_OPENMP_LIBRARY);
      } catch (const std::exception &e) {
        error = e.what();
      }
    }
    broadcast(error);
    if (!error.empty())
      throw DistributedError(error);
    broadcast(path);
    return std::make_unique<runtime::KernelModule>(path);
  }

private:
  void broadcast(std::string &text) const { tensorium_cli::broadcastText(text, comm_); }
  MPI_Comm comm_;
  int rank_;
  std::string scratch_;
};

int run(int argc, char **argv, int rank) {
  const Options o = parse(argc, argv);
  MPI_Comm comm = PETSC_COMM_WORLD;
  if (o.initialData.empty() && o.restart.empty()) {
    // The spectral solve runs on rank 0 alone: its memory is judged there, before any grid or
    // module is set up, and the refusal reaches every rank.
    const double estimate = physics::twoPunctureMemoryEstimate(o.solver);
    double available = rank == 0 ? runtime::availableMemoryBytes() : 0.0;
    MPI_Bcast(&available, 1, MPI_DOUBLE, 0, comm);
    if (estimate > available)
      throw runtime::InsufficientMemory("a two-puncture solve at --npoints " + std::to_string(o.solver.nA) + "," +
                                            std::to_string(o.solver.nB) + "," + std::to_string(o.solver.nPhi),
                                        estimate, available);
  }
  const std::string dir = TENSORIUM_EVOLVE_KERNEL_DIR;
  const std::string order = std::to_string(o.order);
  ModuleLoader loader(comm, rank);
  const std::unique_ptr<runtime::KernelModule> evolutionModule = loader.load(
      !o.fixture.empty() ? o.fixture : !o.module.empty() ? o.module : dir + "/libverify_bssn_o" + order + ".so", "evolution");
  const std::unique_ptr<runtime::KernelModule> constraintsModule = loader.load(
      o.constraintsModule.empty() ? dir + "/libverify_constraints_o" + order + ".so" : o.constraintsModule, "constraints");
  const runtime::KernelModule &evolution = *evolutionModule, &constraints = *constraintsModule;
  const std::unique_ptr<runtime::KernelModule> initialModule =
      o.initialData.empty() ? loader.load(dir + "/libverify_two_puncture_o0.so", "two_punctures")
                            : loader.load(o.initialData, "initial_data");

  BssnRunOptions run{o.grid, o.extent, o.ghost, o.eta, o.koSigma, o.integrator};
  const double h = run.spacing();
  DistributedEvolution e(comm, tablesOf(evolution), bssnEvolutionOptions(run));
  prepareBssnEvolution(e);
  ConstraintMonitor monitor(e, tablesOf(constraints));

  PunctureTracker tracker(o.tracks);
  if (!o.restart.empty()) {
    CheckpointExtras extras = readCheckpoint(e, o.restart);
    if (extras.values.size() != 3 * o.tracks.size())
      throw DistributedError("restart file '" + o.restart + "' tracks " + std::to_string(extras.values.size() / 3) +
                             " points, this run " + std::to_string(o.tracks.size()));
    std::vector<std::array<double, 3>> positions;
    for (size_t q = 0; q + 2 < extras.values.size(); q += 3)
      positions.push_back({extras.values[q], extras.values[q + 1], extras.values[q + 2]});
    tracker = PunctureTracker(positions);
    if (rank == 0)
      std::printf("restarted from %s at t = %.6f, step %ld\n", o.restart.c_str(), e.time(), e.stepNumber());
  } else if (!o.initialData.empty()) {
    e.initialize([&](runtime::UniformGridStorage &s, const DistributedGrid &g) {
      writeExactData(tablesOf(*initialModule), o.initialParams, o.order, s, g);
    });
    if (rank == 0)
      std::printf("initial data from %s\n", o.initialData.c_str());
  } else {
    const tensorium_module_tables &t = initialModule->tables();
    if (t.spectral_kernel_count < 1)
      throw DistributedError("the two-puncture module has no spectral residual kernel");
    physics::TwoPunctureSolution solution = solveTwoPuncturesOnRoot(comm, &t.spectral_kernels[0], o.punctures, o.solver);
    if (rank == 0)
      std::printf("two punctures: b = %g, m = (%g, %g), M_ADM = %.10f (%d Newton iterations on rank 0, broadcast)\n",
                  o.punctures.b, o.punctures.m1, o.punctures.m2, solution.admMass(), solution.result().iterations);
    e.initialize([&](runtime::UniformGridStorage &s, const DistributedGrid &g) { writeTwoPunctureData(solution, s, g); });
  }
  const double dt = o.cfl * h;
  // The step count in double first: a final time far beyond the step limit must not reach an
  // out-of-range conversion.
  const double steps = std::ceil(o.finalTime / dt - 1e-9);
  if (!(steps <= kMaxSteps))
    throw UsageError("--final-time " + shortNumber(o.finalTime) + " takes more than " + shortNumber(kMaxSteps) +
                     " steps of dt = " + shortNumber(dt));
  const long lastStep = std::max(0L, static_cast<long>(steps));
  if (e.stepNumber() > lastStep)
    throw UsageError("the restart file is at t = " + shortNumber(e.time()) + " (step " +
                     std::to_string(e.stepNumber()) + "), past --final-time " + shortNumber(o.finalTime));
  if (rank == 0 && !o.restart.empty() && e.stepNumber() == lastStep)
    std::printf("the restart file is already at --final-time %g: no steps to take\n", o.finalTime);
  // The constraint-norm region: points two ghost widths from the faces (their ghosts are
  // boundary fill) and, with --norm-box, inside the box. An empty one is refused now, before any
  // output exists, instead of printing norms of nothing.
  const int64_t margin = 2 * static_cast<int64_t>(e.grid().spec().ghostWidth);
  int64_t regionPoints = 1;
  for (size_t a = 0; a < 3; ++a) {
    int64_t count = 0;
    for (int64_t i = margin; i < e.grid().spec().points[a] - margin; ++i)
      count += !o.normBox || std::abs(e.grid().spec().lower[a] + static_cast<double>(i) * e.grid().spec().spacing[a]) <= *o.normBox;
    regionPoints *= count;
  }
  if (regionPoints == 0)
    throw UsageError("the constraint-norm region holds no grid point (" +
                     (o.normBox ? "--norm-box " + shortNumber(*o.normBox) + " and " : std::string()) + "points " +
                     std::to_string(margin) + " or more from the faces of a " + std::to_string(o.grid) + "^3 grid)");
  if (rank == 0) {
    const auto p = e.grid().ranksPerAxis();
    // Process, engine and constraint storage (29 values per ghosted point) of rank 0.
    const double memory = 25e6 + e.memoryEstimate() + 8.0 * 29 * static_cast<double>(e.grid().ghosted().points());
    std::printf("estimated peak memory: %.0f bytes (rank 0)\n", memory);
    std::printf("grid %ld^3 on [-%g, %g]^3, h = %.5f, dt = %.5f, %ld steps to t = %g; %d rank(s) as %dx%dx%d, ghost %d, "
                "%s, %d values per point\n",
                o.grid, o.extent, o.extent, h, dt, lastStep, o.finalTime, e.grid().size(), p[0], p[1], p[2],
                e.grid().spec().ghostWidth, integratorName(o.integrator), e.grid().dof());
    if (o.normBox)
      std::printf("constraint norms over |x|, |y|, |z| <= %g outside r < %g around the tracked points (%ld points "
                  "before excision)\n",
                  *o.normBox, *o.excision, static_cast<long>(regionPoints));
    else
      std::printf("constraint norms over the points %ld or more from the faces outside r < %g around the tracked points "
                  "(%ld points before excision; --norm-box fixes the region in physical units)\n",
                  static_cast<long>(margin), *o.excision, static_cast<long>(regionPoints));
  }
  // Outputs are created only now, after every input has been checked.
  std::unique_ptr<SnapshotWriter> snapshots;
  if (!o.output.empty())
    snapshots = std::make_unique<SnapshotWriter>(e, o.output);
  // The monitor table grows under a .partial name and takes its own name when the run ends.
  std::ofstream csv;
  const std::string csvPartial = o.monitorFile + ".partial";
  int opened = 1;
  if (rank == 0 && !o.monitorFile.empty()) {
    csv.open(csvPartial);
    opened = csv.is_open();
  }
  MPI_Bcast(&opened, 1, MPI_INT, 0, comm);
  if (!opened)
    throw DistributedError("cannot write " + csvPartial);
  if (rank == 0 && !o.monitorFile.empty()) {
    csv << "time,step,L2_H,max_H,L2_M,max_M,wall_s";
    for (size_t q = 1; q <= o.tracks.size(); ++q)
      csv << ",x" << q << ",y" << q << ",z" << q;
    csv << "\n";
  }
  auto excluded = [&](const std::array<double, 3> &x) {
    if (o.normBox && (std::abs(x[0]) > *o.normBox || std::abs(x[1]) > *o.normBox || std::abs(x[2]) > *o.normBox))
      return true;
    for (const auto &c : tracker.positions())
      if (std::hypot(x[0] - c[0], x[1] - c[1], x[2] - c[2]) < *o.excision)
        return true;
    return false;
  };
  const auto start = std::chrono::steady_clock::now();
  long stepsDone = 0;
  auto report = [&]() {
    ConstraintNorms c = monitor.evaluate(e, excluded);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto &p = tracker.positions();
    if (rank == 0) {
      const double rate = wall > 0 ? static_cast<double>(o.grid * o.grid * o.grid) * stepsDone / wall : 0;
      std::printf("t = %8.4f step %6ld  H L2 %.3e max %.3e  M L2 %.3e max %.3e  wall %7.1f s  %.3g points/s%s",
                  e.time(), e.stepNumber(), c.l2H, c.maxH, c.l2M, c.maxM, wall, rate, p.empty() ? "\n" : "  punctures");
      for (size_t q = 0; q < p.size(); ++q)
        std::printf(" (%.4f, %.4f, %.4f)%s", p[q][0], p[q][1], p[q][2], q + 1 == p.size() ? "\n" : "");
      std::fflush(stdout);
      if (csv.is_open()) {
        char row[200];
        std::snprintf(row, sizeof row, "%.10g,%ld,%.10g,%.10g,%.10g,%.10g,%.4f", e.time(), e.stepNumber(), c.l2H, c.maxH,
                      c.l2M, c.maxM, wall);
        csv << row;
        for (const auto &x : p) {
          std::snprintf(row, sizeof row, ",%.10g,%.10g,%.10g", x[0], x[1], x[2]);
          csv << row;
        }
        csv << "\n" << std::flush;
      }
    }
    // A monitor row that could not be written (a full disk) ends the run on every rank; the
    // table keeps its .partial name.
    int written = !csv.is_open() || csv.good();
    MPI_Bcast(&written, 1, MPI_INT, 0, comm);
    if (!written)
      throw DistributedError("writing the monitor table " + csvPartial + " failed");
    if (!std::isfinite(c.l2H) || !std::isfinite(c.maxH) || !std::isfinite(c.l2M))
      throw DistributedError("the evolution became non-finite at t = " + std::to_string(e.time()));
  };
  auto checkpointExtras = [&]() {
    CheckpointExtras x;
    for (const auto &p : tracker.positions())
      x.values.insert(x.values.end(), p.begin(), p.end());
    return x;
  };

  e.loadStorage(e.state());
  report();
  if (snapshots)
    snapshots->write(e);
  tracker.sampleBefore(e);
  while (e.stepNumber() < lastStep) {
    e.advance(1, dt);
    ++stepsDone;
    e.loadStorage(e.state());
    tracker.advance(e, dt);
    if (e.stepNumber() % o.monitorEvery == 0 || e.stepNumber() == lastStep)
      report();
    if (snapshots && e.stepNumber() % o.outputEvery == 0)
      snapshots->write(e);
    if (o.checkpointEvery && e.stepNumber() % o.checkpointEvery == 0)
      writeCheckpoint(e, o.checkpoint, checkpointExtras());
    tracker.sampleBefore(e);
  }
  const EvolutionTimers &t = e.timers();
  if (rank == 0 && stepsDone > 0) {
    std::printf("rank 0 seconds per step: kernel %.4f, ghost exchange %.4f, copies %.4f, boundary %.4f, hook %.4f, "
                "post-step %.4f (%ld right-hand sides)\n",
                t.kernel / stepsDone, t.exchange / stepsDone, (t.copyIn + t.copyOut) / stepsDone,
                (t.boundary + t.radiative) / stepsDone, t.hook / stepsDone, t.postStep / stepsDone, t.rhsEvaluations);
  }
  if (!o.checkpoint.empty() && e.stepNumber() % o.checkpointEvery != 0)
    writeCheckpoint(e, o.checkpoint, checkpointExtras());
  if (snapshots)
    snapshots->finish(e);
  int moved = 1;
  if (csv.is_open()) {
    csv.close();
    moved = csv.good() && std::rename(csvPartial.c_str(), o.monitorFile.c_str()) == 0;
  }
  MPI_Bcast(&moved, 1, MPI_INT, 0, e.grid().comm());
  if (!moved)
    throw DistributedError("cannot move the monitor table into place at " + o.monitorFile);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::cout << kUsage;
      return 0;
    }
  std::unique_ptr<PetscSession> session;
  try {
    session = std::make_unique<PetscSession>(&argc, &argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tensorium-evolve: error: %s\n", e.what());
    return 1;
  }
  const int rank = session->rank();
  int status = 0;
  // Every check above the time loop runs identically on all ranks, so every rank throws the
  // same error at the same place: rank 0 reports it and all of them finalize normally.
  try {
    status = run(argc, argv, rank);
  } catch (const UsageError &e) {
    if (rank == 0)
      std::fprintf(stderr, "tensorium-evolve: error: %s\n(see --help)\n", e.what());
    status = 2;
  } catch (const tensorium_mlir::runtime::InsufficientMemory &e) {
    if (rank == 0)
      std::fprintf(stderr, "tensorium-evolve: error: %s\n", e.what());
    status = 2;
  } catch (const std::exception &e) {
    if (rank == 0)
      std::fprintf(stderr, "tensorium-evolve: error: %s\n", e.what());
    status = 1;
  }
  return status;
}
