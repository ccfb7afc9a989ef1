// tensorium-verify: the command-line front end of the verification cases (src/Verification).
// Every case runs unchanged under mpirun: each rank handles its part of every grid, norms are MPI
// reductions, and rank 0 reports.
#include "command_line.h"
#include "output_paths.h"
#include "module_toolchain.h"

#include "tensorium_mlir/Distributed/DistributedGrid.h"
#include "tensorium_mlir/Distributed/ModuleCatalog.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"
#include "tensorium_mlir/Verification/Cases.h"
#include "tensorium_mlir/Verification/Report.h"
#include "tensorium_mlir/Verification/StudyFile.h"
#include "tensorium_mlir/Verification/StudyRunner.h"

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

using namespace tensorium_mlir;

namespace {

MPI_Comm gComm = MPI_COMM_WORLD;
int gRank = 0;
std::string gKernelDir = TENSORIUM_BUILT_MODULES_DIR;

struct Options : verification::CaseOptions {
  std::string csv, plot, junit;
  bool json = false;
};

struct Parsed {
  Options options;
  std::string target; // a case name or a study file
  std::vector<std::string> overrides;
  bool memoryEstimateOnly = false, caseOptionGiven = false, studyOptionGiven = false;
};

/// The option table: parses and prints the help.
tensorium_cli::CommandLine commandLine(Parsed &p) {
  using namespace tensorium_cli;
  std::string cases;
  for (const std::string &c : verification::builtinCases())
    cases += (cases.empty() ? "" : ", ") + c;
  CommandLine cli("tensorium-verify", "CASE|STUDY.toml [options]   (mpirun -n N for N ranks)");
  cli.operands("case or study file", [&p](const std::string &w) { p.target = w; }, 1, 1)
      .group("cases (" + cases + ")")
      .option("--orders", "P,...", "finite-difference orders, each 2, 4 or 6 (default 4)",
              [&p](const std::string &v) {
                p.options.orders.clear();
                for (long o : parseIntegers("--orders", v, 2, 6, 1, 3)) {
                  if (o % 2)
                    throw UsageError("orders are 2, 4 or 6");
                  p.options.orders.push_back(static_cast<int>(o));
                }
                p.caseOptionGiven = true;
              })
      .option("--resolutions", "n1,n2,...", "grid points per side, increasing (default: the case's)",
              [&p](const std::string &v) {
                p.options.resolutions.clear();
                // The range keeps n^3 in range; memory decides what runs.
                for (long n : parseIntegers("--resolutions", v, 9, 2000, 1, 32))
                  p.options.resolutions.push_back(static_cast<int>(n));
                p.caseOptionGiven = true;
              })
      .flag("--memory-estimate", "print the estimated peak memory and exit",
            [&p] { p.memoryEstimateOnly = p.caseOptionGiven = true; })
      .group("study files")
      .option("--set", "key=value", "override a key of the study file (repeatable)",
              [&p](const std::string &v) { p.overrides.push_back(v), p.studyOptionGiven = true; })
      .flag("--full", "testbeds at their published length (1000 crossing times)",
            [&p] { p.overrides.push_back("testbed.crossing_times=1000"), p.studyOptionGiven = true; })
      .group("output (both)")
      .option("--csv", "F.csv", "the table as CSV", [&p](const std::string &v) { p.options.csv = v; })
      .option("--plot", "F.png", "a plot of the table (and its CSV beside it)",
              [&p](const std::string &v) { p.options.plot = v; })
      .option("--junit", "F.xml", "the verdicts as a JUnit report", [&p](const std::string &v) { p.options.junit = v; })
      .flag("--json", "the report as JSON on standard output", [&p] { p.options.json = true; })
      .option("--kernel-dir", "DIR", "prebuilt kernel modules (default: the build's)",
              [](const std::string &v) { gKernelDir = v; })
      .notes("Units: G = c = 1; masses and lengths in the units of the case (docs/conventions.md).\n"
             "Exit status: 0 every verdict passed, 1 a verdict failed or a run error, 2 bad arguments,\n"
             "an empty norm region or not enough memory (checked before any work).");
  return cli;
}


/// Runs `body`, then prints the report (text or JSON) and writes the CSV, the plot and the
/// JUnit XML file asked for. Exit status 0 when every verdict passed, else 1.
int runAndReport(const std::string &name, const Options &o, const std::function<void(verification::Report &)> &body) {
  verification::Report report;
  // Constraint rows: L2 and max of H and |M| with observed orders; kasner rows: steps, the max
  // error twice, its order, and max |H| at the start and the end.
  report.csv << "label,order,n,h,count,first_l2,first_max,first_order,second_l2,second_max,second_order\n";
  try {
    body(report);
  } catch (const std::exception &e) {
    std::cerr << "tensorium-verify: error: " << e.what() << "\n";
    // A run error is a failed test case of the JUnit report too.
    report.verdict("run", false, std::string("run error: ") + e.what());
    if (gRank == 0 && !o.junit.empty())
      tensorium_cli::writeFileAtomically(o.junit, verification::junitXml(name, report.verdicts, report.text.str()));
    return 1;
  }
  if (gRank == 0 && !o.junit.empty()) {
    if (!tensorium_cli::writeFileAtomically(o.junit, verification::junitXml(name, report.verdicts, report.text.str()))) {
      std::cerr << "tensorium-verify: error: cannot write '" << o.junit << "'\n";
      return 1;
    }
  }
  if (o.json) {
    std::cout << "{\"case\": \"" << name << "\", \"pass\": " << (report.pass() ? "true" : "false") << ", \"rows\": [";
    for (size_t i = 0; i < report.json.size(); ++i)
      std::cout << (i ? ", " : "") << report.json[i];
    std::cout << "], \"verdicts\": [";
    for (size_t i = 0; i < report.verdicts.size(); ++i) {
      const verification::Verdict &v = report.verdicts[i];
      std::cout << (i ? ", " : "") << "{\"name\": " << verification::jsonString(v.name)
                << ", \"pass\": " << (v.pass ? "true" : "false") << ", \"message\": " << verification::jsonString(v.message)
                << "}";
    }
    std::cout << "]}\n";
  } else {
    std::cout << report.text.str();
  }
  if (gRank != 0)
    return report.pass() ? 0 : 1;
  if (!o.csv.empty() && !tensorium_cli::writeFileAtomically(o.csv, report.csv.str())) {
    std::cerr << "tensorium-verify: error: cannot write '" << o.csv << "'\n";
    return 1;
  }
  if (!o.plot.empty()) {
    const std::string partial = tensorium_cli::partialName(o.plot);
    std::string command = std::string("'") + TENSORIUM_PLOT_PYTHON + "' '" + TENSORIUM_VERIFY_PLOT_SCRIPT + "' '" + o.csv +
                          "' '" + partial + "' '" + name + "'";
    if (std::system(command.c_str()) != 0 || std::rename(partial.c_str(), o.plot.c_str()) != 0) {
      std::remove(partial.c_str());
      std::cerr << "tensorium-verify: error: plotting failed (needs " << TENSORIUM_PLOT_PYTHON << " with matplotlib)\n";
      return 1;
    }
    std::cerr << "wrote " << o.plot << "\n";
  }
  return report.pass() ? 0 : 1;
}

/// A study file: its key checks, the fixtures' modules and their checks come before any work
/// (exit status 2 with one located message); then the study runs like a case.
int runStudyFile(const std::string &file, Options &o, const std::vector<std::string> &overrides) {
  verification::configureCases(gComm, gKernelDir);
  distributed::ModuleCatalog modules(
      gComm, {tensorium_cli::moduleToolchain(), tensorium_cli::builtModuleList(gKernelDir), "tensorium-verify"});
  verification::PreparedStudy prepared;
  try {
    prepared = verification::prepareStudy(verification::loadStudyFile(file, overrides),
                                          [&](const std::string &fixture, int order) { return modules.modulePath(fixture, order); },
                                          gComm);
  } catch (const verification::StudyFileError &e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  return runAndReport(prepared.study.name, o,
                      [&](verification::Report &report) { verification::runStudy(prepared, report); });
}

} // namespace

int run(int argc, char **argv);

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      Parsed p;
      std::cout << commandLine(p).help();
      return 0;
    }
  std::unique_ptr<distributed::PetscSession> session;
  try {
    session = std::make_unique<distributed::PetscSession>(&argc, &argv);
  } catch (const std::exception &e) {
    std::cerr << "tensorium-verify: error: " << e.what() << "\n";
    return 1;
  }
  gComm = PETSC_COMM_WORLD;
  gRank = session->rank();
  // Other ranks compute their parts and stay silent; rank 0 prints and writes every file.
  if (gRank != 0) {
    std::cout.setstate(std::ios::failbit);
    std::cerr.setstate(std::ios::failbit);
  }
  return run(argc, argv);
}

int run(int argc, char **argv) {
  Parsed p;
  const tensorium_cli::CommandLine cli = commandLine(p);
  Options &o = p.options;
  const std::string &name = p.target;
  bool studyFile = false;
  try {
    if (!cli.parse(argc, argv, std::cout))
      return 0;
    studyFile = name.size() > 5 && name.substr(name.size() - 5) == ".toml";
    if (studyFile && p.caseOptionGiven)
      throw tensorium_cli::UsageError("--orders, --resolutions and --memory-estimate apply to cases; a study file "
                                      "sets them itself (override with --set)");
    if (!studyFile && p.studyOptionGiven)
      throw tensorium_cli::UsageError("--set and --full apply to study files");
    if (!studyFile && !verification::isBuiltinCase(name))
      throw tensorium_cli::UsageError(tensorium_cli::unknownName("case", name, verification::builtinCases()));
    if (!studyFile) {
      const bool evolution = name == "kasner-evolution" || name == "flat-evolution";
      if (!evolution && !o.resolutions.empty() && o.resolutions.size() < 3)
        throw tensorium_cli::UsageError("constraint cases need at least three resolutions");
      if (name == "kasner-evolution" && !o.resolutions.empty() && o.resolutions.size() < 2)
        throw tensorium_cli::UsageError("kasner-evolution needs at least two resolutions to measure an order");
      for (size_t i = 1; i < o.resolutions.size(); ++i)
        if (o.resolutions[i] <= o.resolutions[i - 1])
          throw tensorium_cli::UsageError("resolutions must increase");
    }
    tensorium_cli::requireWritableReportOutputs(o.csv, o.plot, o.junit);
  } catch (const std::invalid_argument &e) { // usage errors, and unwritable outputs
    return cli.usageError(e.what(), std::cerr);
  }
  if (studyFile)
    return runStudyFile(name, o, p.overrides);
  const bool memoryEstimateOnly = p.memoryEstimateOnly;
  // Before any work: the memory the largest resolution needs, and norm regions that hold points.
  {
    const std::vector<int> resolutions = !o.resolutions.empty() ? o.resolutions : verification::defaultResolutions(name);
    const double estimate = verification::caseMemoryEstimate(name, resolutions, o.orders);
    if (memoryEstimateOnly) {
      std::printf("estimated peak memory: %s (%.0f bytes)\n", tensorium_cli::humanBytes(estimate).c_str(), estimate);
      return 0;
    }
    try {
      // Rank 0's view of the machine decides for everybody (one answer on every rank).
      double available = runtime::availableMemoryBytes();
      MPI_Bcast(&available, 1, MPI_DOUBLE, 0, gComm);
      if (!(estimate <= available))
        throw runtime::InsufficientMemory("case " + name + " at resolution " + std::to_string(resolutions.back()),
                                          estimate, available);
      verification::checkCaseNormRegions(name, resolutions, o.orders);
    } catch (const std::exception &e) {
      std::cerr << "tensorium-verify: error: " << e.what() << "\n";
      return 2;
    }
  }

  verification::configureCases(gComm, gKernelDir);
  return runAndReport(name, o, [&](verification::Report &report) { verification::runCase(name, o, report); });
}
