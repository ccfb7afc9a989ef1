#pragma once
// The strain h = h_+ - i h_x from Psi4 = d^2 h / dt^2 by fixed-frequency integration (Reisswig
// and Pollney 2011): in the Fourier domain h(omega) = -Psi4(omega) / max(|omega|, omega0)^2,
// which integrates twice without the secular drift of time-domain integration, at the price of
// suppressing frequencies below omega0 (choose omega0 below the signal's lowest physical
// frequency, e.g. a fraction of the initial orbital or ringdown frequency). No MLIR.
#include <complex>
#include <vector>

namespace tensorium_mlir::waves {

/// `psi4` sampled at a uniform spacing dt (> 0); omega0 > 0. Throws std::invalid_argument for an
/// empty series or bad spacing/cut-off.
std::vector<std::complex<double>> strainFromPsi4(const std::vector<std::complex<double>> &psi4, double dt, double omega0);

} // namespace tensorium_mlir::waves
