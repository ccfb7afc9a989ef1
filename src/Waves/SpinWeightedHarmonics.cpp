#include "tensorium_mlir/Waves/SpinWeightedHarmonics.h"
#include "tensorium_mlir/Horizons/SphericalHarmonics.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace tensorium_mlir::waves {
namespace {

double factorial(int n) {
  double f = 1;
  for (int k = 2; k <= n; ++k)
    f *= k;
  return f;
}

double binomial(int n, int k) { return k < 0 || k > n ? 0.0 : factorial(n) / (factorial(k) * factorial(n - k)); }

} // namespace

std::complex<double> spinWeightedHarmonic(int s, int l, int m, double theta, double phi) {
  if (l < std::abs(s) || std::abs(m) > l)
    return 0.0;
  const double prefactor = ((m % 2) ? -1.0 : 1.0) *
                           std::sqrt(factorial(l + m) * factorial(l - m) * (2 * l + 1) /
                                     (4 * std::numbers::pi * factorial(l + s) * factorial(l - s)));
  const double sh = std::sin(theta / 2), ch = std::cos(theta / 2);
  double sum = 0;
  for (int r = 0; r <= l - s; ++r) {
    const double c = binomial(l - s, r) * binomial(l + s, r + s - m);
    if (c == 0)
      continue;
    // sin^{2l}(theta/2) cot^{k}(theta/2) = sin^{2l-k} cos^{k}, k = 2r + s - m.
    const int k = 2 * r + s - m;
    sum += c * (((l - r - s) % 2) ? -1.0 : 1.0) * std::pow(sh, 2 * l - k) * std::pow(ch, k);
  }
  return prefactor * sum * std::complex<double>(std::cos(m * phi), std::sin(m * phi));
}

SphereQuadrature::SphereQuadrature(int lmax) : lmax_(lmax) {
  if (lmax < 0 || lmax > 30)
    throw std::invalid_argument("sphere quadrature: lmax must lie in [0, 30], got " + std::to_string(lmax));
  // Products of two harmonics of degree <= lmax have degree <= 2 lmax: lmax + 1 Gauss points
  // in cos(theta) and 2 lmax + 1 in phi are exact; one more of each for margin.
  const int nTheta = lmax + 2, nPhi = 2 * lmax + 2;
  std::vector<double> x, w;
  horizons::gaussLegendre(nTheta, x, w);
  for (int i = 0; i < nTheta; ++i)
    for (int j = 0; j < nPhi; ++j) {
      theta_.push_back(std::acos(x[static_cast<size_t>(i)]));
      phi_.push_back(2 * std::numbers::pi * j / nPhi);
      weight_.push_back(w[static_cast<size_t>(i)] * 2 * std::numbers::pi / nPhi);
    }
}

std::vector<Mode> projectSpinWeighted(const SphereQuadrature &q, const std::vector<std::complex<double>> &f, int s, int lmax) {
  if (static_cast<int>(f.size()) != q.size())
    throw std::invalid_argument("projection: one value per quadrature node is needed");
  if (lmax > q.lmax())
    throw std::invalid_argument("projection: lmax above the quadrature's");
  std::vector<Mode> modes;
  for (int l = std::abs(s); l <= lmax; ++l)
    for (int m = -l; m <= l; ++m) {
      std::complex<double> c = 0;
      for (int k = 0; k < q.size(); ++k)
        c += q.weight(k) * f[static_cast<size_t>(k)] * std::conj(spinWeightedHarmonic(s, l, m, q.theta(k), q.phi(k)));
      modes.push_back({l, m, c});
    }
  return modes;
}

} // namespace tensorium_mlir::waves
