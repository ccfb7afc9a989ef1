// Spectral collocation axes and 3-D tensor-product grids. No MLIR/LLVM dependencies.
#include "tensorium_mlir/Spectral/Spectral.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

namespace tensorium_mlir::spectral {

namespace {

constexpr double kPi = std::numbers::pi;

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void checkInterval(const char *who, int n, int minN, double a, double b) {
  if (n < minN)
    throw std::invalid_argument(std::string(who) + ": need at least " + std::to_string(minN) +
                                " points, got " + std::to_string(n));
  if (!std::isfinite(a) || !std::isfinite(b))
    throw std::invalid_argument(std::string(who) + ": interval bounds must be finite");
  if (!(b > a))
    throw std::invalid_argument(std::string(who) + ": need b > a, got [" + std::to_string(a) +
                                ", " + std::to_string(b) + "]");
}

// cos(pi * m / denom) with m reduced modulo 2*denom for accuracy.
double cosPiRatio(long long m, long long denom) {
  long long period = 2 * denom;
  m %= period;
  if (m < 0)
    m += period;
  return std::cos(kPi * static_cast<double>(m) / static_cast<double>(denom));
}

double sinPiRatio(long long m, long long denom) {
  long long period = 2 * denom;
  m %= period;
  if (m < 0)
    m += period;
  return std::sin(kPi * static_cast<double>(m) / static_cast<double>(denom));
}

} // namespace

//===----------------------------------------------------------------------===//
// SpectralAxis
//===----------------------------------------------------------------------===//

SpectralAxis SpectralAxis::chebyshev(AxisKind kind, int n, double a, double b, const char *who) {
  checkInterval(who, n, 2, a, b);
  SpectralAxis axis;
  axis.kind_ = kind;
  axis.n_ = n;
  axis.lower_ = a;
  axis.upper_ = b;
  axis.buildChebyshev(/*lobatto=*/kind == AxisKind::ChebyshevGaussLobatto);
  return axis;
}

SpectralAxis SpectralAxis::chebyshevGaussLobatto(int n, double a, double b) {
  return chebyshev(AxisKind::ChebyshevGaussLobatto, n, a, b, "SpectralAxis::chebyshevGaussLobatto");
}

SpectralAxis SpectralAxis::chebyshevGauss(int n, double a, double b) {
  return chebyshev(AxisKind::ChebyshevGauss, n, a, b, "SpectralAxis::chebyshevGauss");
}

SpectralAxis SpectralAxis::fourier(int n, double period, double origin) {
  if (n < 1)
    throw std::invalid_argument("SpectralAxis::fourier: need at least 1 point, got " +
                                std::to_string(n));
  if (!std::isfinite(period) || !std::isfinite(origin))
    throw std::invalid_argument("SpectralAxis::fourier: period and origin must be finite");
  if (!(period > 0.0))
    throw std::invalid_argument("SpectralAxis::fourier: period must be positive, got " +
                                std::to_string(period));
  SpectralAxis axis;
  axis.kind_ = AxisKind::Fourier;
  axis.n_ = n;
  axis.lower_ = origin;
  axis.upper_ = origin + period;
  axis.buildFourier();
  return axis;
}

void SpectralAxis::buildChebyshev(bool lobatto) {
  const int n = n_;
  const long long nn = n;
  const double mid = 0.5 * (lower_ + upper_);
  const double half = 0.5 * (upper_ - lower_);

  logical_.resize(n);
  points_.resize(n);
  baryWeights_.resize(n);
  // Ascending nodes written with sin() so that they are exactly antisymmetric about 0.
  for (int j = 0; j < n; ++j) {
    double t;
    if (lobatto) {
      const long long bigN = nn - 1;
      t = std::sin(kPi * static_cast<double>(2 * j - bigN) / static_cast<double>(2 * bigN));
      double delta = (j == 0 || j == n - 1) ? 0.5 : 1.0;
      baryWeights_[j] = ((j % 2) ? -1.0 : 1.0) * delta;
    } else {
      t = std::sin(kPi * static_cast<double>(2 * j + 1 - nn) / static_cast<double>(2 * nn));
      baryWeights_[j] = ((j % 2) ? -1.0 : 1.0) * sinPiRatio(2 * j + 1, 2 * nn);
    }
    logical_[j] = t;
    points_[j] = mid + half * t;
  }
  if (lobatto) {
    points_.front() = lower_;
    points_.back() = upper_;
  }

  // Logical differentiation matrices (barycentric form, negative-sum diagonal).
  Eigen::MatrixXd d1 = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    double diag = 0.0;
    for (int j = 0; j < n; ++j) {
      if (i == j)
        continue;
      double v = (baryWeights_[j] / baryWeights_[i]) / (logical_[i] - logical_[j]);
      d1(i, j) = v;
      diag -= v;
    }
    d1(i, i) = diag;
  }
  Eigen::MatrixXd d2 = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    double diag = 0.0;
    for (int j = 0; j < n; ++j) {
      if (i == j)
        continue;
      double v = 2.0 * d1(i, j) * (d1(i, i) - 1.0 / (logical_[i] - logical_[j]));
      d2(i, j) = v;
      diag -= v;
    }
    d2(i, i) = diag;
  }
  d1_ = d1 / half;
  d2_ = d2 / (half * half);

  // T_k(t_j) = cos(k theta_j) with t_j = cos(theta_j).
  synthesis_.resize(n, n);
  analysis_.resize(n, n);
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < n; ++k) {
      double tk;
      if (lobatto) {
        const long long bigN = nn - 1;
        tk = cosPiRatio(static_cast<long long>(k) * (bigN - j), bigN);
      } else {
        tk = cosPiRatio(static_cast<long long>(k) * (2 * (nn - 1 - j) + 1), 2 * nn);
      }
      synthesis_(j, k) = tk;
      if (lobatto) {
        const double bigN = static_cast<double>(n - 1);
        double gk = (k == 0 || k == n - 1) ? 2.0 : 1.0;
        double gj = (j == 0 || j == n - 1) ? 2.0 : 1.0;
        analysis_(k, j) = 2.0 / (bigN * gk * gj) * tk;
      } else {
        double gk = (k == 0) ? 2.0 : 1.0;
        analysis_(k, j) = 2.0 / (static_cast<double>(n) * gk) * tk;
      }
    }
  }
}

void SpectralAxis::buildFourier() {
  const int n = n_;
  const long long nn = n;
  const double period = upper_ - lower_;
  const bool even = (n % 2 == 0);
  const int kMax = even ? n / 2 - 1 : (n - 1) / 2;

  logical_.resize(n);
  points_.resize(n);
  for (int j = 0; j < n; ++j) {
    logical_[j] = 2.0 * kPi * static_cast<double>(j) / static_cast<double>(n);
    points_[j] = lower_ + period * static_cast<double>(j) / static_cast<double>(n);
  }

  // Modal ordering: 0 -> a0, 2k-1 -> a_k, 2k -> b_k, (even n) n-1 -> a_{n/2}.
  synthesis_.resize(n, n);
  analysis_.resize(n, n);
  for (int j = 0; j < n; ++j) {
    synthesis_(j, 0) = 1.0;
    analysis_(0, j) = 1.0 / static_cast<double>(n);
    for (int k = 1; k <= kMax; ++k) {
      // theta_j * k = 2 pi k j / n = pi (2 k j) / n
      double c = cosPiRatio(2LL * k * j, nn);
      double s = sinPiRatio(2LL * k * j, nn);
      synthesis_(j, 2 * k - 1) = c;
      synthesis_(j, 2 * k) = s;
      analysis_(2 * k - 1, j) = 2.0 / static_cast<double>(n) * c;
      analysis_(2 * k, j) = 2.0 / static_cast<double>(n) * s;
    }
    if (even) {
      double c = (j % 2) ? -1.0 : 1.0;
      synthesis_(j, n - 1) = c;
      analysis_(n - 1, j) = c / static_cast<double>(n);
    }
  }

  const double scale = 2.0 * kPi / period;
  Eigen::MatrixXd k1 = Eigen::MatrixXd::Zero(n, n);
  Eigen::MatrixXd k2 = Eigen::MatrixXd::Zero(n, n);
  for (int k = 1; k <= kMax; ++k) {
    const double kk = static_cast<double>(k);
    // d/dtheta (a cos + b sin) = (k b) cos + (-k a) sin
    k1(2 * k - 1, 2 * k) = kk;
    k1(2 * k, 2 * k - 1) = -kk;
    k2(2 * k - 1, 2 * k - 1) = -kk * kk;
    k2(2 * k, 2 * k) = -kk * kk;
  }
  if (even && n >= 2) {
    const double kn = 0.5 * static_cast<double>(n);
    k2(n - 1, n - 1) = -kn * kn;
  }
  d1_ = scale * (synthesis_ * k1 * analysis_);
  d2_ = (scale * scale) * (synthesis_ * k2 * analysis_);
  // Exact symmetries: zero diagonal for D1 (antisymmetric), D2 circulant; clean round-off on D1.
  for (int i = 0; i < n; ++i)
    d1_(i, i) = 0.0;
}

void SpectralAxis::checkValues(std::span<const double> values, const char *what) const {
  if (values.size() != static_cast<std::size_t>(n_))
    throw std::invalid_argument(std::string("SpectralAxis::") + what + ": expected " +
                                std::to_string(n_) + " values, got " +
                                std::to_string(values.size()));
}

std::vector<double> SpectralAxis::toModal(std::span<const double> values) const {
  checkValues(values, "toModal");
  Eigen::Map<const Eigen::VectorXd> u(values.data(), n_);
  std::vector<double> out(static_cast<std::size_t>(n_));
  Eigen::Map<Eigen::VectorXd>(out.data(), n_) = analysis_ * u;
  return out;
}

std::vector<double> SpectralAxis::fromModal(std::span<const double> coefficients) const {
  checkValues(coefficients, "fromModal");
  Eigen::Map<const Eigen::VectorXd> c(coefficients.data(), n_);
  std::vector<double> out(static_cast<std::size_t>(n_));
  Eigen::Map<Eigen::VectorXd>(out.data(), n_) = synthesis_ * c;
  return out;
}

std::vector<double> SpectralAxis::interpolationRow(double x) const {
  if (!std::isfinite(x))
    throw std::invalid_argument("SpectralAxis::interpolationRow: x must be finite");
  const int n = n_;
  std::vector<double> row(static_cast<std::size_t>(n), 0.0);
  for (int j = 0; j < n; ++j) {
    if (x == points_[j]) {
      row[j] = 1.0;
      return row;
    }
  }

  if (kind_ == AxisKind::Fourier) {
    const double period = upper_ - lower_;
    double r = (x - lower_) / period; // periods
    r -= std::floor(r);
    const double nodePos = r * static_cast<double>(n);
    if (nodePos == std::floor(nodePos)) {
      int j = static_cast<int>(nodePos) % n;
      row[j] = 1.0;
      return row;
    }
    const double theta = 2.0 * kPi * r;
    const bool even = (n % 2 == 0);
    const int kMax = even ? n / 2 - 1 : (n - 1) / 2;
    Eigen::VectorXd basis(n);
    basis(0) = 1.0;
    for (int k = 1; k <= kMax; ++k) {
      basis(2 * k - 1) = std::cos(k * theta);
      basis(2 * k) = std::sin(k * theta);
    }
    if (even)
      basis(n - 1) = std::cos(0.5 * static_cast<double>(n) * theta);
    Eigen::Map<Eigen::RowVectorXd>(row.data(), n) = basis.transpose() * analysis_;
    return row;
  }

  // Barycentric formula of the second kind (the affine scaling cancels).
  double denom = 0.0;
  for (int j = 0; j < n; ++j) {
    double v = baryWeights_[j] / (x - points_[j]);
    row[j] = v;
    denom += v;
  }
  for (double &v : row)
    v /= denom;
  return row;
}

double SpectralAxis::interpolate(std::span<const double> values, double x) const {
  checkValues(values, "interpolate");
  std::vector<double> row = interpolationRow(x);
  double sum = 0.0;
  for (int j = 0; j < n_; ++j)
    sum += row[j] * values[j];
  return sum;
}

//===----------------------------------------------------------------------===//
// SpectralGrid3D
//===----------------------------------------------------------------------===//

int secondDerivativeSlot(int a, int b) {
  if (a < 0 || a > 2 || b < 0 || b > 2)
    throw std::out_of_range("secondDerivativeSlot: axis out of range");
  if (a > b)
    std::swap(a, b);
  static constexpr int table[3][3] = {{DerivativeBundle::D11, DerivativeBundle::D12,
                                       DerivativeBundle::D13},
                                      {DerivativeBundle::D12, DerivativeBundle::D22,
                                       DerivativeBundle::D23},
                                      {DerivativeBundle::D13, DerivativeBundle::D23,
                                       DerivativeBundle::D33}};
  return table[a][b];
}

SpectralGrid3D::SpectralGrid3D(SpectralAxis a0, SpectralAxis a1, SpectralAxis a2)
    : axes_{{std::move(a0), std::move(a1), std::move(a2)}} {
  for (int a = 0; a < 3; ++a)
    n_[a] = axes_[a].size();
  size_ = static_cast<std::size_t>(n_[0]) * static_cast<std::size_t>(n_[1]) *
          static_cast<std::size_t>(n_[2]);
}

const SpectralAxis &SpectralGrid3D::axis(int a) const {
  if (a < 0 || a > 2)
    throw std::out_of_range("SpectralGrid3D::axis: axis " + std::to_string(a) +
                            " out of range 0..2");
  return axes_[a];
}

void SpectralGrid3D::checkValues(std::size_t got, const char *what) const {
  if (got != size_)
    throw std::invalid_argument(std::string("SpectralGrid3D::") + what + ": expected " +
                                std::to_string(size_) + " values, got " + std::to_string(got));
}

std::array<double, 3> SpectralGrid3D::logicalPoint(std::size_t flat) const {
  if (flat >= size_)
    throw std::out_of_range("SpectralGrid3D::logicalPoint: index " + std::to_string(flat) +
                            " out of range (size " + std::to_string(size_) + ")");
  const std::size_t n2 = static_cast<std::size_t>(n_[2]);
  const std::size_t n1 = static_cast<std::size_t>(n_[1]);
  std::size_t k = flat % n2;
  std::size_t j = (flat / n2) % n1;
  std::size_t i = flat / (n2 * n1);
  return {axes_[0].points()[i], axes_[1].points()[j], axes_[2].points()[k]};
}

std::array<double, 3> SpectralGrid3D::physicalPoint(std::size_t flat) const {
  std::array<double, 3> p = logicalPoint(flat);
  return coordinateMap_ ? coordinateMap_(p) : p;
}

void SpectralGrid3D::applyDerivative(int axis, int order, std::span<const double> in,
                                     std::span<double> out) const {
  if (axis < 0 || axis > 2)
    throw std::invalid_argument("SpectralGrid3D::applyDerivative: axis " + std::to_string(axis) +
                                " out of range 0..2");
  if (order != 1 && order != 2)
    throw std::invalid_argument("SpectralGrid3D::applyDerivative: order must be 1 or 2, got " +
                                std::to_string(order));
  checkValues(in.size(), "applyDerivative(in)");
  checkValues(out.size(), "applyDerivative(out)");
  if (size_ == 0)
    return;

  // Copy the input when it overlaps the output but is not identical to it.
  std::vector<double> scratch;
  const double *src = in.data();
  const double *inEnd = in.data() + in.size();
  const double *outBegin = out.data();
  const double *outEnd = out.data() + out.size();
  if (src != outBegin && src < outEnd && outBegin < inEnd) {
    scratch.assign(in.begin(), in.end());
    src = scratch.data();
  }

  const Eigen::MatrixXd &d =
      order == 1 ? axes_[axis].firstDerivative() : axes_[axis].secondDerivative();
  const Eigen::Index n0 = n_[0], n1 = n_[1], n2 = n_[2];
  if (axis == 0) {
    Eigen::Map<const RowMajorMatrix> m(src, n0, n1 * n2);
    RowMajorMatrix tmp = d * m;
    Eigen::Map<RowMajorMatrix>(out.data(), n0, n1 * n2) = tmp;
  } else if (axis == 1) {
    for (Eigen::Index i = 0; i < n0; ++i) {
      Eigen::Map<const RowMajorMatrix> m(src + i * n1 * n2, n1, n2);
      RowMajorMatrix tmp = d * m;
      Eigen::Map<RowMajorMatrix>(out.data() + i * n1 * n2, n1, n2) = tmp;
    }
  } else {
    Eigen::Map<const RowMajorMatrix> m(src, n0 * n1, n2);
    RowMajorMatrix tmp = m * d.transpose();
    Eigen::Map<RowMajorMatrix>(out.data(), n0 * n1, n2) = tmp;
  }
}

DerivativeBundle SpectralGrid3D::bundle(std::span<const double> values) const {
  checkValues(values.size(), "bundle");
  DerivativeBundle b;
  for (auto &s : b.slot)
    s.assign(size_, 0.0);
  b.slot[DerivativeBundle::Value].assign(values.begin(), values.end());
  applyDerivative(0, 1, values, b.slot[DerivativeBundle::D1]);
  applyDerivative(1, 1, values, b.slot[DerivativeBundle::D2]);
  applyDerivative(2, 1, values, b.slot[DerivativeBundle::D3]);
  applyDerivative(0, 2, values, b.slot[DerivativeBundle::D11]);
  applyDerivative(1, 2, values, b.slot[DerivativeBundle::D22]);
  applyDerivative(2, 2, values, b.slot[DerivativeBundle::D33]);
  applyDerivative(1, 1, b.slot[DerivativeBundle::D1], b.slot[DerivativeBundle::D12]);
  applyDerivative(2, 1, b.slot[DerivativeBundle::D1], b.slot[DerivativeBundle::D13]);
  applyDerivative(2, 1, b.slot[DerivativeBundle::D2], b.slot[DerivativeBundle::D23]);
  return b;
}

DerivativeBundle SpectralGrid3D::physicalBundle(std::span<const double> values) const {
  DerivativeBundle b = bundle(values);
  if (!derivativeMap_)
    return b;
  std::array<double, 10> local{};
  for (std::size_t p = 0; p < size_; ++p) {
    for (int s = 0; s < 10; ++s)
      local[s] = b.slot[s][p];
    applyDerivativeMap(p, local);
    for (int s = 0; s < 10; ++s)
      b.slot[s][p] = local[s];
  }
  return b;
}

double SpectralGrid3D::interpolate(std::span<const double> values,
                                   std::array<double, 3> logical) const {
  checkValues(values.size(), "interpolate");
  const std::vector<double> r0 = axes_[0].interpolationRow(logical[0]);
  const std::vector<double> r1 = axes_[1].interpolationRow(logical[1]);
  const std::vector<double> r2 = axes_[2].interpolationRow(logical[2]);
  double sum = 0.0;
  std::size_t flat = 0;
  for (int i = 0; i < n_[0]; ++i) {
    double si = 0.0;
    for (int j = 0; j < n_[1]; ++j) {
      double sj = 0.0;
      for (int k = 0; k < n_[2]; ++k, ++flat)
        sj += r2[k] * values[flat];
      si += r1[j] * sj;
    }
    sum += r0[i] * si;
  }
  return sum;
}

} // namespace tensorium_mlir::spectral

namespace tensorium_mlir::spectral {

void SpectralGrid3D::applyDerivativeMap(std::size_t flat, std::array<double, 10> &bundle) const {
  if (!derivativeTable_.empty()) {
    if (flat >= size_)
      throw std::out_of_range("SpectralGrid3D::applyDerivativeMap: index " + std::to_string(flat) +
                              " out of range (size " + std::to_string(size_) + ")");
    const double *m = derivativeTable_.data() + flat * 100;
    std::array<double, 10> out{};
    for (std::size_t r = 0; r < 10; ++r)
      for (std::size_t c = 0; c < 10; ++c)
        out[r] += m[r * 10 + c] * bundle[c];
    bundle = out;
  } else if (derivativeMap_) {
    derivativeMap_(logicalPoint(flat), bundle);
  }
}

void SpectralGrid3D::tabulateDerivativeMap() {
  derivativeTable_.clear();
  if (!derivativeMap_)
    return;
  std::vector<double> table(size_ * 100);
  for (std::size_t p = 0; p < size_; ++p) {
    const std::array<double, 3> q = logicalPoint(p);
    for (std::size_t c = 0; c < 10; ++c) {
      std::array<double, 10> unit{};
      unit[c] = 1.0;
      derivativeMap_(q, unit);
      for (std::size_t r = 0; r < 10; ++r) {
        // A map whose Jacobian is singular at a grid point (an axis, a coordinate at infinity)
        // would feed inf or nan into every residual row there: refuse it by name.
        if (!std::isfinite(unit[r]))
          throw std::domain_error("the coordinate map is singular at grid point " + std::to_string(p) + " (logical " +
                                  std::to_string(q[0]) + ", " + std::to_string(q[1]) + ", " + std::to_string(q[2]) +
                                  "): its chain rule is not finite there");
        table[p * 100 + r * 10 + c] = unit[r];
      }
    }
  }
  derivativeTable_ = std::move(table);
}

} // namespace tensorium_mlir::spectral
