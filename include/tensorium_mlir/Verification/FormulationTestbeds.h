#pragma once
// The formulation testbeds of Alcubierre et al. 2004 (CQG 21, 589) and Babiuc et al. 2008 (CQG 25,
// 125012) on a BSSN fixture with harmonic slicing and zero shift: x in [-0.5, 0.5] periodic with
// dx = 1 / (50 rho), thin (a few points) and periodic in y and z, RK4 with dt = dx / 4.
#include "tensorium_mlir/Verification/Report.h"

#include <string>
#include <vector>

namespace tensorium_mlir::verification {

struct TestbedStudy {
  std::string name, description;
  /// "robust-stability": Minkowski plus random noise of amplitude `amplitude` / rho^2 on every
  /// variable; "linear-wave": gamma_yy = 1 + b, gamma_zz = 1 - b, b = A sin(2 pi (x - t));
  /// "gauge-wave": ds^2 = H (-dt^2 + dx^2) + dy^2 + dz^2, H = 1 - A sin(2 pi (x - t));
  /// "exact-solution": the data and the exact solution at T from a slice kernel
  /// (`tensorium_init_slice_grid_affine` of a metric4 fixture with the reserved time t).
  std::string test;
  /// exact-solution: the fixture's module, its parameters in module order (the slot of t is
  /// set to the time) and the index of t among them.
  std::string dataModule;
  std::vector<double> dataParameters;
  int timeParameter = -1;
  /// The compared metric component gamma_ij as "gamma_xx", "gamma_xy", ... (default: gamma_xx
  /// for the gauge wave, gamma_yy for the linear wave).
  std::string compared;
  double amplitude = 0.01;
  std::vector<int> rhos{1, 2, 4};
  std::vector<int> orders{4};
  double crossingTimes = 1; ///< final time in crossing times of the unit domain
  double courant = 0.25;    ///< dt = courant * dx
  double koSigma = 0;       ///< Kreiss-Oliger dissipation coefficient
  bool projection = true;   ///< det gammatilde = 1, trace-free Atilde after every step
  int samples = 5;          ///< Hamiltonian constraint norms recorded per run (plus t = 0)
  /// Verdicts: the observed order of the compared component's error between the two finest
  /// rho within `tolerance` of `expectedOrder` (0: the finite-difference order); robust
  /// stability: max |H| over the run at most `growthBound` times its initial value at every
  /// rho, and no larger growth at the finest rho than at the coarsest (within a factor 2).
  int expectedOrder = 0;
  double tolerance = 0.3;
  double growthBound = 10;
  /// When positive, the wave tests judge max |error| <= errorBound * amplitude at every rho
  /// instead of the order (for runs whose error sits at double-precision round-off).
  double errorBound = 0;
  /// chi, gammatilde_ij and alpha stored as deviations from flat space (module family
  /// bssn_harmonic_deviation); the data, the projection and the compared component follow.
  bool deviation = false;
  /// Linear wave: judge the error's odd harmonics of the wave, (e(x) - e(x + 1/2)) / 2, the
  /// part of the response that is odd in the amplitude A. The nonlinear evolution also answers
  /// at even orders in A (a uniform drift and 2k harmonics, 6.6e-16 at A = 1e-8) that the
  /// linearised solution does not contain; that part does not converge away with resolution.
  bool oddHarmonics = false;
  /// The prebuilt BSSN module family (lib verify_<kind>_o<order>.so) with harmonic slicing.
  std::string moduleKind = "bssn_harmonic";
};

/// The tests this runner knows.
const std::vector<std::string> &testbedNames();

/// The buffers an exact-solution fixture's slice kernel must write; "" when `modulePath` has
/// them all, else what is missing.
std::string missingSliceOutputs(const std::string &modulePath);

/// Runs a testbed on the communicator given to configureCases(). Throws std::runtime_error on
/// a run error (a non-finite state).
void runTestbed(const TestbedStudy &study, Report &report);

} // namespace tensorium_mlir::verification
