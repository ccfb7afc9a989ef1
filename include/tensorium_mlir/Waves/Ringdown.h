#pragma once
// A damped sinusoid fitted to a real time series, y(t) = A e^{-gamma (t - t0)} cos(omega (t - t0) + phi),
// by Levenberg-Marquardt (Eigen) with the closed-form Jacobian: the ringdown of a mode of Psi4,
// whose omega and gamma compare with the remnant's quasinormal frequency
// M omega_lmn = M (omega - i gamma). No MLIR.
#include <string>
#include <vector>

namespace tensorium_mlir::waves {

struct DampedSinusoid {
  double amplitude = 0, omega = 0, gamma = 0, phase = 0;
  double rmsResidual = 0; ///< relative to the RMS of the data
  int evaluations = 0;
  bool converged = false;
  std::string message;
};

/// Fits t (increasing, at least 8 samples) and y; t0 = t.front(). Starts from omegaGuess and
/// gammaGuess (> 0) and the amplitude and phase of the first samples. Throws
/// std::invalid_argument for mismatched or too short series.
DampedSinusoid fitDampedSinusoid(const std::vector<double> &t, const std::vector<double> &y, double omegaGuess,
                                 double gammaGuess);

} // namespace tensorium_mlir::waves
