#pragma once
// One study file from load to report, for every kind tensorium-verify runs: the key checks, the
// fixtures' modules and their checks, the memory the largest grid needs (all before any work,
// as located StudyFileErrors), then the run into a Report that the tool only prints.
#include "tensorium_mlir/Verification/Cases.h"
#include "tensorium_mlir/Verification/ConstraintStudy.h"
#include "tensorium_mlir/Verification/EvolutionStudy.h"
#include "tensorium_mlir/Verification/FormulationTestbeds.h"
#include "tensorium_mlir/Verification/Report.h"
#include "tensorium_mlir/Verification/SpacetimeCheck.h"
#include "tensorium_mlir/Verification/StudyFile.h"
#include "tensorium_mlir/Verification/SystemStudy.h"

#include <mpi.h>

#include <functional>
#include <string>

namespace tensorium_mlir::verification {

/// The path of the kernel module of a fixture at a finite-difference order (0: as written);
/// throws std::exception with the compiler's message. Collective when it compiles.
using ModuleSource = std::function<std::string(const std::string &fixture, int order)>;

struct PreparedStudy {
  StudyFile study;
  ConstraintStudy constraints;
  SpacetimeStudy spacetime;
  EvolutionStudy evolution;
  SystemStudy system;
};

/// Checks everything a study needs before it runs; throws StudyFileError located at the key.
/// The memory check uses rank 0's view of the machine on `comm`.
PreparedStudy prepareStudy(StudyFile study, const ModuleSource &modules, MPI_Comm comm);

/// Runs a prepared study (configureCases() first); run errors throw.
void runStudy(const PreparedStudy &prepared, Report &report);

} // namespace tensorium_mlir::verification
