#pragma once
// Shared pieces of the built-in verification cases (library-internal): the process-wide
// communicator and kernel directory, generated modules by kind and order, BSSN and ADM fields on
// a grid, exact slices from fixtures, the constraint kernel and its convergence table, and the
// BSSN right-hand side on the distributed engine.
#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Distributed/SystemEvolution.h"
#include "tensorium_mlir/Distributed/TwoPunctureBroadcast.h"
#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "tensorium_mlir/Runtime/KernelModule.h"
#include "tensorium_mlir/Verification/Cases.h"
#include "tensorium_mlir/Verification/Convergence.h"
#include "tensorium_mlir/Verification/Grid.h"
#include "tensorium_mlir/Verification/Norms.h"
#include "tensorium_mlir/Verification/Report.h"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace tensorium_mlir::verification::cases {

extern MPI_Comm gComm;
extern int gRank;
extern std::string gKernelDir;

struct LoadedModule {
  std::unique_ptr<runtime::KernelModule> module;
  runtime::GeneratedHostTables tables() const {
    const tensorium_module_tables &t = module->tables();
    return {t.kernels, static_cast<size_t>(t.kernel_count), t.buffers, static_cast<size_t>(t.buffer_count),
            t.param_names, static_cast<size_t>(t.param_count), static_cast<unsigned>(t.dimension)};
  }
  std::span<const tensorium_host_kernel_adapter> adapters() const {
    return {module->tables().adapters, static_cast<size_t>(module->tables().adapter_count)};
  }
};

/// BSSN variables, component-major (9 components for rank-2, row-major, symmetric mirrored).
struct BSSNState {
  size_t n = 0;
  std::vector<double> chi, gammatilde, K, Atilde, Gammatilde, alpha, beta, B;
  explicit BSSNState(size_t points = 0)
      : n(points), chi(points), gammatilde(9 * points), K(points), Atilde(9 * points), Gammatilde(3 * points),
        alpha(points), beta(3 * points), B(3 * points) {}
};

/// ADM fields from BSSN: gamma = gammatilde / chi, gammaU = chi gammatilde^-1,
/// K_ij = (Atilde_ij + gammatilde_ij K / 3) / chi.
struct ADMFields {
  std::vector<double> gamma, gammaU, Kij;
};

/// The initial data of an exact-slice fixture at the grid's points (alpha, gamma_ij, gamma^ij
/// and, when asked for, K_ij from its metric4 and split_3p1); coordinates named as the fixture
/// declares them (x, y, z or r, theta, phi).
struct ExactSlice {
  ADMFields adm;
  std::vector<double> alpha;
};

struct ConstraintNorms {
  Norms H, M;
};

using Options = CaseOptions;

struct ConvergenceRow {
  std::string label;
  int order = 0, n = 0;
  double h = 0;
  ConstraintNorms c;
  double orderH = NAN, orderM = NAN;
};

struct PunctureSet {
  std::vector<std::array<double, 3>> centres;
};

struct HandoffGeometry {
  PunctureSet punctures;
  double L = 2.5, box = 1.8, excision = 0.5;
};

struct HandoffCase : HandoffGeometry {
  std::string description;
  std::function<BSSNState(const Grid &)> state;
};

/// Every BSSN field of a state with its buffer name in the generated module.
template <typename State> auto bssnFields(State &s) {
  using V = decltype(&s.chi);
  return std::array<std::pair<const char *, V>, 8>{{{"chi", &s.chi},
                                                   {"gammatilde", &s.gammatilde},
                                                   {"K", &s.K},
                                                   {"Atilde", &s.Atilde},
                                                   {"Gammatilde", &s.Gammatilde},
                                                   {"alpha", &s.alpha},
                                                   {"beta", &s.beta},
                                                   {"B", &s.B}}};
}

inline constexpr int kSym6[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};

double allMax(double v);

/// The ghosted box of this rank as a Grid (the whole grid plus ghosts on one rank).
Grid localGrid(const distributed::DistributedGrid &d);

const LoadedModule &moduleFor(const std::string &kind, int order);

/// From the handoff's 6-component symmetric buffers to the kernels' 9-component layout.
void expandSymmetric(const std::vector<double> &six, std::vector<double> &nine, size_t n);

/// Inverse of a symmetric 3x3 stored component-major at point p.
void invert3(std::span<const double> m, std::span<double> inv, size_t n, size_t p, double scale = 1.0);

ADMFields toADM(const BSSNState &s);

/// The slice kernel of a metric4 fixture, which writes whatever its split_3p1 maps (K_ij, beta,
/// the BSSN variables) from the metric and its time derivatives.
inline constexpr const char *kSliceKernelSymbol = "tensorium_init_slice_grid_affine";

/// Whether a module has the slice kernel, and the first of `buffers` it does not write ("" when
/// it writes them all).
struct SliceKernelOutputs {
  bool present = false;
  std::string missing;
};
SliceKernelOutputs sliceKernelOutputs(const tensorium_module_tables &t, std::initializer_list<const char *> buffers);

/// alpha, gamma_ij and gamma^ij from `tensorium_init_grid_affine`; K_ij (adm.Kij, else empty)
/// only with `extrinsicCurvature`, from the slice kernel when the fixture has one. A K_ij that
/// no invoked kernel wrote (a split_3p1 without `Kij`) is a StorageError naming the buffer,
/// never zeros.
ExactSlice exactSlice(const std::string &kind, const Grid &g, std::vector<double> params);
ExactSlice exactSlice(const LoadedModule &m, const Grid &g, std::vector<double> params, bool extrinsicCurvature = false);

/// BSSN variables of a conformally flat slice with K_ij = 0: chi = det(gamma)^(-1/3),
/// gammatilde = chi gamma (= delta to round-off), Gammatilde^i = 0, Atilde = K = 0.
BSSNState fromConformallyFlatADM(const ExactSlice &e);

/// max |gamma_ij - psi^4 delta_ij| / psi^4 between a fixture's metric and the closed form.
double conformalFlatnessMismatch(const Grid &g, const ADMFields &adm, const std::function<double(const std::array<double, 3> &)> &psi);

/// Weighted norms over every rank's points (masks weight only the points a rank owns).
Norms norms(std::span<const double> values, const Mask &mask, bool sqrtOf = false);

/// 1 on the points of the local grid this rank owns, 0 on its ghosts.
Mask ownedMask(const distributed::DistributedGrid &d);

/// The generated ADM residual kernel (order p) on the ADM fields.
ConstraintNorms evaluateConstraints(const Grid &g, const ADMFields &adm, int order, const Mask &mask);
/// The same with a given constraint module (residual kernel over gamma, gammaU, Kij into H, M2).
ConstraintNorms evaluateConstraints(const LoadedModule &m, const Grid &g, const ADMFields &adm, const Mask &mask);
/// A module by its path (loaded once).
const LoadedModule &moduleAt(const std::string &path);

/// An L2 constraint norm below this is round-off: the data satisfy that constraint exactly.
inline constexpr double kConstraintRoundOff = 1e-12;

/// Fills observed orders, prints the table and the verdict: for H and |M| each, either at
/// round-off on every grid (exact data) or the order between the two finest spacings within
/// `tolerance` of the expected one.
void judgeConvergence(std::vector<ConvergenceRow> &rows, const std::string &what, const std::string &verdictName, int expected, Report &report, double tolerance = 0.3, bool judgeMomentum = true);

/// Zero in the balls r <= excision around the punctures, rising smoothly to 1 at excision +
/// 0.3, times a taper from 1 at |x_a| <= box - 0.4 to 0 at |x_a| >= box along each axis.
Mask evaluationMask(const Grid &g, double box, const PunctureSet &p, double excision);

double maxDifference(const BSSNState &a, const BSSNState &b);

/// Handoff of a solved two-puncture configuration through TwoPunctureHandoff's SoA buffers.
BSSNState handoffState(const Grid &g, const physics::TwoPunctureSolution &solution);

/// Domain, norm box, punctures and excision radius of each constraint case.
HandoffGeometry handoffGeometry(const std::string &name);

int runHandoffCase(const HandoffCase &c, const Options &o, Report &report);

physics::TwoPunctureOptions solverOptions();

/// Solved once on rank 0; every rank receives the collocation values.
physics::TwoPunctureSolution solvePunctures(const physics::TwoPunctureParameters &p);

/// Static Schwarzschild in isotropic coordinates with alpha = (1 - M/2r)/(1 + M/2r): the BSSN
/// right-hand side vanishes analytically, so its finite-difference value must fall like h^p.
/// The static Schwarzschild slice, once at rest and once in coordinates moving with constant
/// velocity -v (shift beta = v): the exact time derivative of every field is then v^k d_k of it
/// (zero at rest), so the generated right-hand side must approach it at the scheme's order. The
/// moving run exercises the advection terms beta^k d_k of every equation.
void schwarzschildStatic(const Options &o, Report &report, double M, double L, double box, double excision);

/// The same slice in spherical coordinates (r, theta, phi): gamma = psi^4 diag(1, r^2, r^2 sin^2 theta).
void schwarzschildSpherical(const Options &o, Report &report, double M);

/// Kasner, ds^2 = -dt^2 + sum_i t^(2 p_i) dx_i^2 (sum p = sum p^2 = 1), in spatial coordinates
/// warped along the first axis, x = X + eps sin(2 pi X): with J = dx/dX the slice has
///   gamma_XX = t^(2 p1) J^2, gamma_YY = t^(2 p2), gamma_ZZ = t^(2 p3), K_ij = -(1/2) d_t gamma_ij,
/// so chi = (t J)^(-2/3), K = -1/t and Gammatilde^X = -d_X gammatilde^XX
/// = (4/3) t^(2/3 - 2 p1) J^(-7/3) J'. The map is time independent, so alpha = 1, beta = 0
/// (geodesic slicing) still evolve it exactly, and the data now vary in space: the numerical
/// error is the finite-difference error (plus RK4's).
BSSNState kasner(const Grid &g, double t, const std::array<double, 3> &pk, double eps);

int runKasner(const Options &o, Report &report);

/// Flat data with a non-uniform shift beta^i(x) and B^i(x) (periodic, analytic): every shift
/// term of the right-hand side has a closed form here (alpha = 1, K = Atilde = Gammatilde = 0),
///   d_t chi = -(2/3) div beta,   d_t gammatilde_ij = d_j beta^i + d_i beta^j - (2/3) delta_ij div beta,
///   d_t Gammatilde^i = lap beta^i + (1/3) d_i div beta,   d_t beta^i = (3/4) B^i + beta^k d_k beta^i,
///   d_t B^i = d_t Gammatilde^i - eta B^i + beta^k d_k B^i,   d_t K = d_t Atilde = d_t alpha = 0,
/// so the generated right-hand side (advected Gamma-driver) must approach it at the order.
void shiftTerms(const Options &o, Report &report);

int runFlat(const Options &o, Report &report);

/// Peak memory of a case at its largest resolution (all ranks together), from the measured
/// per-point costs in docs/memory.md: constraint cases keep the BSSN state, the ADM fields, the
/// mask and the constraint kernel's storage per point; the Schwarzschild case adds the BSSN
/// right-hand side on the distributed engine; evolutions keep PETSc's state, RK4 stages, the
/// ghosted local vector and the kernel storage per ghosted point.
double memoryEstimate(const std::string &name, const std::vector<int> &resolutions, const std::vector<int> &orders);

/// Before any work: every resolution of a constraint case leaves points in the norm region, and
/// no stencil of a weighted point reaches a puncture that sits on a grid point (the data are
/// singular there). Throws std::invalid_argument naming the resolution.
void checkNormRegions(const std::string &name, const std::vector<int> &resolutions, const std::vector<int> &orders);

/// The generated BSSN right-hand side on the distributed engine (PETSc DMDA + TS RK4), run as
/// a system with hooks (distributed::SystemEvolution, the path of every evolution): the study's
/// closed-form data, the inverse conformal metric before each right-hand side and, when asked
/// for, the algebraic constraints after each step; on the periodic unit cube with n cells per
/// side, or on a given grid with open faces (right-hand side checks only). `grid` is this
/// rank's ghosted box; with one rank and periodic faces it is periodicUnitCube(n, r).
struct Evolution {
  const LoadedModule *module;
  const BSSNState *pending = nullptr; // the data load() hands to the initial-data hook
  std::unique_ptr<distributed::SystemEvolution> system;
  distributed::DistributedEvolution *engine;
  Grid grid;
  runtime::UniformGridStorage &storage;
  std::vector<std::pair<std::string, std::string>> pairs; // (dX, X)

  static distributed::GridSpec unitCube(int n) {
    const double h = 1.0 / n;
    return {{n, n, n}, {0, 0, 0}, {h, h, h}, 0, distributed::Boundary::Periodic};
  }
  static distributed::GridSpec openGrid(const Grid &g) {
    return {{g.n[0], g.n[1], g.n[2]}, {g.lo[0], g.lo[1], g.lo[2]}, {g.h[0], g.h[1], g.h[2]}, 0, distributed::Boundary::Open};
  }
  Evolution(const distributed::GridSpec &spec, int order, std::vector<double> p)
      : Evolution(spec, moduleFor("bssn", order), std::move(p)) {}
  /// `form`: what the module's gammatilde holds (the full conformal metric or its deviation
  /// from delta), for the inverse metric recomputed before every right-hand side and for the
  /// algebraic constraints re-imposed after each step with `project`.
  Evolution(const distributed::GridSpec &spec, const LoadedModule &m, std::vector<double> p,
            distributed::ConformalMetricForm form = distributed::ConformalMetricForm::Full, bool project = false)
      : module(&m),
        system(std::make_unique<distributed::SystemEvolution>(gComm, distributed::systemModule(*m.module),
                                                              distributed::SystemGrid{}, std::move(p),
                                                              distributed::TimeIntegrator::RK4, hooks(spec, form, project))),
        engine(&system->engine()), grid(localGrid(engine->grid())), storage(engine->storage()) {
    for (const distributed::EvolvedField &f : engine->fields())
      pairs.push_back({f.rhs, f.name});
  }
  Evolution(int n, int order, std::vector<double> p) : Evolution(unitCube(n), order, std::move(p)) {}
  // The hooks capture `this`: an Evolution stays where it was made.
  Evolution(const Evolution &) = delete;
  Evolution &operator=(const Evolution &) = delete;

  distributed::SystemHooks hooks(const distributed::GridSpec &spec, distributed::ConformalMetricForm form, bool project) {
    distributed::SystemHooks h;
    h.grid = spec;
    h.initialData = [this](runtime::UniformGridStorage &st, const distributed::DistributedGrid &) {
      for (auto [name, v] : bssnFields(*pending))
        std::copy(v->begin(), v->end(), st.buffer(name).begin());
    };
    h.preRhs = [form](runtime::UniformGridStorage &s, const distributed::DistributedGrid &) {
      distributed::computeInverseConformalMetric(s, form);
    };
    if (project)
      h.postStep = distributed::bssnAlgebraicConstraints(form);
    return h;
  }

  /// The owned points of this rank's grid.
  Mask interior() const { return ownedMask(engine->grid()); }
  void load(const BSSNState &s) {
    pending = &s;
    system->initialize();
    pending = nullptr;
  }
  /// The state with its ghost layers exchanged (periodic faces wrap).
  BSSNState state() {
    engine->loadStorage(engine->state());
    BSSNState s(grid.points());
    for (auto [name, v] : bssnFields(s)) {
      std::span<double> b = storage.buffer(name);
      v->assign(b.begin(), b.end());
    }
    return s;
  }
  /// The generated right-hand side of the current state; dX in storage at the owned points.
  void rhs() {
    Vec f;
    distributed::checkPetsc(VecDuplicate(engine->state(), &f), "VecDuplicate");
    engine->evaluateRhs(engine->state(), f);
    VecDestroy(&f);
  }
  /// One classical RK4 step of size dt (PETSc TS).
  void step(double dt) { engine->advance(1, dt); }
};

} // namespace tensorium_mlir::verification::cases
