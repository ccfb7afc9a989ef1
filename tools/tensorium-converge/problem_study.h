#pragma once
// Studies of kind "problem" (docs/studies.md): a problem declared in a .tn file solved at
// several resolutions, judged by the self-convergence of its solution (no exact solution
// needed): successive differences must fall geometrically down to a tolerance.
#include "tensorium_mlir/Verification/StudyFile.h"

#include <string>
#include <vector>

/// The command line's outputs for a problem study (--junit FILE, --csv FILE, --progress).
struct ProblemStudyOutputs {
  std::string junit, csv;
  bool progress = false;
};

/// Runs the study. Returns the exit status: 0 pass, 1 fail or run error, 2 bad input or memory.
int runProblemStudy(const tensorium_mlir::verification::StudyFile &study, const ProblemStudyOutputs &outputs);
