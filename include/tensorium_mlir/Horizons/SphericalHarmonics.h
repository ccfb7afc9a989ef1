#pragma once
// Real spherical harmonics to a band limit and the sphere grid the horizon finder works on:
// Gauss-Legendre nodes in cos(theta) times equally spaced phi. The product rule is exact for
// band-limited functions up to degree 2 thetaPoints - 1 in theta and phiPoints - 1 in phi.
#include <cstddef>
#include <vector>

namespace tensorium_mlir::horizons {

/// Coefficient index of (l, m), -l <= m <= l: l^2 + l + m. m > 0 multiplies
/// sqrt(2) N_lm P_l^m(cos theta) cos(m phi), m < 0 sqrt(2) N_l|m| P_l^|m| sin(|m| phi), m = 0
/// N_l0 P_l, orthonormal on the unit sphere.
constexpr int harmonicIndex(int l, int m) { return l * l + l + m; }
constexpr int harmonicCount(int lmax) { return (lmax + 1) * (lmax + 1); }

/// Gauss-Legendre nodes and weights on [-1, 1] (Newton on P_n from Chebyshev guesses).
void gaussLegendre(int n, std::vector<double> &nodes, std::vector<double> &weights);

/// A real harmonic and its derivatives in theta and phi at one angle.
struct HarmonicValues {
  double y = 0, dTheta = 0, dPhi = 0, dThetaTheta = 0, dThetaPhi = 0, dPhiPhi = 0;
};

/// All harmonics up to lmax at (theta, phi), 0 <= theta <= pi, in harmonicIndex order; at the
/// poles only the values (the derivatives are NaN there: use a grid off the poles).
std::vector<HarmonicValues> realHarmonics(int lmax, double theta, double phi);

/// The nodes of the product rule and, per node, every harmonic with its derivatives.
class SphereGrid {
public:
  /// thetaPoints >= lmax + 1 and phiPoints >= 2 lmax + 1 (throws std::invalid_argument).
  SphereGrid(int lmax, int thetaPoints, int phiPoints);
  int lmax() const { return lmax_; }
  int thetaPoints() const { return nTheta_; }
  int phiPoints() const { return nPhi_; }
  int nodeCount() const { return nTheta_ * nPhi_; }
  int harmonics() const { return harmonicCount(lmax_); }
  double theta(int node) const { return theta_[static_cast<std::size_t>(node / nPhi_)]; }
  double phi(int node) const { return phi_[static_cast<std::size_t>(node % nPhi_)]; }
  /// Weight of d(cos theta) d(phi): sum_nodes w f = integral of f over the unit sphere.
  double weight(int node) const { return weight_[static_cast<std::size_t>(node / nPhi_)]; }
  const HarmonicValues &basis(int node, int harmonic) const {
    return basis_[static_cast<std::size_t>(node) * static_cast<std::size_t>(harmonics()) + static_cast<std::size_t>(harmonic)];
  }
  /// Sum over the coefficients of `field` of the harmonics and their derivatives at a node.
  HarmonicValues synthesize(const std::vector<double> &coefficients, int node) const;
  /// Coefficients of a function given at the nodes (quadrature projection).
  std::vector<double> analyze(const std::vector<double> &values) const;

private:
  int lmax_, nTheta_, nPhi_;
  std::vector<double> theta_, phi_, weight_;
  std::vector<HarmonicValues> basis_;
};

} // namespace tensorium_mlir::horizons
