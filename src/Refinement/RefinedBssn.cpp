#include "tensorium_mlir/Refinement/RefinedBssn.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tensorium_mlir::refinement {

const Block *blockHolding(const RefinedEvolution &e, const std::array<double, 3> &x) {
  const ForestSpec &s = e.options().forest;
  for (const Block &k : e.blocks()) {
    const std::array<double, 3> lo = k.leaf.lowerRoot();
    const double w = k.leaf.widthRoot();
    bool inside = true;
    for (int a = 0; a < 3; ++a) {
      const double r = (x[a] - s.lower[a]) / s.rootWidth;
      inside = inside && r >= lo[a] && r < lo[a] + w;
    }
    if (inside)
      return &k;
  }
  return nullptr;
}


distributed::StorageLattice blockLattice(const Block &b) {
  distributed::StorageLattice l;
  l.extent = {b.extent(), b.extent(), b.extent()};
  l.origin = b.lower; // Block::coordinate's own formula: lower + i h, i from -ghost
  l.offset = {-b.ghost, -b.ghost, -b.ghost};
  l.spacing = {b.spacing, b.spacing, b.spacing};
  return l;
}

void installBssnHooks(RefinedEvolution &e, const distributed::BssnFloors &floors, distributed::ConformalMetricForm form) {
  if (!(floors.chi >= 0) || !(floors.lapse >= 0))
    throw RefinementError("the chi and lapse floors must be non-negative numbers");
  for (const char *name : distributed::kBssnFields)
    e.field(name); // refuses a module that does not evolve every BSSN field
  e.setPreRhsHook([form](runtime::UniformGridStorage &s, const Block &) { distributed::computeInverseConformalMetric(s, form); });
  e.setPostStepHook([floors, form](Block &k) {
    const size_t N = static_cast<size_t>(k.extent() * k.extent() * k.extent());
    double *gt = k.storage->buffer("gammatilde").data(), *At = k.storage->buffer("Atilde").data();
    double *chi = k.storage->buffer("chi").data(), *alpha = k.storage->buffer("alpha").data();
    for (int i = 0; i < k.n; ++i)
      for (int j = 0; j < k.n; ++j)
        for (int z = 0; z < k.n; ++z) {
          const size_t p = k.index(i, j, z);
          double g[9], a[9];
          for (size_t c = 0; c < 9; ++c)
            g[c] = gt[c * N + p], a[c] = At[c * N + p];
          distributed::imposeBssnAlgebraicConstraints(g, a, form);
          for (size_t c = 0; c < 9; ++c)
            gt[c * N + p] = g[c], At[c * N + p] = a[c];
          // A value above its floor stays as it is; NaN is left for the finite check.
          if (floors.chi > 0 && chi[p] < floors.chi)
            chi[p] = floors.chi;
          if (floors.lapse > 0 && alpha[p] < floors.lapse)
            alpha[p] = floors.lapse;
        }
  });
}

std::vector<std::vector<double>> interpolateField(RefinedEvolution &e, const std::string &field,
                                                  const std::vector<unsigned> &components,
                                                  const std::vector<std::array<double, 3>> &points) {
  const EvolvedField &f = e.field(field);
  for (unsigned c : components)
    if (c >= f.components)
      throw RefinementError("field '" + field + "' has " + std::to_string(f.components) + " components, not " +
                            std::to_string(c + 1));
  const ForestSpec &s = e.options().forest;
  const std::array<double, 3> upper = s.upper();
  for (const auto &x : points)
    for (int a = 0; a < 3; ++a)
      if (!(x[a] >= s.lower[a] && x[a] < upper[a]))
        throw RefinementError("interpolation at a point outside the domain (or not finite)");
  e.fillGhosts(); // once for every component and point
  // Per point: the values and a 1 from the rank whose block holds it, zeros elsewhere (exact sums).
  const size_t stride = components.size() + 1;
  std::vector<double> partial(stride * points.size(), 0.0), total(partial.size(), 0.0);
  for (size_t q = 0; q < points.size(); ++q) {
    const auto &x = points[q];
    if (const Block *holder = blockHolding(e, x)) {
      const Block &k = *holder;
      int first[3];
      double weights[3][8];
      for (int a = 0; a < 3; ++a) {
        const double u = (x[a] - k.lower[a]) / k.spacing; // interior node index
        first[a] = std::clamp(static_cast<int>(std::floor(u)) - 1, -k.ghost, k.n + k.ghost - 4);
        lagrangeWeightsAt(u, first[a], 4, weights[a]);
      }
      const size_t N = static_cast<size_t>(k.extent() * k.extent() * k.extent());
      for (size_t c = 0; c < components.size(); ++c) {
        const double *u = std::as_const(*k.storage).buffer(field).data() + components[c] * N;
        double sum = 0;
        for (int a = 0; a < 4; ++a)
          for (int b = 0; b < 4; ++b)
            for (int d = 0; d < 4; ++d)
              sum += weights[0][a] * weights[1][b] * weights[2][d] * u[k.index(first[0] + a, first[1] + b, first[2] + d)];
        partial[stride * q + c] = sum;
      }
      partial[stride * q + components.size()] = 1;
    }
  }
  MPI_Allreduce(partial.data(), total.data(), static_cast<int>(partial.size()), MPI_DOUBLE, MPI_SUM, e.forest().comm());
  std::vector<std::vector<double>> out(components.size(), std::vector<double>(points.size()));
  for (size_t q = 0; q < points.size(); ++q) {
    if (total[stride * q + components.size()] != 1)
      throw RefinementError("internal: " + std::to_string(total[stride * q + components.size()]) +
                            " blocks hold an interpolation point");
    for (size_t c = 0; c < components.size(); ++c)
      out[c][q] = total[stride * q + c];
  }
  return out;
}


horizons::GeometrySampler refinedSliceGeometry(RefinedEvolution &e, int nodes) {
  if (nodes != 4 && nodes != 6)
    throw RefinementError("horizon interpolation takes 4 or 6 nodes per axis");
  if (e.options().ghostWidth < nodes / 2)
    throw RefinementError("horizon interpolation with " + std::to_string(nodes) + " nodes needs a ghost width of at least " +
                          std::to_string(nodes / 2));
  for (const char *name : {"chi", "gammatilde", "Atilde", "K"})
    (void)e.field(name); // a system without them is refused now
  if (e.field("gammatilde").components != 9 || e.field("Atilde").components != 9)
    throw RefinementError("horizons need gammatilde and Atilde stored with 9 components");
  e.fillGhosts();
  return [&e, nodes](std::span<const horizons::Point3> points, std::span<horizons::SpatialGeometry> out) {
    const ForestSpec &s = e.options().forest;
    const std::array<double, 3> upper = s.upper();
    const int below = nodes / 2 - 1;
    const size_t np = points.size(), K = distributed::kSliceValues;
    // Per point the values and a 1 from the rank whose block holds it (exact sums).
    std::vector<double> local(np * (K + 1), 0.0), sum(local.size(), 0.0);
    for (size_t p = 0; p < np; ++p) {
      const std::array<double, 3> x{points[p][0], points[p][1], points[p][2]};
      for (int a = 0; a < 3; ++a)
        if (!(x[a] >= s.lower[a] && x[a] < upper[a])) {
          char text[160];
          std::snprintf(text, sizeof text, "the point (%.4g, %.4g, %.4g) is outside the domain", x[0], x[1], x[2]);
          throw horizons::GeometryDomainError(text);
        }
      const Block *k = blockHolding(e, x);
      if (!k)
        continue;
      int base[3];
      double w[3][6], dw[3][6];
      for (int a = 0; a < 3; ++a) {
        const double u = (x[a] - k->lower[a]) / k->spacing; // interior node index
        base[a] = static_cast<int>(std::floor(u));
        horizons::lagrangeWeights(nodes, u - base[a], w[a], dw[a]);
        for (int i = 0; i < nodes; ++i)
          dw[a][i] /= k->spacing;
      }
      const distributed::SliceBuffers buffers = distributed::sliceBuffers(std::as_const(*k->storage));
      double *v = &local[p * (K + 1)];
      for (int a = 0; a < nodes; ++a)
        for (int b = 0; b < nodes; ++b)
          for (int c = 0; c < nodes; ++c) {
            const double wv = w[0][a] * w[1][b] * w[2][c];
            const double wd[3] = {dw[0][a] * w[1][b] * w[2][c], w[0][a] * dw[1][b] * w[2][c], w[0][a] * w[1][b] * dw[2][c]};
            distributed::addSliceSample(buffers, k->index(base[0] + a - below, base[1] + b - below, base[2] + c - below),
                                        wv, wd, v);
          }
      v[K] = 1;
    }
    MPI_Allreduce(local.data(), sum.data(), static_cast<int>(sum.size()), MPI_DOUBLE, MPI_SUM, e.forest().comm());
    for (size_t p = 0; p < np; ++p) {
      if (sum[p * (K + 1) + K] != 1)
        throw RefinementError("internal: " + std::to_string(sum[p * (K + 1) + K]) + " blocks hold a horizon point");
      distributed::sliceGeometryFromValues(&sum[p * (K + 1)], points[p], out[p]);
    }
  };
}

std::vector<std::array<double, 3>> RefinedPunctureTracker::velocities(RefinedEvolution &e,
                                                                      const std::vector<std::array<double, 3>> &x) const {
  const std::vector<std::vector<double>> beta = interpolateField(e, "beta", {0, 1, 2}, x);
  std::vector<std::array<double, 3>> v(x.size());
  for (size_t q = 0; q < x.size(); ++q)
    v[q] = {-beta[0][q], -beta[1][q], -beta[2][q]};
  return v;
}

void RefinedPunctureTracker::sampleBefore(RefinedEvolution &e) {
  before_ = positions_.empty() ? std::vector<std::array<double, 3>>{} : velocities(e, positions_);
}

void RefinedPunctureTracker::advance(RefinedEvolution &e, double dt) {
  if (positions_.empty())
    return;
  std::vector<std::array<double, 3>> predicted = positions_;
  for (size_t q = 0; q < predicted.size(); ++q)
    for (int a = 0; a < 3; ++a)
      predicted[q][a] += dt * before_[q][a];
  const std::vector<std::array<double, 3>> after = velocities(e, predicted);
  for (size_t q = 0; q < positions_.size(); ++q)
    for (int a = 0; a < 3; ++a)
      positions_[q][a] += 0.5 * dt * (before_[q][a] + after[q][a]);
}

std::vector<RefinementRegion> regionsAround(const std::vector<std::array<double, 3>> &points,
                                            const std::vector<double> &radii) {
  std::vector<RefinementRegion> out;
  for (const auto &p : points)
    for (size_t l = 0; l < radii.size(); ++l)
      out.push_back({p, radii[l], static_cast<int>(l) + 1});
  return out;
}

} // namespace tensorium_mlir::refinement
