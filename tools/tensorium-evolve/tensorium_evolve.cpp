// tensorium-evolve: evolves two-puncture initial data with a generated BSSN right-hand side on
// a PETSc-distributed grid (run it under mpirun for several ranks), with constraint monitoring,
// puncture tracking, HDF5/XDMF snapshots and checkpoint/restart; or any other system a fixture
// declares (its initial data, boundaries, parameters and constraints from the module's tables).
// With --refine-radii the BSSN run goes on a refined grid of blocks (p4est) whose finer levels
// follow the tracked punctures.
#include "command_line.h"
#include "module_toolchain.h"
#include "option_file.h"
#include "output_paths.h"

#include "tensorium_mlir/Distributed/BssnDiagnostics.h"
#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Distributed/BssnSetup.h"
#include "tensorium_mlir/Distributed/EvolutionIO.h"
#include "tensorium_mlir/Distributed/ModuleCatalog.h"
#include "tensorium_mlir/Distributed/MonitoredRun.h"
#include "tensorium_mlir/Distributed/SystemRun.h"
#include "tensorium_mlir/Distributed/TwoPunctureBroadcast.h"
#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"
#include "tensorium_mlir/Refinement/RefinedRun.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"
#include "tensorium_mlir/Support/InputFile.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using namespace tensorium_mlir::distributed;
using namespace tensorium_cli;

namespace {

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
  BssnFloors floors;
  std::optional<double> excision; // default: the larger mass, or 0.5 for exact data
  int ghost = 0;
  TimeIntegrator integrator = TimeIntegrator::RK4;
  MonitoredRunSettings run;
  std::string restart;
  bool orderGiven = false;
  std::map<std::string, double> params; // --param, --param-file: a system module's parameters
  std::vector<std::string> bssnOnly;    // options given that only a BSSN run takes
  std::string runFile;                  // RUN.toml: options as keys (the command line wins)
  std::vector<std::array<double, 4>> horizonGuesses; // --horizon-guess X,Y,Z,R
  std::string advection;                // --advection: the evolution fixture's advect() stencils
  // Mesh refinement (BSSN runs): radii of the finer levels about every tracked point.
  std::vector<double> refineRadii;
  int blockPoints = 16;
  long regridEvery = 8;
  std::vector<std::string> refinementOptions; // given options that need --refine-radii
  bool integratorGiven = false;
};

/// `name = value` lines of a TOML parameter file (numbers only).
void readParameterFile(const std::string &path, std::map<std::string, double> &to) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error &e) {
    throw UsageError("parameter file '" + path + "': " + std::string(e.description()) + " (line " +
                     std::to_string(e.source().begin.line) + ")");
  }
  for (const auto &[key, node] : table) {
    const std::optional<double> v = node.value<double>();
    if (!v || node.is_boolean() || node.is_string())
      throw UsageError("parameter file '" + path + "': '" + std::string(key.str()) + "' must be a number");
    to[std::string(key.str())] = *v;
  }
}

/// The option table (parses and prints the help); fills `o`.
CommandLine commandLine(Options &o) {
  CommandLine cli("tensorium-evolve", "[RUN.toml] [options]   (mpirun -n N for N ranks; PETSc's own -options pass through)");
  // Options of BSSN runs only are remembered, so that a system module refuses them by name.
  auto bssn = [&o](const char *name, std::function<void(const std::string &)> f) {
    return [&o, name, f](const std::string &v) {
      o.bssnOnly.push_back(name);
      f(v);
    };
  };
  auto number = [&bssn](double &to, const char *name) {
    return bssn(name, [&to, name](const std::string &v) { to = parseNumber(name, v); });
  };
  auto anyNumber = [](double &to, const char *name) { return [&to, name](const std::string &v) { to = parseNumber(name, v); }; };
  auto vector = [&bssn](std::array<double, 3> &to, const char *name) {
    return bssn(name, [&to, name](const std::string &v) { to = vec3(name, v); });
  };
  cli.passSingleDashOptions()
      .operands(
          "RUN.toml",
          [&o](const std::string &v) {
            if (v.size() < 6 || v.substr(v.size() - 5) != ".toml")
              throw UsageError("unexpected argument '" + v + "' (a run file ends in .toml; options start with --)");
            o.runFile = v;
          },
          0, 1)
      .group("initial data: two punctures, as tensorium-two-punctures (precollapsed lapse psi^-2)")
      .option("--b", "B", "half-separation; punctures at (+b, 0, 0) and (-b, 0, 0) (default 1.5)", number(o.punctures.b, "--b"))
      .option("--m1", "M", "bare mass of puncture 1 (default 0.5)", number(o.punctures.m1, "--m1"))
      .option("--m2", "M", "bare mass of puncture 2 (default 0.5)", number(o.punctures.m2, "--m2"))
      .option("--p1", "x,y,z", "momentum of puncture 1 (default 0)", vector(o.punctures.P1, "--p1"))
      .option("--p2", "x,y,z", "momentum of puncture 2 (default 0)", vector(o.punctures.P2, "--p2"))
      .option("--s1", "x,y,z", "spin of puncture 1 (default 0)", vector(o.punctures.S1, "--s1"))
      .option("--s2", "x,y,z", "spin of puncture 2 (default 0)", vector(o.punctures.S2, "--s2"))
      .option("--initial-data-resolution", "nA,nB,nphi",
              "spectral points of the solve (default 24,24,12; tensorium-two-punctures' --resolution)",
              bssn("--initial-data-resolution", [&o](const std::string &v) {
                // The range only keeps products in double range; the memory estimate decides what runs.
                const std::vector<long> n = parseIntegers("--initial-data-resolution", v, 1, 1000000, 3, 3);
                if (n[0] < 4 || n[1] < 4)
                  throw UsageError("--initial-data-resolution needs nA, nB >= 4 and nphi >= 1, got '" + v + "'");
                o.solver.nA = static_cast<int>(n[0]), o.solver.nB = static_cast<int>(n[1]);
                o.solver.nPhi = static_cast<int>(n[2]);
              }))
      .group("initial data: an exact solution")
      .option("--initial-data", "FILE.tn|FILE.so",
              "the fixture's slice kernel gives alpha, gamma_ij, K_ij (its split_3p1 must map\n"
              "Kij) and, when mapped, beta^i on Cartesian x, y, z",
              bssn("--initial-data", [&o](const std::string &v) { o.initialData = v == "two-punctures" ? "" : v; }))
      .option("--initial-params", "p1,p2,...", "the fixture's parameters, in order",
              bssn("--initial-params", [&o](const std::string &v) {
                o.initialParams.clear();
                for (const std::string &item : splitList("--initial-params", v, 1, 4096))
                  o.initialParams.push_back(parseNumber("--initial-params", item));
              }))
      .option("--track", "x,y,z", "track and excise a point such as a puncture (repeatable)",
              bssn("--track", [&o](const std::string &v) {
                o.tracks.push_back(vec3("--track", v));
                o.tracksGiven = true;
              }))
      .group("evolution")
      .option("--order", "P", "finite-difference order of the built BSSN and constraint modules: 2, 4 or 6 (default 4)",
              [&o](const std::string &v) {
                o.order = static_cast<int>(parseInteger("--order", v, 2, 6));
                o.orderGiven = true;
                if (o.order % 2)
                  throw UsageError("--order must be 2, 4 or 6");
              })
      .option("--advection", "KIND",
              "advect() stencils of the evolution fixture: lopsided (by the sign of beta per point)\n"
              "or centered (default: as the fixture is written; fixtures/gr/bssn_evolution_3d.tn is centred);\n"
              "a fixture compiled now; black holes need lopsided (docs/punctures.md)",
              [&o](const std::string &v) {
                if (v != "lopsided" && v != "centered")
                  throw UsageError("--advection expects lopsided or centered, got '" + v + "'");
                o.advection = v;
              })
      .option("--module", "FILE.so", "evolution module (default: fixtures/gr/bssn_evolution_3d.tn at --order)",
              [&o](const std::string &v) { o.module = v; })
      .option("--fixture", "FILE.tn",
              "evolution fixture, compiled now (at --order when given): BSSN variables and params as\n"
              "fixtures/gr/bssn_evolution_3d.tn, or any other system with initial_data assigning its\n"
              "fields and a boundary per field (docs/systems.md)",
              [&o](const std::string &v) { o.fixture = v; })
      .option("--param", "NAME=VALUE", "a parameter of a system module (repeatable)",
              [&o](const std::string &v) {
                const size_t eq = v.find('=');
                if (eq == std::string::npos || eq == 0)
                  throw UsageError("--param expects NAME=VALUE, got '" + v + "'");
                o.params[v.substr(0, eq)] = parseNumber("--param", v.substr(eq + 1));
              })
      .option("--param-file", "FILE.toml", "parameters of a system module, one 'name = value' per line",
              [&o](const std::string &v) { readParameterFile(v, o.params); })
      .option("--constraints-module", "FILE.so", "ADM constraint module (default: fixtures/gr/adm_constraints_3d.tn)",
              bssn("--constraints-module", [&o](const std::string &v) { o.constraintsModule = v; }))
      .option("--resolution", "N", "grid points per side, cell-centred (default 48)",
              [&o](const std::string &v) { o.grid = parseInteger("--resolution", v, 1, 100000); })
      .option("--extent", "L", "the cube [-L, L]^3 (default 6); h = 2 L / N", anyNumber(o.extent, "--extent"))
      .option("--ghost", "W", "ghost width (default: the kernel's stencil radius)",
              [&o](const std::string &v) { o.ghost = static_cast<int>(parseInteger("--ghost", v, 1, 64)); })
      .option("--final-time", "T", "evolve to t = T (default 1)", anyNumber(o.run.finalTime, "--final-time"))
      .option("--cfl", "C", "dt = C h, in (0, 1] (default 0.25)", anyNumber(o.run.cfl, "--cfl"))
      .option("--integrator", "NAME", "rk4 (default) or ssprk3",
              [&o](const std::string &v) {
                o.integratorGiven = v != "rk4";
                if (v == "rk4")
                  o.integrator = TimeIntegrator::RK4;
                else if (v == "ssprk3")
                  o.integrator = TimeIntegrator::SSPRK3;
                else
                  throw UsageError("--integrator expects rk4 or ssprk3, got '" + v + "'");
              })
      .option("--eta", "E", "Gamma-driver damping (default 2)", number(o.eta, "--eta"))
      .option("--ko-sigma", "S", "Kreiss-Oliger dissipation (default 0.1)", number(o.koSigma, "--ko-sigma"))
      .option("--chi-floor", "F", "chi is kept >= F after each step (default 1e-4; 0: no floor)",
              bssn("--chi-floor", [&o](const std::string &v) { o.floors.chi = parseNumber("--chi-floor", v); }))
      .option("--lapse-floor", "F", "the lapse is kept >= F after each step (default 1e-8; 0: no floor)",
              bssn("--lapse-floor", [&o](const std::string &v) { o.floors.lapse = parseNumber("--lapse-floor", v); }))
      .option("--excision", "R", "constraint norms skip r < R around each tracked point (default: max(m1, m2))",
              bssn("--excision", [&o](const std::string &v) { o.excision = parseNumber("--excision", v); }))
      .option("--norm-box", "R",
              "constraint norms only over |x|, |y|, |z| <= R: a region fixed in physical units,\n"
              "the same on every grid (default: all points two ghost widths from the faces)",
              bssn("--norm-box", [&o](const std::string &v) { o.run.normBox = parseNumber("--norm-box", v); }))
      .group("mesh refinement (BSSN runs; docs/refinement.md)")
      .option("--refine-radii", "R1,R2,...",
              "finer levels about every tracked point: level l (spacing h / 2^l) covers r < R_l,\n"
              "radii decreasing; the coarsest level is --resolution on [-L, L]^3 (default: no refinement)",
              bssn("--refine-radii", [&o](const std::string &v) {
                o.refineRadii.clear();
                for (const std::string &r : splitList("--refine-radii", v, 1, 20)) {
                  const double radius = parseNumber("--refine-radii", r);
                  if (!(radius > 0) || (!o.refineRadii.empty() && !(radius < o.refineRadii.back())))
                    throw UsageError("--refine-radii must be positive and decreasing, got '" + v + "'");
                  o.refineRadii.push_back(radius);
                }
              }))
      .option("--block-size", "N",
              "points per edge of the refined grid's blocks: a multiple of 4 that divides --resolution\n"
              "(default 16; 32 costs less per point for BSSN, docs/refinement.md)",
              bssn("--block-size", [&o](const std::string &v) {
                o.blockPoints = static_cast<int>(parseInteger("--block-size", v, 4, 128));
                o.refinementOptions.push_back("--block-size");
              }))
      .option("--regrid-every", "K", "move the finer levels with the tracked points every K steps (default 8)",
              bssn("--regrid-every", [&o](const std::string &v) {
                o.regridEvery = parseInteger("--regrid-every", v, 1, 1L << 40);
                o.refinementOptions.push_back("--regrid-every");
              }))
      .group("output")
      .option("--monitor-every", "K", "progress line every K steps (default 1)",
              [&o](const std::string &v) { o.run.monitorEvery = parseInteger("--monitor-every", v, 1, 1L << 40); })
      .option("--csv", "FILE.csv", "the progress lines as CSV", [&o](const std::string &v) { o.run.monitorFile = v; })
      .option("--profile", "FILE.csv",
              "at the final time: alpha, K, chi, gammatilde_yy and the areal radius along +x\n"
              "from the first tracked point (a trumpet's profile; tensorium-trumpet compares it)",
              bssn("--profile", [&o](const std::string &v) { o.run.profileFile = v; }))
      .option("--horizons-every", "K",
              "apparent horizons every K steps (docs/horizons.md); default guesses: each tracked\n"
              "point (radius half its mass) and, with several, their centroid for the common horizon",
              bssn("--horizons-every", [&o](const std::string &v) {
                o.run.horizons.every = parseInteger("--horizons-every", v, 1, 1L << 40);
              }))
      .option("--horizon-guess", "X,Y,Z,R", "a horizon search from the sphere of radius R about a fixed point (repeatable)",
              bssn("--horizon-guess", [&o](const std::string &v) {
                const std::vector<double> g = parseNumbers("--horizon-guess", v, 4);
                if (!(g[3] > 0))
                  throw UsageError("--horizon-guess needs a positive radius, got '" + v + "'");
                o.horizonGuesses.push_back({g[0], g[1], g[2], g[3]});
              }))
      .option("--horizon-lmax", "L", "largest harmonic degree of the horizon surfaces (default 8)",
              bssn("--horizon-lmax", [&o](const std::string &v) {
                o.run.horizons.options.lmax = static_cast<int>(parseInteger("--horizon-lmax", v, 1, 24));
              }))
      .option("--horizons", "FILE.csv", "every horizon search as CSV (area, masses, centroid, circumferences, spin)",
              bssn("--horizons", [&o](const std::string &v) { o.run.horizons.table = v; }))
      .option("--extract-every", "K",
              "Psi4 modes (spin weight -2, l <= --extract-lmax) and ADM surface integrals on the\n"
              "spheres of --extract-radii every K steps (docs/horizons.md)",
              bssn("--extract-every", [&o](const std::string &v) {
                o.run.waves.every = parseInteger("--extract-every", v, 1, 1L << 40);
              }))
      .option("--extract-radii", "R1,R2,...", "radii of the extraction spheres",
              bssn("--extract-radii", [&o](const std::string &v) {
                o.run.waves.radii.clear();
                for (const std::string &r : splitList("--extract-radii", v, 1, 64)) {
                  o.run.waves.radii.push_back(parseNumber("--extract-radii", r));
                  if (!(o.run.waves.radii.back() > 0))
                    throw UsageError("--extract-radii must be positive, got '" + v + "'");
                }
              }))
      .option("--extract-lmax", "L", "largest l of the extracted modes (default 8)",
              bssn("--extract-lmax", [&o](const std::string &v) {
                o.run.waves.lmax = static_cast<int>(parseInteger("--extract-lmax", v, 2, 16));
              }))
      .option("--extract-center", "x,y,z", "centre of the extraction spheres (default the origin)",
              bssn("--extract-center", [&o](const std::string &v) { o.run.waves.center = vec3("--extract-center", v); }))
      .option("--waves", "FILE.csv", "the Psi4 modes: time, step, radius, l, m, real and imaginary parts",
              bssn("--waves", [&o](const std::string &v) { o.run.waves.modesTable = v; }))
      .option("--adm-integrals", "FILE.csv", "ADM mass, momentum and angular momentum on each extraction sphere",
              bssn("--adm-integrals", [&o](const std::string &v) { o.run.waves.integralsTable = v; }))
      .option("--h5", "FILE.h5", "snapshots of the state, with an XDMF index FILE.xmf",
              [&o](const std::string &v) { o.run.output = v; })
      .option("--h5-every", "K", "a snapshot every K steps (default 10)",
              [&o](const std::string &v) { o.run.outputEvery = parseInteger("--h5-every", v, 1, 1L << 40); })
      .option("--checkpoint", "FILE.h5", "checkpoints (with --checkpoint-every)", [&o](const std::string &v) { o.run.checkpoint = v; })
      .option("--checkpoint-every", "K", "a checkpoint every K steps",
              [&o](const std::string &v) { o.run.checkpointEvery = parseInteger("--checkpoint-every", v, 1, 1L << 40); })
      .option("--restart", "FILE.h5", "continue from a checkpoint", [&o](const std::string &v) { o.restart = v; })
      .renamed("--grid", "--resolution")
      .renamed("--npoints", "--initial-data-resolution")
      .renamed("--output", "--h5")
      .renamed("--output-every", "--h5-every")
      .renamed("--monitor-file", "--csv")
      .notes("Units: G = c = 1; b is the half-separation (punctures at (+-b, 0, 0)), m1, m2 bare masses; with\n"
             "m1 + m2 = 1 lengths and times are in units of that mass; h = 2 L / N (docs/conventions.md).\n"
             "Exit status: 0 done, 1 failure (message from rank 0), 2 bad arguments or not enough memory.");
  return cli;
}

/// Checks the options together.
void checkOptions(Options &o) {
  if (!(o.extent > 0))
    throw UsageError("--extent must be positive");
  if (!(o.run.cfl > 0) || o.run.cfl > 1)
    throw UsageError("--cfl must be in (0, 1]");
  if (!(o.run.finalTime >= 0))
    throw UsageError("--final-time must be non-negative");
  if (o.koSigma < 0)
    throw UsageError("--ko-sigma must be non-negative");
  if (o.eta < 0)
    throw UsageError("--eta must be non-negative");
  if (!(o.floors.chi >= 0))
    throw UsageError("--chi-floor must be non-negative");
  if (!(o.floors.lapse >= 0))
    throw UsageError("--lapse-floor must be non-negative");
  if (!o.run.output.empty() && !o.run.outputEvery)
    o.run.outputEvery = 10;
  if (o.run.outputEvery && o.run.output.empty())
    throw UsageError("--h5-every needs --h5 FILE.h5");
  if (!o.run.checkpoint.empty() && !o.run.checkpointEvery)
    throw UsageError("--checkpoint needs --checkpoint-every K");
  if (o.run.checkpointEvery && o.run.checkpoint.empty())
    throw UsageError("--checkpoint-every needs --checkpoint FILE.h5");
  if (!o.fixture.empty() && !o.module.empty())
    throw UsageError("give --module or --fixture, not both");
  if (!o.advection.empty() && !o.module.empty())
    throw UsageError("--advection recompiles a fixture; a compiled --module keeps its own stencils");
  if (o.run.normBox && !(*o.run.normBox > 0))
    throw UsageError("--norm-box must be positive");
  if (o.excision && !(*o.excision >= 0))
    throw UsageError("--excision must be non-negative (0: no excision)");
  o.run.excision = o.excision ? *o.excision : o.initialData.empty() ? std::max(o.punctures.m1, o.punctures.m2) : 0.5;
  // Outputs are checked before any work; they are created only after every input was checked.
  if (!o.run.output.empty())
    requireWritableOutput("--h5", o.run.output);
  if (!o.run.checkpoint.empty())
    requireWritableOutput("--checkpoint", o.run.checkpoint);
  if (!o.run.monitorFile.empty())
    requireWritableOutput("--csv", o.run.monitorFile);
  if (!o.run.profileFile.empty())
    requireWritableOutput("--profile", o.run.profileFile);
  // A missing or unreadable checkpoint is a usage mistake, found before any work.
  if (!o.restart.empty())
    if (const std::string problem = support::inputFileProblem(o.restart, ~std::uint64_t(0)); !problem.empty())
      throw UsageError("restart file '" + o.restart + "' cannot be read: " + problem);
  if (!o.tracksGiven && o.initialData.empty())
    o.tracks = {{o.punctures.b, 0, 0}, {-o.punctures.b, 0, 0}};
  if (o.refineRadii.empty() && !o.refinementOptions.empty())
    throw UsageError(o.refinementOptions.front() + " needs --refine-radii (a refined grid)");
  if (!o.refineRadii.empty()) {
    if (o.grid % o.blockPoints != 0)
      throw UsageError("--block-size " + std::to_string(o.blockPoints) + " must divide --resolution " +
                       std::to_string(o.grid) + " (the coarsest level is made of whole blocks)");
    if (o.tracks.empty())
      throw UsageError("--refine-radii refines about tracked points: give --track x,y,z");
    if (o.integratorGiven)
      throw UsageError("the refined grid steps with rk4 only");
    if (!o.run.profileFile.empty())
      throw UsageError("--profile does not run on the refined grid yet");
  }
  if ((!o.run.waves.radii.empty() || !o.run.waves.modesTable.empty() || !o.run.waves.integralsTable.empty()) &&
      o.run.waves.every == 0)
    throw UsageError("--extract-radii, --waves and --adm-integrals need --extract-every K");
  if (o.run.waves.every > 0 && o.run.waves.radii.empty())
    throw UsageError("--extract-every needs --extract-radii");
  for (double R : o.run.waves.radii)
    for (int a = 0; a < 3; ++a)
      if (std::abs(o.run.waves.center[a]) + R >= o.extent)
        throw UsageError("the extraction sphere of radius " + std::to_string(R) + " does not fit in --extent " +
                         std::to_string(o.extent));
  if (!o.run.waves.modesTable.empty())
    requireWritableOutput("--waves", o.run.waves.modesTable);
  if (!o.run.waves.integralsTable.empty())
    requireWritableOutput("--adm-integrals", o.run.waves.integralsTable);
  if ((!o.horizonGuesses.empty() || !o.run.horizons.table.empty()) && o.run.horizons.every == 0)
    throw UsageError("--horizon-guess and --horizons need --horizons-every K");
  if (!o.run.horizons.table.empty())
    requireWritableOutput("--horizons", o.run.horizons.table);
  if (o.run.horizons.every > 0) {
    auto &guesses = o.run.horizons.guesses;
    for (const auto &g : o.horizonGuesses)
      guesses.push_back({HorizonGuess::Follows::Fixed, 0, {g[0], g[1], g[2]}, g[3]});
    if (guesses.empty()) {
      // Two-puncture data: tracked point q is puncture q (mass m1, m2); exact data: M = 1.
      const bool twoPunctures = o.initialData.empty();
      const double total = twoPunctures ? o.punctures.m1 + o.punctures.m2 : 1.0;
      double reach = 0;
      std::array<double, 3> centroid{};
      for (const auto &t : o.tracks)
        for (size_t a = 0; a < 3; ++a)
          centroid[a] += t[a] / static_cast<double>(o.tracks.size());
      for (size_t q = 0; q < o.tracks.size(); ++q) {
        const double mass = twoPunctures && q < 2 ? (q == 0 ? o.punctures.m1 : o.punctures.m2) : total;
        guesses.push_back({HorizonGuess::Follows::Tracked, q, {}, mass / 2});
        reach = std::max(reach, std::hypot(o.tracks[q][0] - centroid[0], o.tracks[q][1] - centroid[1], o.tracks[q][2] - centroid[2]));
      }
      if (o.tracks.size() > 1)
        guesses.push_back({HorizonGuess::Follows::Centroid, 0, {}, total / 2 + reach});
      if (guesses.empty())
        throw UsageError("--horizons-every needs --track points or --horizon-guess");
    }
  }
}

/// Parses the command line and the run file and checks the options; false when --help was asked
/// for (printed). A mistake about a key of the run file is located at that key.
bool parse(int argc, char **argv, Options &o, int rank) {
  o.punctures.b = 1.5;
  o.solver.nA = o.solver.nB = 24;
  o.solver.nPhi = 12;
  const CommandLine cli = commandLine(o).quietWarnings(rank != 0);
  if (!cli.parse(argc, argv, std::cout))
    return false;
  std::optional<OptionFile> file;
  if (!o.runFile.empty()) {
    file.emplace(o.runFile);
    file->apply(cli, cli.given());
    o.run.runFile = file->text();
  }
  try {
    checkOptions(o);
  } catch (const OptionFileError &) {
    throw;
  } catch (const UsageError &e) {
    if (file)
      file->rethrowLocated(e, cli.given());
    throw;
  }
  return true;
}

/// A module that evolves the BSSN variables runs the moving-puncture path; any other the generic
/// one.
bool isBssnModule(const runtime::KernelModule &m) {
  const std::vector<std::string> evolved = describeSystem(m).evolved;
  return std::all_of(kBssnFields.begin(), kBssnFields.end(), [&](const char *f) {
    return std::find(evolved.begin(), evolved.end(), f) != evolved.end();
  });
}

int runSystem(const Options &o, const runtime::KernelModule &module, int rank) {
  if (!o.bssnOnly.empty()) {
    std::vector<std::string> given = o.bssnOnly;
    std::sort(given.begin(), given.end());
    given.erase(std::unique(given.begin(), given.end()), given.end());
    std::string names;
    for (const std::string &g : given)
      names += (names.empty() ? "" : ", ") + g;
    throw UsageError(names + (given.size() > 1 ? " apply" : " applies") +
                     " to BSSN runs only; this module evolves another system");
  }
  const SystemDescription system = describeSystem(module);
  SystemEvolution s(PETSC_COMM_WORLD, module, {o.grid, o.extent, o.ghost}, systemParameters(system, o.params), o.integrator);
  if (o.restart.empty())
    s.initialize(0);
  else
    readCheckpoint(s.engine(), o.restart);
  if (rank == 0) {
    std::string fields;
    for (const std::string &f : system.evolved)
      fields += (fields.empty() ? "" : ", ") + f;
    std::printf("system %s: fields %s; %s\n", (o.fixture.empty() ? o.module : o.fixture).c_str(), fields.c_str(),
                o.restart.empty() ? "initial data from its initial_data block"
                                  : ("restarted from " + o.restart + " at t = " + std::to_string(s.engine().time()) +
                                     ", step " + std::to_string(s.engine().stepNumber()))
                                        .c_str());
  }
  SystemRunSettings run;
  run.finalTime = o.run.finalTime, run.cfl = o.run.cfl;
  run.monitorEvery = o.run.monitorEvery, run.outputEvery = o.run.outputEvery;
  run.monitorFile = o.run.monitorFile, run.output = o.run.output;
  run.checkpoint = o.run.checkpoint, run.checkpointEvery = o.run.checkpointEvery;
  run.runFile = o.run.runFile;
  runSystemEvolution(s, run);
  return 0;
}

/// A BSSN run on the refined grid: the coarsest level is the uniform grid's (--resolution on
/// [-L, L]^3, cell-centred), made of blocks; finer levels about the tracked points.
int runRefined(const Options &o, const runtime::KernelModule &evolution, const runtime::KernelModule &constraints,
               const runtime::KernelModule &initialModule, int rank) {
  using namespace tensorium_mlir::refinement;
  MPI_Comm comm = PETSC_COMM_WORLD;
  const BssnRunOptions bssn{o.grid, o.extent, o.ghost, o.eta, o.koSigma, o.integrator, o.floors};
  RefinedEvolution::Options ro;
  ro.params = bssnParameters(describeSystem(systemModule(evolution)), bssn);
  ro.radiative = bssnEvolutionOptions(bssn).radiative;
  ro.ghostWidth = o.ghost;
  const int roots = static_cast<int>(o.grid / o.blockPoints);
  ro.forest.lower = {-o.extent, -o.extent, -o.extent};
  ro.forest.rootWidth = 2 * o.extent / roots;
  ro.forest.roots = {roots, roots, roots};
  ro.forest.blockPoints = o.blockPoints;
  ro.forest.maxLevel = static_cast<int>(o.refineRadii.size());
  const RefinementSchedule schedule{o.refineRadii, o.regridEvery};
  std::vector<std::array<double, 3>> positions = o.tracks;
  std::optional<RefinedCheckpoint> checkpoint;
  if (!o.restart.empty()) {
    checkpoint = readRefinedCheckpoint(comm, o.restart);
    positions = trackedPointsOf(*checkpoint, o.restart, o.tracks.size(), schedule);
    ro.leaves = checkpoint->leaves;
  }
  std::unique_ptr<RefinedEvolution> engine;
  try {
    ro.regions = regionsAround(positions, o.refineRadii);
    engine = std::make_unique<RefinedEvolution>(comm, moduleTables(evolution), ro);
  } catch (const RefinementError &e) { // sizes, levels, regions, memory: the settings cannot run
    throw UsageError(e.what());
  }
  RefinedEvolution &e = *engine;
  installBssnHooks(e, o.floors);
  RefinedConstraintMonitor monitor(e, moduleTables(constraints));
  RefinedPunctureTracker tracker(positions);
  if (checkpoint) {
    loadRefinedCheckpoint(e, o.restart, *checkpoint);
    if (rank == 0)
      std::printf("restarted from %s at t = %.6f, step %ld\n", o.restart.c_str(), e.time(), e.stepNumber());
  } else if (!o.initialData.empty()) {
    const KernelModuleTables initial = moduleTables(initialModule);
    e.initialize([&](runtime::UniformGridStorage &s, const Block &k) {
      writeExactData(initial, o.initialParams, o.order, s, blockLattice(k));
    });
    if (rank == 0)
      std::printf("initial data from %s\n", o.initialData.c_str());
  } else {
    const tensorium_module_tables &t = initialModule.tables();
    if (t.spectral_kernel_count < 1)
      throw DistributedError("the two-puncture module has no spectral residual kernel");
    const physics::TwoPunctureSolution solution =
        solveTwoPuncturesOnRoot(comm, &t.spectral_kernels[0], o.punctures, o.solver);
    if (rank == 0)
      std::printf("two punctures: b = %g, m = (%g, %g), M_ADM = %.10f (%d Newton iterations on rank 0, broadcast)\n",
                  o.punctures.b, o.punctures.m1, o.punctures.m2, solution.admMass(), solution.result().iterations);
    e.initialize([&](runtime::UniformGridStorage &s, const Block &k) { writeTwoPunctureData(solution, s, blockLattice(k)); });
  }
  RefinedRunSettings settings{o.run, schedule};
  runRefinedEvolution(e, monitor, tracker, settings, checkpoint.has_value());
  return 0;
}

int run(int argc, char **argv, int rank) {
  Options o;
  if (!parse(argc, argv, o, rank))
    return 0;
  MPI_Comm comm = PETSC_COMM_WORLD;
  // Modules: the build's at --order, a .so as given, a .tn fixture compiled now (as written, or at
  // --order when given).
  ModuleCatalog catalog(comm, {moduleToolchain(), builtModuleList(), "tensorium-evolve"});
  const std::string fixtures = std::string(TENSORIUM_EVOLVE_SOURCE_DIR) + "/fixtures/";
  const std::unique_ptr<runtime::KernelModule> evolutionModule =
      !o.fixture.empty()  ? catalog.load(o.fixture, o.orderGiven ? o.order : 0, o.advection)
      : !o.module.empty() ? catalog.load(o.module, 0)
                          : catalog.load(fixtures + "gr/bssn_evolution_3d.tn", o.order, o.advection);
  if (!isBssnModule(*evolutionModule))
    return runSystem(o, *evolutionModule, rank);
  if (!o.params.empty())
    throw UsageError("--param and --param-file set a system module's parameters; a BSSN run takes --eta and --ko-sigma");
  if (o.initialData.empty() && o.restart.empty()) {
    // The spectral solve runs on rank 0 alone: its memory is judged there, before any grid or
    // module is set up, and the refusal reaches every rank.
    const double estimate = physics::twoPunctureMemoryEstimate(o.solver);
    double available = rank == 0 ? runtime::availableMemoryBytes() : 0.0;
    MPI_Bcast(&available, 1, MPI_DOUBLE, 0, comm);
    if (estimate > available)
      throw runtime::InsufficientMemory("a two-puncture solve at --initial-data-resolution " + std::to_string(o.solver.nA) + "," +
                                            std::to_string(o.solver.nB) + "," + std::to_string(o.solver.nPhi),
                                        estimate, available);
  }
  const std::unique_ptr<runtime::KernelModule> constraintsModule =
      catalog.load(o.constraintsModule.empty() ? fixtures + "gr/adm_constraints_3d.tn" : o.constraintsModule, o.order);
  const runtime::KernelModule &evolution = *evolutionModule, &constraints = *constraintsModule;
  // The Weyl scalars at 4th order: extraction interpolates them with cubic polynomials.
  std::unique_ptr<runtime::KernelModule> weylModule;
  std::optional<KernelModuleTables> weylTables;
  if (o.run.waves.every > 0) {
    weylModule = catalog.load(fixtures + "gr/weyl_scalars_3d.tn", 0);
    weylTables = moduleTables(*weylModule);
    o.run.weylModule = &*weylTables;
  }
  const std::unique_ptr<runtime::KernelModule> initialModule =
      catalog.load(o.initialData.empty() ? fixtures + "elliptic/two_puncture_hamiltonian_3d.tn" : o.initialData, 0);
  if (!o.refineRadii.empty())
    return runRefined(o, evolution, constraints, *initialModule, rank);

  // The BSSN run is a system with hooks: data from the exact slice or the two-puncture solve
  // (made after the engine, whose memory check comes first), the inverse conformal metric and
  // the algebraic constraints.
  std::optional<physics::TwoPunctureSolution> solution;
  const BssnRunOptions bssn{o.grid, o.extent, o.ghost, o.eta, o.koSigma, o.integrator, o.floors};
  SystemHooks hooks = bssnSystemHooks(bssn, [&](runtime::UniformGridStorage &s, const DistributedGrid &g) {
    if (solution)
      writeTwoPunctureData(*solution, s, g);
    else
      writeExactData(moduleTables(*initialModule), o.initialParams, o.order, s, g);
  });
  const SystemModule evolutionSystem = systemModule(evolution);
  SystemEvolution system(comm, evolutionSystem, SystemGrid{}, bssnParameters(describeSystem(evolutionSystem), bssn),
                         o.integrator, std::move(hooks));
  DistributedEvolution &e = system.engine();
  checkBssnFields(e);
  ConstraintMonitor monitor(e, moduleTables(constraints));

  PunctureTracker tracker(o.tracks);
  if (!o.restart.empty()) {
    tracker = restartFromCheckpoint(e, o.restart, o.tracks.size());
    if (rank == 0)
      std::printf("restarted from %s at t = %.6f, step %ld\n", o.restart.c_str(), e.time(), e.stepNumber());
  } else if (!o.initialData.empty()) {
    system.initialize();
    if (rank == 0)
      std::printf("initial data from %s\n", o.initialData.c_str());
  } else {
    const tensorium_module_tables &t = initialModule->tables();
    if (t.spectral_kernel_count < 1)
      throw DistributedError("the two-puncture module has no spectral residual kernel");
    solution = solveTwoPuncturesOnRoot(comm, &t.spectral_kernels[0], o.punctures, o.solver);
    if (rank == 0)
      std::printf("two punctures: b = %g, m = (%g, %g), M_ADM = %.10f (%d Newton iterations on rank 0, broadcast)\n",
                  o.punctures.b, o.punctures.m1, o.punctures.m2, solution->admMass(), solution->result().iterations);
    system.initialize();
  }
  runMonitoredEvolution(e, monitor, tracker, o.run, !o.restart.empty());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      Options o;
      std::cout << commandLine(o).help();
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
  } catch (const OptionFileError &e) { // already located: FILE:LINE:COL: error: key 'k': ...
    if (rank == 0)
      std::fprintf(stderr, "%s\n", e.what());
    status = 2;
  } catch (const UsageError &e) {
    if (rank == 0)
      std::fprintf(stderr, "tensorium-evolve: error: %s\n(run 'tensorium-evolve --help' for usage)\n", e.what());
    status = 2;
  } catch (const SystemModuleError &e) { // the module cannot run as a system: says what it lacks
    if (rank == 0)
      std::fprintf(stderr, "tensorium-evolve: error: %s\n", e.what());
    status = 1;
  } catch (const RunSettingsError &e) { // the settings cannot run: a usage error too
    if (rank == 0)
      std::fprintf(stderr, "tensorium-evolve: error: %s\n(run 'tensorium-evolve --help' for usage)\n", e.what());
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
