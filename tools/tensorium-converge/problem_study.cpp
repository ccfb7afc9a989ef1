#include "problem_study.h"

#include "module_toolchain.h"
#include "output_paths.h"

#include "tensorium_mlir/Verification/ProblemStudy.h"

#include <iostream>

using namespace tensorium_mlir;

int runProblemStudy(const verification::StudyFile &study, const std::vector<std::string> &args) {
  std::string junit, csv;
  bool progress = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--junit" && i + 1 < args.size())
      junit = args[++i];
    else if (args[i] == "--csv" && i + 1 < args.size())
      csv = args[++i];
    else if (args[i] == "--progress")
      progress = true;
    else {
      std::cerr << "tensorium-converge: unknown or incomplete option '" << args[i]
                << "' for a problem study (--junit FILE, --csv FILE, --progress)\n";
      return 2;
    }
  }
  try {
    if (!junit.empty())
      tensorium_cli::requireWritableOutput("--junit", junit);
    if (!csv.empty())
      tensorium_cli::requireWritableOutput("--csv", csv);
  } catch (const std::exception &e) {
    std::cerr << "tensorium-converge: " << e.what() << "\n";
    return 2;
  }

  runtime::ScratchFolder scratch("tensorium-converge");
  verification::Report report;
  try {
    const runtime::KernelModule module(
        runtime::compileFixtureModule(study.problemFixture, scratch.path(), "problem", tensorium_cli::moduleToolchain()));
    verification::runProblemStudy(study, module, progress ? &std::cerr : nullptr, report);
  } catch (const verification::StudyFileError &e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception &e) {
    std::cerr << "tensorium-converge: " << e.what() << "\n";
    return 2;
  }
  std::cout << report.text.str();
  if (!junit.empty() &&
      !tensorium_cli::writeFileAtomically(junit, verification::junitXml(study.name, report.verdicts, report.text.str()))) {
    std::cerr << "tensorium-converge: cannot write " << junit << "\n";
    return 1;
  }
  if (!csv.empty() && !tensorium_cli::writeFileAtomically(csv, report.csv.str())) {
    std::cerr << "tensorium-converge: cannot write " << csv << "\n";
    return 1;
  }
  return report.pass() ? 0 : 1;
}
