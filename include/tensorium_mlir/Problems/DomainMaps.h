#pragma once
// Coordinate maps of declared problems' domains that need more than affine axes.
#include <array>

namespace tensorium_mlir::elliptic {

/// Largest outer radius of a compactified shell: its chain rule carries r^3, and the inverse of
/// its Jacobian a determinant of r^4 sin(theta) (finite below ~1e77).
inline constexpr double kMaxCompactifiedRadius = 1e60;

/// A spherical shell r in [rInner, rOuter]: logical (s, theta, phi) with theta in (0, pi) and
/// phi in [0, 2 pi), Cartesian x = r(s) (sin theta cos phi, sin theta sin phi, cos theta).
/// Linear radius: s = r. Inverse radius (the compactified shell): s = -1/r, so that points
/// spread evenly in 1/r and a far outer radius costs a few points; multipole fields
/// r^-(l+1) Y_lm are polynomials in s there.
class SphericalShellMap {
public:
  enum class Radial { Linear, Inverse };
  /// Throws std::invalid_argument unless 0 < rInner < rOuter, both finite (and rOuter at most
  /// kMaxCompactifiedRadius for the inverse radius).
  SphericalShellMap(double rInner, double rOuter, Radial radial = Radial::Linear);
  double innerRadius() const { return rInner_; }
  double outerRadius() const { return rOuter_; }
  Radial radial() const { return radial_; }
  /// The logical radial interval [s(rInner), s(rOuter)] and the map between s and r.
  double logicalRadius(double r) const { return radial_ == Radial::Linear ? r : -1.0 / r; }
  double radius(double s) const { return radial_ == Radial::Linear ? s : -1.0 / s; }

  std::array<double, 3> toCartesian(const std::array<double, 3> &q) const;
  /// Chain rule from the logical bundle (value, d/dr, d/dtheta, d/dphi, second derivatives
  /// rr, rtheta, rphi, thetatheta, thetaphi, phiphi) to Cartesian derivatives, through the
  /// forward map's Jacobian J and Hessians H_k: grad u = J^-T u_q, and
  /// Hess u = J^-T (u_qq - sum_k (grad u)_k H_k) J^-1. Needs sin(theta) != 0 and r > 0. The
  /// logical bundle's first slot is d/ds.
  void toCartesianBundle(const std::array<double, 3> &q, std::array<double, 10> &bundle) const;

private:
  double rInner_, rOuter_;
  Radial radial_;
};

} // namespace tensorium_mlir::elliptic
