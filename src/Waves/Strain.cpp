#include "tensorium_mlir/Waves/Strain.h"

#include <unsupported/Eigen/FFT>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace tensorium_mlir::waves {

std::vector<std::complex<double>> strainFromPsi4(const std::vector<std::complex<double>> &psi4, double dt, double omega0) {
  if (psi4.empty())
    throw std::invalid_argument("strain: the Psi4 series is empty");
  if (!(dt > 0) || !std::isfinite(dt))
    throw std::invalid_argument("strain: the sampling interval must be positive");
  if (!(omega0 > 0) || !std::isfinite(omega0))
    throw std::invalid_argument("strain: the cut-off frequency omega0 must be positive");
  const size_t n = psi4.size();
  Eigen::FFT<double> fft;
  std::vector<std::complex<double>> spectrum, h;
  fft.fwd(spectrum, psi4);
  for (size_t k = 0; k < n; ++k) {
    // Frequencies of the discrete transform: k / (n dt) for k < n / 2, negative above.
    const double f = (k <= n / 2 ? static_cast<double>(k) : static_cast<double>(k) - static_cast<double>(n)) /
                     (static_cast<double>(n) * dt);
    const double omega = std::max(std::abs(2 * std::numbers::pi * f), omega0);
    spectrum[k] = -spectrum[k] / (omega * omega);
  }
  fft.inv(h, spectrum);
  return h;
}

} // namespace tensorium_mlir::waves
