// tensorium-evolve: evolves two-puncture initial data with a generated BSSN right-hand side on
// a PETSc-distributed grid (run it under mpirun for several ranks), with constraint monitoring,
// puncture tracking, HDF5/XDMF snapshots and checkpoint/restart.
#include "cli_numbers.h"
#include "module_toolchain.h"
#include "output_paths.h"

#include "tensorium_mlir/Distributed/BssnDiagnostics.h"
#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Distributed/BssnSetup.h"
#include "tensorium_mlir/Distributed/EvolutionIO.h"
#include "tensorium_mlir/Distributed/ModuleCatalog.h"
#include "tensorium_mlir/Distributed/MonitoredRun.h"
#include "tensorium_mlir/Distributed/TwoPunctureBroadcast.h"
#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using namespace tensorium_mlir::distributed;
using namespace tensorium_cli;

namespace {

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
    "Units: G = c = 1; b is the half-separation (punctures at (+-b, 0, 0)), m1, m2 bare masses; with\n"
    "m1 + m2 = 1 lengths and times are in units of that mass; h = 2 L / N (docs/conventions.md).\n"
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
  double extent = 6, eta = 2, koSigma = 0.1;
  std::optional<double> excision; // default: the larger mass, or 0.5 for exact data
  int ghost = 0;
  TimeIntegrator integrator = TimeIntegrator::RK4;
  MonitoredRunSettings run;
  std::string restart;
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
    else if (arg == "--final-time") o.run.finalTime = parseNumber(arg, v);
    else if (arg == "--cfl") o.run.cfl = parseNumber(arg, v);
    else if (arg == "--eta") o.eta = parseNumber(arg, v);
    else if (arg == "--ko-sigma") o.koSigma = parseNumber(arg, v);
    else if (arg == "--excision") o.excision = parseNumber(arg, v);
    else if (arg == "--norm-box") o.run.normBox = parseNumber(arg, v);
    else if (arg == "--integrator") {
      if (v == "rk4") o.integrator = TimeIntegrator::RK4;
      else if (v == "ssprk3") o.integrator = TimeIntegrator::SSPRK3;
      else throw UsageError("--integrator expects rk4 or ssprk3, got '" + v + "'");
    } else if (arg == "--monitor-every") o.run.monitorEvery = parseInteger(arg, v, 1, 1L << 40);
    else if (arg == "--monitor-file") o.run.monitorFile = v;
    else if (arg == "--output") o.run.output = v;
    else if (arg == "--output-every") o.run.outputEvery = parseInteger(arg, v, 1, 1L << 40);
    else if (arg == "--checkpoint") o.run.checkpoint = v;
    else if (arg == "--checkpoint-every") o.run.checkpointEvery = parseInteger(arg, v, 1, 1L << 40);
    else if (arg == "--restart") o.restart = v;
    else throw UsageError("unknown option '" + arg + "'");
  }
  if (!(o.extent > 0))
    throw UsageError("--extent must be positive");
  if (!(o.run.cfl > 0) || o.run.cfl > 1)
    throw UsageError("--cfl must be in (0, 1]");
  if (!(o.run.finalTime >= 0))
    throw UsageError("--final-time must be non-negative");
  if (o.koSigma < 0 || o.eta < 0)
    throw UsageError("--ko-sigma and --eta must be non-negative");
  if (!o.run.output.empty() && !o.run.outputEvery)
    o.run.outputEvery = 10;
  if (o.run.outputEvery && o.run.output.empty())
    throw UsageError("--output-every needs --output FILE.h5");
  if (!o.run.checkpoint.empty() && !o.run.checkpointEvery)
    throw UsageError("--checkpoint needs --checkpoint-every K");
  if (o.run.checkpointEvery && o.run.checkpoint.empty())
    throw UsageError("--checkpoint-every needs --checkpoint FILE.h5");
  if (!o.fixture.empty() && !o.module.empty())
    throw UsageError("give --module or --fixture, not both");
  if (o.run.normBox && !(*o.run.normBox > 0))
    throw UsageError("--norm-box must be positive");
  if (o.excision && !(*o.excision >= 0))
    throw UsageError("--excision must be non-negative (0: no excision)");
  o.run.excision = o.excision ? *o.excision : o.initialData.empty() ? std::max(o.punctures.m1, o.punctures.m2) : 0.5;
  // Outputs are checked before any work; they are created only after every input was checked.
  if (!o.run.output.empty())
    requireWritableOutput("--output", o.run.output);
  if (!o.run.checkpoint.empty())
    requireWritableOutput("--checkpoint", o.run.checkpoint);
  if (!o.run.monitorFile.empty())
    requireWritableOutput("--monitor-file", o.run.monitorFile);
  if (!o.tracksGiven && o.initialData.empty())
    o.tracks = {{o.punctures.b, 0, 0}, {-o.punctures.b, 0, 0}};
  return o;
}

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
  // Modules: the build's at --order, a .so as given, a .tn fixture compiled now as written.
  ModuleCatalog catalog(comm, {moduleToolchain(), builtModuleList(), "tensorium-evolve"});
  const std::string fixtures = std::string(TENSORIUM_EVOLVE_SOURCE_DIR) + "/fixtures/";
  const std::unique_ptr<runtime::KernelModule> evolutionModule =
      !o.fixture.empty()  ? catalog.load(o.fixture, 0)
      : !o.module.empty() ? catalog.load(o.module, 0)
                          : catalog.load(fixtures + "gr/bssn_evolution_3d.tn", o.order);
  const std::unique_ptr<runtime::KernelModule> constraintsModule =
      catalog.load(o.constraintsModule.empty() ? fixtures + "gr/adm_constraints_3d.tn" : o.constraintsModule, o.order);
  const runtime::KernelModule &evolution = *evolutionModule, &constraints = *constraintsModule;
  const std::unique_ptr<runtime::KernelModule> initialModule =
      catalog.load(o.initialData.empty() ? fixtures + "elliptic/two_puncture_hamiltonian_3d.tn" : o.initialData, 0);

  DistributedEvolution e(comm, moduleTables(evolution),
                         bssnEvolutionOptions({o.grid, o.extent, o.ghost, o.eta, o.koSigma, o.integrator}));
  prepareBssnEvolution(e);
  ConstraintMonitor monitor(e, moduleTables(constraints));

  PunctureTracker tracker(o.tracks);
  if (!o.restart.empty()) {
    tracker = restartFromCheckpoint(e, o.restart, o.tracks.size());
    if (rank == 0)
      std::printf("restarted from %s at t = %.6f, step %ld\n", o.restart.c_str(), e.time(), e.stepNumber());
  } else if (!o.initialData.empty()) {
    e.initialize([&](runtime::UniformGridStorage &s, const DistributedGrid &g) {
      writeExactData(moduleTables(*initialModule), o.initialParams, o.order, s, g);
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
  runMonitoredEvolution(e, monitor, tracker, o.run, !o.restart.empty());
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
  } catch (const RunSettingsError &e) { // the settings cannot run: a usage error too
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
