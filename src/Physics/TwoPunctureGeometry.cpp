#include "tensorium_mlir/Physics/TwoPunctureGeometry.h"

#include <Eigen/Dense>

#include <cmath>
#include <complex>
#include <stdexcept>

namespace tensorium_mlir::physics {

namespace {

/// Hyper-dual number: value + e1 d1 + e2 d2 + e1 e2 d12, with e1^2 = e2^2 = 0. Carries exact
/// first and mixed second derivatives through arithmetic (no truncation error).
struct HyperDual {
  double v = 0, d1 = 0, d2 = 0, d12 = 0;
};
HyperDual operator+(HyperDual a, HyperDual b) { return {a.v + b.v, a.d1 + b.d1, a.d2 + b.d2, a.d12 + b.d12}; }
HyperDual operator-(HyperDual a, HyperDual b) { return {a.v - b.v, a.d1 - b.d1, a.d2 - b.d2, a.d12 - b.d12}; }
HyperDual operator*(HyperDual a, HyperDual b) {
  return {a.v * b.v, a.d1 * b.v + a.v * b.d1, a.d2 * b.v + a.v * b.d2, a.d12 * b.v + a.d1 * b.d2 + a.d2 * b.d1 + a.v * b.d12};
}
HyperDual operator*(double s, HyperDual a) { return {s * a.v, s * a.d1, s * a.d2, s * a.d12}; }
HyperDual reciprocal(HyperDual a) {
  double r = 1.0 / a.v, r2 = r * r;
  return {r, -a.d1 * r2, -a.d2 * r2, -a.d12 * r2 + 2 * a.d1 * a.d2 * r2 * r};
}
HyperDual operator/(HyperDual a, HyperDual b) { return a * reciprocal(b); }
HyperDual constant(double c) { return {c, 0, 0, 0}; }
HyperDual cosH(HyperDual a) {
  double c = std::cos(a.v), s = std::sin(a.v);
  return {c, -s * a.d1, -s * a.d2, -s * a.d12 - c * a.d1 * a.d2};
}
HyperDual sinH(HyperDual a) {
  double c = std::cos(a.v), s = std::sin(a.v);
  return {s, c * a.d1, c * a.d2, c * a.d12 - s * a.d1 * a.d2};
}

template <typename T, typename Cos, typename Sin>
std::array<T, 3> forwardMap(double b, T A, T B, T phi, T one, Cos cosf, Sin sinf) {
  T A2 = A * A, B2 = B * B;
  T x = b * ((A2 + one) / (A2 - one)) * ((2.0 * B) / (one + B2));
  T rho = b * ((2.0 * A) / (one - A2)) * ((one - B2) / (one + B2));
  return {x, rho * cosf(phi), rho * sinf(phi)};
}

} // namespace

TwoPunctureGeometry::TwoPunctureGeometry(double b) : b_(b) {
  if (!(b > 0) || !std::isfinite(b))
    throw std::invalid_argument("the puncture half-separation b must be positive and finite");
}

std::array<double, 3> TwoPunctureGeometry::toCartesian(const std::array<double, 3> &q) const {
  auto c = [](double v) { return std::cos(v); };
  auto s = [](double v) { return std::sin(v); };
  return forwardMap<double>(b_, q[0], q[1], q[2], 1.0, c, s);
}

double TwoPunctureGeometry::residualScale(const std::array<double, 3> &q) const {
  const double A = q[0], B = q[1];
  const double cosBeta = (1 - B * B) / (1 + B * B), sinhAlpha = 2 * A / (1 - A * A);
  const double h2 = b_ * b_ * (cosBeta * cosBeta + sinhAlpha * sinhAlpha);
  const double rho = b_ * sinhAlpha * cosBeta;
  const double principal = ((1 - A * A) * (1 - A * A) + (1 + B * B) * (1 + B * B)) / (4 * h2) + 1 / (rho * rho);
  return 1 / principal;
}

std::array<double, 3> TwoPunctureGeometry::toCompact(const std::array<double, 3> &x) const {
  const double rho = std::hypot(x[1], x[2]);
  // x + i rho = -b sin(beta - i alpha): the principal arcsine keeps alpha >= 0 for rho >= 0
  // (the imaginary part of the argument is -rho/b, a negative zero on the axis).
  std::complex<double> w(-x[0] / b_, -rho / b_);
  std::complex<double> s = std::asin(w);
  const double beta = s.real(), alpha = -s.imag();
  double phi = std::atan2(x[2], x[1]);
  if (phi < 0)
    phi += 2 * M_PI;
  return {std::tanh(alpha / 2), std::tan(beta / 2), phi};
}

void TwoPunctureGeometry::toCartesianBundle(const std::array<double, 3> &q, std::array<double, 10> &bundle) const {
  // Forward Jacobian J(m, a) = dx_m/dq_a and second derivatives H[m](a, c) = d2x_m/dq_a dq_c,
  // exact through hyper-dual evaluation.
  Eigen::Matrix3d J;
  std::array<Eigen::Matrix3d, 3> H;
  for (int a = 0; a < 3; ++a)
    for (int c = a; c < 3; ++c) {
      HyperDual in[3];
      for (int k = 0; k < 3; ++k)
        in[k] = constant(q[static_cast<size_t>(k)]);
      in[a].d1 = 1.0;
      in[c].d2 = 1.0;
      auto out = forwardMap<HyperDual>(b_, in[0], in[1], in[2], constant(1.0), cosH, sinH);
      for (int m = 0; m < 3; ++m) {
        H[static_cast<size_t>(m)](a, c) = H[static_cast<size_t>(m)](c, a) = out[static_cast<size_t>(m)].d12;
        if (a == c)
          J(m, a) = out[static_cast<size_t>(m)].d1;
      }
    }
  const Eigen::Matrix3d K = J.inverse(); // K(a, i) = dq_a/dx_i
  // d2 q_a / dx_i dx_j = - sum_m K(a, m) sum_{b,c} H[m](b, c) K(b, i) K(c, j)
  std::array<Eigen::Matrix3d, 3> Q;
  for (int a = 0; a < 3; ++a) {
    Eigen::Matrix3d sum = Eigen::Matrix3d::Zero();
    for (int m = 0; m < 3; ++m)
      sum += K(a, m) * (K.transpose() * H[static_cast<size_t>(m)] * K);
    Q[static_cast<size_t>(a)] = -sum;
  }
  const int second[3][3] = {{4, 5, 6}, {5, 7, 8}, {6, 8, 9}};
  Eigen::Vector3d g(bundle[1], bundle[2], bundle[3]);
  Eigen::Matrix3d Hl;
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3; ++c)
      Hl(a, c) = bundle[static_cast<size_t>(second[a][c])];
  Eigen::Vector3d gx = K.transpose() * g;
  Eigen::Matrix3d Hx = K.transpose() * Hl * K;
  for (int a = 0; a < 3; ++a)
    Hx += g(a) * Q[static_cast<size_t>(a)];
  for (int i = 0; i < 3; ++i)
    bundle[1 + static_cast<size_t>(i)] = gx(i);
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j)
      bundle[static_cast<size_t>(second[i][j])] = Hx(i, j);
}

} // namespace tensorium_mlir::physics
