#include "tensorium_mlir/Distributed/BssnHooks.h"

#include <cmath>

namespace tensorium_mlir::distributed {

namespace {

/// Inverse of the symmetric 3x3 matrix m (row-major), and its determinant.
double invertSymmetric(const double m[9], double inv[9]) {
  const double c00 = m[4] * m[8] - m[5] * m[7], c01 = m[2] * m[7] - m[1] * m[8], c02 = m[1] * m[5] - m[2] * m[4],
               c11 = m[0] * m[8] - m[2] * m[6], c12 = m[2] * m[3] - m[0] * m[5], c22 = m[0] * m[4] - m[1] * m[3];
  const double det = m[0] * c00 + m[1] * (m[5] * m[6] - m[3] * m[8]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
  const double r = 1.0 / det;
  const double c[9] = {c00, c01, c02, c01, c11, c12, c02, c12, c22};
  for (int a = 0; a < 9; ++a)
    inv[a] = r * c[a];
  return det;
}

constexpr bool isDiagonal(int c) { return c == 0 || c == 4 || c == 8; }

} // namespace

double conformalDeterminantMinusOne(const double h[9]) {
  const double minors = h[0] * h[4] - h[1] * h[3] + h[0] * h[8] - h[2] * h[6] + h[4] * h[8] - h[5] * h[7];
  const double det = h[0] * (h[4] * h[8] - h[5] * h[7]) - h[1] * (h[3] * h[8] - h[5] * h[6]) +
                     h[2] * (h[3] * h[7] - h[4] * h[6]);
  return h[0] + h[4] + h[8] + minors + det;
}

void computeInverseConformalMetric(runtime::UniformGridStorage &storage, ConformalMetricForm form) {
  std::span<const double> gt = std::as_const(storage).buffer("gammatilde");
  std::span<double> gu = storage.buffer("gammatildeU");
  const size_t n = storage.shape().points();
  if (gt.size() != 9 * n || gu.size() != 9 * n)
    throw DistributedError("gammatilde and gammatildeU must have 9 components per point");
  for (size_t p = 0; p < n; ++p) {
    double m[9], inv[9];
    for (size_t c = 0; c < 9; ++c)
      m[c] = gt[c * n + p];
    if (form == ConformalMetricForm::Deviation)
      m[0] += 1, m[4] += 1, m[8] += 1;
    invertSymmetric(m, inv);
    for (size_t c = 0; c < 9; ++c)
      gu[c * n + p] = inv[c];
  }
}

void imposeBssnAlgebraicConstraints(double gt[9], double at[9], ConformalMetricForm form) {
  double inv[9], full[9]; // full: the rescaled conformal metric, inv: its inverse
  if (form == ConformalMetricForm::Full) {
    const double scale = std::cbrt(1.0 / invertSymmetric(gt, inv));
    for (int c = 0; c < 9; ++c)
      full[c] = gt[c] *= scale, inv[c] /= scale;
  } else {
    const double s = std::expm1(-std::log1p(conformalDeterminantMinusOne(gt)) / 3); // det^(-1/3) - 1
    for (int c = 0; c < 9; ++c) {
      gt[c] = (1 + s) * gt[c] + (isDiagonal(c) ? s : 0.0);
      full[c] = gt[c] + (isDiagonal(c) ? 1.0 : 0.0);
    }
    invertSymmetric(full, inv);
  }
  double trace = 0;
  for (int c = 0; c < 9; ++c)
    trace += inv[c] * at[c];
  for (int c = 0; c < 9; ++c)
    at[c] -= full[c] * trace / 3;
}

DistributedEvolution::StateHook bssnAlgebraicConstraints(ConformalMetricForm form) {
  return [form](std::span<double> owned, const DistributedEvolution &e) {
    const int g = e.field("gammatilde").offset, a = e.field("Atilde").offset, dof = e.grid().dof();
    if (e.field("gammatilde").components != 9 || e.field("Atilde").components != 9)
      throw DistributedError("BSSN constraints need 9-component gammatilde and Atilde");
    for (size_t q = 0; q + static_cast<size_t>(dof) <= owned.size(); q += static_cast<size_t>(dof))
      imposeBssnAlgebraicConstraints(owned.data() + q + g, owned.data() + q + a, form);
  };
}

DistributedEvolution::StateHook bssnFloors(const BssnFloors &floors) {
  if (!(floors.chi >= 0) || !(floors.lapse >= 0))
    throw DistributedError("the chi and lapse floors must be non-negative numbers");
  return [floors](std::span<double> owned, const DistributedEvolution &e) {
    const size_t chi = static_cast<size_t>(e.field("chi").offset), alpha = static_cast<size_t>(e.field("alpha").offset),
                 dof = static_cast<size_t>(e.grid().dof());
    // A value above its floor stays as it is, bit for bit; NaN fails both tests and is left for
    // the finite check to report.
    for (size_t q = 0; q + dof <= owned.size(); q += dof) {
      if (floors.chi > 0 && owned[q + chi] < floors.chi)
        owned[q + chi] = floors.chi;
      if (floors.lapse > 0 && owned[q + alpha] < floors.lapse)
        owned[q + alpha] = floors.lapse;
    }
  };
}

} // namespace tensorium_mlir::distributed
