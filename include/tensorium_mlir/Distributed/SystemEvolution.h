#pragma once
// Any evolution system a module declares, run as the module states it: its evolved fields (the
// rhs kernel's), parameters by name, initial data and exact solution from its initial_data
// field assignments (tensorium_init_fields_* kernels, the reserved time t among the
// parameters), per-field outer boundaries from its evolution boundary table, and its
// constraints blocks' residual kernels as monitored norms. Nothing here knows BSSN. No MLIR.
#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Runtime/KernelModule.h"

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tensorium_mlir::distributed {

/// A module that cannot be run as a system: the message names what it lacks.
struct SystemModuleError : DistributedError {
  using DistributedError::DistributedError;
};

struct SystemBoundary {
  std::string field, kind; // periodic, radiative or exact
  double value = 0, speed = 1;
};

/// What a module declares, read from its tables.
struct SystemDescription {
  std::string rhsKernel;
  std::vector<std::string> parameters; // module order, t included when the module uses it
  int timeParameter = -1;
  std::vector<std::string> evolved;    // fields the rhs kernel evolves, in its order
  std::vector<std::string> assigned;   // fields initial_data assigns (tensorium_init_fields_*)
  bool hasRates = false;               // tensorium_init_fields_rate_grid_affine
  std::vector<SystemBoundary> boundaries;
  std::vector<std::string> residualKernels, residuals; // constraints: kernels and their outputs
  std::map<std::string, double> defaults;                // declared parameter defaults
  bool periodic() const { return !boundaries.empty() && boundaries.front().kind == "periodic"; }
};

/// A module's tables and its evolution boundary table (empty when it declares none): a loaded
/// module's, or a linked kernel library's (NAME_tensorium_evolution_boundaries of its header).
struct SystemModule {
  KernelModuleTables tables;
  std::span<const tensorium_evolution_boundary_desc> boundaries;
  /// Declared parameter defaults (NAME_tensorium_system_param_default_names / _values).
  std::span<const char *const> defaultNames;
  std::span<const double> defaultValues;
};
SystemModule systemModule(const runtime::KernelModule &module);

/// Reads the module's tables; refuses (SystemModuleError) a module without a grid rhs kernel.
SystemDescription describeSystem(const SystemModule &module);
inline SystemDescription describeSystem(const runtime::KernelModule &module) { return describeSystem(systemModule(module)); }

/// The parameters in module order from `given` (name -> value; t is the run's time and must not
/// be given), else their declared defaults. Refuses unknown names and parameters without a
/// value, naming them.
std::vector<double> systemParameters(const SystemDescription &system, const std::map<std::string, double> &given);

struct SystemGrid {
  long points = 32;   // per axis, cell-centred on [-extent, extent]^3
  double extent = 1;
  int ghost = 0;      // 0: the kernel's stencil radius
  double spacing() const { return 2 * extent / static_cast<double>(points); }
};

/// What a run adds to, or replaces in, the module's own declarations: the pieces of runs the
/// language does not state (two-puncture or closed-form C++ initial data, the inverse conformal
/// metric a BSSN kernel reads, the algebraic constraints after each step; see
/// bssnSystemHooks) and the point layouts of studies that fix their own grids. An empty member
/// keeps what the module declares.
struct SystemHooks {
  /// The run's points and faces instead of SystemGrid's cell-centred cube with the module's
  /// faces; the module's boundary table is then not required. Periodic and open faces take
  /// nothing from the table; radiative faces take its radiative and exact entries unless
  /// `radiative` is given.
  std::optional<GridSpec> grid;
  /// Far values (per component) and speeds of radiative faces instead of the module's
  /// radiative entries.
  std::optional<RadiativeCondition> radiative;
  /// Writes every evolved field on the rank's ghosted box instead of the module's initial_data
  /// assignments, which the module then need not have.
  DistributedEvolution::StorageHook initialData;
  /// Before each right-hand side (after the ghost exchange) and after each step.
  DistributedEvolution::StorageHook preRhs;
  DistributedEvolution::StateHook postStep;
};

/// A module evolved from its own initial data with its own boundaries, or with a run's hooks.
class SystemEvolution {
public:
  /// Checks that the module can run (initial data for every evolved field, a boundary for each,
  /// the rates of exact boundaries, unless `hooks` supply them) and builds the engine;
  /// collective.
  SystemEvolution(MPI_Comm comm, const SystemModule &module, const SystemGrid &grid, std::vector<double> parameters,
                  TimeIntegrator integrator = TimeIntegrator::RK4, SystemHooks hooks = {});
  SystemEvolution(MPI_Comm comm, const runtime::KernelModule &module, const SystemGrid &grid,
                  std::vector<double> parameters, TimeIntegrator integrator = TimeIntegrator::RK4, SystemHooks hooks = {})
      : SystemEvolution(comm, systemModule(module), grid, std::move(parameters), integrator, std::move(hooks)) {}
  ~SystemEvolution();

  DistributedEvolution &engine() { return *engine_; }
  const SystemDescription &description() const { return system_; }
  /// The evolved fields from the run's initial-data hook, else from the initial_data
  /// expressions at t = time.
  void initialize(double time = 0);

  struct Norms {
    std::vector<std::string> names;
    std::vector<double> l2, max; // root mean square and largest magnitude over the region
    size_t points = 0;
  };
  /// Every constraints output over the owned points two ghost widths from outer faces (all
  /// points on a periodic grid); collective. Loads the engine's storage.
  Norms constraintNorms();
  /// The state minus the initial_data expressions at the present time, per evolved field, over
  /// every owned point; collective. Meaningful when those expressions are an exact solution;
  /// refused (SystemModuleError) when the module has none.
  Norms exactErrors();

private:
  std::vector<double> paramsAt(double t) const;
  void writeFieldValues(runtime::UniformGridStorage &s, double t);
  void layerRates(double t, std::span<const std::array<double, 3>> points, std::span<double> out);

  SystemModule module_;
  SystemDescription system_;
  std::vector<double> parameters_;
  DistributedEvolution::StorageHook initialData_;
  std::unique_ptr<DistributedEvolution> engine_;
  std::unique_ptr<runtime::GeneratedHostStorage> exact_, rates_; // ghosted box; outer-layer points
};

} // namespace tensorium_mlir::distributed
