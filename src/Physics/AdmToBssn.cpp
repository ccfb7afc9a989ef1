#include "tensorium_mlir/Physics/AdmToBssn.h"

#include <cmath>

namespace tensorium_mlir::physics {

double invert3x3(const Matrix3 &m, Matrix3 &inv) {
  auto a = [&](int r, int c) { return m[static_cast<size_t>(3 * r + c)]; };
  const double det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
                     a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
  inv[0] = (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) / det;
  inv[1] = (a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2)) / det;
  inv[2] = (a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1)) / det;
  inv[3] = (a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2)) / det;
  inv[4] = (a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0)) / det;
  inv[5] = (a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2)) / det;
  inv[6] = (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0)) / det;
  inv[7] = (a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1)) / det;
  inv[8] = (a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0)) / det;
  return det;
}

BssnPointValues bssnFromAdm(const Matrix3 &gamma, const Matrix3 *Kij) {
  BssnPointValues v;
  v.determinant = invert3x3(gamma, v.gammaInverse);
  v.chi = std::cbrt(1 / v.determinant);
  for (size_t c = 0; c < 9; ++c) {
    v.gammatilde[c] = v.chi * gamma[c];
    v.gammatildeInverse[c] = v.gammaInverse[c] / v.chi;
  }
  if (!Kij)
    return v;
  for (size_t c = 0; c < 9; ++c)
    v.K += v.gammaInverse[c] * (*Kij)[c];
  for (size_t c = 0; c < 9; ++c)
    v.Atilde[c] = v.chi * ((*Kij)[c] - gamma[c] * v.K / 3);
  return v;
}

} // namespace tensorium_mlir::physics
