#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Target/MLIRGen/GeneratedKernelABI.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tensorium_mlir::distributed {

namespace {

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Stopwatch {
  double &sink;
  double start = seconds();
  ~Stopwatch() { sink += seconds() - start; }
};

/// Shu-Osher's three-stage, third-order strong-stability-preserving Runge-Kutta method as a
/// Butcher tableau, registered once with PETSc's TSRK.
constexpr const char *kSspRk3 = "tensorium_ssprk3";
void registerSspRk3() {
  static bool registered = false;
  if (registered)
    return;
  const PetscReal A[9] = {0, 0, 0, 1, 0, 0, 0.25, 0.25, 0}, b[3] = {1.0 / 6, 1.0 / 6, 2.0 / 3}, c[3] = {0, 1, 0.5};
  checkPetsc(TSRKRegister(kSspRk3, 3, 3, A, b, c, nullptr, 0, nullptr), "TSRKRegister");
  registered = true;
}

PetscErrorCode rhsCallback(TS, PetscReal, Vec u, Vec f, void *context) {
  try {
    static_cast<DistributedEvolution *>(context)->evaluateRhs(u, f);
  } catch (const std::exception &) {
    return PETSC_ERR_LIB;
  }
  return 0;
}

} // namespace

const char *integratorName(TimeIntegrator t) { return t == TimeIntegrator::RK4 ? "rk4" : "ssprk3"; }

DistributedEvolution::DistributedEvolution(MPI_Comm comm, const KernelModuleTables &module, Options options)
    : options_(std::move(options)), module_(module) {
  const runtime::GeneratedHostTables &t = module.tables;
  // The tables are checked (ABI version, buffer table bounds, descriptors) by a storage built
  // on a one-point probe before anything distributed is created.
  runtime::GeneratedHostStorage probe(t, {1, 1, 1});
  const runtime::KernelBinding &rhs = probe.binding(options_.rhsKernel);
  if (rhs.kind.rfind(abi::kKindRhs, 0) != 0 || rhs.kind.find("grid") == std::string::npos)
    throw DistributedError("kernel '" + options_.rhsKernel + "' is a " + rhs.kind + " kernel, not an rhs grid kernel");
  if (rhs.stencilRadius < 0)
    throw DistributedError("kernel '" + options_.rhsKernel + "' declares no stencil radius");
  radius_ = rhs.stencilRadius;
  if (options_.params.size() != rhs.paramCount)
    throw DistributedError("kernel '" + options_.rhsKernel + "' takes " + std::to_string(rhs.paramCount) +
                           " parameters, got " + std::to_string(options_.params.size()));
  for (double p : options_.params)
    if (!std::isfinite(p))
      throw DistributedError("kernel parameters must be finite");
  if (options_.grid.ghostWidth == 0)
    options_.grid.ghostWidth = radius_;
  // One-sided radiative differences reach two points inward, possibly on a neighbour.
  if (options_.grid.boundary == Boundary::Radiative && options_.grid.ghostWidth < 2)
    options_.grid.ghostWidth = 2;
  if (options_.grid.ghostWidth < radius_)
    throw DistributedError("ghost width " + std::to_string(options_.grid.ghostWidth) + " is smaller than the stencil radius " +
                           std::to_string(radius_) + " of '" + options_.rhsKernel + "'");
  if (options_.grid.boundary == Boundary::Open)
    throw DistributedError("an evolution needs periodic or radiative outer boundaries");

  // Evolved fields: the kernel's written dX buffers whose X it also binds.
  std::vector<size_t> bound(rhs.buffers.begin(), rhs.buffers.end());
  for (auto &[derivative, state] : probe.eulerUpdatePairsFromDerivativePrefix()) {
    auto binds = [&](const std::string &name) {
      for (size_t id : bound)
        if (probe.buffers()[id].name == name)
          return true;
      return false;
    };
    if (!binds(derivative) || !binds(state))
      continue;
    EvolvedField f{state, derivative, probe.bufferInfo(state).componentCount, dof_};
    dof_ += static_cast<int>(f.components);
    fields_.push_back(f);
  }
  if (fields_.empty())
    throw DistributedError("kernel '" + options_.rhsKernel + "' writes no dX for a field X it reads");

  farValues_.assign(static_cast<size_t>(dof_), 0.0);
  speeds_.assign(static_cast<size_t>(dof_), 1.0);
  for (auto &[name, values] : options_.radiative.farValues) {
    const EvolvedField &f = field(name);
    if (values.size() != f.components)
      throw DistributedError("far-field value of '" + name + "' needs " + std::to_string(f.components) + " components");
    std::copy(values.begin(), values.end(), farValues_.begin() + f.offset);
  }
  for (auto &[name, speed] : options_.radiative.speeds) {
    const EvolvedField &f = field(name);
    if (!(speed > 0) || !std::isfinite(speed))
      throw DistributedError("radiative speed of '" + name + "' must be positive");
    std::fill_n(speeds_.begin() + f.offset, f.components, speed);
  }

  grid_ = std::make_unique<DistributedGrid>(comm, options_.grid, dof_);
  const Box &g = grid_->ghosted();
  storage_ = std::make_unique<runtime::GeneratedHostStorage>(t, runtime::GridShape{g.extent[0], g.extent[1], g.extent[2]});
  checkPetsc(DMCreateGlobalVector(grid_->dm(), &state_), "DMCreateGlobalVector");
  checkPetsc(PetscObjectSetName(reinterpret_cast<PetscObject>(state_), "state"), "PetscObjectSetName");
  checkPetsc(DMCreateLocalVector(grid_->dm(), &local_), "DMCreateLocalVector");

  checkPetsc(TSCreate(comm, &ts_), "TSCreate");
  checkPetsc(TSSetProblemType(ts_, TS_NONLINEAR), "TSSetProblemType");
  checkPetsc(TSSetType(ts_, TSRK), "TSSetType");
  if (options_.integrator == TimeIntegrator::RK4) {
    checkPetsc(TSRKSetType(ts_, TSRK4), "TSRKSetType");
  } else {
    registerSspRk3();
    checkPetsc(TSRKSetType(ts_, kSspRk3), "TSRKSetType");
  }
  TSAdapt adapt;
  checkPetsc(TSGetAdapt(ts_, &adapt), "TSGetAdapt");
  checkPetsc(TSAdaptSetType(adapt, TSADAPTNONE), "TSAdaptSetType");
  checkPetsc(TSSetRHSFunction(ts_, nullptr, rhsCallback, this), "TSSetRHSFunction");
  // Fixed steps driven one TSStep at a time: no final-time clipping.
  checkPetsc(TSSetExactFinalTime(ts_, TS_EXACTFINALTIME_STEPOVER), "TSSetExactFinalTime");
  checkPetsc(TSSetMaxSteps(ts_, 1000000000), "TSSetMaxSteps");
}

DistributedEvolution::~DistributedEvolution() {
  if (ts_)
    TSDestroy(&ts_);
  if (local_)
    VecDestroy(&local_);
  if (state_)
    VecDestroy(&state_);
}

const EvolvedField &DistributedEvolution::field(const std::string &name) const {
  for (const EvolvedField &f : fields_)
    if (f.name == name)
      return f;
  throw DistributedError("'" + name + "' is not an evolved field of '" + options_.rhsKernel + "'");
}

void DistributedEvolution::initialize(const StorageHook &fill) {
  fill(*storage_, *grid_);
  PetscScalar *u;
  checkPetsc(VecGetArray(state_, &u), "VecGetArray");
  const Box &o = grid_->owned();
  const size_t n = static_cast<size_t>(grid_->ghosted().points());
  size_t q = 0;
  for (int64_t k = o.begin[2]; k < o.begin[2] + o.extent[2]; ++k)
    for (int64_t j = o.begin[1]; j < o.begin[1] + o.extent[1]; ++j)
      for (int64_t i = o.begin[0]; i < o.begin[0] + o.extent[0]; ++i, q += static_cast<size_t>(dof_)) {
        const size_t p = grid_->storageIndex(i, j, k);
        for (const EvolvedField &f : fields_) {
          std::span<const double> x = std::as_const(*storage_).buffer(f.name);
          for (unsigned c = 0; c < f.components; ++c)
            u[q + f.offset + c] = x[c * n + p];
        }
      }
  checkPetsc(VecRestoreArray(state_, &u), "VecRestoreArray");
}

void DistributedEvolution::loadStorage(Vec u) {
  {
    Stopwatch w{timers_.exchange};
    checkPetsc(DMGlobalToLocalBegin(grid_->dm(), u, INSERT_VALUES, local_), "DMGlobalToLocalBegin");
    checkPetsc(DMGlobalToLocalEnd(grid_->dm(), u, INSERT_VALUES, local_), "DMGlobalToLocalEnd");
  }
  {
    Stopwatch w{timers_.copyIn};
    const PetscScalar *l;
    checkPetsc(VecGetArrayRead(local_, &l), "VecGetArrayRead");
    const Box &g = grid_->ghosted();
    const size_t n = static_cast<size_t>(g.points());
    // Storage is z-fastest, the local vector x-fastest: walk storage order so that writes
    // stream, one strided read per value.
    for (const EvolvedField &f : fields_) {
      std::span<double> x = storage_->buffer(f.name);
      for (unsigned c = 0; c < f.components; ++c) {
        double *dst = x.data() + c * n;
        for (int64_t i = g.begin[0]; i < g.begin[0] + g.extent[0]; ++i)
          for (int64_t j = g.begin[1]; j < g.begin[1] + g.extent[1]; ++j) {
            const size_t row = grid_->storageIndex(i, j, g.begin[2]);
            const size_t stride = static_cast<size_t>(g.extent[0] * g.extent[1] * dof_);
            const PetscScalar *src = l + grid_->localIndex(i, j, g.begin[2]) + f.offset + c;
            for (int64_t k = 0; k < g.extent[2]; ++k)
              dst[row + static_cast<size_t>(k)] = src[static_cast<size_t>(k) * stride];
          }
      }
    }
    checkPetsc(VecRestoreArrayRead(local_, &l), "VecRestoreArrayRead");
  }
  {
    Stopwatch w{timers_.boundary};
    fillPhysicalGhosts();
  }
  if (preRhs_) {
    Stopwatch w{timers_.hook};
    preRhs_(*storage_, *grid_);
  }
}

void DistributedEvolution::fillPhysicalGhosts() {
  if (options_.grid.boundary != Boundary::Radiative)
    return;
  // Layers beyond a physical face take the value of the nearest face point, so that the kernel
  // sees finite data; the owned points whose stencil reaches them get the radiative right-hand
  // side instead of the kernel's.
  const Box &g = grid_->ghosted();
  const auto &n = options_.grid.points;
  const size_t points = static_cast<size_t>(g.points());
  for (int64_t i = g.begin[0]; i < g.begin[0] + g.extent[0]; ++i)
    for (int64_t j = g.begin[1]; j < g.begin[1] + g.extent[1]; ++j)
      for (int64_t k = g.begin[2]; k < g.begin[2] + g.extent[2]; ++k) {
        const int64_t ci = std::clamp<int64_t>(i, 0, n[0] - 1), cj = std::clamp<int64_t>(j, 0, n[1] - 1),
                      ck = std::clamp<int64_t>(k, 0, n[2] - 1);
        if (ci == i && cj == j && ck == k)
          continue;
        const size_t p = grid_->storageIndex(i, j, k), s = grid_->storageIndex(ci, cj, ck);
        for (const EvolvedField &f : fields_) {
          std::span<double> x = storage_->buffer(f.name);
          for (unsigned c = 0; c < f.components; ++c)
            x[c * points + p] = x[c * points + s];
        }
      }
}

void DistributedEvolution::copyOwnedOut(Vec f) {
  PetscScalar *out;
  checkPetsc(VecGetArray(f, &out), "VecGetArray");
  const Box &o = grid_->owned();
  const size_t n = static_cast<size_t>(grid_->ghosted().points());
  for (const EvolvedField &field : fields_) {
    std::span<const double> d = std::as_const(*storage_).buffer(field.rhs);
    for (unsigned c = 0; c < field.components; ++c) {
      const double *src = d.data() + c * n;
      size_t q = static_cast<size_t>(field.offset) + c;
      for (int64_t k = o.begin[2]; k < o.begin[2] + o.extent[2]; ++k)
        for (int64_t j = o.begin[1]; j < o.begin[1] + o.extent[1]; ++j)
          for (int64_t i = o.begin[0]; i < o.begin[0] + o.extent[0]; ++i, q += static_cast<size_t>(dof_))
            out[q] = src[grid_->storageIndex(i, j, k)];
    }
  }
  checkPetsc(VecRestoreArray(f, &out), "VecRestoreArray");
}

void DistributedEvolution::applyRadiative(Vec f) {
  if (options_.grid.boundary != Boundary::Radiative)
    return;
  PetscScalar *out;
  checkPetsc(VecGetArray(f, &out), "VecGetArray");
  const Box &o = grid_->owned();
  const auto &n = options_.grid.points;
  const auto &h = options_.grid.spacing;
  const int w = options_.grid.ghostWidth;
  const size_t points = static_cast<size_t>(grid_->ghosted().points());
  std::vector<const double *> values(fields_.size());
  for (size_t fi = 0; fi < fields_.size(); ++fi)
    values[fi] = std::as_const(*storage_).buffer(fields_[fi].name).data();
  size_t q = 0;
  for (int64_t k = o.begin[2]; k < o.begin[2] + o.extent[2]; ++k)
    for (int64_t j = o.begin[1]; j < o.begin[1] + o.extent[1]; ++j)
      for (int64_t i = o.begin[0]; i < o.begin[0] + o.extent[0]; ++i, q += static_cast<size_t>(dof_)) {
        const int64_t idx[3] = {i, j, k};
        bool layer = false;
        for (int a = 0; a < 3; ++a)
          layer = layer || idx[a] < w || idx[a] >= n[a] - w;
        if (!layer)
          continue;
        const std::array<double, 3> x = grid_->coordinate(i, j, k);
        const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        // Second-order differences: centred inside the domain, one-sided on its faces.
        auto derivative = [&](const double *u, int a) {
          int64_t lo[3] = {i, j, k}, hi[3] = {i, j, k};
          const size_t p0 = grid_->storageIndex(i, j, k);
          if (idx[a] == 0) {
            hi[a] = idx[a] + 1;
            int64_t hi2[3] = {i, j, k};
            hi2[a] = idx[a] + 2;
            return (-3 * u[p0] + 4 * u[grid_->storageIndex(hi[0], hi[1], hi[2])] -
                    u[grid_->storageIndex(hi2[0], hi2[1], hi2[2])]) /
                   (2 * h[a]);
          }
          if (idx[a] == n[a] - 1) {
            lo[a] = idx[a] - 1;
            int64_t lo2[3] = {i, j, k};
            lo2[a] = idx[a] - 2;
            return (3 * u[p0] - 4 * u[grid_->storageIndex(lo[0], lo[1], lo[2])] +
                    u[grid_->storageIndex(lo2[0], lo2[1], lo2[2])]) /
                   (2 * h[a]);
          }
          lo[a] = idx[a] - 1;
          hi[a] = idx[a] + 1;
          return (u[grid_->storageIndex(hi[0], hi[1], hi[2])] - u[grid_->storageIndex(lo[0], lo[1], lo[2])]) / (2 * h[a]);
        };
        const size_t p = grid_->storageIndex(i, j, k);
        for (size_t fi = 0; fi < fields_.size(); ++fi) {
          const EvolvedField &field = fields_[fi];
          for (unsigned c = 0; c < field.components; ++c) {
            const double *u = values[fi] + c * points;
            const size_t d = static_cast<size_t>(field.offset) + c;
            const double radial = (x[0] * derivative(u, 0) + x[1] * derivative(u, 1) + x[2] * derivative(u, 2)) / r;
            out[q + d] = -speeds_[d] * (radial + (u[p] - farValues_[d]) / r);
          }
        }
      }
  checkPetsc(VecRestoreArray(f, &out), "VecRestoreArray");
}

void DistributedEvolution::evaluateRhs(Vec u, Vec f) {
  loadStorage(u);
  {
    Stopwatch w{timers_.kernel};
    const auto &h = options_.grid.spacing;
    storage_->invoke(module_.adapters, options_.rhsKernel, options_.params, {h[0], h[1], h[2]});
  }
  {
    Stopwatch w{timers_.copyOut};
    copyOwnedOut(f);
  }
  {
    Stopwatch w{timers_.radiative};
    applyRadiative(f);
  }
  ++timers_.rhsEvaluations;
}

void DistributedEvolution::advance(long steps, double dt) {
  if (!(dt > 0) || !std::isfinite(dt))
    throw DistributedError("time step must be positive and finite");
  checkPetsc(TSSetTime(ts_, time_), "TSSetTime");
  checkPetsc(TSSetTimeStep(ts_, dt), "TSSetTimeStep");
  checkPetsc(TSSetSolution(ts_, state_), "TSSetSolution");
  checkPetsc(TSSetUp(ts_), "TSSetUp");
  for (long s = 0; s < steps; ++s) {
    checkPetsc(TSStep(ts_), "TSStep (right-hand side or integrator)");
    ++step_;
    time_ += dt;
    ++timers_.steps;
    if (postStep_) {
      Stopwatch w{timers_.postStep};
      PetscScalar *u;
      checkPetsc(VecGetArray(state_, &u), "VecGetArray");
      postStep_({u, static_cast<size_t>(grid_->owned().points() * dof_)}, *this);
      checkPetsc(VecRestoreArray(state_, &u), "VecRestoreArray");
    }
  }
}

std::vector<double> DistributedEvolution::gatherOnRoot(Vec v) const {
  Vec natural, root;
  VecScatter scatter;
  checkPetsc(DMDACreateNaturalVector(grid_->dm(), &natural), "DMDACreateNaturalVector");
  checkPetsc(DMDAGlobalToNaturalBegin(grid_->dm(), v, INSERT_VALUES, natural), "DMDAGlobalToNaturalBegin");
  checkPetsc(DMDAGlobalToNaturalEnd(grid_->dm(), v, INSERT_VALUES, natural), "DMDAGlobalToNaturalEnd");
  checkPetsc(VecScatterCreateToZero(natural, &scatter, &root), "VecScatterCreateToZero");
  checkPetsc(VecScatterBegin(scatter, natural, root, INSERT_VALUES, SCATTER_FORWARD), "VecScatterBegin");
  checkPetsc(VecScatterEnd(scatter, natural, root, INSERT_VALUES, SCATTER_FORWARD), "VecScatterEnd");
  std::vector<double> out;
  if (grid_->rank() == 0) {
    PetscInt size;
    const PetscScalar *a;
    VecGetLocalSize(root, &size);
    VecGetArrayRead(root, &a);
    out.assign(a, a + size);
    VecRestoreArrayRead(root, &a);
  }
  VecScatterDestroy(&scatter);
  VecDestroy(&root);
  VecDestroy(&natural);
  return out;
}

} // namespace tensorium_mlir::distributed
