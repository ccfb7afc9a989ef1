// tensorium-solve: solves the elliptic problem a .tn file declares (unknowns, residuals,
// boundary conditions, domain, solve policy) with the generic Newton-Krylov runner; no
// problem-specific code. The fixture is compiled into a loadable module first.
#include "command_line.h"
#include "module_toolchain.h"
#include "tensorium_mlir/Support/InputFile.h"
#include "output_paths.h"

#include "tensorium_mlir/Problems/DeclaredProblem.h"
#include "tensorium_mlir/Problems/ExactSolution.h"
#include "tensorium_mlir/Runtime/KernelModule.h"
#include "tensorium_mlir/Problems/SolutionFile.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <optional>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using namespace tensorium_cli;

namespace {

/// The process itself: runtime libraries, the loaded module, Eigen and HDF5 state (measured).
constexpr double kProcessBytes = 15e6;

std::string number(double v) {
  if (!std::isfinite(v))
    return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

std::string short3(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

/// "nx,ny,nz:xmin,xmax,ymin,ymax,zmin,zmax".
elliptic::Lattice parseLatticeOption(const std::string &option, const std::string &text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos)
    throw UsageError("expected nx,ny,nz:xmin,xmax,ymin,ymax,zmin,zmax, got '" + text + "'");
  const std::vector<long> n = parseIntegers(option + " counts", text.substr(0, colon), 2, elliptic::kMaxLatticeAxisPoints, 3, 3);
  const std::vector<double> b = parseNumbers(option + " bounds", text.substr(colon + 1), 6);
  return elliptic::makeLattice({n[0], n[1], n[2]}, {b[0], b[1], b[2], b[3], b[4], b[5]});
}

/// Bytes a point list costs: its coordinates and the CSV text built from them, one interpolated
/// value per unknown (measured: about 42 bytes per printed number).
double pointListBytes(double points, double unknowns) { return points * (24.0 + (3.0 + unknowns) * 42.0); }

/// Lines of a file, counted without holding it: an upper bound on the points it lists, known
/// before anything is allocated for them.
double countLines(const std::string &path) {
  if (const std::string problem = support::inputFileProblem(path, std::numeric_limits<std::uint64_t>::max());
      !problem.empty())
    throw std::runtime_error("points file '" + path + "' " +
                             (problem == "not a regular file" ? "is not a regular file" : "cannot be read: " + problem));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read points file '" + path + "'");
  double lines = 1;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0)
    for (std::streamsize i = 0; i < in.gcount(); ++i)
      lines += buffer[i] == '\n';
  return lines;
}

/// Cartesian points from a CSV file: x,y,z per line; blank lines, '#' comments and one
/// leading header line are skipped. Throws with FILE:LINE on anything else.
std::vector<std::array<double, 3>> readPoints(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read points file '" + path + "'");
  std::vector<std::array<double, 3>> points;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t")] == '#')
      continue;
    const bool header = points.empty() && line.find_first_of("xyzXYZ") != std::string::npos &&
                        line.find_first_of("0123456789") == std::string::npos;
    if (header)
      continue;
    try {
      const std::vector<double> v = parseNumbers(path + ":" + std::to_string(number), line, 3);
      points.push_back({v[0], v[1], v[2]});
    } catch (const std::exception &e) {
      throw std::runtime_error(std::string(e.what()) + " (expected x,y,z)");
    }
  }
  if (points.empty())
    throw std::runtime_error("'" + path + "' holds no points");
  return points;
}

/// Every unknown of `s` at the points, as CSV; returns the number of points outside the domain.
size_t writePointValues(const elliptic::DeclaredProblemSolution &s, const std::vector<std::array<double, 3>> &points,
                        const std::string &path) {
  std::ostringstream csv;
  csv << "x,y,z";
  for (const std::string &name : s.unknownNames)
    csv << "," << name;
  csv << "\n";
  size_t outside = 0;
  for (const auto &x : points) {
    csv << number(x[0]) << "," << number(x[1]) << "," << number(x[2]);
    bool out = false;
    for (const std::string &name : s.unknownNames) {
      const double v = s.interpolate(name, x);
      out = out || std::isnan(v);
      csv << "," << (std::isnan(v) ? std::string("nan") : number(v));
    }
    csv << "\n";
    outside += out ? 1 : 0;
  }
  if (!writeFileAtomically(path, csv.str()))
    throw std::runtime_error("cannot write '" + path + "'");
  return outside;
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s)
    out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

} // namespace

int main(int argc, char **argv) {
  std::string fixture, modulePath, block, output, h5, checkFile, pointsFile, pointsOutput, saveModule;
  std::optional<elliptic::Lattice> lattice;
  elliptic::DeclaredProblemOptions options;
  bool quiet = false, memoryEstimateOnly = false;
  CommandLine cli("tensorium-solve", "FILE.tn [options]  |  --module LIB.so [options]  |  --check-file FILE.h5");
  cli.operands("program", [&](const std::string &w) { fixture = w; }, 0, 1)
      .group("the problem (declared in a spectral constraints block: unknown, residual ... for,\n"
             "boundary, domain, solve; docs/language-reference.md)")
      .option("--module", "LIB.so", "a module built with tensorium_add_kernel(... MODULE) instead of FILE.tn",
              [&](const std::string &v) { modulePath = v; })
      .option("--block", "NAME", "the constraints block to solve (default: the only one)",
              [&](const std::string &v) { block = v; })
      .option("--set", "NAME=VALUE", "a parameter's value (repeatable)",
              [&](const std::string &v) {
                const size_t eq = v.find('=');
                if (eq == std::string::npos || eq == 0)
                  throw UsageError("--set takes NAME=VALUE, got '" + v + "'");
                options.params[v.substr(0, eq)] = parseNumber("--set " + v.substr(0, eq), v.substr(eq + 1));
              })
      .option("--resolution", "n0,n1,n2", "collocation points per direction (default: the declared ones)",
              [&](const std::string &v) {
                const std::vector<long> n = parseIntegers("--resolution", v, 3, 512, 3, 3);
                options.resolution =
                    std::array<int, 3>{static_cast<int>(n[0]), static_cast<int>(n[1]), static_cast<int>(n[2])};
              })
      .option("--tolerance", "T", "Newton tolerance in (0, 1) (default: the declared one)",
              [&](const std::string &v) {
                const double t = parseNumber("--tolerance", v);
                if (!(t > 0 && t < 1))
                  throw UsageError("--tolerance must be between 0 and 1");
                options.tolerance = t;
              })
      .option("--max-iterations", "N", "Newton iterations at most (default: the declared number)",
              [&](const std::string &v) {
                options.maxIterations = static_cast<int>(parseInteger("--max-iterations", v, 1, 1000));
              })
      .flag("--memory-estimate", "print the run's estimated peak memory and stop (docs/memory.md)",
            [&] { memoryEstimateOnly = true; })
      .option("--save-module", "LIB.so", "keep the module compiled from FILE.tn, for later runs with --module",
              [&](const std::string &v) { saveModule = v; })
      .group("output")
      .option("--csv", "FILE.csv",
              "the collocation solution as CSV (x, y, z, one column per unknown) with a JSON\n"
              "sidecar FILE.csv.json (parameters, resolution, residual, diagnostics)",
              [&](const std::string &v) { output = v; })
      .option("--h5", "FILE.h5", "the collocation solution in HDF5 (enough to interpolate anywhere)",
              [&](const std::string &v) { h5 = v; })
      .option("--lattice", "nx,ny,nz:xmin,xmax,ymin,ymax,zmin,zmax",
              "with --h5: values on a Cartesian lattice too, with an XDMF index FILE.xmf\n"
              "(NaN outside the domain)",
              [&](const std::string &v) { lattice = parseLatticeOption("--lattice", v); })
      .option("--points", "P.csv", "Cartesian points (x,y,z per line; '#' comments and a header allowed)",
              [&](const std::string &v) { pointsFile = v; })
      .option("--points-output", "OUT.csv", "every unknown interpolated at --points (nan outside the domain)",
              [&](const std::string &v) { pointsOutput = v; })
      .option("--check-file", "FILE.h5",
              "rebuild the grid from a solution file, interpolate at its lattice and compare\n"
              "with the stored values (or evaluate at --points)",
              [&](const std::string &v) { checkFile = v; })
      .flag("--quiet", "no progress per Newton and Krylov iteration on standard error", [&] { quiet = true; })
      .renamed("--output", "--csv")
      .notes("A program's 'exact u = expr [tolerance = expr]' declarations are compared with the solution at\n"
             "the collocation points and at 256 points between them: max and rms error per unknown are\n"
             "printed; at the declared resolution an error above a declared tolerance fails the run.\n"
             "Exit status: 0 converged, 1 the program does not compile, 2 bad arguments or set-up,\n"
             "3 Newton did not converge, 4 the solution misses a declared exact solution's tolerance.");
  try {
    if (!cli.parse(argc, argv, std::cout))
      return 0;
    if (!checkFile.empty()) {
      if (!fixture.empty() || !modulePath.empty())
        throw std::invalid_argument("--check-file takes no program");
      if (memoryEstimateOnly || !saveModule.empty())
        throw std::invalid_argument("--memory-estimate and --save-module go with a program, not with --check-file");
    } else if (fixture.empty() == modulePath.empty()) {
      throw std::invalid_argument("give one FILE.tn or one --module LIB.so");
    }
    if (!saveModule.empty() && checkFile.empty()) {
      if (fixture.empty())
        throw std::invalid_argument("--save-module keeps the module compiled from a FILE.tn; give one");
      requireWritableOutput("--save-module", saveModule);
    }
    if (pointsFile.empty() != pointsOutput.empty())
      throw std::invalid_argument("--points and --points-output go together");
    if (!pointsOutput.empty())
      requireWritableOutput("--points-output", pointsOutput);
    if (lattice && h5.empty())
      throw std::invalid_argument("--lattice needs --h5 FILE.h5");
    if (!h5.empty()) {
      if (h5.size() < 4 || h5.substr(h5.size() - 3) != ".h5")
        throw std::invalid_argument("--h5 names a .h5 file");
      requireWritableOutput("--h5", h5);
    }
    if (!output.empty()) {
      requireWritableOutput("--csv", output);
      requireWritableOutput("--csv", output + ".json");
    }
  } catch (const std::invalid_argument &e) { // usage errors, and unwritable outputs
    return cli.usageError(e.what(), std::cerr);
  }

  if (!checkFile.empty()) {
    // The stored lattice against a fresh interpolation of the stored collocation solution.
    try {
      // The file's data is held about three times (collocation values, the stored lattice and
      // its re-interpolation); the points once the unknowns are known.
      std::error_code ec;
      const double fileBytes = static_cast<double>(std::filesystem::file_size(checkFile, ec));
      runtime::requireMemory("checking " + checkFile, kProcessBytes + (ec ? 0.0 : 3.0 * fileBytes));
      const elliptic::StoredSolution stored = elliptic::readSolutionFile(checkFile);
      std::vector<std::array<double, 3>> points;
      if (!pointsFile.empty()) {
        runtime::requireMemory("the points of " + pointsFile,
                               pointListBytes(countLines(pointsFile), static_cast<double>(stored.solution.unknownNames.size())));
        points = readPoints(pointsFile);
      }
      if (!pointsFile.empty()) {
        const size_t outside = writePointValues(stored.solution, points, pointsOutput);
        std::cout << "wrote " << pointsOutput << " (" << points.size() << " points, " << outside
                  << " outside the domain)\n";
      }
      std::cout << "solution file " << checkFile << ": block " << stored.block << ", map " << stored.solution.map << ", "
                << stored.solution.resolution[0] << "x" << stored.solution.resolution[1] << "x"
                << stored.solution.resolution[2] << ", unknowns " << stored.solution.unknownNames.size() << "\n";
      if (!stored.lattice) {
        std::cout << "no lattice stored\n";
        return 0;
      }
      if (!pointsFile.empty())
        return 0; // evaluated at the caller's points; the lattice check is the other use
      const elliptic::LatticeValues again = elliptic::sampleOnLattice(stored.solution, stored.lattice->lattice);
      size_t differing = 0, compared = 0;
      for (size_t u = 0; u < again.values.size(); ++u)
        for (size_t q = 0; q < again.values[u].size(); ++q) {
          const double a = again.values[u][q], b = stored.lattice->values[u][q];
          ++compared;
          if (!(a == b || (std::isnan(a) && std::isnan(b))))
            ++differing;
        }
      std::cout << "lattice values reproduced: " << compared - differing << " of " << compared << " bit for bit\n";
      return differing == 0 ? 0 : 3;
    } catch (const std::exception &e) {
      std::cerr << "tensorium-solve: error: " << e.what() << "\n";
      return 2;
    }
  }

  // Compile the fixture into a scratch folder (removed at exit).
  runtime::ScratchFolder scratch("tensorium-solve");
  if (!fixture.empty()) {
    if (const std::string problem = support::inputFileProblem(fixture); !problem.empty()) {
      std::cerr << "tensorium-solve: error: cannot read fixture '" << fixture << "': " << problem << "\n";
      return 2;
    }
    try {
      modulePath = runtime::compileFixtureModule(fixture, scratch.path(), "problem", moduleToolchain());
    } catch (const std::exception &e) {
      std::cerr << "tensorium-solve: error: " << e.what() << (std::string(e.what()).ends_with("\n") ? "" : "\n");
      return 1;
    }
    if (!saveModule.empty()) {
      // Later runs take it with --module and skip the compile.
      const std::string partial = saveModule + ".partial";
      try {
        std::filesystem::copy_file(modulePath, partial, std::filesystem::copy_options::overwrite_existing);
        std::filesystem::rename(partial, saveModule);
      } catch (const std::exception &e) {
        std::error_code ignored;
        std::filesystem::remove(partial, ignored);
        std::cerr << "tensorium-solve: error: cannot save the module: " << e.what() << "\n";
        return 2;
      }
      std::cout << "saved the compiled module as " << saveModule << "\n";
    }
  }

  std::vector<std::array<double, 3>> points;
  try {
    runtime::KernelModule module(modulePath);
    int32_t count = 0;
    const tensorium_spectral_problem_desc *problems = module.spectralProblems(count);
    const tensorium_spectral_problem_desc &problem = elliptic::findDeclaredProblem(problems, count, block);
    std::array<int, 3> n{problem.resolution[0], problem.resolution[1], problem.resolution[2]};
    if (options.resolution)
      n = *options.resolution;
    // The whole run's memory (docs/memory.md) before the solve, the lattice or the points
    // allocate anything; writing the lattice to HDF5 holds a quarter more than its values.
    const double unknownCount = problem.unknown_count;
    const double estimate = kProcessBytes + elliptic::estimateDeclaredProblemBytes(problem, n) +
                            (lattice ? 1.25 * elliptic::latticeValueBytes(*lattice, static_cast<size_t>(unknownCount)) : 0.0) +
                            (pointsFile.empty() ? 0.0 : pointListBytes(countLines(pointsFile), unknownCount));
    if (memoryEstimateOnly) {
      std::printf("estimated peak memory: %s (%.0f bytes)\n", tensorium_cli::humanBytes(estimate).c_str(), estimate);
      return 0;
    }
    runtime::requireMemory("solving problem '" + std::string(problem.block_name) + "' at " + std::to_string(n[0]) + "x" +
                               std::to_string(n[1]) + "x" + std::to_string(n[2]) +
                               (lattice ? " with its lattice" : "") + (pointsFile.empty() ? "" : " and its points"),
                           estimate);
    if (!pointsFile.empty())
      points = readPoints(pointsFile);
    std::string unknowns;
    for (int32_t u = 0; u < problem.unknown_count; ++u)
      unknowns += (u ? ", " : "") + std::string(problem.unknown_names[u]);
    std::cout << "problem " << problem.block_name << ": map " << problem.map << ", " << n[0] << "x" << n[1] << "x" << n[2]
              << " points, unknowns " << unknowns << "\n";
    if (!quiet)
      options.progress = &std::cerr;
    elliptic::DeclaredProblemSolution s = elliptic::solveDeclaredProblem(module.tables(), problem, options);
    std::cout << "solver: Newton (" << (problem.line_search ? "line search" : "full steps") << "), " << s.linearSolver
              << (s.linearSolver == "gmres" ? " with preconditioner " + std::string(problem.preconditioner) : std::string())
              << "\n";
    // A tolerance the initial guess (zero unknowns) already meets is reported as such, not as
    // a solve.
    const bool noIterations = s.result.converged() && s.result.iterations == 0;
    if (noIterations)
      std::cout << "status: no iterations needed: the initial guess already meets the tolerance, |F| = "
                << short3(s.result.residualNorm) << "\n";
    else
      std::cout << "status: " << elliptic::newtonStatusName(s.result.status) << " after " << s.result.iterations
                << " Newton iterations (" << s.result.krylovIterations << " Krylov), |F| = "
                << short3(s.result.residualNorm) << ", " << short3(s.seconds) << " s\n";
    if (!s.result.converged())
      std::cout << "message: " << s.result.message << "\n";
    for (const auto &[name, v] : s.diagnostics) {
      char line[128];
      std::snprintf(line, sizeof line, "%s: %.15f\n", name.c_str(), v);
      std::cout << line;
    }
    for (const std::string &name : s.unknownNames) {
      const std::vector<double> v = s.values(name);
      double lo = INFINITY, hi = -INFINITY;
      for (double x : v) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
      std::cout << "  " << name << ": min " << number(lo) << ", max " << number(hi) << "\n";
    }
    // Declared exact solutions: errors at the collocation points and between them.
    const std::vector<elliptic::UnknownExactError> exact =
        s.result.converged() ? elliptic::exactSolutionErrors(module.tables(), s) : std::vector<elliptic::UnknownExactError>{};
    // A declared tolerance is the error the declared resolution must reach; at another one the
    // errors are reported only (the problem studies judge their convergence).
    const bool declaredResolution =
        s.resolution[0] == problem.resolution[0] && s.resolution[1] == problem.resolution[1] && s.resolution[2] == problem.resolution[2];
    bool exactMissed = false;
    for (const elliptic::UnknownExactError &e : exact) {
      std::cout << "  exact " << e.unknown << ": max error " << number(e.collocation.max) << " (rms "
                << number(e.collocation.rms) << ") at " << e.collocation.points << " collocation points, "
                << number(e.between.max) << " (rms " << number(e.between.rms) << ") at " << e.between.points
                << " points between them";
      if (e.hasTolerance)
        std::cout << "; largest error / tolerance " << short3(e.worstRatio)
                  << (declaredResolution ? "" : " (the tolerance holds at the declared resolution: not judged)");
      std::cout << "\n";
      if (declaredResolution && !e.pass()) {
        exactMissed = true;
        std::cerr << "tensorium-solve: error: the solution misses the exact solution of '" << e.unknown << "': error "
                  << short3(e.worstRatio) << " times its tolerance at (" << number(e.worstRatioPoint[0]) << ", "
                  << number(e.worstRatioPoint[1]) << ", " << number(e.worstRatioPoint[2]) << ")\n";
      }
    }
    if (!output.empty() && !s.result.converged())
      std::cout << "no output written: the solve did not converge\n";
    if (!output.empty() && s.result.converged()) {
      std::ostringstream csv;
      csv << "x,y,z";
      for (const std::string &name : s.unknownNames)
        csv << "," << name;
      csv << "\n";
      std::vector<std::vector<double>> columns;
      for (const std::string &name : s.unknownNames)
        columns.push_back(s.values(name));
      for (size_t p = 0; p < s.grid->size(); ++p) {
        const std::array<double, 3> r = s.grid->physicalPoint(p);
        csv << number(r[0]) << "," << number(r[1]) << "," << number(r[2]);
        for (const auto &c : columns)
          csv << "," << number(c[p]);
        csv << "\n";
      }
      std::ostringstream json;
      json << "{\n  \"block\": " << jsonString(problem.block_name) << ",\n  \"map\": " << jsonString(problem.map)
           << ",\n  \"resolution\": [" << n[0] << ", " << n[1] << ", " << n[2] << "],\n  \"bounds\": [";
      for (int a = 0; a < 6; ++a)
        json << (a ? ", " : "") << number(problem.bounds[a]);
      json << "],\n  \"parameters\": {";
      bool first = true;
      for (const auto &[name, v] : s.parameters) {
        json << (first ? "" : ", ") << jsonString(name) << ": " << number(v);
        first = false;
      }
      json << "},\n  \"diagnostics\": {";
      first = true;
      for (const auto &[name, v] : s.diagnostics) {
        json << (first ? "" : ", ") << jsonString(name) << ": " << number(v);
        first = false;
      }
      json << "},\n  \"unknowns\": [";
      for (size_t u = 0; u < s.unknownNames.size(); ++u)
        json << (u ? ", " : "") << jsonString(s.unknownNames[u]);
      json << "],\n  \"status\": "
           << jsonString(noIterations ? "no_iterations_needed" : elliptic::newtonStatusName(s.result.status))
           << ",\n  \"newton_iterations\": " << s.result.iterations << ",\n  \"krylov_iterations\": "
           << s.result.krylovIterations << ",\n  \"residual_rms\": " << number(s.result.residualNorm) << "\n}\n";
      if (!writeFileAtomically(output, csv.str()) || !writeFileAtomically(output + ".json", json.str())) {
        std::cerr << "tensorium-solve: error: cannot write " << output << "\n";
        return 2;
      }
      std::cout << "wrote " << output << " and " << output << ".json\n";
    }
    if (!h5.empty() && s.result.converged()) {
      std::optional<elliptic::LatticeValues> values;
      if (lattice)
        values = elliptic::sampleOnLattice(s, *lattice);
      elliptic::writeSolutionFile(h5, problem.block_name, s, values ? &*values : nullptr);
      std::cout << "wrote " << h5;
      if (values)
        std::cout << " (lattice " << lattice->n[0] << "x" << lattice->n[1] << "x" << lattice->n[2] << ", "
                  << values->outside << " points outside the domain) and its XDMF index";
      std::cout << "\n";
    }
    if (!pointsFile.empty() && s.result.converged()) {
      const size_t outside = writePointValues(s, points, pointsOutput);
      std::cout << "wrote " << pointsOutput << " (" << points.size() << " points, " << outside << " outside the domain)\n";
    }
    return !s.result.converged() ? 3 : exactMissed ? 4 : 0;
  } catch (const std::exception &e) {
    std::cerr << "tensorium-solve: error: " << e.what() << "\n";
    return 2;
  }
}
