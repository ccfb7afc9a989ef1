#pragma once
// The built-in verification cases (constraints after the two-puncture handoff, exact slices,
// BSSN right-hand side and evolution checks) on the generated kernels, runnable under MPI: every
// rank handles its part of every grid, norms are MPI reductions, rank 0's report is the one to
// print.
#include "tensorium_mlir/Verification/Report.h"

#include <mpi.h>

#include <string>
#include <vector>

namespace tensorium_mlir::verification {

struct CaseOptions {
  std::vector<int> orders{4};
  std::vector<int> resolutions; ///< empty: the case's defaults
  int expectedOrder = 0;        ///< the order the verdicts require; 0: each finite-difference order
  int expected(int order) const { return expectedOrder > 0 ? expectedOrder : order; }
};

/// The communicator the cases run on and the directory of their prebuilt kernel modules
/// (lib<kind>_o<order>.so); call once before running a case.
void configureCases(MPI_Comm comm, const std::string &kernelDirectory);

/// The names of the built-in cases.
const std::vector<std::string> &builtinCases();
bool isBuiltinCase(const std::string &name);
/// The resolutions a case runs when none are given.
std::vector<int> defaultResolutions(const std::string &name);
/// The smallest number of resolutions a case can judge.
size_t minimumResolutions(const std::string &name);

/// Peak memory of a case at its largest resolution (all ranks together), from the measured
/// per-point costs in docs/memory.md.
double caseMemoryEstimate(const std::string &name, const std::vector<int> &resolutions, const std::vector<int> &orders);

/// Before any work: every resolution leaves points in the norm region and no weighted stencil
/// reaches a singular puncture. Throws std::invalid_argument naming the resolution.
void checkCaseNormRegions(const std::string &name, const std::vector<int> &resolutions, const std::vector<int> &orders);

/// Runs a case; its tables and verdicts go to `report`. Throws std::runtime_error on a run
/// error and std::invalid_argument for an unknown case.
void runCase(const std::string &name, const CaseOptions &options, Report &report);

} // namespace tensorium_mlir::verification
