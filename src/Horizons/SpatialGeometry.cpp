#include "tensorium_mlir/Horizons/SpatialGeometry.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace tensorium_mlir::horizons {
namespace {

std::string pointText(const Point3 &x) {
  char text[96];
  std::snprintf(text, sizeof text, "(%.6g, %.6g, %.6g)", x[0], x[1], x[2]);
  return text;
}

} // namespace

void lagrangeWeights(int points, double t, double *w, double *dw) {
  const int below = points / 2 - 1;
  for (int i = 0; i < points; ++i) {
    double value = 1, derivative = 0;
    for (int j = 0; j < points; ++j) {
      if (j == i)
        continue;
      // Product rule over the factors (t - x_j) / (x_i - x_j).
      const double denom = static_cast<double>(i - j), f = (t - (j - below)) / denom;
      derivative = derivative * f + value / denom;
      value *= f;
    }
    w[i] = value;
    dw[i] = derivative;
  }
}

GeometrySampler differentiatedGeometry(MetricSampler metric, double step) {
  if (!(step > 0) || !std::isfinite(step))
    throw std::invalid_argument("differentiated geometry: the step must be positive and finite");
  return [metric = std::move(metric), step](std::span<const Point3> points, std::span<SpatialGeometry> out) {
    // Centre, then +-1, +-2, +-3 steps along each axis: 19 samples per point.
    constexpr int kSamples = 19;
    constexpr double w[3] = {3.0 / 4, -3.0 / 20, 1.0 / 60}; // order-6 first derivative
    std::vector<Point3> stencil(points.size() * kSamples);
    for (size_t p = 0; p < points.size(); ++p) {
      stencil[p * kSamples] = points[p];
      for (int k = 0; k < 3; ++k)
        for (int s = 1; s <= 3; ++s)
          for (int sign = 0; sign < 2; ++sign) {
            Point3 q = points[p];
            q[static_cast<size_t>(k)] += (sign ? -s : s) * step;
            stencil[p * kSamples + 1 + static_cast<size_t>(k * 6 + (s - 1) * 2 + sign)] = q;
          }
    }
    std::vector<Sym3> gamma(stencil.size()), K(stencil.size());
    metric(stencil, gamma, K);
    for (size_t p = 0; p < points.size(); ++p) {
      SpatialGeometry &g = out[p];
      g.gamma = gamma[p * kSamples];
      g.K = K[p * kSamples];
      for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 6; ++c) {
          double d = 0;
          for (int s = 1; s <= 3; ++s) {
            const size_t plus = p * kSamples + 1 + static_cast<size_t>(k * 6 + (s - 1) * 2);
            d += w[s - 1] * (gamma[plus][static_cast<size_t>(c)] - gamma[plus + 1][static_cast<size_t>(c)]);
          }
          g.dgamma[static_cast<size_t>(k)][static_cast<size_t>(c)] = d / step;
        }
    }
  };
}

GeometrySampler conformallyFlatGeometry(ConformalFactor factor) {
  return [factor = std::move(factor)](std::span<const Point3> points, std::span<SpatialGeometry> out) {
    for (size_t p = 0; p < points.size(); ++p) {
      double psi = 1;
      Point3 grad{};
      SpatialGeometry &g = out[p];
      factor(points[p], psi, grad, g.K);
      const double psi4 = psi * psi * psi * psi, dpsi4 = 4 * psi * psi * psi;
      g.gamma = {psi4, 0, 0, psi4, 0, psi4};
      for (size_t k = 0; k < 3; ++k) {
        const double d = dpsi4 * grad[k];
        g.dgamma[k] = {d, 0, 0, d, 0, d};
      }
    }
  };
}

GeometrySampler brillLindquistGeometry(std::vector<Puncture> punctures) {
  if (punctures.empty())
    throw std::invalid_argument("Brill-Lindquist data need at least one puncture");
  for (const Puncture &p : punctures)
    if (!(p.mass > 0) || !std::isfinite(p.mass) || !std::isfinite(p.position[0]) || !std::isfinite(p.position[1]) ||
        !std::isfinite(p.position[2]))
      throw std::invalid_argument("Brill-Lindquist data: every mass must be positive and every position finite");
  return conformallyFlatGeometry([punctures](const Point3 &x, double &psi, Point3 &grad, Sym3 &K) {
    psi = 1;
    grad = {0, 0, 0};
    K = {};
    for (const Puncture &p : punctures) {
      const Point3 d = {x[0] - p.position[0], x[1] - p.position[1], x[2] - p.position[2]};
      const double r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      if (!(r > 0))
        throw GeometryDomainError("Brill-Lindquist data are singular at the puncture " + pointText(p.position));
      psi += p.mass / (2 * r);
      for (size_t k = 0; k < 3; ++k)
        grad[k] -= p.mass * d[k] / (2 * r * r * r);
    }
  });
}

void UniformGridData::validate() const {
  for (size_t a = 0; a < 3; ++a) {
    if (n[a] < 1)
      throw std::invalid_argument("grid data: every dimension needs at least one point");
    if (!(spacing[a] > 0) || !std::isfinite(spacing[a]) || !std::isfinite(origin[a]))
      throw std::invalid_argument("grid data: spacings must be positive and origins finite");
  }
  const size_t points = static_cast<size_t>(n[0]) * static_cast<size_t>(n[1]) * static_cast<size_t>(n[2]);
  for (size_t c = 0; c < 6; ++c)
    if (gamma[c].size() != points || K[c].size() != points)
      throw std::invalid_argument("grid data: component " + std::to_string(c) + " of gamma_ij or K_ij has " +
                                  std::to_string(gamma[c].size()) + " / " + std::to_string(K[c].size()) +
                                  " values for " + std::to_string(points) + " points");
}

std::shared_ptr<UniformGridData> sampleOnGrid(const MetricSampler &metric, int n, double lo, double hi) {
  if (n < 2 || n > 2048 || !(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi))
    throw std::invalid_argument("grid sampling needs 2 <= n <= 2048 points per direction and lo < hi");
  auto d = std::make_shared<UniformGridData>();
  const double h = (hi - lo) / (n - 1);
  d->n = {n, n, n};
  d->origin = {lo, lo, lo};
  d->spacing = {h, h, h};
  const size_t plane = static_cast<size_t>(n) * static_cast<size_t>(n), points = plane * static_cast<size_t>(n);
  for (size_t c = 0; c < 6; ++c)
    d->gamma[c].resize(points), d->K[c].resize(points);
  // One plane of z at a time keeps the sampler's batches bounded.
  std::vector<Point3> xs(plane);
  std::vector<Sym3> gamma(plane), K(plane);
  for (int k = 0; k < n; ++k) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        xs[static_cast<size_t>(i + n * j)] = {lo + i * h, lo + j * h, lo + k * h};
    metric(xs, gamma, K);
    for (size_t p = 0; p < plane; ++p)
      for (size_t c = 0; c < 6; ++c) {
        d->gamma[c][static_cast<size_t>(k) * plane + p] = gamma[p][c];
        d->K[c][static_cast<size_t>(k) * plane + p] = K[p][c];
      }
  }
  return d;
}

GeometrySampler interpolatedGeometry(std::shared_ptr<const UniformGridData> data, int points) {
  if (!data)
    throw std::invalid_argument("interpolated geometry: no grid data");
  data->validate();
  if (points != 4 && points != 6)
    throw std::invalid_argument("interpolated geometry: Lagrange interpolation takes 4 or 6 points per direction, got " +
                                std::to_string(points));
  return [data, points](std::span<const Point3> xs, std::span<SpatialGeometry> out) {
    const UniformGridData &d = *data;
    const int half = points / 2;
    for (size_t p = 0; p < xs.size(); ++p) {
      // Per direction: the first node of the stencil and the Lagrange weights (and their
      // derivatives) of the nodes first .. first + points - 1 at the point.
      int first[3];
      double w[3][6], dw[3][6];
      for (int a = 0; a < 3; ++a) {
        const double s = (xs[p][static_cast<size_t>(a)] - d.origin[static_cast<size_t>(a)]) / d.spacing[static_cast<size_t>(a)];
        if (!std::isfinite(s))
          throw GeometryDomainError("interpolation at a point that is not finite");
        const int cell = static_cast<int>(std::floor(s));
        first[a] = cell - half + 1;
        if (first[a] < 0 || first[a] + points > d.n[static_cast<size_t>(a)])
          throw GeometryDomainError("the point " + pointText(xs[p]) + " is too close to the edge of the grid data for " +
                                    std::to_string(points) + "-point interpolation");
        lagrangeWeights(points, s - cell, w[a], dw[a]);
        for (int i = 0; i < points; ++i)
          dw[a][i] /= d.spacing[static_cast<size_t>(a)];
      }
      SpatialGeometry &g = out[p];
      g = {};
      for (int k = 0; k < points; ++k)
        for (int j = 0; j < points; ++j) {
          const double wyz = w[1][j] * w[2][k], dyz = dw[1][j] * w[2][k], ydz = w[1][j] * dw[2][k];
          const size_t row = static_cast<size_t>(first[0]) +
                             static_cast<size_t>(d.n[0]) * (static_cast<size_t>(first[1] + j) +
                                                            static_cast<size_t>(d.n[1]) * static_cast<size_t>(first[2] + k));
          for (int i = 0; i < points; ++i) {
            const size_t index = row + static_cast<size_t>(i);
            const double wv = w[0][i] * wyz, wx = dw[0][i] * wyz, wy = w[0][i] * dyz, wz = w[0][i] * ydz;
            for (size_t c = 0; c < 6; ++c) {
              const double gv = d.gamma[c][index];
              g.gamma[c] += wv * gv;
              g.dgamma[0][c] += wx * gv;
              g.dgamma[1][c] += wy * gv;
              g.dgamma[2][c] += wz * gv;
              g.K[c] += wv * d.K[c][index];
            }
          }
        }
    }
  };
}

} // namespace tensorium_mlir::horizons
