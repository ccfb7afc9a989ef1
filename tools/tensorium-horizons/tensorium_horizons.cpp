// tensorium-horizons: finds apparent horizons in a slice given by an exact-solution fixture,
// Brill-Lindquist punctures or two-puncture (Bowen-York) data, directly or from grid data
// interpolated at a chosen resolution, and prints what each horizon measures.
#include "horizons_cli_kernels.h"
#include "command_line.h"
#include "module_toolchain.h"

#include "tensorium_mlir/Distributed/SnapshotSlice.h"
#include "tensorium_mlir/Horizons/FixtureSlice.h"
#include "tensorium_mlir/Horizons/HorizonFinder.h"
#include "tensorium_mlir/Horizons/PunctureSlice.h"
#include "tensorium_mlir/Horizons/SphericalHarmonics.h"
#include "tensorium_mlir/Runtime/ModuleCompiler.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using namespace tensorium_mlir::horizons;
using namespace tensorium_cli;

namespace {

struct Guess {
  Point3 center{};
  double radius = 1;
};

Guess parseGuess(const std::string &text) {
  const std::vector<double> v = parseNumbers("--guess", text, 4);
  if (!(v[3] > 0))
    throw UsageError("--guess needs a positive radius, got '" + text + "'");
  return {{v[0], v[1], v[2]}, v[3]};
}

Puncture parsePuncture(const std::string &text) {
  const size_t at = text.find('@');
  if (at == std::string::npos)
    throw UsageError("--brill-lindquist takes MASS@X,Y,Z, got '" + text + "'");
  Puncture p;
  p.mass = parseNumber("--brill-lindquist", text.substr(0, at));
  p.position = vec3("--brill-lindquist", text.substr(at + 1));
  if (!(p.mass > 0))
    throw UsageError("--brill-lindquist needs a positive mass, got '" + text + "'");
  return p;
}

MetricSampler withoutDerivatives(GeometrySampler g) {
  return [g = std::move(g)](std::span<const Point3> points, std::span<Sym3> gamma, std::span<Sym3> K) {
    std::vector<SpatialGeometry> out(points.size());
    g(points, out);
    for (size_t p = 0; p < points.size(); ++p)
      gamma[p] = out[p].gamma, K[p] = out[p].K;
  };
}

void printResult(size_t index, const Guess &guess, const HorizonResult &r, double seconds) {
  std::printf("guess %zu: sphere of radius %g about (%g, %g, %g)\n", index + 1, guess.radius, guess.center[0], guess.center[1],
              guess.center[2]);
  if (!r.found) {
    std::printf("  no horizon: %s (%d Newton iterations, %.3f s)\n", r.message.c_str(), r.iterations, seconds);
    return;
  }
  const SurfaceMeasures &m = r.measures;
  std::printf("  horizon found: %d Newton iterations, %.3f s, lmax %d, rms r Theta %.2e, max %.2e, last update %.1e%s\n",
              r.iterations, seconds, r.surface.lmax, m.rmsExpansion, m.maxExpansion, r.lastStep,
              r.stagnated ? " (converged to the smoothness of the grid data)" : "");
  std::printf("  area %.12g, irreducible mass %.12g, mean coordinate radius %.8g\n", m.area, m.irreducibleMass, m.meanRadius);
  std::printf("  centroid (%.8g, %.8g, %.8g)\n", m.centroid[0], m.centroid[1], m.centroid[2]);
  std::printf("  circumferences: equatorial (xy) %.12g, polar (xz) %.12g, polar (yz) %.12g\n", m.equatorialCircumference,
              m.polarCircumferenceXZ, m.polarCircumferenceYZ);
  std::printf("  spin J = (%.10g, %.10g, %.10g), |J| %.10g, Christodoulou mass %.12g, chi = |J| / M^2 %.10g\n", m.spin[0],
              m.spin[1], m.spin[2], m.spinMagnitude, m.christodoulouMass, m.dimensionlessSpin);
}

std::string csvText(const std::string &s) {
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

} // namespace

int main(int argc, char **argv) {
  std::string fixture, csvPath, shapePath, snapshot;
  long snapshotStep = -1;
  std::map<std::string, double> fixtureParameters;
  bool timeSymmetric = false, twoPunctures = false, verbose = false;
  std::vector<Puncture> punctures;
  physics::TwoPunctureParameters tp;
  physics::TwoPunctureOptions tpOptions;
  std::vector<Guess> guesses;
  HorizonOptions options;
  int gridPoints = 0;
  double gridHalfWidth = 2, derivativeStep = 1e-4;
  std::optional<std::array<double, 2>> criticalMasses;
  CommandLine cli("tensorium-horizons", "[options]");
  cli.group("the slice (one of)")
      .option("--fixture", "FILE.tn", "an exact-solution fixture whose split_3p1 maps gamma and Kij",
              [&](const std::string &v) { fixture = v; })
      .option("--param", "NAME=VALUE", "a parameter of the fixture (repeatable)",
              [&](const std::string &v) {
                const size_t eq = v.find('=');
                if (eq == std::string::npos || eq == 0)
                  throw UsageError("--param takes NAME=VALUE, got '" + v + "'");
                fixtureParameters[v.substr(0, eq)] = parseNumber("--param", v.substr(eq + 1));
              })
      .flag("--time-symmetric", "the fixture's split does not map Kij because K_ij = 0", [&] { timeSymmetric = true; })
      .option("--brill-lindquist", "M@X,Y,Z", "a Brill-Lindquist puncture of bare mass M (repeatable; K_ij = 0)",
              [&](const std::string &v) { punctures.push_back(parsePuncture(v)); })
      .option("--snapshot", "FILE.h5", "a snapshot of a tensorium-evolve BSSN run (--h5), read as grid data",
              [&](const std::string &v) { snapshot = v; })
      .option("--step", "N", "the snapshot's step (default: the file's last)",
              [&](const std::string &v) { snapshotStep = parseInteger("--step", v, 0, 1L << 40); })
      .flag("--two-punctures", "Bowen-York data solved here (puncture 1 at (+b, 0, 0), 2 at (-b, 0, 0))",
            [&] { twoPunctures = true; })
      .option("--b", "B", "two punctures: half-separation (default 1)", [&](const std::string &v) { tp.b = parseNumber("--b", v); })
      .option("--m1", "M", "two punctures: bare mass 1 (default 0.5)", [&](const std::string &v) { tp.m1 = parseNumber("--m1", v); })
      .option("--m2", "M", "two punctures: bare mass 2 (default 0.5)", [&](const std::string &v) { tp.m2 = parseNumber("--m2", v); })
      .option("--p1", "x,y,z", "two punctures: momentum 1", [&](const std::string &v) { tp.P1 = vec3("--p1", v); })
      .option("--p2", "x,y,z", "two punctures: momentum 2", [&](const std::string &v) { tp.P2 = vec3("--p2", v); })
      .option("--s1", "x,y,z", "two punctures: spin 1", [&](const std::string &v) { tp.S1 = vec3("--s1", v); })
      .option("--s2", "x,y,z", "two punctures: spin 2", [&](const std::string &v) { tp.S2 = vec3("--s2", v); })
      .option("--resolution", "nA,nB,nphi", "two punctures: spectral points (default 24,24,12)",
              [&](const std::string &v) {
                const std::vector<long> n = parseIntegers("--resolution", v, 1, 4096, 3, 3);
                if (n[0] < 4 || n[1] < 4)
                  throw UsageError("--resolution needs nA, nB >= 4 and nphi >= 1, got '" + v + "'");
                tpOptions.nA = static_cast<int>(n[0]), tpOptions.nB = static_cast<int>(n[1]);
                tpOptions.nPhi = static_cast<int>(n[2]);
              })
      .group("grid data")
      .option("--grid", "N", "sample the slice on N^3 points and find horizons in the interpolated data",
              [&](const std::string &v) { gridPoints = static_cast<int>(parseInteger("--grid", v, 8, 1024)); })
      .option("--grid-half-width", "L", "the grid covers [-L, L]^3 (default 2)",
              [&](const std::string &v) { gridHalfWidth = parseNumber("--grid-half-width", v); })
      .option("--derivative-step", "H", "step of the order-6 differences of gamma_ij of fixtures and two-puncture data (default 1e-4)",
              [&](const std::string &v) { derivativeStep = parseNumber("--derivative-step", v); })
      .group("finder")
      .option("--guess", "X,Y,Z,R", "start from the sphere of radius R about (X, Y, Z) (repeatable; default: each\n"
                                    "puncture with R = half its mass, the centre of mass with R = half the total\n"
                                    "mass plus the punctures' distance; or the origin with R = 1)",
              [&](const std::string &v) { guesses.push_back(parseGuess(v)); })
      .option("--lmax", "L", "largest harmonic degree of the surface (default 8)",
              [&](const std::string &v) { options.lmax = static_cast<int>(parseInteger("--lmax", v, 0, 40)); })
      .option("--tolerance", "T", "Newton stops when the update of h is below T times the mean radius (default 1e-10)",
              [&](const std::string &v) {
                options.tolerance = parseNumber("--tolerance", v);
                if (!(options.tolerance > 0))
                  throw UsageError("--tolerance must be positive");
              })
      .option("--max-iterations", "N", "Newton iterations per guess (default 40)",
              [&](const std::string &v) { options.maxIterations = static_cast<int>(parseInteger("--max-iterations", v, 1, 1000)); })
      .flag("--verbose", "one line per Newton iteration on standard error", [&] { verbose = true; })
      .group("Brill-Lindquist common horizon")
      .option("--critical-separation", "M1,M2",
              "largest separation of two Brill-Lindquist punctures with a common horizon\n(continuation and bisection to 1e-3 M)",
              [&](const std::string &v) {
                const std::vector<double> m = parseNumbers("--critical-separation", v, 2);
                if (!(m[0] > 0) || !(m[1] > 0))
                  throw UsageError("--critical-separation needs positive masses");
                criticalMasses = std::array<double, 2>{m[0], m[1]};
              })
      .group("output")
      .option("--csv", "FILE", "one row per guess with every measure", [&](const std::string &v) { csvPath = v; })
      .option("--shape", "FILE", "the harmonic coefficients of every horizon found (CSV: guess, l, m, coefficient)",
              [&](const std::string &v) { shapePath = v; })
      .notes("Horizons are surfaces r = h(theta, phi) about the guess's centre with h in real spherical harmonics\n"
             "up to lmax; area, irreducible mass, circumferences in the planes through the centroid and the\n"
             "flat rotational-vector spin are measured on each. Exit status: 0 every guess found a horizon,\n"
             "1 some guess found none (or the slice could not be built), 2 bad arguments.");
  try {
    if (!cli.parse(argc, argv, std::cout))
      return 0;
    const int sources = !fixture.empty() + !punctures.empty() + twoPunctures + !snapshot.empty();
    if (criticalMasses) {
      if (sources != 0 || gridPoints != 0)
        throw UsageError("--critical-separation builds its own Brill-Lindquist slices: give no other slice or --grid");
    } else if (sources != 1) {
      throw UsageError("give exactly one slice: --fixture, --brill-lindquist, --two-punctures or --snapshot");
    }
    if (fixture.empty() && (!fixtureParameters.empty() || timeSymmetric))
      throw UsageError("--param and --time-symmetric belong to --fixture");
    if (!(gridHalfWidth > 0) || !(derivativeStep > 0))
      throw UsageError("--grid-half-width and --derivative-step must be positive");
    if (snapshotStep >= 0 && snapshot.empty())
      throw UsageError("--step belongs to --snapshot");
    if (!snapshot.empty() && gridPoints > 0)
      throw UsageError("a snapshot is grid data already: --grid does not apply");
    if (twoPunctures && (!(tp.b > 0) || !(tp.m1 > 0) || !(tp.m2 > 0)))
      throw UsageError("--b, --m1 and --m2 must be positive");
  } catch (const UsageError &e) {
    return cli.usageError(e.what(), std::cerr);
  }
  options.verbose = verbose;

  if (criticalMasses) {
    const auto started = std::chrono::steady_clock::now();
    const CommonHorizonSearch s = commonHorizonSeparation((*criticalMasses)[0], (*criticalMasses)[1], options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double M = (*criticalMasses)[0] + (*criticalMasses)[1];
    std::printf("Brill-Lindquist m1 = %g, m2 = %g (M = %g), lmax %d, %d theta x %d phi nodes:\n", (*criticalMasses)[0],
                (*criticalMasses)[1], M, options.lmax, 2 * (options.lmax + 1), 4 * (options.lmax + 1));
    std::printf("  common horizon at separation %.4f M, none at %.4f M (%d finder calls, %.1f s)\n", s.lastFound,
                s.firstMissing, s.finderCalls, seconds);
    std::printf("  in units of the mean bare mass m = M / 2: %.4f m and %.4f m\n", 2 * s.lastFound, 2 * s.firstMissing);
    std::printf("  the last common horizon: area %.10g, irreducible mass %.10g\n", s.lastMeasures.area,
                s.lastMeasures.irreducibleMass);
    return 0;
  }

  // The slice. Objects the samplers refer to live here.
  runtime::ScratchFolder scratch("tensorium-horizons");
  std::unique_ptr<FixtureSlice> fixtureSlice;
  std::optional<physics::TwoPunctureSolution> solution;
  std::unique_ptr<physics::TwoPunctureHandoff> handoff;
  GeometrySampler geometry;
  try {
    MetricSampler metric;
    if (!snapshot.empty()) {
      const distributed::SnapshotSlice slice = distributed::readSnapshotSlice(snapshot, snapshotStep);
      const horizons::UniformGridData &d = *slice.data;
      std::printf("snapshot step %ld (t = %.6g) of %s: %d x %d x %d points, h = %g, 6-point Lagrange interpolation\n",
                  slice.step, slice.time, snapshot.c_str(), d.n[0], d.n[1], d.n[2], d.spacing[0]);
      geometry = interpolatedGeometry(slice.data);
      if (guesses.empty())
        guesses.push_back({{0, 0, 0}, 1});
    } else if (!fixture.empty()) {
      const std::string module = runtime::compileFixtureModule(fixture, scratch.path(), "horizon_slice", moduleToolchain());
      fixtureSlice = std::make_unique<FixtureSlice>(module, fixtureParameters, fixture);
      metric = fixtureSlice->sampler(timeSymmetric);
      if (guesses.empty())
        guesses.push_back({{0, 0, 0}, 1});
    } else if (!punctures.empty()) {
      geometry = brillLindquistGeometry(punctures);
      if (gridPoints > 0)
        metric = withoutDerivatives(geometry);
      if (guesses.empty()) {
        double M = 0;
        Point3 com{};
        for (const Puncture &p : punctures) {
          guesses.push_back({p.position, p.mass / 2});
          M += p.mass;
          for (size_t a = 0; a < 3; ++a)
            com[a] += p.mass * p.position[a];
        }
        for (double &c : com)
          c /= M;
        double reach = 0;
        for (const Puncture &p : punctures)
          reach = std::max(reach, std::hypot(p.position[0] - com[0], p.position[1] - com[1], p.position[2] - com[2]));
        if (punctures.size() > 1)
          guesses.push_back({com, M / 2 + reach});
      }
    } else {
      std::fprintf(stderr, "solving the two-puncture data (%d x %d x %d)...\n", tpOptions.nA, tpOptions.nB, tpOptions.nPhi);
      solution.emplace(physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], tp, tpOptions));
      if (!solution->result().converged())
        throw std::runtime_error("the two-puncture solve did not converge: " + solution->result().message);
      handoff = std::make_unique<physics::TwoPunctureHandoff>(*solution);
      metric = twoPunctureSlice(*handoff);
      if (guesses.empty()) {
        guesses.push_back({{tp.b, 0, 0}, tp.m1 / 2});
        guesses.push_back({{-tp.b, 0, 0}, tp.m2 / 2});
        const double com = (tp.m1 - tp.m2) * tp.b / (tp.m1 + tp.m2);
        guesses.push_back({{com, 0, 0}, (tp.m1 + tp.m2) / 2 + tp.b + std::abs(com)});
      }
    }
    if (gridPoints > 0) {
      const auto data = sampleOnGrid(metric, gridPoints, -gridHalfWidth, gridHalfWidth);
      std::printf("grid data: %d^3 points on [%g, %g]^3 (h = %.6g), 6-point Lagrange interpolation\n", gridPoints,
                  -gridHalfWidth, gridHalfWidth, 2 * gridHalfWidth / (gridPoints - 1));
      geometry = interpolatedGeometry(data);
    } else if (!geometry) {
      geometry = differentiatedGeometry(metric, derivativeStep);
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tensorium-horizons: error: %s\n", e.what());
    return 1;
  }

  std::vector<HorizonResult> results;
  bool allFound = true;
  for (size_t g = 0; g < guesses.size(); ++g) {
    const auto started = std::chrono::steady_clock::now();
    HorizonResult r;
    try {
      r = findHorizon(geometry, StarSurface::sphere(guesses[g].center, guesses[g].radius, options.lmax), options);
    } catch (const std::exception &e) {
      r.message = e.what();
    }
    printResult(g, guesses[g], r, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    allFound = allFound && r.found;
    results.push_back(r);
  }
  if (!csvPath.empty()) {
    std::ofstream out(csvPath);
    out << "guess,x0,y0,z0,r0,found,iterations,area,irreducible_mass,mean_radius,centroid_x,centroid_y,centroid_z,"
           "circumference_xy,circumference_xz,circumference_yz,J_x,J_y,J_z,christodoulou_mass,chi,rms_expansion,last_step,"
           "stagnated,message\n";
    char line[1024];
    for (size_t g = 0; g < results.size(); ++g) {
      const SurfaceMeasures &m = results[g].measures;
      std::snprintf(line, sizeof line,
                    "%zu,%.17g,%.17g,%.17g,%.17g,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
                    "%.17g,%.17g,%.17g,%.17g,%d,",
                    g + 1, guesses[g].center[0], guesses[g].center[1], guesses[g].center[2], guesses[g].radius,
                    results[g].found ? 1 : 0, results[g].iterations, m.area, m.irreducibleMass, m.meanRadius, m.centroid[0],
                    m.centroid[1], m.centroid[2], m.equatorialCircumference, m.polarCircumferenceXZ, m.polarCircumferenceYZ,
                    m.spin[0], m.spin[1], m.spin[2], m.christodoulouMass, m.dimensionlessSpin, m.rmsExpansion,
                    results[g].lastStep, results[g].stagnated ? 1 : 0);
      out << line << csvText(results[g].message) << "\n";
    }
    if (!out.flush()) {
      std::fprintf(stderr, "tensorium-horizons: error: cannot write '%s'\n", csvPath.c_str());
      return 1;
    }
  }
  if (!shapePath.empty()) {
    std::ofstream out(shapePath);
    out << "guess,center_x,center_y,center_z,l,m,coefficient\n";
    char line[256];
    for (size_t g = 0; g < results.size(); ++g) {
      if (!results[g].found)
        continue;
      const StarSurface &s = results[g].surface;
      for (int l = 0; l <= s.lmax; ++l)
        for (int m = -l; m <= l; ++m) {
          std::snprintf(line, sizeof line, "%zu,%.17g,%.17g,%.17g,%d,%d,%.17g\n", g + 1, s.center[0], s.center[1], s.center[2],
                        l, m, s.coefficients[static_cast<size_t>(harmonicIndex(l, m))]);
          out << line;
        }
    }
    if (!out.flush()) {
      std::fprintf(stderr, "tensorium-horizons: error: cannot write '%s'\n", shapePath.c_str());
      return 1;
    }
  }
  return allFound ? 0 : 1;
}
