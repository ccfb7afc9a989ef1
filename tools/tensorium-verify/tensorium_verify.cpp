// tensorium-verify: the command-line front end of the verification cases (src/Verification).
// Every case runs unchanged under mpirun: each rank handles its part of every grid, norms are MPI
// reductions, and rank 0 reports.
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

/// The options both forms share (outputs and the kernel directory); false for any other.
bool outputOption(const std::string &arg, const std::string &value, Options &o) {
  if (arg == "--csv")
    o.csv = value;
  else if (arg == "--plot")
    o.plot = value;
  else if (arg == "--junit")
    o.junit = value;
  else if (arg == "--kernel-dir")
    gKernelDir = value;
  else
    return false;
  return true;
}

/// Output files must be writable before any work; --plot implies a CSV beside it.
void checkOutputs(Options &o) {
  if (!o.plot.empty())
    tensorium_cli::requireWritableOutput("--plot", o.plot);
  if (!o.plot.empty() && o.csv.empty())
    o.csv = o.plot + ".csv";
  if (!o.csv.empty())
    tensorium_cli::requireWritableOutput("--csv", o.csv);
  if (!o.junit.empty())
    tensorium_cli::requireWritableOutput("--junit", o.junit);
}

const char *kUsage = "usage: tensorium-verify STUDY.toml [--set key=value]... [--full] [--csv F] [--json] [--junit F.xml]\n"
                     "       tensorium-verify CASE [--orders 2,4,6] [--resolutions n1,n2,...] [--csv F] [--plot F.png]\n"
                     "                        [--json] [--junit F.xml] [--kernel-dir DIR]\n"
                     "cases: two-puncture-boosted, two-puncture-spinning, brill-lindquist, schwarzschild-isotropic,\n"
                     "       kasner-evolution, flat-evolution\n"
                     "                        [--memory-estimate]\n"
                     "Exit status: 0 every verdict passed, 1 a verdict failed or a run error, 2 bad arguments,\n"
                     "an empty norm region or not enough memory (checked before any work).\n";


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
int runStudyFile(int argc, char **argv) {
  const std::string file = argv[1];
  Options o;
  std::vector<std::string> overrides;
  try {
    for (int i = 2; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--json") {
        o.json = true;
        continue;
      }
      if (arg == "--full") { // the testbeds' published length
        overrides.push_back("testbed.crossing_times=1000");
        continue;
      }
      if (i + 1 >= argc)
        throw std::invalid_argument("unknown option or missing value: '" + arg + "'");
      const std::string value = argv[++i];
      if (arg == "--set")
        overrides.push_back(value);
      else if (!outputOption(arg, value, o))
        throw std::invalid_argument("unknown option '" + arg + "'");
    }
    checkOutputs(o);
  } catch (const std::invalid_argument &e) {
    std::cerr << "tensorium-verify: error: " << e.what() << "\n" << kUsage;
    return 2;
  }
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
      std::cout << kUsage;
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
  if (argc < 2) {
    std::cerr << "tensorium-verify: error: no case given\n" << kUsage;
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h") {
    std::cout << kUsage;
    return 0;
  }
  if (name.size() > 5 && name.substr(name.size() - 5) == ".toml")
    return runStudyFile(argc, argv);
  Options o;
  bool memoryEstimateOnly = false;
  try {
    for (int i = 2; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--json") {
        o.json = true;
        continue;
      }
      if (arg == "--memory-estimate") {
        memoryEstimateOnly = true;
        continue;
      }
      if (i + 1 >= argc)
        throw std::invalid_argument("unknown option or missing value: '" + arg + "'");
      std::string value = argv[++i];
      if (arg == "--orders") {
        o.orders.clear();
        for (long p : tensorium_cli::parseIntegers("--orders", value, 2, 6, 1, 3)) {
          if (p % 2)
            throw std::invalid_argument("orders are 2, 4 or 6");
          o.orders.push_back(static_cast<int>(p));
        }
      } else if (arg == "--resolutions") {
        o.resolutions.clear();
        // The range keeps n^3 in range; memory decides what runs.
        for (long n : tensorium_cli::parseIntegers("--resolutions", value, 9, 2000, 1, 32))
          o.resolutions.push_back(static_cast<int>(n));
      } else if (!outputOption(arg, value, o))
        throw std::invalid_argument("unknown option '" + arg + "'");
    }
    const bool evolution = name == "kasner-evolution" || name == "flat-evolution";
    if (!evolution && !o.resolutions.empty() && o.resolutions.size() < 3)
      throw std::invalid_argument("constraint cases need at least three resolutions");
    if (name == "kasner-evolution" && !o.resolutions.empty() && o.resolutions.size() < 2)
      throw std::invalid_argument("kasner-evolution needs at least two resolutions to measure an order");
    for (size_t i = 1; i < o.resolutions.size(); ++i)
      if (o.resolutions[i] <= o.resolutions[i - 1])
        throw std::invalid_argument("resolutions must increase");
    checkOutputs(o);
  } catch (const std::invalid_argument &e) {
    std::cerr << "tensorium-verify: error: " << e.what() << "\n" << kUsage;
    return 2;
  }
  // Before any work: the memory the largest resolution needs, and norm regions that hold points.
  {
    if (!verification::isBuiltinCase(name)) {
      std::cerr << "tensorium-verify: error: unknown case '" << name << "'\n" << kUsage;
      return 2;
    }
    const std::vector<int> resolutions = !o.resolutions.empty() ? o.resolutions : verification::defaultResolutions(name);
    const double estimate = verification::caseMemoryEstimate(name, resolutions, o.orders);
    if (memoryEstimateOnly) {
      std::printf("estimated peak memory: %.0f bytes\n", estimate);
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
