#pragma once
// Spin-weighted spherical harmonics sY_lm (Goldberg et al. 1967, the convention of numerical-
// relativity wave extraction: -2Y_22 = sqrt(5 / 64 pi) (1 + cos theta)^2 e^{2 i phi}) and the
// projection of a spin-weighted function given on a sphere grid onto them. No MLIR.
#include <complex>
#include <vector>

namespace tensorium_mlir::waves {

/// sY_lm(theta, phi) for |s| <= l, |m| <= l (zero otherwise).
std::complex<double> spinWeightedHarmonic(int s, int l, int m, double theta, double phi);

/// Gauss-Legendre nodes in cos(theta) times equally spaced phi, enough for products of two
/// spin-weighted harmonics of degree <= lmax to be integrated exactly.
class SphereQuadrature {
public:
  explicit SphereQuadrature(int lmax);
  int lmax() const { return lmax_; }
  int size() const { return static_cast<int>(theta_.size()); }
  double theta(int k) const { return theta_[static_cast<size_t>(k)]; }
  double phi(int k) const { return phi_[static_cast<size_t>(k)]; }
  double weight(int k) const { return weight_[static_cast<size_t>(k)]; } ///< of dOmega

private:
  int lmax_;
  std::vector<double> theta_, phi_, weight_;
};

struct Mode {
  int l = 0, m = 0;
  std::complex<double> value;
};

/// C_lm = oint f conj(sY_lm) dOmega for |s| <= l <= lmax (quadrature.lmax() >= lmax), f given
/// at the quadrature's nodes. Ordered by l, then m from -l to l.
std::vector<Mode> projectSpinWeighted(const SphereQuadrature &quadrature, const std::vector<std::complex<double>> &f, int s,
                                      int lmax);

} // namespace tensorium_mlir::waves
