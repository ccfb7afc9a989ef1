#pragma once
// The two-puncture resolution study (tensorium-converge two-puncture): the spectral two-puncture
// problem for boosted and spinning data at increasing resolutions; no closed-form solution
// exists, so exponential convergence is judged from the differences between successive
// resolutions (the ADM mass and U at fixed probes).
#include "tensorium_mlir/Runtime/KernelModule.h"
#include "tensorium_mlir/Verification/Report.h"

#include <ostream>
#include <string>
#include <vector>

namespace tensorium_mlir::verification {

struct TwoPunctureStudySettings {
  std::vector<int> resolutions{12, 16, 24, 32, 40}; ///< points in A and in B, increasing
  std::string configuration = "both";              ///< boosted, spinning or both
  int fourierPoints = 0;                           ///< 0: n / 2 rounded up to even, at least 4
  std::ostream *log = nullptr;                     ///< one line per solve, when not null
  std::ostream *progress = nullptr;                ///< Newton-Krylov progress, when not null
};

/// Peak memory of the study's largest solve.
double twoPunctureStudyMemory(const TwoPunctureStudySettings &settings);

/// Runs the study with the two-puncture residual `module`: the tables and verdict lines go to
/// report.text, the rows to report.csv, one JSON object per configuration to report.json and one
/// verdict per configuration to report.verdicts. Throws std::exception on a run error.
void runTwoPunctureStudy(const TwoPunctureStudySettings &settings, const runtime::KernelModule &module, Report &report);

} // namespace tensorium_mlir::verification
