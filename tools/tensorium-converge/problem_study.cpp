#include "problem_study.h"

#include "module_toolchain.h"
#include "output_paths.h"

#include "tensorium_mlir/Verification/ProblemStudy.h"

#include <iostream>

using namespace tensorium_mlir;

int runProblemStudy(const verification::StudyFile &study, const ProblemStudyOutputs &outputs) {
  const std::string &junit = outputs.junit, &csv = outputs.csv;
  const bool progress = outputs.progress;
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
    std::cerr << "tensorium-converge: error: " << e.what() << "\n";
    return 2;
  }
  std::cout << report.text.str();
  if (!junit.empty() &&
      !tensorium_cli::writeFileAtomically(junit, verification::junitXml(study.name, report.verdicts, report.text.str()))) {
    std::cerr << "tensorium-converge: error: cannot write '" << junit << "'\n";
    return 1;
  }
  if (!csv.empty() && !tensorium_cli::writeFileAtomically(csv, report.csv.str())) {
    std::cerr << "tensorium-converge: error: cannot write '" << csv << "'\n";
    return 1;
  }
  return report.pass() ? 0 : 1;
}
