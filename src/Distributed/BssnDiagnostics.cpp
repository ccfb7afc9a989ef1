#include "tensorium_mlir/Distributed/BssnDiagnostics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tensorium_mlir::distributed {

void admFromBssn(const runtime::UniformGridStorage &bssn, runtime::UniformGridStorage &adm) {
  const size_t n = bssn.shape().points();
  if (static_cast<size_t>(adm.shape().points()) != n)
    throw DistributedError("ADM storage and BSSN storage differ in shape");
  std::span<const double> chi = bssn.buffer("chi"), K = bssn.buffer("K"), gt = bssn.buffer("gammatilde"),
                          gu = bssn.buffer("gammatildeU"), At = bssn.buffer("Atilde");
  std::span<double> gamma = adm.buffer("gamma"), gammaU = adm.buffer("gammaU"), Kij = adm.buffer("Kij");
  for (size_t c = 0; c < 9; ++c)
    for (size_t p = 0; p < n; ++p) {
      const size_t q = c * n + p;
      gamma[q] = gt[q] / chi[p];
      gammaU[q] = chi[p] * gu[q];
      Kij[q] = (At[q] + gt[q] * K[p] / 3) / chi[p];
    }
}

ConstraintMonitor::ConstraintMonitor(const DistributedEvolution &e, const KernelModuleTables &constraints,
                                     std::string kernel)
    : module_(constraints), kernel_(std::move(kernel)) {
  const Box &g = e.grid().ghosted();
  storage_ = std::make_unique<runtime::GeneratedHostStorage>(module_.tables,
                                                             runtime::GridShape{g.extent[0], g.extent[1], g.extent[2]});
  const runtime::KernelBinding &k = storage_->binding(kernel_);
  if (k.stencilRadius > e.grid().spec().ghostWidth)
    throw DistributedError("constraint kernel '" + kernel_ + "' has stencil radius " + std::to_string(k.stencilRadius) +
                           ", more than the ghost width " + std::to_string(e.grid().spec().ghostWidth));
  for (const char *name : {"gamma", "gammaU", "Kij", "H", "M2"})
    if (!storage_->hasBuffer(name))
      throw DistributedError(std::string("constraint module has no buffer '") + name + "'");
}

ConstraintMonitor::~ConstraintMonitor() = default;

ConstraintNorms ConstraintMonitor::evaluate(DistributedEvolution &e,
                                            const std::function<bool(const std::array<double, 3> &)> &excluded) {
  admFromBssn(e.storage(), *storage_);
  const auto &h = e.grid().spec().spacing;
  storage_->invoke(module_.adapters, kernel_, {}, {h[0], h[1], h[2]});
  std::span<const double> H = std::as_const(*storage_).buffer("H"), M2 = std::as_const(*storage_).buffer("M2");
  const Box &o = e.grid().owned();
  const auto &N = e.grid().spec().points;
  const int64_t margin = e.grid().spec().boundary == Boundary::Periodic ? 0 : 2 * e.grid().spec().ghostWidth;
  ConstraintSums sums;
  for (int64_t i = o.begin[0]; i < o.begin[0] + o.extent[0]; ++i)
    for (int64_t j = o.begin[1]; j < o.begin[1] + o.extent[1]; ++j)
      for (int64_t k = o.begin[2]; k < o.begin[2] + o.extent[2]; ++k) {
        if (i < margin || j < margin || k < margin || i >= N[0] - margin || j >= N[1] - margin || k >= N[2] - margin)
          continue;
        if (excluded && excluded(e.grid().coordinate(i, j, k)))
          continue;
        const size_t p = e.grid().storageIndex(i, j, k);
        sums.add(H[p], M2[p], 1.0);
      }
  return sums.reduce(e.grid().comm());
}

void ConstraintSums::add(double H, double M2, double weight) {
  const double m2 = std::max(M2, 0.0);
  sum_[0] += H * H * weight;
  sum_[1] += m2 * weight;
  sum_[2] += weight;
  sum_[3] += 1;
  max_[0] = std::isnan(H) || std::abs(H) > max_[0] ? std::abs(H) : max_[0];
  max_[1] = std::isnan(m2) || std::sqrt(m2) > max_[1] ? std::sqrt(m2) : max_[1];
}

ConstraintNorms ConstraintSums::reduce(MPI_Comm comm) const {
  double sum[4], mx[2];
  MPI_Allreduce(sum_, sum, 4, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(max_, mx, 2, MPI_DOUBLE, MPI_MAX, comm);
  ConstraintNorms out;
  out.points = static_cast<long>(sum[3]);
  if (sum[2] > 0) {
    out.l2H = std::sqrt(sum[0] / sum[2]);
    out.l2M = std::sqrt(sum[1] / sum[2]);
  }
  out.maxH = mx[0];
  out.maxM = mx[1];
  return out;
}


double interpolateField(DistributedEvolution &e, const std::string &name, unsigned component,
                        const std::array<double, 3> &x, int nodes) {
  if (nodes < 2 || nodes % 2 || nodes > kMaxInterpolationNodes)
    throw DistributedError("interpolation takes an even number of nodes per axis from 2 to " +
                           std::to_string(kMaxInterpolationNodes) + ", got " + std::to_string(nodes));
  const int below = nodes / 2 - 1; // nodes -below .. nodes/2 around the point
  const GridSpec &g = e.grid().spec();
  int64_t base[3];
  double frac[3];
  for (int a = 0; a < 3; ++a) {
    const double s = (x[a] - g.lower[a]) / g.spacing[a];
    if (!std::isfinite(s) || s < below || s > static_cast<double>(g.points[a] - 1 - nodes / 2))
      throw DistributedError("point outside the interpolation region of the grid");
    base[a] = static_cast<int64_t>(std::floor(s));
    frac[a] = s - static_cast<double>(base[a]);
  }
  if (static_cast<int>(e.grid().spec().ghostWidth) < nodes / 2)
    throw DistributedError("interpolation with " + std::to_string(nodes) + " nodes needs a ghost width of at least " +
                           std::to_string(nodes / 2));
  double value = 0;
  if (e.grid().owned().contains(base[0], base[1], base[2])) {
    std::span<const double> f = std::as_const(e.storage()).buffer(name);
    const size_t n = e.storage().shape().points();
    if (component * n >= f.size())
      throw DistributedError("component out of range for '" + name + "'");
    double w[3][kMaxInterpolationNodes];
    for (int a = 0; a < 3; ++a) {
      const double t = frac[a];
      if (nodes == 4) { // Lagrange weights on the nodes -1, 0, 1, 2 (the puncture tracker's, unchanged)
        w[a][0] = -t * (t - 1) * (t - 2) / 6;
        w[a][1] = (t + 1) * (t - 1) * (t - 2) / 2;
        w[a][2] = -(t + 1) * t * (t - 2) / 2;
        w[a][3] = (t + 1) * t * (t - 1) / 6;
        continue;
      }
      for (int i = 0; i < nodes; ++i) {
        double l = 1;
        for (int j = 0; j < nodes; ++j)
          if (j != i)
            l *= (t - (j - below)) / static_cast<double>(i - j);
        w[a][i] = l;
      }
    }
    for (int a = 0; a < nodes; ++a)
      for (int b = 0; b < nodes; ++b)
        for (int c = 0; c < nodes; ++c)
          value += w[0][a] * w[1][b] * w[2][c] *
                   f[component * n + e.grid().storageIndex(base[0] + a - below, base[1] + b - below, base[2] + c - below)];
  }
  double out = 0;
  MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, e.grid().comm()); // exactly one rank adds a value
  return out;
}

std::array<double, 3> PunctureTracker::velocity(DistributedEvolution &e, const std::array<double, 3> &x) const {
  return {-interpolateField(e, "beta", 0, x), -interpolateField(e, "beta", 1, x), -interpolateField(e, "beta", 2, x)};
}

double minimumOverGrid(const DistributedEvolution &e, const std::string &name, unsigned component) {
  const EvolvedField &f = e.field(name);
  if (component >= f.components)
    throw DistributedError("component " + std::to_string(component) + " out of range for '" + name + "'");
  const PetscScalar *u;
  checkPetsc(VecGetArrayRead(e.state(), &u), "VecGetArrayRead");
  const int64_t dof = e.grid().dof(), points = e.grid().owned().points();
  double local = std::numeric_limits<double>::infinity();
  for (int64_t p = 0; p < points; ++p)
    local = std::min(local, u[p * dof + f.offset + component]);
  checkPetsc(VecRestoreArrayRead(e.state(), &u), "VecRestoreArrayRead");
  double global = local;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MIN, e.grid().comm());
  return global;
}

void PunctureTracker::sampleBefore(DistributedEvolution &e) {
  before_.clear();
  for (const auto &x : positions_)
    before_.push_back(velocity(e, x));
}

void PunctureTracker::advance(DistributedEvolution &e, double dt) {
  if (before_.size() != positions_.size())
    throw DistributedError("PunctureTracker::advance without sampleBefore");
  for (size_t p = 0; p < positions_.size(); ++p) {
    std::array<double, 3> predicted;
    for (int a = 0; a < 3; ++a)
      predicted[a] = positions_[p][a] + dt * before_[p][a];
    const std::array<double, 3> v = velocity(e, predicted);
    for (int a = 0; a < 3; ++a)
      positions_[p][a] += dt * (before_[p][a] + v[a]) / 2;
  }
  before_.clear();
}

} // namespace tensorium_mlir::distributed
