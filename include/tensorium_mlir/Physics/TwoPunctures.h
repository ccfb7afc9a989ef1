#pragma once
// Two-puncture initial data: the puncture equation laplacian(U) + Ahat_ij Ahat^ij psi^-7 / 8 = 0
// solved on the compact (A, B, phi) domain with U = (A - 1) v, through the generated residual.
#include "tensorium_mlir/Elliptic/SpectralNewton.h"
#include "tensorium_mlir/Physics/TwoPunctureGeometry.h"

#include <array>
#include <memory>

namespace tensorium_mlir::physics {

struct TwoPunctureParameters {
  double b = 1.0;                      // punctures at x = +b (1) and x = -b (2)
  double m1 = 0.5, m2 = 0.5;           // bare masses
  std::array<double, 3> P1{}, P2{}, S1{}, S2{};
};

struct TwoPunctureOptions {
  int nA = 16, nB = 16, nPhi = 8; // Chebyshev-Gauss in A and B, Fourier in phi
  elliptic::SpectralNewtonOptions newton;
};

class TwoPunctureSolution {
public:
  const spectral::SpectralGrid3D &grid() const { return *grid_; }
  const TwoPunctureGeometry &geometry() const { return geometry_; }
  const TwoPunctureParameters &parameters() const { return params_; }
  const elliptic::Vector &v() const { return v_; }
  const elliptic::SpectralNewtonResult &result() const { return result_; }

  /// v at spatial infinity (A = 1, B = 0, phi = 0) by spectral interpolation.
  double vAtInfinity() const;
  /// ADM mass from the asymptotic value: U ~ -b v_inf / r, so M = m1 + m2 - 2 b v_inf.
  double admMass() const;
  /// U and psi at a Cartesian point (analytic inverse map, spectral interpolation).
  double U(const std::array<double, 3> &x) const;
  double psi(const std::array<double, 3> &x) const;

private:
  friend TwoPunctureSolution solveTwoPunctures(const tensorium_spectral_residual_kernel_desc *,
                                               const TwoPunctureParameters &, const TwoPunctureOptions &);
  explicit TwoPunctureSolution(const TwoPunctureParameters &p) : geometry_(p.b), params_(p) {}
  TwoPunctureGeometry geometry_;
  TwoPunctureParameters params_;
  std::shared_ptr<spectral::SpectralGrid3D> grid_;
  elliptic::Vector v_;
  elliptic::SpectralNewtonResult result_;
};

/// Solves with the generated Hamiltonian residual (fixtures/elliptic/two_puncture_hamiltonian_3d.tn:
/// params m1 m2 x1 y1 z1 x2 y2 z2 P1x..P2z S1x..S2z, unknown U). Failures are in result().
TwoPunctureSolution solveTwoPunctures(const tensorium_spectral_residual_kernel_desc *kernel,
                                      const TwoPunctureParameters &params, const TwoPunctureOptions &options);

} // namespace tensorium_mlir::physics
