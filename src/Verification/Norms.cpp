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

double NormRegion::weight(const std::array<double, 3> &x) const {
  double w = 1;
  for (size_t a = 0; a < 3; ++a)
    w *= taper > 0 ? smoothStep((box - std::abs(x[a] - centre[a])) / taper) : (std::abs(x[a] - centre[a]) <= box ? 1 : 0);
  for (const auto &c : excisionCentres) {
    const double r = std::hypot(x[0] - c[0], x[1] - c[1], x[2] - c[2]);
    w *= rise > 0 ? smoothStep((r - excision) / rise) : (r > excision ? 1 : 0);
  }
  return w;
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
