#include "tensorium_mlir/Distributed/SystemEvolution.h"

#include "tensorium_mlir/Distributed/ModuleCatalog.h"
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace tensorium_mlir::distributed {

namespace {

constexpr const char *kRhsKernel = "tensorium_rhs_grid_parallel";
constexpr const char *kFieldsKernel = "tensorium_init_fields_grid_affine";
constexpr const char *kRatesKernel = "tensorium_init_fields_rate_grid_affine";

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

bool hasKernel(const runtime::UniformGridStorage &s, const std::string &symbol) {
  return std::any_of(s.kernels().begin(), s.kernels().end(),
                     [&](const runtime::KernelBinding &k) { return k.symbol == symbol || k.symbol.ends_with("_" + symbol); });
}

/// The buffers a kernel writes (or reads: `written` false), in descriptor order.
std::vector<std::string> kernelBuffers(const runtime::UniformGridStorage &s, const std::string &symbol, bool written) {
  std::vector<std::string> out;
  const runtime::KernelBinding &k = s.binding(symbol);
  for (size_t b = 0; b < k.buffers.size(); ++b)
    if (k.writes[b] == written)
      out.push_back(s.buffers()[k.buffers[b]].name);
  return out;
}

} // namespace

SystemModule systemModule(const runtime::KernelModule &module) {
  int32_t count = 0, defaults = 0;
  const tensorium_evolution_boundary_desc *b = module.evolutionBoundaries(count);
  const char *const *names = nullptr;
  const double *values = module.systemParamDefaults(defaults, names);
  return {moduleTables(module),
          {b, static_cast<size_t>(count)},
          {names, static_cast<size_t>(defaults)},
          {values, static_cast<size_t>(defaults)}};
}

SystemDescription describeSystem(const SystemModule &module) {
  runtime::GeneratedHostStorage probe(module.tables.tables, {1, 1, 1});
  SystemDescription d;
  if (!hasKernel(probe, kRhsKernel))
    throw SystemModuleError("the module has no " + std::string(kRhsKernel) +
                            " kernel to evolve with: it needs an 'evolution' block with 'dt' assignments and 'scheme = fd'");
  d.rhsKernel = kRhsKernel;
  d.parameters = probe.paramNames();
  for (size_t i = 0; i < d.parameters.size(); ++i)
    if (d.parameters[i] == "t")
      d.timeParameter = static_cast<int>(i);
  const std::vector<std::string> written = kernelBuffers(probe, kRhsKernel, true),
                                 read = kernelBuffers(probe, kRhsKernel, false);
  for (const auto &[derivative, state] : probe.eulerUpdatePairsFromDerivativePrefix())
    if (std::count(written.begin(), written.end(), derivative) &&
        (std::count(read.begin(), read.end(), state) || std::count(written.begin(), written.end(), state)))
      d.evolved.push_back(state);
  if (hasKernel(probe, kFieldsKernel))
    d.assigned = kernelBuffers(probe, kFieldsKernel, true);
  d.hasRates = hasKernel(probe, kRatesKernel);
  for (const tensorium_evolution_boundary_desc &b : module.boundaries) {
    if (b.struct_size < static_cast<int32_t>(sizeof(tensorium_evolution_boundary_desc)) || !b.field || !b.kind)
      throw SystemModuleError("the module's evolution boundary table is older than this runtime or damaged; recompile it");
    d.boundaries.push_back({b.field, b.kind, b.value, b.speed});
  }
  if (module.defaultNames.size() != module.defaultValues.size())
    throw SystemModuleError("the module's parameter defaults are damaged: names and values differ in number");
  for (size_t i = 0; i < module.defaultNames.size(); ++i)
    if (module.defaultNames[i])
      d.defaults[module.defaultNames[i]] = module.defaultValues[i];
  for (const runtime::KernelBinding &k : probe.kernels())
    if (k.kind == abi::kKindResidualGridParallel) {
      d.residualKernels.push_back(k.symbol);
      for (const std::string &r : kernelBuffers(probe, k.symbol, true))
        d.residuals.push_back(r);
    }
  return d;
}

std::vector<double> systemParameters(const SystemDescription &system, const std::map<std::string, double> &given) {
  std::vector<double> out;
  std::vector<std::string> missing;
  for (const auto &[name, value] : given) {
    if (name == "t" && system.timeParameter >= 0)
      throw SystemModuleError("'t' is the time of the run, not a parameter to set");
    if (std::find(system.parameters.begin(), system.parameters.end(), name) == system.parameters.end())
      throw SystemModuleError("the module has no parameter '" + name + "'" +
                              (system.parameters.empty() ? std::string(" (it declares none)")
                                                         : " (its parameters: " + joined(system.parameters) + ")"));
    if (!std::isfinite(value))
      throw SystemModuleError("parameter '" + name + "' must be finite");
  }
  for (size_t i = 0; i < system.parameters.size(); ++i) {
    if (static_cast<int>(i) == system.timeParameter) {
      out.push_back(0);
      continue;
    }
    auto found = given.find(system.parameters[i]);
    auto declared = system.defaults.find(system.parameters[i]);
    if (found != given.end())
      out.push_back(found->second);
    else if (declared != system.defaults.end())
      out.push_back(declared->second);
    else
      missing.push_back(system.parameters[i]);
  }
  if (!missing.empty())
    throw SystemModuleError("no value for parameter" + std::string(missing.size() > 1 ? "s " : " ") + joined(missing) +
                            "; give --param NAME=VALUE (or the study's parameters table), or declare a default in the "
                            "fixture ('params { NAME = VALUE }')");
  return out;
}

SystemEvolution::SystemEvolution(MPI_Comm comm, const SystemModule &module, const SystemGrid &grid,
                                 std::vector<double> parameters, TimeIntegrator integrator, SystemHooks hooks)
    : module_(module), system_(describeSystem(module)), parameters_(std::move(parameters)),
      initialData_(std::move(hooks.initialData)) {
  const SystemDescription &s = system_;
  if (parameters_.size() != s.parameters.size())
    throw SystemModuleError("the module takes " + std::to_string(s.parameters.size()) + " parameters, got " +
                            std::to_string(parameters_.size()));
  if (s.evolved.empty())
    throw SystemModuleError("the evolution kernel evolves no field (no 'dt X' of a field X it reads)");
  std::vector<std::string> noData, noBoundary;
  for (const std::string &f : s.evolved) {
    if (std::find(s.assigned.begin(), s.assigned.end(), f) == s.assigned.end())
      noData.push_back(f);
    if (std::none_of(s.boundaries.begin(), s.boundaries.end(), [&](const SystemBoundary &b) { return b.field == f; }))
      noBoundary.push_back(f);
  }
  if (!noData.empty() && !initialData_)
    throw SystemModuleError("the module's initial_data do not assign the evolved field" +
                            std::string(noData.size() > 1 ? "s " : " ") + joined(noData) + " (write, e.g., '" +
                            noData.front() + " = ...' in its 'initial_data' block)");
  if (!noBoundary.empty() && !hooks.grid)
    throw SystemModuleError("the module declares no boundary condition for the evolved field" +
                            std::string(noBoundary.size() > 1 ? "s " : " ") + joined(noBoundary) + " (write, e.g., 'boundary " +
                            noBoundary.front() + " periodic' or 'boundary " + noBoundary.front() +
                            " radiative(value = 0, speed = 1)' in its 'evolution' block)");
  if (!hooks.grid && (!(grid.extent > 0) || grid.points < 1))
    throw SystemModuleError("the grid needs a positive extent and at least one point per axis");

  DistributedEvolution::Options o;
  o.rhsKernel = s.rhsKernel;
  o.params = parameters_;
  o.integrator = integrator;
  if (hooks.grid) {
    o.grid = *hooks.grid;
  } else {
    const double h = grid.spacing();
    // Cell-centred points x_i = -L + (i + 1/2) h, as in every run of the project.
    o.grid = {{grid.points, grid.points, grid.points}, {-grid.extent + h / 2, -grid.extent + h / 2, -grid.extent + h / 2},
              {h, h, h}, grid.ghost, s.periodic() ? Boundary::Periodic : Boundary::Radiative};
  }
  // The module's radiative and exact entries serve radiative faces only (a run's periodic or
  // open grid overrides them).
  const bool moduleFaces = o.grid.boundary == Boundary::Radiative;
  for (const SystemBoundary &b : s.boundaries) {
    if (b.kind == "radiative") {
      o.radiative.speeds[b.field] = b.speed;
    } else if (b.kind == "exact") {
      if (!moduleFaces)
        continue;
      if (!s.hasRates)
        throw SystemModuleError("boundary '" + b.field + " exact' needs the module's " + std::string(kRatesKernel) +
                                " kernel; recompile the fixture");
      o.exact.fields.push_back(b.field);
    } else if (b.kind != "periodic") {
      throw SystemModuleError("unknown boundary kind '" + b.kind + "' of field '" + b.field + "'");
    }
  }
  if (moduleFaces && !hooks.radiative) {
    runtime::GeneratedHostStorage probe(module.tables.tables, {1, 1, 1});
    for (const SystemBoundary &b : s.boundaries)
      if (b.kind == "radiative")
        o.radiative.farValues[b.field].assign(probe.bufferInfo(b.field).componentCount, b.value);
  } else {
    o.radiative = hooks.radiative.value_or(RadiativeCondition{});
  }
  if (!o.exact.fields.empty())
    o.exact.rates = [this](double t, std::span<const std::array<double, 3>> points, std::span<double> out) {
      layerRates(t, points, out);
    };
  engine_ = std::make_unique<DistributedEvolution>(comm, module.tables, std::move(o));
  if (hooks.preRhs)
    engine_->setPreRhsHook(std::move(hooks.preRhs));
  if (hooks.postStep)
    engine_->setPostStepHook(std::move(hooks.postStep));
}

SystemEvolution::~SystemEvolution() = default;

std::vector<double> SystemEvolution::paramsAt(double t) const {
  std::vector<double> p = parameters_;
  if (system_.timeParameter >= 0)
    p[static_cast<size_t>(system_.timeParameter)] = t;
  return p;
}

void SystemEvolution::writeFieldValues(runtime::UniformGridStorage &s, double t) {
  const DistributedGrid &g = engine_->grid();
  const Box &b = g.ghosted();
  std::span<double> x = s.buffer("x"), y = s.buffer("y"), z = s.buffer("z");
  for (int64_t i = b.begin[0]; i < b.begin[0] + b.extent[0]; ++i)
    for (int64_t j = b.begin[1]; j < b.begin[1] + b.extent[1]; ++j)
      for (int64_t k = b.begin[2]; k < b.begin[2] + b.extent[2]; ++k) {
        const auto c = g.coordinate(i, j, k);
        const size_t p = g.storageIndex(i, j, k);
        x[p] = c[0], y[p] = c[1], z[p] = c[2];
      }
  const auto &h = g.spec().spacing;
  s.invoke(module_.tables.adapters, kFieldsKernel, paramsAt(t), {h[0], h[1], h[2]});
}

void SystemEvolution::initialize(double time) {
  if (initialData_)
    engine_->initialize(initialData_);
  else
    engine_->initialize([&](runtime::UniformGridStorage &s, const DistributedGrid &) { writeFieldValues(s, time); });
  engine_->setTime(time, 0);
}

void SystemEvolution::layerRates(double t, std::span<const std::array<double, 3>> points, std::span<double> out) {
  const size_t n = points.size();
  if (!rates_) {
    rates_ = std::make_unique<runtime::GeneratedHostStorage>(module_.tables.tables,
                                                             runtime::GridShape{static_cast<int64_t>(n), 1, 1});
    std::span<double> x = rates_->buffer("x"), y = rates_->buffer("y"), z = rates_->buffer("z");
    for (size_t p = 0; p < n; ++p)
      x[p] = points[p][0], y[p] = points[p][1], z[p] = points[p][2];
  }
  rates_->invoke(module_.tables.adapters, kRatesKernel, paramsAt(t), {1, 1, 1});
  const size_t dof = static_cast<size_t>(engine_->grid().dof());
  for (const std::string &name : engine_->options().exact.fields) {
    const EvolvedField &f = engine_->field(name);
    std::span<const double> rate = rates_->kernelOutput("d" + name, "the exact outer layers");
    for (unsigned c = 0; c < f.components; ++c)
      for (size_t p = 0; p < n; ++p)
        out[p * dof + static_cast<size_t>(f.offset) + c] = rate[c * n + p];
  }
}

namespace {

/// Sums of squares and maxima of each named buffer over the owned points `margin` or more from
/// the faces of a non-periodic grid, reduced over ranks. NaN counts as the largest value.
SystemEvolution::Norms reduceNorms(const DistributedEvolution &e, const std::vector<std::string> &names,
                                   const std::function<std::span<const double>(const std::string &)> &values,
                                   const std::function<unsigned(const std::string &)> &components, int64_t margin) {
  const DistributedGrid &g = e.grid();
  const Box &o = g.owned();
  const auto &N = g.spec().points;
  if (g.spec().boundary == Boundary::Periodic)
    margin = 0;
  const size_t n = static_cast<size_t>(g.ghosted().points());
  std::vector<double> sum(names.size() + 1, 0.0), mx(names.size(), 0.0);
  for (int64_t i = o.begin[0]; i < o.begin[0] + o.extent[0]; ++i)
    for (int64_t j = o.begin[1]; j < o.begin[1] + o.extent[1]; ++j)
      for (int64_t k = o.begin[2]; k < o.begin[2] + o.extent[2]; ++k) {
        if (i < margin || j < margin || k < margin || i >= N[0] - margin || j >= N[1] - margin || k >= N[2] - margin)
          continue;
        const size_t p = g.storageIndex(i, j, k);
        for (size_t q = 0; q < names.size(); ++q) {
          std::span<const double> v = values(names[q]);
          for (unsigned c = 0; c < components(names[q]); ++c) {
            const double a = std::abs(v[c * n + p]);
            sum[q] += a * a;
            mx[q] = std::isnan(a) ? HUGE_VAL : std::max(mx[q], a);
          }
        }
        sum.back() += 1;
      }
  std::vector<double> total(sum.size()), largest(mx.size());
  MPI_Allreduce(sum.data(), total.data(), static_cast<int>(sum.size()), MPI_DOUBLE, MPI_SUM, g.comm());
  MPI_Allreduce(mx.data(), largest.data(), static_cast<int>(mx.size()), MPI_DOUBLE, MPI_MAX, g.comm());
  SystemEvolution::Norms out;
  out.names = names;
  out.points = static_cast<size_t>(total.back());
  for (size_t q = 0; q < names.size(); ++q) {
    out.l2.push_back(total.back() > 0 ? std::sqrt(total[q] / total.back()) : 0.0);
    out.max.push_back(largest[q]);
  }
  return out;
}

} // namespace

SystemEvolution::Norms SystemEvolution::constraintNorms() {
  DistributedEvolution &e = *engine_;
  if (system_.residualKernels.empty())
    return {};
  e.loadStorage(e.state());
  const auto &h = e.grid().spec().spacing;
  for (const std::string &k : system_.residualKernels)
    e.storage().invoke(module_.tables.adapters, k, parameters_, {h[0], h[1], h[2]});
  const runtime::UniformGridStorage &s = e.storage();
  return reduceNorms(
      e, system_.residuals, [&](const std::string &name) { return s.kernelOutput(name, "the constraint norms"); },
      [&](const std::string &name) { return s.bufferInfo(name).componentCount; },
      2 * static_cast<int64_t>(e.grid().spec().ghostWidth));
}

SystemEvolution::Norms SystemEvolution::exactErrors() {
  DistributedEvolution &e = *engine_;
  if (system_.assigned.empty())
    throw SystemModuleError("the module has no initial_data field assignments to compare the state with");
  const Box &b = e.grid().ghosted();
  if (!exact_)
    exact_ = std::make_unique<runtime::GeneratedHostStorage>(module_.tables.tables,
                                                             runtime::GridShape{b.extent[0], b.extent[1], b.extent[2]});
  writeFieldValues(*exact_, e.time());
  e.loadStorage(e.state());
  std::map<std::string, std::vector<double>> difference;
  for (const std::string &f : system_.evolved) {
    std::span<const double> exact = exact_->kernelOutput(f, "the comparison with the exact solution");
    std::span<const double> state = std::as_const(e.storage()).buffer(f);
    std::vector<double> &d = difference[f];
    d.resize(exact.size());
    for (size_t q = 0; q < exact.size() && q < state.size(); ++q)
      d[q] = state[q] - exact[q];
  }
  return reduceNorms(
      e, system_.evolved, [&](const std::string &name) { return std::span<const double>(difference.at(name)); },
      [&](const std::string &name) { return e.field(name).components; }, 0);
}

} // namespace tensorium_mlir::distributed
