// tensorium-converge: manufactured-solution resolution studies of the generated spectral
// residuals. Each suite solves F(u) = 0 from a non-exact guess with Newton's method, measures
// the error against the analytic solution at every resolution, and judges the decay.
#include "command_line.h"
#include "output_paths.h"
#include "problem_study.h"
#include "two_puncture_study.h"

#include "tensorium_mlir/Elliptic/SpectralNewton.h"
#include "tensorium_mlir/Physics/TwoPunctures.h"
#include "tensorium_mlir/Runtime/KernelModule.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"
#include "tensorium_mlir/Verification/ManufacturedStudies.h"
#include "tensorium_mlir/Verification/StudyFile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using namespace tensorium_mlir::elliptic;
using Module = runtime::KernelModule;
using Manufactured = verification::ManufacturedSuite;
using Row = verification::ManufacturedRow;
using verification::manufacturedMemoryEstimate;

namespace {

verification::ManufacturedSolver gSolver;
/// Where a study file gave the resolutions, so that a memory refusal points at them, and the
/// study's name for its JUnit report.
std::string gResolutionsLocation, gStudyName;

int refuseMemory(const runtime::InsufficientMemory &e) {
  if (gResolutionsLocation.empty())
    std::cerr << "tensorium-converge: error: " << e.what() << "\n";
  else
    std::cerr << gResolutionsLocation << ": error: key 'grid.resolutions': " << e.what() << "\n";
  return 2;
}

/// Three or more increasing resolutions (the range keeps n^3 in range; memory decides what runs).
std::vector<int> parseResolutions(const std::string &text) {
  std::vector<int> out;
  for (long n : tensorium_cli::parseIntegers("--resolutions", text, 3, 100000, 3, 64))
    out.push_back(static_cast<int>(n));
  for (size_t i = 1; i < out.size(); ++i)
    if (out[i] <= out[i - 1])
      throw tensorium_cli::UsageError("--resolutions must increase, got '" + text + "'");
  return out;
}

const std::vector<std::string> kSuites{"poisson", "nonlinear-toy", "lichnerowicz", "two-field", "two-puncture"};

struct Parsed {
  std::string target; // a suite or a study file
  std::vector<int> resolutions{6, 8, 10, 12, 14};
  bool resolutionsGiven = false, memoryEstimateOnly = false, json = false, suiteOptionGiven = false;
  std::string csv, plot, junit, kernelDir = TENSORIUM_CONVERGENCE_KERNEL_DIR, configuration = "both";
  std::vector<std::string> overrides;
};

/// The option table: parses and prints the help.
tensorium_cli::CommandLine commandLine(Parsed &p) {
  using namespace tensorium_cli;
  CommandLine cli("tensorium-converge", "SUITE|STUDY.toml [options]");
  cli.operands("suite or study file", [&p](const std::string &w) { p.target = w; }, 1, 1)
      .group("suites: poisson, nonlinear-toy, lichnerowicz, two-field (manufactured solutions),\n"
             "two-puncture (boosted and spinning puncture data: successive-resolution differences\n"
             "of the ADM masses and probe values)")
      .option("--resolutions", "a,b,c,...",
              "collocation points per direction, three or more, increasing\n"
              "(default 6,8,10,12,14; two-puncture: 12,16,24,32,40)",
              [&p](const std::string &v) {
                p.resolutions = parseResolutions(v);
                p.resolutionsGiven = p.suiteOptionGiven = true;
              })
      .option("--preconditioner", "NAME",
              "none (default): each Newton step with the dense Jacobian; diagonal-jvp,\n"
              "dense-laplacian-shift, modal-laplacian-shift, mapped-fd-laplacian-shift,\n"
              "mapped-fd-multigrid, fourier-mode-fd: restarted GMRES with it",
              [&p](const std::string &v) {
                try {
                  gSolver.preconditioner = parsePreconditioner(v);
                } catch (const std::invalid_argument &e) {
                  throw UsageError(e.what());
                }
                p.suiteOptionGiven = true;
              })
      .option("--fourier-points", "N", "points along the periodic direction (default: from the resolution)",
              [&p](const std::string &v) {
                gSolver.fourierPoints = static_cast<int>(parseInteger("--fourier-points", v, 1, 100000));
                p.suiteOptionGiven = true;
              })
      .option("--configuration", "NAME", "two-puncture: boosted, spinning or both (default)",
              [&p](const std::string &v) {
                if (v != "boosted" && v != "spinning" && v != "both")
                  throw UsageError("unknown configuration '" + v + "' (boosted, spinning, both)");
                p.configuration = v;
                p.suiteOptionGiven = true;
              })
      .flag("--memory-estimate", "print the estimated peak memory and exit", [&p] { p.memoryEstimateOnly = true; })
      .group("study files")
      .option("--set", "key=value", "override a key of the study file (repeatable)",
              [&p](const std::string &v) { p.overrides.push_back(v); })
      .group("output")
      .option("--csv", "F.csv", "the table as CSV", [&p](const std::string &v) { p.csv = v; })
      .option("--plot", "F.png", "a plot of the errors (manufactured suites; its CSV beside it)",
              [&p](const std::string &v) { p.plot = v; })
      .option("--junit", "F.xml", "the verdict as a JUnit report", [&p](const std::string &v) { p.junit = v; })
      .flag("--json", "the table as JSON on standard output", [&p] { p.json = true; })
      .flag("--progress", "Newton and Krylov progress on standard error", [] { gSolver.progress = true; })
      .option("--kernel-dir", "DIR", "prebuilt kernel modules (default: the build's)",
              [&p](const std::string &v) { p.kernelDir = v; })
      .notes("Exit status: 0 pass, 1 fail or run error, 2 bad arguments or not enough memory.");
  return cli;
}

} // namespace

int runSuite(Parsed &p, const tensorium_cli::CommandLine &cli);

/// A study file (docs/studies.md, kind "elliptic" or "problem"): its keys set the suite's
/// options; the command line adds the outputs.
int runStudyFile(Parsed &p, const tensorium_cli::CommandLine &cli) {
  try {
    const verification::StudyFile study = verification::loadStudyFile(p.target, p.overrides);
    if (study.kind == "problem") {
      if (!p.plot.empty() || p.json || p.memoryEstimateOnly)
        return cli.usageError("a problem study takes --junit, --csv and --progress only", std::cerr);
      return runProblemStudy(study, {p.junit, p.csv, gSolver.progress});
    }
    if (study.kind != "elliptic")
      study.fail("study.kind", "tensorium-converge runs studies of kind 'elliptic' or 'problem' (tensorium-verify runs '" + study.kind +
                                   "')");
    if (std::find(kSuites.begin(), kSuites.end(), study.suite) == kSuites.end())
      study.fail("study.suite", "'" + study.suite + "' is not a suite (poisson, nonlinear-toy, lichnerowicz, two-field, "
                                                    "two-puncture)");
    try {
      gSolver.preconditioner = parsePreconditioner(study.preconditioner);
    } catch (const std::exception &e) {
      study.fail("solver.preconditioner", e.what());
    }
    if (study.configuration != "boosted" && study.configuration != "spinning" && study.configuration != "both")
      study.fail("solver.configuration", "expected boosted, spinning or both");
    if (study.suite != "two-puncture" && study.configuration != "both")
      study.fail("solver.configuration", "only the two-puncture suite has configurations");
    gResolutionsLocation = study.locate("grid.resolutions");
    gStudyName = study.name;
    p.target = study.suite;
    p.resolutions = study.resolutions;
    p.resolutionsGiven = true;
    p.configuration = study.configuration;
    if (study.fourierPoints > 0)
      gSolver.fourierPoints = study.fourierPoints;
  } catch (const verification::StudyFileError &e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  return runSuite(p, cli);
}

int main(int argc, char **argv) {
  Parsed p;
  const tensorium_cli::CommandLine cli = commandLine(p);
  bool studyFile = false;
  try {
    if (!cli.parse(argc, argv, std::cout))
      return 0;
    studyFile = p.target.size() > 5 && p.target.substr(p.target.size() - 5) == ".toml";
    if (studyFile && p.suiteOptionGiven)
      throw tensorium_cli::UsageError("--resolutions, --preconditioner, --fourier-points and --configuration apply to "
                                      "suites; a study file sets them itself (override with --set)");
    if (!studyFile && !p.overrides.empty())
      throw tensorium_cli::UsageError("--set applies to study files");
    if (!studyFile && std::find(kSuites.begin(), kSuites.end(), p.target) == kSuites.end())
      throw tensorium_cli::UsageError(tensorium_cli::unknownName("suite", p.target, kSuites));
    tensorium_cli::requireWritableReportOutputs(p.csv, p.plot, p.junit);
  } catch (const std::invalid_argument &e) {
    return cli.usageError(e.what(), std::cerr);
  }
  return studyFile ? runStudyFile(p, cli) : runSuite(p, cli);
}

int runSuite(Parsed &p, const tensorium_cli::CommandLine &cli) {
  const std::string &suiteName = p.target;
  const std::vector<int> &resolutions = p.resolutions;
  const bool resolutionsGiven = p.resolutionsGiven, json = p.json, memoryEstimateOnly = p.memoryEstimateOnly;
  const std::string &csv = p.csv, &plot = p.plot, &junit = p.junit, &kernelDir = p.kernelDir,
                    &configuration = p.configuration;
  if (suiteName == "two-puncture") {
    TwoPunctureStudyOptions study;
    if (resolutionsGiven)
      study.resolutions = resolutions;
    study.configuration = configuration;
    study.fourierPoints = gSolver.fourierPoints;
    study.progress = gSolver.progress;
    study.json = json;
    study.csv = csv;
    study.junit = junit;
    study.name = gStudyName.empty() ? "two-puncture" : gStudyName;
    study.modulePath = kernelDir + "/libconverge_two_puncture_hamiltonian_3d.so";
    if (!plot.empty())
      return cli.usageError("--plot draws manufactured-solution errors; use --csv for the two-puncture study", std::cerr);
    if (memoryEstimateOnly) {
      const double estimate = twoPunctureStudyMemory(study);
      std::printf("estimated peak memory: %s (%.0f bytes)\n", tensorium_cli::humanBytes(estimate).c_str(), estimate);
      return 0;
    }
    try {
      runtime::requireMemory("the two-puncture study at n = " + std::to_string(study.resolutions.back()),
                             twoPunctureStudyMemory(study));
    } catch (const runtime::InsufficientMemory &e) {
      return refuseMemory(e);
    }
    return runTwoPunctureStudy(study);
  }
  const Manufactured *suite = nullptr;
  const std::vector<Manufactured> &all = verification::manufacturedSuites();
  for (const Manufactured &m : all)
    if (m.name == suiteName)
      suite = &m;
  if (!suite)
    return cli.usageError("unknown suite '" + suiteName + "'", std::cerr);
  {
    const int unknownsPerPoint = suite->unknowns.empty() ? 1 : static_cast<int>(suite->unknowns.size());
    const bool dense = gSolver.preconditioner == elliptic::SpectralPreconditionerKind::None;
    const double estimate =
        manufacturedMemoryEstimate(resolutions.back(), unknownsPerPoint, gSolver.fourierPoints, dense);
    if (memoryEstimateOnly) {
      std::printf("estimated peak memory: %s (%.0f bytes)\n", tensorium_cli::humanBytes(estimate).c_str(), estimate);
      return 0;
    }
    try {
      runtime::requireMemory("suite " + suiteName + " at n = " + std::to_string(resolutions.back()) +
                                 (dense ? " with the dense Jacobian (give --preconditioner for GMRES)" : ""),
                             estimate);
    } catch (const runtime::InsufficientMemory &e) {
      return refuseMemory(e);
    }
  }

  std::vector<Row> rows;
  try {
    Module module(kernelDir + "/libconverge_" + suite->fixture + ".so");
    if (module.tables().spectral_kernel_count < 1 || module.tables().spectral_grid_kernel_count < 1 ||
        module.tables().spectral_system_count < 1)
      throw std::runtime_error("the module has no spectral residual kernel");
    for (int n : resolutions) {
      rows.push_back(verification::solveManufactured(*suite, module.tables(), n, gSolver));
      const Row &r = rows.back();
      if (r.status == "converged" && r.newton == 0)
        std::fprintf(stderr, "  n=%d: no iterations needed: the initial guess already meets the tolerance, error %.3e\n",
                     n, r.error);
      else
        std::fprintf(stderr, "  n=%d: %s after %d Newton iterations, error %.3e (%.2f s)\n", n, r.status.c_str(),
                     r.newton, r.error, r.seconds);
    }
  } catch (const std::exception &e) {
    std::cerr << "tensorium-converge: error: " << e.what() << "\n";
    return 1;
  }

  const verification::ManufacturedVerdict v = verification::judgeManufactured(*suite, rows, gSolver);
  if (!junit.empty()) {
    if (!tensorium_cli::writeFileAtomically(
            junit, verification::junitXml(gStudyName.empty() ? suite->name : gStudyName,
                                         {{"exponential convergence", v.pass, v.line, 0.0}}, v.table))) {
      std::cerr << "tensorium-converge: error: cannot write '" << junit << "'\n";
      return 1;
    }
  }
  std::cout << (json ? verification::manufacturedJson(*suite, rows, v) + "\n" : v.table);
  if (!csv.empty()) {
    if (!tensorium_cli::writeFileAtomically(csv, verification::manufacturedCsv(rows))) {
      std::cerr << "tensorium-converge: error: cannot write '" << csv << "'\n";
      return 1;
    }
  }
  if (!plot.empty()) {
    // matplotlib from Debian (python3-matplotlib), Agg backend, through the system interpreter.
    const std::string partial = tensorium_cli::partialName(plot);
    std::string command = std::string("'") + TENSORIUM_PLOT_PYTHON + "' '" + TENSORIUM_PLOT_SCRIPT + "' '" + csv +
                          "' '" + partial + "' '" + suite->name + "'";
    if (std::system(command.c_str()) != 0 || std::rename(partial.c_str(), plot.c_str()) != 0) {
      std::remove(partial.c_str());
      std::cerr << "tensorium-converge: error: plotting failed (needs " << TENSORIUM_PLOT_PYTHON
                << " with matplotlib: apt-get install python3-matplotlib)\n";
      return 1;
    }
    std::cerr << "wrote " << plot << "\n";
  }
  return v.pass ? 0 : 1;
}
