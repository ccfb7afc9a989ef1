#pragma once
// Studies of kind "problem" (docs/studies.md): a problem declared in a .tn file solved at several
// resolutions, judged by the self-convergence of its solution (successive differences falling
// geometrically down to a tolerance) and, where the program declares exact solutions, by the
// error against them.
#include "tensorium_mlir/Runtime/KernelModule.h"
#include "tensorium_mlir/Verification/Report.h"
#include "tensorium_mlir/Verification/StudyFile.h"

#include <ostream>

namespace tensorium_mlir::verification {

/// Runs the study on `module` (its fixture compiled): the table goes to report.text, its rows to
/// report.csv, the verdicts to the report; solver progress to `progress` when not null. Throws
/// StudyFileError naming the study-file key for a study that cannot run (an unknown parameter,
/// a finest grid beyond the memory), std::exception for a failed run.
void runProblemStudy(const StudyFile &study, const runtime::KernelModule &module, std::ostream *progress,
                     Report &report);

} // namespace tensorium_mlir::verification
