#include "tensorium_mlir/Refinement/RefinedWaves.h"

#include "tensorium_mlir/Distributed/BssnDiagnostics.h"

#include <algorithm>
#include <cmath>

namespace tensorium_mlir::refinement {

RefinedPsi4Sampler::RefinedPsi4Sampler(const RefinedEvolution &e, const distributed::KernelModuleTables &weyl,
                                       std::array<double, 3> center)
    : module_(weyl), center_(center) {
  const int64_t extent = e.options().forest.blockPoints + 2 * e.options().ghostWidth;
  storage_ = std::make_unique<runtime::GeneratedHostStorage>(module_.tables, runtime::GridShape{extent, extent, extent});
  for (const char *name : {"gamma", "gammaU", "Kij", "psi4re", "psi4im", "x", "y", "z"})
    if (!storage_->hasBuffer(name))
      throw RefinementError(std::string("the Weyl module has no buffer '") + name + "'");
  const runtime::KernelBinding &k = storage_->binding("tensorium_residual_grid_affine");
  valid_ = e.options().ghostWidth - k.stencilRadius;
  if (valid_ < 0)
    throw RefinementError("the Weyl kernel's stencil radius " + std::to_string(k.stencilRadius) +
                          " exceeds the blocks' ghost width " + std::to_string(e.options().ghostWidth));
}

RefinedPsi4Sampler::~RefinedPsi4Sampler() = default;

std::vector<double> RefinedPsi4Sampler::sample(RefinedEvolution &e, std::span<const horizons::Point3> points) {
  const size_t np = points.size();
  std::vector<std::vector<size_t>> held(e.blocks().size());
  for (size_t p = 0; p < np; ++p)
    if (const Block *k = blockHolding(e, {points[p][0], points[p][1], points[p][2]}))
      held[static_cast<size_t>(k - e.blocks().data())].push_back(p);
  // Per point Psi4 and a 1 from the rank whose block holds it (exact sums).
  std::vector<double> local(3 * np, 0.0), sum(3 * np, 0.0);
  const std::vector<double> centre(center_.begin(), center_.end());
  for (size_t b = 0; b < held.size(); ++b) {
    if (held[b].empty())
      continue;
    Block &k = e.blocks()[b];
    e.applyPreRhsHook(k); // the inverse conformal metric of this state
    distributed::admFromBssn(*k.storage, *storage_);
    std::span<double> X = storage_->buffer("x"), Y = storage_->buffer("y"), Z = storage_->buffer("z");
    for (int i = -k.ghost; i < k.n + k.ghost; ++i)
      for (int j = -k.ghost; j < k.n + k.ghost; ++j)
        for (int z = -k.ghost; z < k.n + k.ghost; ++z) {
          const size_t at = k.index(i, j, z);
          const std::array<double, 3> c = k.coordinate(i, j, z);
          X[at] = c[0], Y[at] = c[1], Z[at] = c[2];
        }
    storage_->invoke(module_.adapters, "tensorium_residual_grid_affine", centre, {k.spacing, k.spacing, k.spacing});
    const double *re = std::as_const(*storage_).buffer("psi4re").data(), *im = std::as_const(*storage_).buffer("psi4im").data();
    for (size_t p : held[b]) {
      // Cubic windows centred where they can be, inside the points where the kernel's values hold.
      int first[3];
      double w[3][8];
      for (int a = 0; a < 3; ++a) {
        const double u = (points[p][static_cast<size_t>(a)] - k.lower[a]) / k.spacing;
        first[a] = std::clamp(static_cast<int>(std::floor(u)) - 1, -valid_, k.n - 1 + valid_ - 3);
        lagrangeWeightsAt(u, first[a], 4, w[a]);
      }
      for (int a = 0; a < 4; ++a)
        for (int c = 0; c < 4; ++c)
          for (int d = 0; d < 4; ++d) {
            const size_t at = k.index(first[0] + a, first[1] + c, first[2] + d);
            const double weight = w[0][a] * w[1][c] * w[2][d];
            local[3 * p] += weight * re[at];
            local[3 * p + 1] += weight * im[at];
          }
      local[3 * p + 2] = 1;
    }
  }
  MPI_Allreduce(local.data(), sum.data(), static_cast<int>(sum.size()), MPI_DOUBLE, MPI_SUM, e.forest().comm());
  std::vector<double> out(2 * np);
  for (size_t p = 0; p < np; ++p) {
    if (sum[3 * p + 2] != 1)
      throw RefinementError("a sphere point at (" + std::to_string(points[p][0]) + ", " + std::to_string(points[p][1]) +
                            ", " + std::to_string(points[p][2]) + ") lies in no block of the domain");
    out[2 * p] = sum[3 * p], out[2 * p + 1] = sum[3 * p + 1];
  }
  return out;
}

} // namespace tensorium_mlir::refinement
