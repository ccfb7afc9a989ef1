#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Support/Stopwatch.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tensorium_mlir::distributed {

namespace {

using support::Stopwatch;

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

PetscErrorCode rhsCallback(TS, PetscReal t, Vec u, Vec f, void *context) {
  try {
    static_cast<DistributedEvolution *>(context)->evaluateRhs(u, f, t);
  } catch (const std::exception &) {
    return PETSC_ERR_LIB;
  }
  return 0;
}

} // namespace

const runtime::KernelBinding &rhsGridBinding(const runtime::UniformGridStorage &probe, const std::string &symbol,
                                             size_t paramCount) {
  const runtime::KernelBinding &rhs = probe.binding(symbol);
  if (rhs.kind.rfind(abi::kKindRhs, 0) != 0 || rhs.kind.find("grid") == std::string::npos)
    throw DistributedError("kernel '" + symbol + "' is a " + rhs.kind + " kernel, not an rhs grid kernel");
  if (rhs.stencilRadius < 0)
    throw DistributedError("kernel '" + symbol + "' declares no stencil radius");
  if (paramCount != rhs.paramCount)
    throw DistributedError("kernel '" + symbol + "' takes " + std::to_string(rhs.paramCount) + " parameters, got " +
                           std::to_string(paramCount));
  return rhs;
}

std::vector<EvolvedField> evolvedFields(const runtime::UniformGridStorage &probe, const runtime::KernelBinding &rhs) {
  std::vector<EvolvedField> fields;
  int dof = 0;
  auto binds = [&](const std::string &name) {
    return std::any_of(rhs.buffers.begin(), rhs.buffers.end(), [&](size_t id) { return probe.buffers()[id].name == name; });
  };
  for (auto &[derivative, state] : probe.eulerUpdatePairsFromDerivativePrefix()) {
    if (!binds(derivative) || !binds(state))
      continue;
    EvolvedField f{state, derivative, probe.bufferInfo(state).componentCount, dof};
    dof += static_cast<int>(f.components);
    fields.push_back(f);
  }
  if (fields.empty())
    throw DistributedError("kernel '" + rhs.symbol + "' writes no dX for a field X it reads");
  return fields;
}

void radiativeTables(const RadiativeCondition &condition, const std::vector<EvolvedField> &fields, int dof,
                     std::vector<double> &farValues, std::vector<double> &speeds) {
  auto find = [&](const std::string &name) -> const EvolvedField & {
    for (const EvolvedField &f : fields)
      if (f.name == name)
        return f;
    throw DistributedError("no evolved field '" + name + "'");
  };
  farValues.assign(static_cast<size_t>(dof), 0.0);
  speeds.assign(static_cast<size_t>(dof), 1.0);
  for (auto &[name, values] : condition.farValues) {
    const EvolvedField &f = find(name);
    if (values.size() != f.components)
      throw DistributedError("far-field value of '" + name + "' needs " + std::to_string(f.components) + " components");
    std::copy(values.begin(), values.end(), farValues.begin() + f.offset);
  }
  for (auto &[name, speed] : condition.speeds) {
    const EvolvedField &f = find(name);
    if (!(speed > 0) || !std::isfinite(speed))
      throw DistributedError("radiative speed of '" + name + "' must be positive");
    std::fill_n(speeds.begin() + f.offset, f.components, speed);
  }
}

const char *integratorName(TimeIntegrator t) { return t == TimeIntegrator::RK4 ? "rk4" : "ssprk3"; }

DistributedEvolution::DistributedEvolution(MPI_Comm comm, const KernelModuleTables &module, Options options)
    : options_(std::move(options)), module_(module) {
  const runtime::GeneratedHostTables &t = module.tables;
  // The tables are checked (ABI version, buffer table bounds, descriptors) by a storage built
  // on a one-point probe before anything distributed is created.
  runtime::GeneratedHostStorage probe(t, {1, 1, 1});
  const runtime::KernelBinding &rhs = rhsGridBinding(probe, options_.rhsKernel, options_.params.size());
  radius_ = rhs.stencilRadius;
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

  fields_ = evolvedFields(probe, rhs);
  for (const EvolvedField &f : fields_)
    dof_ += static_cast<int>(f.components);
  radiativeTables(options_.radiative, fields_, dof_, farValues_, speeds_);

  exactDof_.assign(static_cast<size_t>(dof_), 0);
  for (const std::string &name : options_.exact.fields) {
    const EvolvedField &f = field(name);
    std::fill_n(exactDof_.begin() + f.offset, f.components, 1);
  }
  if (!options_.exact.fields.empty() && (options_.grid.boundary != Boundary::Radiative || !options_.exact.rates))
    throw DistributedError("exact outer layers need a grid with outer faces and a function for the rates");

  grid_ = std::make_unique<DistributedGrid>(comm, options_.grid, dof_);
  // Memory before allocating (docs/memory.md): PETSc's state and about 9 more global vectors
  // of TSRK's RK4 work space per owned point; the ghosted local vector and the kernel storage
  // (every buffer of the module) per ghosted point. Checked against the memory of each node
  // for all of its ranks together, and refused on every rank when any node is short.
  {
    size_t storageComponents = 0;
    for (const runtime::StorageBuffer &b : probe.buffers())
      storageComponents += b.componentCount;
    memoryEstimate_ = 8.0 * (10.0 * dof_ * static_cast<double>(grid_->owned().points()) +
                             static_cast<double>(dof_ + storageComponents) * static_cast<double>(grid_->ghosted().points()));
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    double nodeEstimate = 0, available = runtime::availableMemoryBytes();
    MPI_Allreduce(&memoryEstimate_, &nodeEstimate, 1, MPI_DOUBLE, MPI_SUM, node);
    MPI_Bcast(&available, 1, MPI_DOUBLE, 0, node);
    MPI_Comm_free(&node);
    int shortHere = nodeEstimate > available ? 1 : 0, shortAnywhere = 0;
    MPI_Allreduce(&shortHere, &shortAnywhere, 1, MPI_INT, MPI_MAX, comm);
    double worstEstimate = 0, worstAvailable = 0;
    const double mine[2] = {shortHere ? nodeEstimate : 0.0, shortHere ? available : 0.0};
    double theirs[2];
    MPI_Allreduce(mine, theirs, 2, MPI_DOUBLE, MPI_MAX, comm);
    worstEstimate = theirs[0], worstAvailable = theirs[1];
    if (shortAnywhere)
      throw runtime::InsufficientMemory("the evolution of a " + std::to_string(options_.grid.points[0]) + "x" +
                                            std::to_string(options_.grid.points[1]) + "x" +
                                            std::to_string(options_.grid.points[2]) + " grid (the ranks of one node)",
                                        worstEstimate, worstAvailable);
  }
  const Box &g = grid_->ghosted();
  storage_ = std::make_unique<runtime::GeneratedHostStorage>(t, runtime::GridShape{g.extent[0], g.extent[1], g.extent[2]});
  planBoundaries();
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
  transposeOut(u, grid_->owned(), componentPointers(false));
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
    transposeIn(l, grid_->ghosted(), componentPointers(false));
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

void DistributedEvolution::planBoundaries() {
  if (options_.grid.boundary != Boundary::Radiative)
    return;
  const Box &g = grid_->ghosted(), &o = grid_->owned();
  const auto &n = options_.grid.points;
  // Ghost points beyond a physical face and the face point they copy.
  for (int64_t i = g.begin[0]; i < g.begin[0] + g.extent[0]; ++i)
    for (int64_t j = g.begin[1]; j < g.begin[1] + g.extent[1]; ++j)
      for (int64_t k = g.begin[2]; k < g.begin[2] + g.extent[2]; ++k) {
        const int64_t ci = std::clamp<int64_t>(i, 0, n[0] - 1), cj = std::clamp<int64_t>(j, 0, n[1] - 1),
                      ck = std::clamp<int64_t>(k, 0, n[2] - 1);
        if (ci != i || cj != j || ck != k)
          ghostCopies_.push_back({grid_->storageIndex(i, j, k), grid_->storageIndex(ci, cj, ck)});
      }
  // Owned points within the ghost width of a face: radiative right-hand side.
  const int w = options_.grid.ghostWidth;
  size_t q = 0;
  for (int64_t k = o.begin[2]; k < o.begin[2] + o.extent[2]; ++k)
    for (int64_t j = o.begin[1]; j < o.begin[1] + o.extent[1]; ++j)
      for (int64_t i = o.begin[0]; i < o.begin[0] + o.extent[0]; ++i, ++q) {
        const int64_t idx[3] = {i, j, k};
        bool layer = false;
        for (int a = 0; a < 3; ++a)
          layer = layer || idx[a] < w || idx[a] >= n[a] - w;
        if (!layer)
          continue;
        LayerPoint r;
        r.storage = grid_->storageIndex(i, j, k);
        r.owned = q;
        const std::array<double, 3> x = grid_->coordinate(i, j, k);
        const double radius = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        r.inverseRadius = 1 / radius;
        for (int a = 0; a < 3; ++a) {
          r.direction[a] = static_cast<int8_t>(idx[a] == 0 ? 1 : idx[a] == n[a] - 1 ? -1 : 0);
          r.slope[a] = x[a] / (radius * 2 * options_.grid.spacing[a]);
        }
        layerPoints_.push_back(r);
        layerCoordinates_.push_back(x);
      }
}

void DistributedEvolution::fillPhysicalGhosts() {
  // Layers beyond a physical face take the value of the nearest face point, so that the kernel
  // sees finite data; the owned points whose stencil reaches them get the radiative right-hand
  // side instead of the kernel's. One component at a time keeps its pages hot.
  for (double *x : componentPointers(false))
    for (const auto &[to, from] : ghostCopies_)
      x[to] = x[from];
}

void DistributedEvolution::copyOwnedOut(Vec f) {
  PetscScalar *out;
  checkPetsc(VecGetArray(f, &out), "VecGetArray");
  transposeOut(out, grid_->owned(), componentPointers(true));
  checkPetsc(VecRestoreArray(f, &out), "VecRestoreArray");
}

std::vector<double *> DistributedEvolution::componentPointers(bool derivatives) {
  std::vector<double *> out(static_cast<size_t>(dof_));
  const size_t n = static_cast<size_t>(grid_->ghosted().points());
  for (const EvolvedField &f : fields_) {
    double *base = storage_->buffer(derivatives ? f.rhs : f.name).data();
    for (unsigned c = 0; c < f.components; ++c)
      out[static_cast<size_t>(f.offset) + c] = base + c * n;
  }
  return out;
}

// PETSc's arrays are x-fastest with the dof values of a point together; storage is z-fastest,
// one array per component. Both copies walk kTile x kTile tiles of (x, z) per y row, x tiles
// outermost: a tile reads (writes) every point's dof values as one run and writes (reads) each
// component in runs of kTile consecutive z values, and the component rows a pass touches stay
// few enough (dof * kTile) for the TLB.
namespace {
constexpr int64_t kTile = 8;

/// Calls visit(i, j, k0, kn) for every run of kn <= kTile z points of `box`, in tile order.
template <typename Visit> void forEachTileRun(const Box &box, Visit visit) {
  const int64_t iEnd = box.begin[0] + box.extent[0], kEnd = box.begin[2] + box.extent[2];
  for (int64_t j = box.begin[1]; j < box.begin[1] + box.extent[1]; ++j)
    for (int64_t i0 = box.begin[0]; i0 < iEnd; i0 += kTile)
      for (int64_t k0 = box.begin[2]; k0 < kEnd; k0 += kTile)
        for (int64_t i = i0; i < std::min(i0 + kTile, iEnd); ++i)
          visit(i, j, k0, std::min(kTile, kEnd - k0));
}
} // namespace

void DistributedEvolution::transposeIn(const double *local, const Box &box, const std::vector<double *> &component) {
  const Box &g = grid_->ghosted();
  const size_t dof = static_cast<size_t>(dof_), strideZ = static_cast<size_t>(g.extent[0] * g.extent[1]) * dof;
  forEachTileRun(box, [&](int64_t i, int64_t j, int64_t k0, int64_t kn) {
    const double *src = local + grid_->localIndex(i, j, k0);
    const size_t dst = grid_->storageIndex(i, j, k0);
    for (int64_t kk = 0; kk < kn; ++kk, src += strideZ)
      for (size_t d = 0; d < dof; ++d)
        component[d][dst + static_cast<size_t>(kk)] = src[d];
  });
}

void DistributedEvolution::transposeOut(double *global, const Box &box, const std::vector<double *> &component) {
  // `global` covers the owned box only, x-fastest.
  const Box &o = grid_->owned();
  const size_t dof = static_cast<size_t>(dof_), strideZ = static_cast<size_t>(o.extent[0] * o.extent[1]) * dof;
  forEachTileRun(box, [&](int64_t i, int64_t j, int64_t k0, int64_t kn) {
    double *dst = global + static_cast<size_t>(((k0 - o.begin[2]) * o.extent[1] + (j - o.begin[1])) * o.extent[0] +
                                               (i - o.begin[0])) *
                               dof;
    const size_t src = grid_->storageIndex(i, j, k0);
    for (int64_t kk = 0; kk < kn; ++kk, dst += strideZ)
      for (size_t d = 0; d < dof; ++d)
        dst[d] = component[d][src + static_cast<size_t>(kk)];
  });
}


void DistributedEvolution::applyRadiative(Vec f, double t) {
  if (layerPoints_.empty())
    return;
  const bool anyExact = std::find(exactDof_.begin(), exactDof_.end(), 1) != exactDof_.end();
  if (anyExact) {
    layerRates_.assign(layerPoints_.size() * static_cast<size_t>(dof_), 0.0);
    options_.exact.rates(t, layerCoordinates_, layerRates_);
  }
  PetscScalar *out;
  checkPetsc(VecGetArray(f, &out), "VecGetArray");
  const Box &g = grid_->ghosted();
  const int64_t stride[3] = {g.extent[1] * g.extent[2], g.extent[2], 1};
  const std::vector<double *> component = componentPointers(false);
  const size_t dof = static_cast<size_t>(dof_);
  // d_t u = -v (x^i d_i u / r + (u - u_inf) / r), second-order differences: centred inside
  // the domain, one-sided (-3, 4, -1) / 2h on its faces.
  for (size_t d = 0; d < dof; ++d) {
    if (exactDof_[d]) {
      for (size_t q = 0; q < layerPoints_.size(); ++q)
        out[layerPoints_[q].owned * dof + d] = layerRates_[q * dof + d];
      continue;
    }
    const double *u = component[d], far = farValues_[d], speed = speeds_[d];
    for (const LayerPoint &r : layerPoints_) {
      const double *c = u + r.storage;
      double radial = 0;
      for (int a = 0; a < 3; ++a) {
        const int64_t s1 = stride[a];
        const int dir = r.direction[a];
        radial += r.slope[a] * (dir == 0 ? c[s1] - c[-s1] : dir * (-3 * c[0] + 4 * c[dir * s1] - c[2 * dir * s1]));
      }
      out[r.owned * dof + d] = -speed * (radial + (c[0] - far) * r.inverseRadius);
    }
  }
  checkPetsc(VecRestoreArray(f, &out), "VecRestoreArray");
}

void DistributedEvolution::evaluateRhs(Vec u, Vec f, double t) {
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
    applyRadiative(f, t);
  }
  ++timers_.rhsEvaluations;
}

void DistributedEvolution::advance(long steps, double dt) {
  if (!(dt > 0) || !std::isfinite(dt))
    throw DistributedError("time step must be positive and finite");
  if (options_.grid.boundary == Boundary::Open)
    throw DistributedError("an evolution needs periodic or radiative outer faces (open faces: right-hand sides only)");
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

namespace tensorium_mlir::distributed {

std::string NonFiniteValue::describe() const {
  char text[320];
  std::snprintf(text, sizeof text, "field %s (component %u) at point (%lld, %lld, %lld) = (%.6g, %.6g, %.6g), %s%lld non-finite value%s",
                field.c_str(), component, static_cast<long long>(point[0]), static_cast<long long>(point[1]),
                static_cast<long long>(point[2]), coordinate[0], coordinate[1], coordinate[2], count > 1 ? "first of " : "",
                static_cast<long long>(count), count > 1 ? "s" : "");
  return text;
}

NonFiniteState::NonFiniteState(const NonFiniteValue &v, double time, long step)
    : DistributedError("the state became non-finite at t = " + std::to_string(time) + " (step " + std::to_string(step) +
                       "): " + v.describe()),
      value(v) {}

std::optional<NonFiniteValue> DistributedEvolution::firstNonFinite(Vec v) const {
  const Box &o = grid_->owned();
  const auto &N = grid_->spec().points;
  const int64_t dof = dof_;
  const PetscScalar *u;
  checkPetsc(VecGetArrayRead(v, &u), "VecGetArrayRead");
  // Natural index (((k Ny + j) Nx + i) dof + d) of each non-finite value: the smallest over
  // every rank is the first. The owned box is x-fastest, but it spans rows of the global grid.
  int64_t first = std::numeric_limits<int64_t>::max(), count = 0;
  const int64_t n = o.points() * dof;
  for (int64_t q = 0; q < n; ++q)
    if (!std::isfinite(u[q])) {
      ++count;
      const int64_t p = q / dof, d = q % dof;
      const int64_t i = o.begin[0] + p % o.extent[0], j = o.begin[1] + (p / o.extent[0]) % o.extent[1],
                    k = o.begin[2] + p / (o.extent[0] * o.extent[1]);
      first = std::min(first, ((k * N[1] + j) * N[0] + i) * dof + d);
    }
  checkPetsc(VecRestoreArrayRead(v, &u), "VecRestoreArrayRead");
  int64_t global[2] = {0, 0}, local[2] = {first, count};
  MPI_Allreduce(&local[0], &global[0], 1, MPI_INT64_T, MPI_MIN, grid_->comm());
  MPI_Allreduce(&local[1], &global[1], 1, MPI_INT64_T, MPI_SUM, grid_->comm());
  if (global[1] == 0)
    return std::nullopt;
  NonFiniteValue out;
  out.count = global[1];
  const int64_t d = global[0] % dof, p = global[0] / dof;
  out.point = {p % N[0], (p / N[0]) % N[1], p / (N[0] * N[1])};
  out.coordinate = grid_->coordinate(out.point[0], out.point[1], out.point[2]);
  for (const EvolvedField &f : fields_)
    if (d >= f.offset && d < f.offset + static_cast<int64_t>(f.components)) {
      out.field = f.name;
      out.component = static_cast<unsigned>(d - f.offset);
    }
  return out;
}

void DistributedEvolution::checkFinite() const {
  if (const std::optional<NonFiniteValue> v = firstNonFinite(state_))
    throw NonFiniteState(*v, time_, step_);
}

} // namespace tensorium_mlir::distributed
