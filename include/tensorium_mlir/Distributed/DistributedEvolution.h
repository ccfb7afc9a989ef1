#pragma once
// Method-of-lines evolution of a generated `rhs_grid` kernel on a DMDA-distributed grid with
// PETSc TS. The state is one global vector holding every evolved field interlaced; the RHS
// function is: ghost exchange (DMGlobalToLocal), copy of the rank's ghosted box into the
// generated storage (SoA, component-major), physical ghost fill, an optional pre-RHS hook
// (auxiliary fields), the generated kernel through its adapter, copy of the owned dX back, and
// outgoing-radiation (Sommerfeld) conditions on the outer layers. No MLIR here.
#include "tensorium_mlir/Distributed/DistributedGrid.h"
#include "tensorium_mlir/Runtime/HostStorage.h"

#include <petscts.h>

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tensorium_mlir::distributed {

/// An evolved field X (written as dX by the kernel), at `offset` among the `dof` interlaced
/// values of each point.
struct EvolvedField {
  std::string name, rhs;
  unsigned components = 1;
  int offset = 0;
};

/// The first non-finite value of a state in natural order (z slowest, then y, x, then the
/// interlaced components) and how many of its values are non-finite.
struct NonFiniteValue {
  std::array<int64_t, 3> point{};     // global grid indices
  std::array<double, 3> coordinate{}; // of that point
  std::string field;
  unsigned component = 0;
  int64_t count = 0;
  /// "field alpha (component 0) at point (i, j, k) = (x, y, z), one of N non-finite values"
  std::string describe() const;
};

/// The state became non-finite: `what()` names the time, step, field and grid point.
struct NonFiniteState : DistributedError {
  NonFiniteState(const NonFiniteValue &v, double time, long step);
  NonFiniteValue value;
};

/// d_t u = -v (x^i / r) d_i u - v (u - u_inf) / r on the outer layers (r from the origin):
/// asymptotic values per field component (default 0) and speeds per field (default 1).
struct RadiativeCondition {
  std::map<std::string, std::vector<double>> farValues;
  std::map<std::string, double> speeds;
};

/// Outer layers that follow a known solution: for `fields`, the owned points within the ghost
/// width of a face take d_t u from `rates` instead of the kernel (or the radiative condition).
/// `rates(t, points, out)` writes d_t u of every evolved component at the stage time t for each
/// point (out[p * dof + offset + c], the engine's interlaced order; other fields' entries unused).
struct ExactLayers {
  std::vector<std::string> fields;
  std::function<void(double t, std::span<const std::array<double, 3>> points, std::span<double> out)> rates;
};

/// The binding of `symbol` when it is an rhs grid kernel with a stencil radius taking
/// `paramCount` parameters; DistributedError naming what is wrong otherwise.
const runtime::KernelBinding &rhsGridBinding(const runtime::UniformGridStorage &probe, const std::string &symbol,
                                             size_t paramCount);

/// The fields an rhs kernel evolves: each dX buffer it writes whose X it also binds, with its
/// offset among the interlaced values of a point (their sum is the dof). DistributedError when
/// there is none.
std::vector<EvolvedField> evolvedFields(const runtime::UniformGridStorage &probe, const runtime::KernelBinding &rhs);

/// Far values and speeds of a radiative condition per interlaced value (0 and 1 where not given);
/// DistributedError for an unknown field, a wrong component count or a non-positive speed.
void radiativeTables(const RadiativeCondition &condition, const std::vector<EvolvedField> &fields, int dof,
                     std::vector<double> &farValues, std::vector<double> &speeds);

enum class TimeIntegrator { RK4, SSPRK3 };
const char *integratorName(TimeIntegrator t);

/// Seconds spent per part of the right-hand side, summed over calls (this rank).
struct EvolutionTimers {
  double exchange = 0, copyIn = 0, boundary = 0, hook = 0, kernel = 0, copyOut = 0, radiative = 0, postStep = 0;
  long rhsEvaluations = 0, steps = 0;
  double total() const { return exchange + copyIn + boundary + hook + kernel + copyOut + radiative; }
};

/// The generated module a distributed run executes: its tables and grid adapters.
struct KernelModuleTables {
  runtime::GeneratedHostTables tables;
  std::span<const tensorium_host_kernel_adapter> adapters;
};

class DistributedEvolution {
public:
  struct Options {
    std::string rhsKernel = "tensorium_rhs_grid_parallel";
    std::vector<double> params; // in the module's parameter order
    /// ghostWidth 0 takes the kernel's stencil radius; a smaller non-zero width is refused.
    GridSpec grid;
    RadiativeCondition radiative;
    ExactLayers exact; // non-periodic grids: these fields follow `exact.rates` on the outer layers
    TimeIntegrator integrator = TimeIntegrator::RK4;
  };
  using StorageHook = std::function<void(runtime::UniformGridStorage &, const DistributedGrid &)>;
  /// Called after each step with the owned points' interlaced values (owned().points() * dof).
  using StateHook = std::function<void(std::span<double> owned, const DistributedEvolution &)>;

  DistributedEvolution(MPI_Comm comm, const KernelModuleTables &module, Options options);
  ~DistributedEvolution();
  DistributedEvolution(const DistributedEvolution &) = delete;
  DistributedEvolution &operator=(const DistributedEvolution &) = delete;

  const DistributedGrid &grid() const { return *grid_; }
  const std::vector<EvolvedField> &fields() const { return fields_; }
  const EvolvedField &field(const std::string &name) const;
  runtime::GeneratedHostStorage &storage() { return *storage_; }
  int stencilRadius() const { return radius_; }
  const Options &options() const { return options_; }
  Vec state() const { return state_; }
  double time() const { return time_; }
  long stepNumber() const { return step_; }
  void setTime(double t, long step) { time_ = t, step_ = step; }
  const EvolutionTimers &timers() const { return timers_; }
  /// Estimated peak bytes of this rank's engine (checked against the node's memory before
  /// anything grid-sized was allocated; runtime::InsufficientMemory otherwise).
  double memoryEstimate() const { return memoryEstimate_; }
  void resetTimers() { timers_ = {}; }

  /// `fill` writes the evolved fields at every point of the rank's ghosted box in storage();
  /// the owned points become the state.
  void initialize(const StorageHook &fill);
  void setPreRhsHook(StorageHook hook) { preRhs_ = std::move(hook); }
  void setPostStepHook(StateHook hook) { postStep_ = std::move(hook); }

  /// F = RHS(u) at stage time t: exchange, boundary fill, hook, kernel, radiative or exact layers.
  void evaluateRhs(Vec u, Vec f, double t);
  void evaluateRhs(Vec u, Vec f) { evaluateRhs(u, f, time_); }
  /// The ghosted box of `u` in storage() with boundary fill and pre-RHS hook (diagnostics).
  void loadStorage(Vec u);
  /// `steps` steps of size dt with the chosen integrator, the post-step hook after each.
  void advance(long steps, double dt);

  /// Every value of a global vector in natural order (x fastest, dof interlaced) on rank 0;
  /// empty elsewhere.
  std::vector<double> gatherOnRoot(Vec v) const;
  /// Collective: the first non-finite value of a global vector over every rank (the same answer
  /// on each), or nothing when every value is finite. One pass over the owned values.
  std::optional<NonFiniteValue> firstNonFinite(Vec v) const;
  /// Collective: throws NonFiniteState (on every rank) when the state has a non-finite value.
  void checkFinite() const;

private:
  void copyOwnedOut(Vec f);
  std::vector<double *> componentPointers(bool derivatives);
  void transposeIn(const double *local, const Box &box, const std::vector<double *> &component);
  void transposeOut(double *global, const Box &box, const std::vector<double *> &component);
  void planBoundaries();
  void fillPhysicalGhosts();
  void applyRadiative(Vec f, double t);

  Options options_;
  KernelModuleTables module_;
  int radius_ = 0;
  std::vector<EvolvedField> fields_;
  int dof_ = 0;
  std::unique_ptr<DistributedGrid> grid_;
  std::unique_ptr<runtime::GeneratedHostStorage> storage_;
  Vec state_ = nullptr, local_ = nullptr;
  TS ts_ = nullptr;
  double time_ = 0;
  long step_ = 0;
  StorageHook preRhs_;
  StateHook postStep_;
  EvolutionTimers timers_;
  double memoryEstimate_ = 0;
  std::vector<double> farValues_, speeds_; // per dof
  std::vector<char> exactDof_;              // per dof: follows options_.exact.rates on the layers
  std::vector<std::array<double, 3>> layerCoordinates_; // of layerPoints_, in order
  std::vector<double> layerRates_;
  /// Boundary work planned once: ghost points beyond a face and the face point each copies;
  /// owned points of the outer layers (radiative or exact) with their geometry.
  struct LayerPoint {
    size_t storage = 0, owned = 0;
    double slope[3] = {0, 0, 0}; // x^a / (r 2 h_a)
    double inverseRadius = 0;
    int8_t direction[3] = {0, 0, 0}; // +1 / -1: one-sided into the domain; 0: centred
  };
  std::vector<std::pair<size_t, size_t>> ghostCopies_;
  std::vector<LayerPoint> layerPoints_;
};

} // namespace tensorium_mlir::distributed
