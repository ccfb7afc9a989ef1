#include "two_puncture_study.h"
#include "output_paths.h"

#include "tensorium_mlir/Runtime/KernelModule.h"
#include "tensorium_mlir/Verification/TwoPunctureStudy.h"

#include <iostream>

using namespace tensorium_mlir;

namespace {
verification::TwoPunctureStudySettings settingsOf(const TwoPunctureStudyOptions &options) {
  verification::TwoPunctureStudySettings s;
  s.resolutions = options.resolutions;
  s.configuration = options.configuration;
  s.fourierPoints = options.fourierPoints;
  s.log = &std::cerr;
  s.progress = options.progress ? &std::cerr : nullptr;
  return s;
}
} // namespace

int runTwoPunctureStudy(const TwoPunctureStudyOptions &options) {
  verification::Report report;
  try {
    const runtime::KernelModule module(options.modulePath);
    verification::runTwoPunctureStudy(settingsOf(options), module, report);
  } catch (const std::exception &e) {
    std::cerr << "tensorium-converge: error: " << e.what() << "\n";
    return 1;
  }
  if (options.json) {
    std::cout << "{\"suite\": \"two-puncture\", \"configurations\": [";
    for (size_t i = 0; i < report.json.size(); ++i)
      std::cout << (i ? ", " : "") << report.json[i];
    std::cout << "], \"pass\": " << (report.pass() ? "true" : "false") << "}\n";
  } else {
    std::cout << report.text.str();
  }
  if (!options.csv.empty() && !tensorium_cli::writeFileAtomically(options.csv, report.csv.str())) {
    std::cerr << "tensorium-converge: error: cannot write '" << options.csv << "'\n";
    return 1;
  }
  if (!options.junit.empty() &&
      !tensorium_cli::writeFileAtomically(options.junit,
                                          verification::junitXml(options.name, report.verdicts, report.text.str()))) {
    std::cerr << "tensorium-converge: error: cannot write '" << options.junit << "'\n";
    return 1;
  }
  return report.pass() ? 0 : 1;
}

double twoPunctureStudyMemory(const TwoPunctureStudyOptions &options) {
  return verification::twoPunctureStudyMemory(settingsOf(options));
}
