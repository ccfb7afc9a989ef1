#include "tensorium_mlir/Horizons/SphericalHarmonics.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

namespace tensorium_mlir::horizons {

void gaussLegendre(int n, std::vector<double> &nodes, std::vector<double> &weights) {
  if (n < 1)
    throw std::invalid_argument("gaussLegendre: need at least one node");
  nodes.assign(static_cast<size_t>(n), 0.0);
  weights.assign(static_cast<size_t>(n), 0.0);
  for (int i = 0; i < n; ++i) {
    double x = std::cos(std::numbers::pi * (i + 0.75) / (n + 0.5));
    double dp = 1;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = x;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
        p0 = p1, p1 = p2;
      }
      const double p = n == 1 ? x : p1, pm = n == 1 ? 1 : p0;
      dp = n * (x * p - pm) / (x * x - 1);
      const double dx = p / dp;
      x -= dx;
      if (std::abs(dx) < 1e-16)
        break;
    }
    nodes[static_cast<size_t>(i)] = x;
    weights[static_cast<size_t>(i)] = 2 / ((1 - x * x) * dp * dp);
  }
}

std::vector<HarmonicValues> realHarmonics(int lmax, double theta, double phi) {
  const double x = std::cos(theta), s = std::sin(theta);
  if (!(theta >= 0 && theta <= std::numbers::pi))
    throw std::invalid_argument("realHarmonics: theta must lie in [0, pi]");
  const bool pole = !(s > 0);
  std::vector<HarmonicValues> out(static_cast<size_t>(harmonicCount(lmax)));
  // Unnormalised P_l^m (no Condon-Shortley phase) by the upward recurrence in l for each m; the
  // theta derivatives from (x^2 - 1) dP/dx = l x P_l^m - (l + m) P_{l-1}^m and Legendre's equation.
  std::vector<double> P(static_cast<size_t>(lmax + 2));
  double pmm = 1; // (2m - 1)!! sin^m
  for (int m = 0; m <= lmax; ++m) {
    if (m > 0)
      pmm *= (2 * m - 1) * s;
    P[static_cast<size_t>(m)] = pmm;
    if (m + 1 <= lmax)
      P[static_cast<size_t>(m + 1)] = x * (2 * m + 1) * pmm;
    for (int l = m + 2; l <= lmax; ++l)
      P[static_cast<size_t>(l)] =
          ((2 * l - 1) * x * P[static_cast<size_t>(l - 1)] - (l + m - 1) * P[static_cast<size_t>(l - 2)]) / (l - m);
    const double cm = std::cos(m * phi), sm = std::sin(m * phi);
    for (int l = m; l <= lmax; ++l) {
      double ratio = 1; // (l - m)! / (l + m)!
      for (int k = l - m + 1; k <= l + m; ++k)
        ratio /= k;
      const double norm = std::sqrt((2 * l + 1) / (4 * std::numbers::pi) * ratio) * (m > 0 ? std::sqrt(2.0) : 1.0);
      const double p = P[static_cast<size_t>(l)], pPrev = l > m ? P[static_cast<size_t>(l - 1)] : 0.0;
      const double nan = std::numeric_limits<double>::quiet_NaN();
      const double dp = pole ? nan : (l * x * p - (l + m) * pPrev) / s;
      const double ddp = pole ? nan : -x / s * dp - (l * (l + 1) - m * m / (s * s)) * p;
      auto set = [&](int mm, double angular, double dAngular, double ddAngular) {
        HarmonicValues &v = out[static_cast<size_t>(harmonicIndex(l, mm))];
        v.y = norm * p * angular;
        v.dTheta = norm * dp * angular;
        v.dPhi = norm * p * dAngular;
        v.dThetaTheta = norm * ddp * angular;
        v.dThetaPhi = norm * dp * dAngular;
        v.dPhiPhi = norm * p * ddAngular;
      };
      set(m, cm, -m * sm, -m * m * cm);
      if (m > 0)
        set(-m, sm, m * cm, -m * m * sm);
    }
  }
  return out;
}

SphereGrid::SphereGrid(int lmax, int thetaPoints, int phiPoints) : lmax_(lmax), nTheta_(thetaPoints), nPhi_(phiPoints) {
  if (lmax < 0 || lmax > 40)
    throw std::invalid_argument("sphere grid: lmax must lie in [0, 40], got " + std::to_string(lmax));
  if (thetaPoints < lmax + 1 || phiPoints < 2 * lmax + 1)
    throw std::invalid_argument("sphere grid: lmax " + std::to_string(lmax) + " needs at least " +
                                std::to_string(lmax + 1) + " theta and " + std::to_string(2 * lmax + 1) +
                                " phi points, got " + std::to_string(thetaPoints) + " and " + std::to_string(phiPoints));
  std::vector<double> x, w;
  gaussLegendre(nTheta_, x, w);
  for (int i = 0; i < nTheta_; ++i) {
    theta_.push_back(std::acos(x[static_cast<size_t>(i)]));
    weight_.push_back(w[static_cast<size_t>(i)] * 2 * std::numbers::pi / nPhi_);
  }
  for (int j = 0; j < nPhi_; ++j)
    phi_.push_back(2 * std::numbers::pi * j / nPhi_);
  basis_.reserve(static_cast<size_t>(nodeCount()) * static_cast<size_t>(harmonics()));
  for (int node = 0; node < nodeCount(); ++node) {
    const std::vector<HarmonicValues> y = realHarmonics(lmax_, theta(node), phi(node));
    basis_.insert(basis_.end(), y.begin(), y.end());
  }
}

HarmonicValues SphereGrid::synthesize(const std::vector<double> &coefficients, int node) const {
  HarmonicValues sum;
  for (int k = 0; k < harmonics() && k < static_cast<int>(coefficients.size()); ++k) {
    const double c = coefficients[static_cast<size_t>(k)];
    const HarmonicValues &b = basis(node, k);
    sum.y += c * b.y;
    sum.dTheta += c * b.dTheta;
    sum.dPhi += c * b.dPhi;
    sum.dThetaTheta += c * b.dThetaTheta;
    sum.dThetaPhi += c * b.dThetaPhi;
    sum.dPhiPhi += c * b.dPhiPhi;
  }
  return sum;
}

std::vector<double> SphereGrid::analyze(const std::vector<double> &values) const {
  if (static_cast<int>(values.size()) != nodeCount())
    throw std::invalid_argument("sphere grid: analyze needs one value per node");
  std::vector<double> c(static_cast<size_t>(harmonics()), 0.0);
  for (int node = 0; node < nodeCount(); ++node)
    for (int k = 0; k < harmonics(); ++k)
      c[static_cast<size_t>(k)] += weight(node) * values[static_cast<size_t>(node)] * basis(node, k).y;
  return c;
}

} // namespace tensorium_mlir::horizons
