#pragma once
// The ADM -> BSSN change of variables at one point, the one every initial-data path uses:
//   chi = det(gamma)^(-1/3), gammatilde_ij = chi gamma_ij, K = gamma^ij K_ij,
//   Atilde_ij = chi (K_ij - gamma_ij K / 3).
// Gammatilde^i = -d_j gammatilde^ij needs derivatives; each caller takes them its own way
// (closed form, or finite differences at its module's order) from `gammatildeInverse`.
#include <array>

namespace tensorium_mlir::physics {

/// A 3x3 tensor stored row-major (component 3 i + j).
using Matrix3 = std::array<double, 9>;

struct BssnPointValues {
  double chi = 1, K = 0, determinant = 1;
  Matrix3 gammatilde{}, Atilde{};
  Matrix3 gammaInverse{};     // gamma^ij
  Matrix3 gammatildeInverse{}; // gammatilde^ij = gamma^ij / chi
};

/// Inverse of a 3x3 matrix by cofactors; returns its determinant (the inverse is not finite when
/// it is 0).
double invert3x3(const Matrix3 &m, Matrix3 &inverse);

/// BSSN variables at a point of ADM data; `Kij` null means K_ij = 0 (K = Atilde = 0).
BssnPointValues bssnFromAdm(const Matrix3 &gamma, const Matrix3 *Kij);

} // namespace tensorium_mlir::physics
