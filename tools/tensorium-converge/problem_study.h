#pragma once
// Studies of kind "problem" (docs/studies.md): a problem declared in a .tn file solved at
// several resolutions, judged by the self-convergence of its solution (no exact solution
// needed): successive differences must fall geometrically down to a tolerance.
#include "tensorium_mlir/Verification/StudyFile.h"

#include <string>
#include <vector>

/// Runs the study; `args` are the command line's other options (--junit FILE, --csv FILE,
/// --progress). Returns the exit status: 0 pass, 1 fail or run error, 2 bad options or memory.
int runProblemStudy(const tensorium_mlir::verification::StudyFile &study, const std::vector<std::string> &args);
