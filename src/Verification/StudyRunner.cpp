// Study files from load to report (see StudyRunner.h).
#include "tensorium_mlir/Verification/StudyRunner.h"

#include "tensorium_mlir/Runtime/MemoryBudget.h"

#include <algorithm>

namespace tensorium_mlir::verification {

namespace {

/// The study's largest grid must fit in the memory rank 0 sees (one answer on every rank); else
/// a located error at `key`.
void requireStudyMemory(const StudyFile &study, MPI_Comm comm, const std::string &key, double estimate) {
  double available = runtime::availableMemoryBytes();
  MPI_Bcast(&available, 1, MPI_DOUBLE, 0, comm);
  if (!(estimate <= available))
    study.fail(key, runtime::InsufficientMemory("study " + study.name, estimate, available).what());
}

} // namespace

PreparedStudy prepareStudy(StudyFile loaded, const ModuleSource &modules, MPI_Comm comm) {
  PreparedStudy out;
  out.study = std::move(loaded);
  StudyFile &study = out.study;
  if (study.kind == "case") {
      const std::vector<int> resolutions =
        !study.caseOptions.resolutions.empty() ? study.caseOptions.resolutions : defaultResolutions(study.builtinCase);
    requireStudyMemory(study, comm, "grid.resolutions",
                       caseMemoryEstimate(study.builtinCase, resolutions, study.caseOptions.orders));
    try {
      checkCaseNormRegions(study.builtinCase, resolutions, study.caseOptions.orders);
    } catch (const std::invalid_argument &e) {
      study.fail("grid.resolutions", e.what());
    }
  } else if (study.kind == "evolution") {
    out.evolution = evolutionStudyFrom(study);
    if (!study.evolutionFixture.empty()) {
      try {
        out.evolution.module = modules(study.evolutionFixture, study.orders.front());
      } catch (const std::exception &e) {
        study.fail("evolution.fixture", e.what());
      }
    }
    const double n = study.resolutions.back();
    // The evolution cases' cost per ghosted point (docs/memory.md) on the finest grid.
    requireStudyMemory(study, comm, "grid.resolutions", 35e6 + 3500 * (n + 8) * (n + 8) * (n + 8));
  } else if (study.kind == "system") {
    std::string path;
    try {
      path = modules(study.systemFixture, study.orders.front());
    } catch (const std::exception &e) {
      study.fail("system.fixture", e.what());
    }
    out.system = systemStudyFrom(study, path);
    const double n = study.resolutions.back();
    // The engine's state, RK work space and storage (about 16 vectors of every value of a
    // point), an exact-solution copy, for a dozen values per point on the finest grid.
    requireStudyMemory(study, comm, "grid.resolutions", 35e6 + 8.0 * 12 * 20 * (n + 10) * (n + 10) * (n + 10));
  } else if (study.kind == "spacetime") {
    std::string path;
    try {
      path = modules(study.spacetimeFixture, 0);
    } catch (const std::exception &e) {
      study.fail("spacetime.fixture", e.what());
    }
    out.spacetime = spacetimeStudyFrom(study, path);
  } else if (study.kind == "testbed") {
    if (!study.testbedFixture.empty()) {
      std::string path;
      try {
        path = modules(study.testbedFixture, 0);
      } catch (const std::exception &e) {
        study.fail("testbed.data_fixture", e.what());
      }
      if (const std::string missing = missingSliceOutputs(path); !missing.empty())
        study.fail("testbed.data_fixture", "fixture '" + study.testbedFixture + "' cannot serve as an exact solution: " +
                                               missing);
      study.testbed.dataModule = path;
      study.testbed.dataParameters =
          parametersInModuleOrder(study, "testbed.parameters", study.testbedParameters, moduleParameterNames(path),
                                  "the data fixture", &study.testbed.timeParameter);
    }
    // Memory: the evolution cases' cost per ghosted point (docs/memory.md) on the finest grid.
    const int rho = study.testbed.rhos.back(), order = *std::max_element(study.testbed.orders.begin(),
                                                                         study.testbed.orders.end());
    const double points = (50.0 * rho + order + 2) * (2 * order + 5) * (2 * order + 5);
    requireStudyMemory(study, comm, "testbed.rhos", 35e6 + 3500 * points);
  } else {
    out.constraints.name = study.name;
    out.constraints.description = study.description;
    out.constraints.halfWidth = study.halfWidth;
    out.constraints.resolutions = study.resolutions;
    out.constraints.region = study.region;
    out.constraints.expectedOrder = study.expectedOrder;
    out.constraints.tolerance = study.tolerance;
    out.constraints.judgeMomentum =
        std::find(study.quantities.begin(), study.quantities.end(), "M") != study.quantities.end();
    auto moduleOf = [&](const std::string &key, const std::string &fixture, int order, const std::string &role) {
      std::string path;
      try {
        path = modules(fixture, order);
      } catch (const std::exception &e) {
        study.fail(key, e.what());
      }
      if (const std::string missing = missingForRole(path, role); !missing.empty())
        study.fail(key, "fixture '" + fixture + "' cannot serve as " +
                            (role == "data" ? "exact-slice data" : "the constraints") + ": " + missing);
      return path;
    };
    for (int order : study.orders)
      out.constraints.constraintModules[order] = moduleOf("constraints.fixture", study.constraintsFixture, order, "constraints");
    if (out.constraints.judgeMomentum &&
        !moduleHasBuffer(out.constraints.constraintModules.begin()->second, "M2"))
      study.fail("verdict.quantities", "the constraints fixture has no M2 (gamma^ij M_i M_j) to compare");
    if (study.dataSource == "two-puncture") {
      out.constraints.twoPuncture = true;
      out.constraints.punctures = study.punctures;
    } else {
      out.constraints.dataModule = moduleOf("data.fixture", study.dataFixture, 0, "data");
      out.constraints.dataParameters =
          parametersInModuleOrder(study, "data.parameters", study.dataParameters,
                                  moduleParameterNames(out.constraints.dataModule), "the data fixture");
    }
    const double n = study.resolutions.back();
    // The constraint cases' measured cost per point (docs/memory.md).
    requireStudyMemory(study, comm, "grid.resolutions", 55e6 + 710 * n * n * n);
  }
  return out;
}

void runStudy(const PreparedStudy &prepared, Report &report) {
  const StudyFile &study = prepared.study;
  if (study.kind == "case")
    runCase(study.builtinCase, study.caseOptions, report);
  else if (study.kind == "testbed")
    runTestbed(study.testbed, report);
  else if (study.kind == "spacetime")
    runSpacetimeStudy(prepared.spacetime, report);
  else if (study.kind == "evolution")
    runEvolutionStudy(prepared.evolution, report);
  else if (study.kind == "system")
    runSystemStudy(prepared.system, report);
  else
    runConstraintStudy(prepared.constraints, report);
}

} // namespace tensorium_mlir::verification
