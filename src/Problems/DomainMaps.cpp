#include "tensorium_mlir/Problems/DomainMaps.h"

#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>

namespace tensorium_mlir::elliptic {

SphericalShellMap::SphericalShellMap(double rInner, double rOuter, Radial radial)
    : rInner_(rInner), rOuter_(rOuter), radial_(radial) {
  if (!(std::isfinite(rInner) && std::isfinite(rOuter) && rInner > 0 && rOuter > rInner))
    throw std::invalid_argument("a spherical shell needs 0 < inner radius < outer radius, both finite");
  // The compactified chain rule carries dr/ds = r^2 and d2r/ds2 = 2 r^3, and inverting its
  // Jacobian a determinant r^4 sin(theta): all must stay finite and non-zero.
  if (radial == Radial::Inverse && !(rOuter <= kMaxCompactifiedRadius))
    throw std::invalid_argument("a compactified shell's outer radius must not exceed 1e60 (the chain rule carries r^4)");
}

std::array<double, 3> SphericalShellMap::toCartesian(const std::array<double, 3> &q) const {
  const double r = radius(q[0]), st = std::sin(q[1]), ct = std::cos(q[1]), sp = std::sin(q[2]), cp = std::cos(q[2]);
  return {r * st * cp, r * st * sp, r * ct};
}

void SphericalShellMap::toCartesianBundle(const std::array<double, 3> &q, std::array<double, 10> &bundle) const {
  const double r = radius(q[0]), st = std::sin(q[1]), ct = std::cos(q[1]), sp = std::sin(q[2]), cp = std::cos(q[2]);
  // dr/ds and d2r/ds2: 1 and 0 for the linear radius; r^2 and 2 r^3 for s = -1/r.
  const double dr = radial_ == Radial::Linear ? 1.0 : r * r, ddr = radial_ == Radial::Linear ? 0.0 : 2.0 * r * r * r;
  // Unit radial vector e and its angular derivatives; x = r e(theta, phi).
  const Eigen::Vector3d e(st * cp, st * sp, ct), eT(ct * cp, ct * sp, -st), eP(-st * sp, st * cp, 0.0),
      eTP(-ct * sp, ct * cp, 0.0), ePP(-st * cp, -st * sp, 0.0);
  Eigen::Matrix3d J; // J(i, a) = d x_i / d q_a
  J.col(0) = dr * e;
  J.col(1) = r * eT;
  J.col(2) = r * eP;
  // Second derivatives d^2 x / dq_a dq_b as vectors (ss = r'' e, s theta = r' e_theta, ...).
  Eigen::Vector3d second[3][3];
  second[0][0] = ddr * e;
  second[0][1] = second[1][0] = dr * eT;
  second[0][2] = second[2][0] = dr * eP;
  second[1][1] = -r * e;
  second[1][2] = second[2][1] = r * eTP;
  second[2][2] = r * ePP;

  const Eigen::Vector3d uq(bundle[1], bundle[2], bundle[3]);
  Eigen::Matrix3d uqq;
  uqq << bundle[4], bundle[5], bundle[6], bundle[5], bundle[7], bundle[8], bundle[6], bundle[8], bundle[9];
  const Eigen::Matrix3d Jinv = J.inverse();
  const Eigen::Vector3d grad = Jinv.transpose() * uq;
  Eigen::Matrix3d m = uqq;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      m(a, b) -= grad.dot(second[a][b]);
  const Eigen::Matrix3d hess = Jinv.transpose() * m * Jinv;
  bundle[1] = grad(0);
  bundle[2] = grad(1);
  bundle[3] = grad(2);
  bundle[4] = hess(0, 0);
  bundle[5] = hess(0, 1);
  bundle[6] = hess(0, 2);
  bundle[7] = hess(1, 1);
  bundle[8] = hess(1, 2);
  bundle[9] = hess(2, 2);
}

} // namespace tensorium_mlir::elliptic
