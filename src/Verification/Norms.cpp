#include "tensorium_mlir/Verification/Norms.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tensorium_mlir::verification {

double allMax(double v, MPI_Comm comm) {
  double out = v;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

Norms weightedNorms(std::span<const double> values, std::span<const double> mask, MPI_Comm comm, bool sqrtOf) {
  if (values.size() != mask.size())
    throw std::invalid_argument("norm of " + std::to_string(values.size()) + " values with a mask of " +
                                std::to_string(mask.size()) + " points");
  double local[3] = {0, 0, 0}, total[3]; // sum w v^2, sum w, count
  double localMax = 0, nanLocal = 0;
  for (size_t p = 0; p < mask.size(); ++p)
    if (mask[p] > 0) {
      const double v = sqrtOf ? std::sqrt(std::max(values[p], 0.0)) : std::abs(values[p]);
      local[0] += mask[p] * v * v;
      local[1] += mask[p];
      local[2] += 1;
      // A NaN must survive the maximum (std::max drops it; MPI_MAX of NaN is unspecified).
      if (std::isnan(v))
        nanLocal = 1;
      else
        localMax = std::max(localMax, mask[p] * v);
    }
  MPI_Allreduce(local, total, 3, MPI_DOUBLE, MPI_SUM, comm);
  Norms out;
  const double nanAny = allMax(nanLocal, comm);
  out.max = nanAny > 0 ? std::nan("") : allMax(localMax, comm);
  out.count = static_cast<size_t>(total[2]);
  out.l2 = total[1] > 0 ? std::sqrt(total[0] / total[1]) : 0.0;
  return out;
}

Mask operator*(Mask a, const Mask &b) {
  if (a.size() != b.size())
    throw std::invalid_argument("product of masks of different sizes");
  for (size_t p = 0; p < a.size(); ++p)
    a[p] *= b[p];
  return a;
}

double smoothStep(double t) {
  if (t <= 0)
    return 0;
  if (t >= 1)
    return 1;
  const double a = std::exp(-1 / t), b = std::exp(-1 / (1 - t));
  return a / (a + b);
}

double NormRegion::axisWeight(size_t a, double x) const {
  const double d = std::abs(x - centre[a]);
  return taper > 0 ? smoothStep((box - d) / taper) : (d <= box ? 1 : 0);
}

double NormRegion::weight(const std::array<double, 3> &x) const {
  double w = 1;
  for (size_t a = 0; a < 3; ++a)
    w *= axisWeight(a, x[a]);
  for (const auto &c : excisionCentres) {
    const double r = std::hypot(x[0] - c[0], x[1] - c[1], x[2] - c[2]);
    w *= rise > 0 ? smoothStep((r - excision) / rise) : (r > excision ? 1 : 0);
  }
  return w;
}

bool NormRegion::holdsPointOf(const Grid &g) const {
  // The box factor is a product over axes: its index ranges come from one pass per axis. Along
  // z, each excision ball removes one interval per (i, j); a point survives next to the ends of
  // those intervals or of the range if anywhere, so a few candidates per (i, j), checked with
  // weight() itself, decide: O(n^2) instead of a scan of every point.
  int lo[3], hi[3];
  for (size_t a = 0; a < 3; ++a) {
    lo[a] = g.n[a];
    hi[a] = -1;
    for (int i = 0; i < g.n[a]; ++i)
      if (axisWeight(a, g.lo[a] + (g.offset[a] + i) * g.h[a]) > 0) {
        lo[a] = std::min(lo[a], i);
        hi[a] = i;
      }
    if (hi[a] < lo[a])
      return false;
  }
  std::vector<int> candidates;
  for (int i = lo[0]; i <= hi[0]; ++i)
    for (int j = lo[1]; j <= hi[1]; ++j) {
      const std::array<double, 3> p = g.at(i, j, 0);
      candidates.assign({lo[2], hi[2]});
      for (const auto &c : excisionCentres) {
        const double reach2 = excision * excision - (p[0] - c[0]) * (p[0] - c[0]) - (p[1] - c[1]) * (p[1] - c[1]);
        if (reach2 < 0)
          continue;
        const double reach = std::sqrt(reach2);
        for (double end : {c[2] - reach, c[2] + reach}) {
          const double index = (end - g.lo[2]) / g.h[2] - g.offset[2];
          if (!(std::abs(index) < 1e9))
            continue;
          const int k = static_cast<int>(std::floor(index));
          for (int d = -2; d <= 2; ++d)
            candidates.push_back(std::clamp(k + d, lo[2], hi[2]));
        }
      }
      for (int k : candidates)
        if (weight(g.at(i, j, k)) > 0)
          return true;
    }
  return false;
}

Mask NormRegion::mask(const Grid &g) const {
  Mask m(g.points(), 0.0);
  for (int i = 0; i < g.n[0]; ++i)
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k)
        m[g.index(i, j, k)] = weight(g.at(i, j, k));
  return m;
}

} // namespace tensorium_mlir::verification
