#pragma once
// An evolution study: the same moving-puncture evolution of two-puncture data on three grids,
// the evolved fields compared at probe points of a region fixed in physical units (away from
// the faces and the punctures), self-convergence orders per field and time, and the ADM
// constraints over the same region.
#include "tensorium_mlir/Physics/TwoPunctures.h"
#include "tensorium_mlir/Verification/Report.h"
#include "tensorium_mlir/Verification/StudyFile.h"

#include <array>
#include <string>
#include <vector>

namespace tensorium_mlir::verification {

struct EvolutionStudy {
  std::string name, description;
  physics::TwoPunctureParameters punctures;
  std::array<int, 3> resolutions{};  ///< cell-centred points per axis, increasing
  double extent = 8;                 ///< the cube [-extent, extent]^3
  int order = 4;
  std::string module;                ///< the evolution module ("": the project's BSSN module at `order`)
  std::vector<double> times;         ///< increasing
  double cfl = 0.25, koSigma = 0.1, eta = 2;
  double box = 4;                    ///< probes and constraint norms over |x_a| <= box ...
  std::vector<std::array<double, 3>> excisionCentres;
  double excision = 0;               ///< ... outside these balls
  double probeSpacing = 0.5;
  int expectedOrder = 0;             ///< 0: the finite-difference order
  double tolerance = 0.5;
};

EvolutionStudy evolutionStudyFrom(const StudyFile &study);

/// The order p of three differences: |u1 - u2| / |u2 - u3| = (h1^p - h2^p) / (h2^p - h3^p)
/// (Richardson: u_k = u + C h_k^p), by bisection on (0, 20]; NaN when no p matches.
double selfConvergenceOrder(double d12, double d23, double h1, double h2, double h3);

/// Runs on the communicator given to configureCases(); throws std::runtime_error on a run error
/// (a non-finite field or constraint).
void runEvolutionStudy(const EvolutionStudy &study, Report &report);

} // namespace tensorium_mlir::verification
