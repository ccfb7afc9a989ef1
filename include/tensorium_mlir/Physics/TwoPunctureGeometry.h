#pragma once
// The compact two-puncture domain of Ansorg, Bruegmann and Tichy (PRD 70, 064011, 2004):
// punctures at x = +-b, A in [0,1], B in [-1,1], phi in [0, 2 pi):
//   x   = b (A^2 + 1)/(A^2 - 1) * 2B/(1 + B^2)
//   rho = b 2A/(1 - A^2) * (1 - B^2)/(1 + B^2),   y = rho cos(phi),  z = rho sin(phi).
// With A = tanh(alpha/2), B = tan(beta/2) this is x + i rho = -b sin(beta - i alpha), which gives
// the analytic inverse through the complex arcsine (no root finding).
#include <array>

namespace tensorium_mlir::physics {

class TwoPunctureGeometry {
public:
  /// Throws std::invalid_argument unless b > 0 and finite.
  explicit TwoPunctureGeometry(double b);
  double b() const { return b_; }

  /// (A, B, phi) -> (x, y, z). A = 1 is spatial infinity (not representable).
  std::array<double, 3> toCartesian(const std::array<double, 3> &q) const;
  /// (x, y, z) -> (A, B, phi) with phi in [0, 2 pi).
  std::array<double, 3> toCompact(const std::array<double, 3> &x) const;

  /// Chain rule: replaces the logical bundle (value, d/dA, d/dB, d/dphi, second derivatives in
  /// the slot order AA, AB, Aphi, BB, Bphi, phiphi) by Cartesian derivatives (x, y, z; xx, xy,
  /// xz, yy, yz, zz) at the logical point q. Needs rho > 0 (0 < A < 1, |B| < 1): the axis is a
  /// coordinate singularity of the map, which Gauss (interior) collocation points avoid.
  void toCartesianBundle(const std::array<double, 3> &q, std::array<double, 10> &bundle) const;

  /// Row weight that brings the flat Laplacian back to logical units: the reciprocal of the sum
  /// of its principal coefficients |grad A|^2 + |grad B|^2 + |grad phi|^2
  /// = ((1 - A^2)^2 + (1 + B^2)^2) / (4 h^2) + 1 / rho^2, with h^2 = b^2 (cos^2 beta + sinh^2 alpha)
  /// the scale factor of the conformal (alpha, beta) coordinates. Every weighted second-derivative
  /// coefficient then lies in [0, 1], so the residual's round-off floor is set by the logical
  /// derivatives alone: the raw Cartesian rows grow without bound towards the punctures and the
  /// axis, where the weight vanishes.
  double residualScale(const std::array<double, 3> &q) const;

private:
  double b_;
};

} // namespace tensorium_mlir::physics
