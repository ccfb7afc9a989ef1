#pragma once
// Study files (TOML, docs/studies.md): one declarative file per verification or convergence
// study. Loading checks every key before anything runs; a bad file is one located message,
// `FILE:LINE:COL: error: key 'a.b': what is wrong`, thrown as StudyFileError.
#include "tensorium_mlir/Physics/TwoPunctures.h"
#include "tensorium_mlir/Verification/Cases.h"
#include "tensorium_mlir/Verification/FormulationTestbeds.h"
#include "tensorium_mlir/Verification/Norms.h"

#include <array>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tensorium_mlir::verification {

class StudyFileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct StudyFile {
  std::string path, name, description;
  std::string kind; ///< "case" (a built-in case), "constraints", "testbed", "elliptic", "problem" or "spacetime"

  // kind = "case"
  std::string builtinCase;
  CaseOptions caseOptions;

  // kind = "constraints"
  std::string dataSource;     ///< "fixture" or "two-puncture"
  std::string dataFixture;    ///< resolved against the study file's directory
  std::vector<std::pair<std::string, double>> dataParameters; ///< by name, as written
  physics::TwoPunctureParameters punctures;
  std::string constraintsFixture;
  std::vector<int> orders;
  double halfWidth = 2.5;
  std::vector<int> resolutions;
  NormRegion region;
  int expectedOrder = 0; ///< 0: the finite-difference order
  double tolerance = 0.3;
  std::vector<std::string> quantities{"H", "M"};

  // kind = "testbed"
  TestbedStudy testbed;
  std::string testbedFixture; ///< exact-solution: the slice fixture, resolved
  std::vector<std::pair<std::string, double>> testbedParameters; ///< by name, without t

  // kind = "elliptic" (tensorium-converge): a suite with its resolutions and solver settings
  std::string suite, preconditioner, configuration;
  int fourierPoints = 0; ///< 0: the tool's default

  // kind = "problem" (tensorium-converge): a problem declared in a .tn file, solved at every
  // resolution; verdict on successive differences (each at least minRatio smaller than the
  // previous, the last below `tolerance`).
  std::string problemFixture, problemBlock;
  std::vector<std::pair<std::string, double>> problemParameters;
  double minRatio = 10.0;
  double exactTolerance = 1e-8; ///< verdict.exact_tolerance: the finest error against declared exact solutions

  // kind = "spacetime" (tensorium-verify): the 4-Ricci tensor (and box x^mu) of a metric4
  // fixture at sampled events, by finite differences at decreasing steps.
  std::string spacetimeFixture;
  std::vector<std::pair<std::string, double>> spacetimeParameters; ///< by name, without t
  bool claimsVacuum = true, claimsHarmonic = false;
  std::vector<double> sampleTimes;
  std::array<double, 3> sampleLo{}, sampleHi{};
  int sampleCount = 16;
  std::vector<std::array<double, 3>> sampleCentres;
  double sampleExcision = 0;
  std::vector<double> steps;
  int spacetimeOrder = 4;

  // kind = "evolution" (tensorium-verify): two-puncture data (punctures) evolved on three grids
  // (resolutions, halfWidth, orders[0]), compared at probe points in the region (box, excision).
  std::vector<double> evolutionTimes;
  std::string evolutionFixture; ///< evolution: the BSSN fixture, resolved ("": fixtures/gr/bssn_evolution_3d.tn)
  double cfl = 0.25, koSigma = 0.1, eta = 2.0, probeSpacing = 0.5;

  // kind = "system" (tensorium-verify): any system a fixture declares, evolved from its own
  // initial data on three grids (resolutions, halfWidth, orders[0]) to finalTime, judged against
  // its initial_data expressions at finalTime ("exact") or by self-convergence at probes ("self").
  std::string systemFixture; ///< resolved
  std::vector<std::pair<std::string, double>> systemParameters; ///< by name, as written
  std::string systemCompare = "exact";
  double finalTime = 0;

  /// "FILE:LINE:COL" of a key's value (of its table, or of the file, when the key is absent).
  std::string locate(const std::string &key) const;
  /// Throws StudyFileError located at `key`.
  [[noreturn]] void fail(const std::string &key, const std::string &message) const;

  std::map<std::string, std::string> locations; ///< dotted key -> FILE:LINE:COL
};

/// A module's parameter values in its order from the `given` name -> value pairs of table
/// `key`: a name the module lacks fails at `key.name`, a parameter without value at `key`
/// (`fixture` names the module in those messages). With `timeIndex`, the reserved t is no
/// study parameter: its slot is 0 and its index (or -1) goes to *timeIndex.
std::vector<double> parametersInModuleOrder(const StudyFile &study, const std::string &key,
                                            const std::vector<std::pair<std::string, double>> &given,
                                            const std::vector<std::string> &names, const std::string &fixture,
                                            int *timeIndex = nullptr);

/// Reads and checks a study file; `overrides` are "key=value" settings (TOML values, e.g.
/// `grid.resolutions=[33,41,49]`) applied over the file's. Throws StudyFileError.
StudyFile loadStudyFile(const std::string &path, const std::vector<std::string> &overrides = {});

} // namespace tensorium_mlir::verification
