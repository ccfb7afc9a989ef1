#pragma once
// Coordinate maps of declared problems' domains that need more than affine axes.
#include <array>

namespace tensorium_mlir::elliptic {

/// A spherical shell r in [rInner, rOuter]: logical (r, theta, phi) with theta in (0, pi) and
/// phi in [0, 2 pi), Cartesian x = r (sin theta cos phi, sin theta sin phi, cos theta).
class SphericalShellMap {
public:
  /// Throws std::invalid_argument unless 0 < rInner < rOuter, both finite.
  SphericalShellMap(double rInner, double rOuter);
  double innerRadius() const { return rInner_; }
  double outerRadius() const { return rOuter_; }

  std::array<double, 3> toCartesian(const std::array<double, 3> &q) const;
  /// Chain rule from the logical bundle (value, d/dr, d/dtheta, d/dphi, second derivatives
  /// rr, rtheta, rphi, thetatheta, thetaphi, phiphi) to Cartesian derivatives, through the
  /// forward map's Jacobian J and Hessians H_k: grad u = J^-T u_q, and
  /// Hess u = J^-T (u_qq - sum_k (grad u)_k H_k) J^-1. Needs sin(theta) != 0 and r > 0.
  void toCartesianBundle(const std::array<double, 3> &q, std::array<double, 10> &bundle) const;

private:
  double rInner_, rOuter_;
};

} // namespace tensorium_mlir::elliptic
