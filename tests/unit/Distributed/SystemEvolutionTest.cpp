// A run's hooks on SystemEvolution: a module without initial data or boundaries (BSSN) is
// refused by name until the run supplies them; the run's grid, far values, initial data and
// hooks reach the engine and are called where the engine calls them; flat space stays flat
// under BSSN driven this way (and a slice with K != 0, which is not static, does not); the
// gauge parameters go to the module by name.
#include "module_toolchain.h"
#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Distributed/BssnSetup.h"
#include "tensorium_mlir/Distributed/ModuleCatalog.h"
#include "tensorium_mlir/Distributed/SystemEvolution.h"

#include <gtest/gtest.h>
#include <petscsys.h>

#include <cmath>
#include <memory>
#include <optional>

using namespace tensorium_mlir;
using namespace tensorium_mlir::distributed;

namespace {

class PetscEnvironment : public ::testing::Environment {
public:
  void SetUp() override { PetscInitializeNoArguments(); }
  void TearDown() override { PetscFinalize(); }
};
[[maybe_unused]] ::testing::Environment *const gPetsc = ::testing::AddGlobalTestEnvironment(new PetscEnvironment);

const std::string kFixtures = std::string(TENSORIUM_SOURCE_DIR) + "/fixtures/";

ModuleCatalog &catalog() {
  static ModuleCatalog c(PETSC_COMM_WORLD, {tensorium_cli::moduleToolchain(), tensorium_cli::builtModuleList(),
                                            "tensorium-system-evolution-test"});
  return c;
}

const runtime::KernelModule &module(const std::string &fixture, int order) {
  static std::map<std::pair<std::string, int>, std::unique_ptr<runtime::KernelModule>> loaded;
  std::unique_ptr<runtime::KernelModule> &m = loaded[{fixture, order}];
  if (!m)
    m = catalog().load(kFixtures + fixture, order);
  return *m;
}

const runtime::KernelModule &bssn() { return module("gr/bssn_evolution_3d.tn", 2); }

std::string messageOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const SystemModuleError &e) {
    return e.what();
  }
  return "";
}

GridSpec periodicCube(long n) {
  const double h = 1.0 / static_cast<double>(n);
  return {{n, n, n}, {0, 0, 0}, {h, h, h}, 0, Boundary::Periodic};
}

/// Minkowski in BSSN variables, plus a constant K (not a solution of the vacuum equations with
/// this lapse unless K = 0: d_t K = alpha K^2 / 3 and d_t alpha = -2 alpha K under 1+log).
DistributedEvolution::StorageHook flatData(double K) {
  return [K](runtime::UniformGridStorage &s, const DistributedGrid &g) {
    const size_t n = static_cast<size_t>(g.ghosted().points());
    for (const char *name : kBssnFields)
      std::fill(s.buffer(name).begin(), s.buffer(name).end(), 0.0);
    std::fill(s.buffer("chi").begin(), s.buffer("chi").end(), 1.0);
    std::fill(s.buffer("alpha").begin(), s.buffer("alpha").end(), 1.0);
    std::fill(s.buffer("K").begin(), s.buffer("K").end(), K);
    for (size_t d = 0; d < 3; ++d)
      std::fill_n(s.buffer("gammatilde").begin() + static_cast<long>((4 * d) * n), n, 1.0);
  };
}

/// Largest deviation from Minkowski of the evolved state's owned points.
double departureFromFlat(SystemEvolution &run) {
  DistributedEvolution &e = run.engine();
  e.loadStorage(e.state());
  const runtime::UniformGridStorage &s = e.storage();
  const Box &o = e.grid().owned();
  const size_t n = static_cast<size_t>(e.grid().ghosted().points());
  double worst = 0;
  for (int64_t i = o.begin[0]; i < o.begin[0] + o.extent[0]; ++i)
    for (int64_t j = o.begin[1]; j < o.begin[1] + o.extent[1]; ++j)
      for (int64_t k = o.begin[2]; k < o.begin[2] + o.extent[2]; ++k) {
        const size_t p = e.grid().storageIndex(i, j, k);
        for (const EvolvedField &f : e.fields())
          for (unsigned c = 0; c < f.components; ++c) {
            double flat = 0;
            if (f.name == "chi" || f.name == "alpha" || (f.name == "gammatilde" && c % 4 == 0))
              flat = 1;
            worst = std::max(worst, std::abs(s.buffer(f.name)[c * n + p] - flat));
          }
      }
  return worst;
}

} // namespace

TEST(SystemEvolution, RefusesWhatABssnModuleLacksUntilTheRunSuppliesIt) {
  const SystemModule m = systemModule(bssn());
  const SystemDescription d = describeSystem(m);
  ASSERT_EQ(d.evolved.size(), 8u);
  EXPECT_TRUE(d.assigned.empty());
  EXPECT_TRUE(d.boundaries.empty());
  const std::vector<double> p = bssnParameters(d, {});
  EXPECT_NE(messageOf([&] { SystemEvolution(PETSC_COMM_WORLD, m, {8, 1.0}, p); })
                .find("initial_data do not assign the evolved fields 'alpha', 'beta', 'B', 'chi'"),
            std::string::npos);
  SystemHooks dataOnly;
  dataOnly.initialData = flatData(0);
  EXPECT_NE(messageOf([&] { SystemEvolution(PETSC_COMM_WORLD, m, {8, 1.0}, p, TimeIntegrator::RK4, dataOnly); })
                .find("no boundary condition for the evolved fields 'alpha', 'beta', 'B', 'chi'"),
            std::string::npos);
  SystemHooks full = dataOnly;
  full.grid = periodicCube(8);
  SystemEvolution run(PETSC_COMM_WORLD, m, {}, p, TimeIntegrator::RK4, full);
  EXPECT_EQ(run.engine().grid().spec().boundary, Boundary::Periodic);
  EXPECT_NE(messageOf([&] { run.exactErrors(); }).find("no initial_data field assignments"), std::string::npos);
}

TEST(SystemEvolution, GivesTheGaugeParametersByName) {
  BssnRunOptions o;
  o.eta = 1.5, o.koSigma = 0.2;
  EXPECT_EQ(bssnParameters(describeSystem(bssn()), o), (std::vector<double>{1.5, 1.0, 0.75, 0.2, 1.0}));
  // The harmonic-slicing module declares no 'slicing': the same names, its own order.
  EXPECT_EQ(bssnParameters(describeSystem(module("gr/bssn_harmonic_3d.tn", 2)), o),
            (std::vector<double>{1.5, 0.75, 0.2, 1.0}));
}

TEST(SystemEvolution, TheRunsHooksReachTheEngineAndRunWhereItCallsThem) {
  const SystemModule m = systemModule(bssn());
  SystemHooks hooks = bssnSystemHooks({}, flatData(0));
  hooks.grid = periodicCube(8);
  int preRhs = 0, postStep = 0;
  hooks.preRhs = [&, inverse = hooks.preRhs](runtime::UniformGridStorage &s, const DistributedGrid &g) {
    ++preRhs;
    inverse(s, g);
  };
  hooks.postStep = [&, project = hooks.postStep](std::span<double> owned, const DistributedEvolution &e) {
    ++postStep;
    project(owned, e);
  };
  SystemEvolution run(PETSC_COMM_WORLD, m, {}, bssnParameters(describeSystem(m), {}), TimeIntegrator::RK4, hooks);
  run.initialize();
  run.engine().advance(2, 0.02);
  EXPECT_EQ(postStep, 2);
  EXPECT_EQ(preRhs, 8); // four stages of RK4 per step
  EXPECT_NEAR(run.engine().time(), 0.04, 1e-15);
}

TEST(SystemEvolution, FlatSpaceStaysFlatUnderBssnThroughHooksAndAConstantKDoesNot) {
  const SystemModule m = systemModule(bssn());
  auto evolve = [&](double K) {
    SystemHooks hooks = bssnSystemHooks({}, flatData(K));
    hooks.grid = periodicCube(8);
    SystemEvolution run(PETSC_COMM_WORLD, m, {}, bssnParameters(describeSystem(m), {}), TimeIntegrator::RK4, hooks);
    run.initialize();
    run.engine().advance(5, 0.02);
    return departureFromFlat(run);
  };
  EXPECT_LT(evolve(0), 1e-14);
  // K = 0.1: K itself departs by 0.1, and alpha by about 2 alpha K t = 0.02 by t = 0.1.
  EXPECT_GT(evolve(0.1), 0.09);
}

TEST(SystemEvolution, TheRunsRadiativeFacesReplaceTheModulesAndAPeriodicGridDropsThem) {
  BssnRunOptions o;
  o.points = 12, o.extent = 3;
  SystemHooks hooks = bssnSystemHooks(o, flatData(0));
  const SystemModule m = systemModule(bssn());
  SystemEvolution run(PETSC_COMM_WORLD, m, {}, bssnParameters(describeSystem(m), o), TimeIntegrator::RK4, hooks);
  const DistributedEvolution::Options &eo = run.engine().options();
  EXPECT_EQ(eo.grid.boundary, Boundary::Radiative);
  EXPECT_DOUBLE_EQ(eo.grid.lower[0], -3 + 0.25);
  EXPECT_EQ(eo.radiative.farValues.at("gammatilde"), (std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_DOUBLE_EQ(eo.radiative.speeds.at("K"), std::sqrt(2.0));

  // A module with radiative faces of its own, run on a periodic grid: no radiative entries.
  const SystemModule pulse = systemModule(module("systems/scalar_pulse_radiative_3d.tn", 2));
  SystemHooks periodic;
  periodic.grid = periodicCube(8);
  SystemEvolution onPeriodic(PETSC_COMM_WORLD, pulse, {}, systemParameters(describeSystem(pulse), {}),
                             TimeIntegrator::RK4, periodic);
  EXPECT_TRUE(onPeriodic.engine().options().radiative.farValues.empty());
  EXPECT_TRUE(onPeriodic.engine().options().exact.fields.empty());
  // Its own grid keeps its own faces.
  SystemEvolution own(PETSC_COMM_WORLD, pulse, {8, 1.0}, systemParameters(describeSystem(pulse), {}));
  EXPECT_EQ(own.engine().options().grid.boundary, Boundary::Radiative);
  EXPECT_EQ(own.engine().options().radiative.farValues.at("phi"), std::vector<double>{0.0});
}

TEST(SystemEvolution, ANonFiniteValueIsFoundWithItsFieldComponentAndPoint) {
  const SystemModule maxwell = systemModule(module("systems/maxwell_plane_gauge_wave_3d.tn", 4));
  SystemEvolution run(PETSC_COMM_WORLD, maxwell, {8, 1.0}, systemParameters(describeSystem(maxwell), {{"a", 1.0}, {"lam", 0.1}}));
  run.initialize();
  DistributedEvolution &e = run.engine();
  EXPECT_FALSE(e.firstNonFinite(e.state()).has_value());
  EXPECT_NO_THROW(e.checkFinite());
  // Two bad values: E component 2 at (3, 5, 6) and, later in natural order, a NaN at (1, 0, 7).
  const EvolvedField &E = e.field("E"), &A = e.field("A");
  const int64_t dof = e.grid().dof();
  auto natural = [&](int64_t i, int64_t j, int64_t k, int64_t d) { return ((k * 8 + j) * 8 + i) * dof + d; };
  const PetscInt values[2] = {static_cast<PetscInt>(natural(3, 5, 6, E.offset + 2)),
                              static_cast<PetscInt>(natural(1, 0, 7, A.offset))};
  // VecSetValues takes PETSc's (DMDA) global numbering: map the natural indices through the AO.
  AO ao;
  ASSERT_EQ(DMDAGetAO(e.grid().dm(), &ao), 0);
  PetscInt petsc[2] = {values[0], values[1]};
  ASSERT_EQ(AOApplicationToPetsc(ao, 2, petsc), 0);
  const PetscScalar bad[2] = {HUGE_VAL, NAN};
  ASSERT_EQ(VecSetValues(e.state(), 2, petsc, bad, INSERT_VALUES), 0);
  ASSERT_EQ(VecAssemblyBegin(e.state()), 0);
  ASSERT_EQ(VecAssemblyEnd(e.state()), 0);
  const std::optional<NonFiniteValue> v = e.firstNonFinite(e.state());
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->field, "E");
  EXPECT_EQ(v->component, 2u);
  EXPECT_EQ(v->point, (std::array<int64_t, 3>{3, 5, 6}));
  EXPECT_EQ(v->count, 2);
  // Cell-centred on [-1, 1]: x_i = -1 + (i + 1/2) / 4.
  EXPECT_DOUBLE_EQ(v->coordinate[0], -1 + 3.5 / 4);
  EXPECT_DOUBLE_EQ(v->coordinate[2], -1 + 6.5 / 4);
  try {
    e.checkFinite();
    ADD_FAILURE() << "checkFinite accepted a non-finite state";
  } catch (const NonFiniteState &error) {
    EXPECT_NE(std::string(error.what()).find("(step 0): field E (component 2) at point (3, 5, 6)"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("first of 2 non-finite values"), std::string::npos) << error.what();
  }
}

TEST(SystemEvolution, FloorsRaiseChiAndTheLapseOnlyBelowThem) {
  const SystemModule m = systemModule(bssn());
  SystemHooks hooks = bssnSystemHooks({}, flatData(0));
  hooks.grid = periodicCube(8);
  SystemEvolution run(PETSC_COMM_WORLD, m, {}, bssnParameters(describeSystem(m), {}), TimeIntegrator::RK4, hooks);
  const DistributedEvolution &e = run.engine();
  const size_t dof = static_cast<size_t>(e.grid().dof()), chi = static_cast<size_t>(e.field("chi").offset),
               alpha = static_cast<size_t>(e.field("alpha").offset);
  std::vector<double> owned(3 * dof, 0.5);
  owned[chi] = -0.25, owned[alpha] = 0.0;            // point 0: both below their floors
  owned[dof + chi] = 2e-4, owned[dof + alpha] = 1e-9; // point 1: chi above, alpha below
  owned[2 * dof + chi] = NAN;                         // point 2: left for the finite check
  const std::vector<double> before = owned;
  bssnFloors({1e-4, 1e-8})(owned, e);
  EXPECT_EQ(owned[chi], 1e-4);
  EXPECT_EQ(owned[alpha], 1e-8);
  EXPECT_EQ(owned[dof + chi], 2e-4);
  EXPECT_EQ(owned[dof + alpha], 1e-8);
  EXPECT_TRUE(std::isnan(owned[2 * dof + chi]));
  for (size_t q = 0; q < owned.size(); ++q)
    if (q % dof != chi && q % dof != alpha)
      EXPECT_EQ(owned[q], before[q]) << q;
  // Floors of 0 change nothing; a negative floor is refused.
  std::vector<double> untouched = before;
  bssnFloors({0, 0})(untouched, e);
  EXPECT_EQ(untouched[chi], -0.25);
  EXPECT_THROW(bssnFloors({-1, 0}), DistributedError);
}
