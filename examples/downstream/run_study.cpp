// The installed study library (Tensorium::studies) running a study file of kind "system": the
// fixture it names is compiled at run time by the installed Tensorium_cc, evolved at three
// resolutions and judged against its own exact solution. Prints the report on rank 0, writes
// the verdicts as JUnit XML, and exits 0 when every verdict passes, 1 when one fails, 2 for a
// study file it cannot run. Usage: run_study STUDY.toml JUNIT.xml [key=value ...] (overrides
// of the study's keys, as tensorium-verify --set).
#include "tensorium_mlir/Distributed/ModuleCatalog.h"
#include "tensorium_mlir/Verification/StudyRunner.h"

#include <cstdio>
#include <exception>
#include <fstream>
#include <vector>

using namespace tensorium_mlir;

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: run_study STUDY.toml JUNIT.xml [key=value ...]\n");
    return 2;
  }
  distributed::PetscSession session(&argc, &argv);
  const bool root = session.rank() == 0;
  try {
    verification::configureCases(PETSC_COMM_WORLD, ""); // no prebuilt modules: every fixture compiles
    distributed::ModuleCatalog modules(PETSC_COMM_WORLD,
                                       {{TENSORIUM_TOOLCHAIN_CC, TENSORIUM_TOOLCHAIN_C_COMPILER, TENSORIUM_TOOLCHAIN_OPENMP_LIBRARY},
                                        "", "run-study"});
    verification::PreparedStudy study;
    try {
      study = verification::prepareStudy(verification::loadStudyFile(argv[1], {argv + 3, argv + argc}),
                                         [&](const std::string &fixture, int order) { return modules.modulePath(fixture, order); },
                                         PETSC_COMM_WORLD);
    } catch (const verification::StudyFileError &e) {
      if (root)
        std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
    verification::Report report;
    verification::runStudy(study, report);
    if (root) {
      std::printf("%s", report.text.str().c_str());
      std::ofstream(argv[2]) << verification::junitXml(study.study.name, report.verdicts, report.text.str());
    }
    return report.pass() ? 0 : 1;
  } catch (const std::exception &e) {
    if (root)
      std::fprintf(stderr, "run_study: error: %s\n", e.what());
    return 1;
  }
}
