// tensorium-converge: manufactured-solution resolution studies of the generated spectral
// residuals. Each suite solves F(u) = 0 from a non-exact guess with Newton's method, measures
// the error against the analytic solution at every resolution, and judges the decay.
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

int usage(const char *message) {
  if (message)
    std::cerr << "tensorium-converge: error: " << message << "\n";
  std::cerr << "usage: tensorium-converge STUDY.toml [--set key=value]... [--csv FILE] [--json] [--junit FILE.xml] [--plot FILE.png]\n"
               "       tensorium-converge SUITE [--resolutions a,b,c,...] [--csv FILE] [--json] [--junit FILE.xml]\n"
               "                          [--preconditioner none|diagonal-jvp|dense-laplacian-shift|\n"
               "                                            modal-laplacian-shift|mapped-fd-laplacian-shift|\n"
               "                                            mapped-fd-multigrid]\n"
               "                          [--plot FILE.png] [--progress] [--fourier-points N]\n"
               "                          [--kernel-dir DIR] [--memory-estimate]\n"
               "Exit status: 0 pass, 1 fail or run error, 2 bad arguments or not enough memory.\n"
               "none (default) solves each Newton step with the dense Jacobian; a preconditioner\n"
               "selects restarted GMRES with it as a right preconditioner.\n"
               "suites: poisson, nonlinear-toy, lichnerowicz, two-field (manufactured solutions),\n"
               "        two-puncture (boosted and spinning puncture data: successive-resolution\n"
               "        differences of the ADM masses and probe values; default resolutions 12,16,24,32,40;\n"
               "        --configuration boosted|spinning|both)\n";
  return 2;
}

} // namespace

int runSuite(int argc, char **argv);

/// A study file (docs/studies.md, kind "elliptic"): its keys become the suite's options; the
/// command line's other options (--csv, --json, --plot, ...) follow them.
int runStudyFile(int argc, char **argv) {
  std::vector<std::string> overrides, rest;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--set" && i + 1 < argc)
      overrides.push_back(argv[++i]);
    else
      rest.push_back(argv[i]);
  }
  std::vector<std::string> args{argv[0]};
  try {
    const verification::StudyFile study = verification::loadStudyFile(argv[1], overrides);
    if (study.kind == "problem")
      return runProblemStudy(study, rest);
    if (study.kind != "elliptic")
      study.fail("study.kind", "tensorium-converge runs studies of kind 'elliptic' or 'problem' (tensorium-verify runs '" + study.kind +
                                   "')");
    const std::vector<std::string> suites{"poisson", "nonlinear-toy", "lichnerowicz", "two-field", "two-puncture"};
    if (std::find(suites.begin(), suites.end(), study.suite) == suites.end())
      study.fail("study.suite", "'" + study.suite + "' is not a suite (poisson, nonlinear-toy, lichnerowicz, two-field, "
                                                    "two-puncture)");
    try {
      parsePreconditioner(study.preconditioner);
    } catch (const std::exception &e) {
      study.fail("solver.preconditioner", e.what());
    }
    if (study.configuration != "boosted" && study.configuration != "spinning" && study.configuration != "both")
      study.fail("solver.configuration", "expected boosted, spinning or both");
    if (study.suite != "two-puncture" && study.configuration != "both")
      study.fail("solver.configuration", "only the two-puncture suite has configurations");
    gResolutionsLocation = study.locate("grid.resolutions");
    gStudyName = study.name;
    std::string resolutions;
    for (int n : study.resolutions)
      resolutions += (resolutions.empty() ? "" : ",") + std::to_string(n);
    args.insert(args.end(), {study.suite, "--resolutions", resolutions, "--preconditioner", study.preconditioner});
    if (study.suite == "two-puncture")
      args.insert(args.end(), {"--configuration", study.configuration});
    if (study.fourierPoints > 0)
      args.insert(args.end(), {"--fourier-points", std::to_string(study.fourierPoints)});
  } catch (const verification::StudyFileError &e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  args.insert(args.end(), rest.begin(), rest.end());
  std::vector<char *> pointers;
  for (std::string &a : args)
    pointers.push_back(a.data());
  return runSuite(static_cast<int>(pointers.size()), pointers.data());
}

int main(int argc, char **argv) {
  if (argc >= 2) {
    const std::string first = argv[1];
    if (first.size() > 5 && first.substr(first.size() - 5) == ".toml")
      return runStudyFile(argc, argv);
  }
  return runSuite(argc, argv);
}

int runSuite(int argc, char **argv) {
  if (argc < 2)
    return usage("no suite given");
  std::string suiteName = argv[1];
  if (suiteName == "--help" || suiteName == "-h") {
    usage(nullptr);
    return 0;
  }
  std::vector<int> resolutions{6, 8, 10, 12, 14};
  bool resolutionsGiven = false;
  std::string csv, plot, junit, kernelDir = TENSORIUM_CONVERGENCE_KERNEL_DIR, configuration = "both";
  bool json = false, memoryEstimateOnly = false;
  try {
    for (int i = 2; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--resolutions" && i + 1 < argc) {
        resolutions = parseResolutions(argv[++i]);
        resolutionsGiven = true;
      } else if (arg == "--configuration" && i + 1 < argc)
        configuration = argv[++i];
      else if (arg == "--csv" && i + 1 < argc)
        csv = argv[++i];
      else if (arg == "--junit" && i + 1 < argc)
        junit = argv[++i];
      else if (arg == "--plot" && i + 1 < argc)
        plot = argv[++i];
      else if (arg == "--kernel-dir" && i + 1 < argc)
        kernelDir = argv[++i];
      else if (arg == "--json")
        json = true;
      else if (arg == "--progress")
        gSolver.progress = true;
      else if (arg == "--fourier-points" && i + 1 < argc)
        gSolver.fourierPoints = static_cast<int>(tensorium_cli::parseInteger("--fourier-points", argv[++i], 1, 100000));
      else if (arg == "--memory-estimate")
        memoryEstimateOnly = true;
      else if (arg == "--preconditioner" && i + 1 < argc)
        gSolver.preconditioner = parsePreconditioner(argv[++i]);
      else
        return usage(("unknown or incomplete option '" + arg + "'").c_str());
    }
    if (!plot.empty())
      tensorium_cli::requireWritableOutput("--plot", plot);
    if (!plot.empty() && csv.empty())
      csv = plot + ".csv";
    if (!csv.empty())
      tensorium_cli::requireWritableOutput("--csv", csv);
    if (!junit.empty())
      tensorium_cli::requireWritableOutput("--junit", junit);
  } catch (const std::exception &e) {
    return usage(e.what());
  }
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
      return usage("--plot draws manufactured-solution errors; use --csv for the two-puncture study");
    if (configuration != "boosted" && configuration != "spinning" && configuration != "both")
      return usage(("unknown configuration '" + configuration + "' (boosted, spinning, both)").c_str());
    if (memoryEstimateOnly) {
      std::printf("estimated peak memory: %.0f bytes\n", twoPunctureStudyMemory(study));
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
    return usage(("unknown suite '" + suiteName + "'").c_str());
  {
    const int unknownsPerPoint = suite->unknowns.empty() ? 1 : static_cast<int>(suite->unknowns.size());
    const bool dense = gSolver.preconditioner == elliptic::SpectralPreconditionerKind::None;
    const double estimate =
        manufacturedMemoryEstimate(resolutions.back(), unknownsPerPoint, gSolver.fourierPoints, dense);
    if (memoryEstimateOnly) {
      std::printf("estimated peak memory: %.0f bytes\n", estimate);
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
