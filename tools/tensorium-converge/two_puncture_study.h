#pragma once
// tensorium-converge's front end to the two-puncture resolution study (src/Verification/
// TwoPunctureStudy): its options, the module to load, what to print and which files to write.
#include <string>
#include <vector>

struct TwoPunctureStudyOptions {
  std::vector<int> resolutions{12, 16, 24, 32, 40}; // points in A and in B
  std::string configuration = "both";            // boosted, spinning or both
  int fourierPoints = 0;                         // 0: n / 2 rounded up to even, at least 4
  bool progress = false, json = false;
  std::string csv, junit, modulePath; ///< junit: JUnit XML of the verdicts, one per configuration
  std::string name = "two-puncture";  ///< the JUnit test suite's name
};

/// Peak memory of the study's largest solve.
double twoPunctureStudyMemory(const TwoPunctureStudyOptions &options);

/// Runs the study, prints its table (or JSON) and verdict; returns the process exit status.
int runTwoPunctureStudy(const TwoPunctureStudyOptions &options);
