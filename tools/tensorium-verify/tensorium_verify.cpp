// tensorium-verify: constraint-violation and evolution checks with the generated kernels.
// Handoff cases put initial data on Cartesian grids at several spacings, evaluate the ADM
// Hamiltonian and momentum constraints with the generated fd residual kernels (orders 2, 4, 6)
// away from the punctures, and judge the observed convergence order. Evolution cases run RK4
// with the generated parallel BSSN right-hand side on the distributed engine. Every case runs
// unchanged under mpirun: each rank handles its part of every grid, norms are MPI reductions,
// and rank 0 reports.
#include "kernel_module.h"
#include "output_paths.h"

#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Distributed/TwoPunctureBroadcast.h"
#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"
#include "tensorium_mlir/Verification/Convergence.h"
#include "tensorium_mlir/Verification/Norms.h"
#include "tensorium_mlir/Verification/Report.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using verification::Grid;
using verification::Mask;
using verification::Norms;
using verification::OrderSeries;
using verification::Report;
using verification::cube;
using verification::observedOrder;
using verification::periodicUnitCube;
using verification::smoothStep;
using verification::operator*;

namespace {

// ------------------------------------------------------------------ grids and modules

MPI_Comm gComm = MPI_COMM_WORLD;
int gRank = 0;

double allMax(double v) { return verification::allMax(v, gComm); }

/// The ghosted box of this rank as a Grid (the whole grid plus ghosts on one rank).
Grid localGrid(const distributed::DistributedGrid &d) {
  const distributed::Box &b = d.ghosted();
  const auto &lo = d.spec().lower;
  return {{static_cast<int>(b.extent[0]), static_cast<int>(b.extent[1]), static_cast<int>(b.extent[2])},
          {lo[0], lo[1], lo[2]},
          {d.spec().spacing[0], d.spec().spacing[1], d.spec().spacing[2]},
          {static_cast<int>(b.begin[0]), static_cast<int>(b.begin[1]), static_cast<int>(b.begin[2])}};
}

std::string gKernelDir = TENSORIUM_VERIFY_KERNEL_DIR;

struct LoadedModule {
  std::unique_ptr<tensorium_converge::Module> module;
  runtime::GeneratedHostTables tables() const {
    const tensorium_module_tables &t = module->tables();
    return {t.kernels, static_cast<size_t>(t.kernel_count), t.buffers, static_cast<size_t>(t.buffer_count),
            t.param_names, static_cast<size_t>(t.param_count), static_cast<unsigned>(t.dimension)};
  }
  std::span<const tensorium_host_kernel_adapter> adapters() const {
    return {module->tables().adapters, static_cast<size_t>(module->tables().adapter_count)};
  }
};

const LoadedModule &moduleFor(const std::string &kind, int order) {
  static std::map<std::string, LoadedModule> cache;
  const std::string name = "verify_" + kind + "_o" + std::to_string(order);
  auto it = cache.find(name);
  if (it == cache.end()) {
    LoadedModule m;
    m.module = std::make_unique<tensorium_converge::Module>(gKernelDir + "/lib" + name + ".so");
    it = cache.emplace(name, std::move(m)).first;
  }
  return it->second;
}

// ------------------------------------------------------------------ BSSN state on a grid

/// BSSN variables, component-major (9 components for rank-2, row-major, symmetric mirrored).
struct BSSNState {
  size_t n = 0;
  std::vector<double> chi, gammatilde, K, Atilde, Gammatilde, alpha, beta, B;
  explicit BSSNState(size_t points = 0)
      : n(points), chi(points), gammatilde(9 * points), K(points), Atilde(9 * points), Gammatilde(3 * points),
        alpha(points), beta(3 * points), B(3 * points) {}
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

constexpr int kSym6[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};

/// From the handoff's 6-component symmetric buffers to the kernels' 9-component layout.
void expandSymmetric(const std::vector<double> &six, std::vector<double> &nine, size_t n) {
  for (int a = 0; a < 6; ++a) {
    const size_t i = static_cast<size_t>(kSym6[a][0]), j = static_cast<size_t>(kSym6[a][1]);
    for (size_t p = 0; p < n; ++p)
      nine[(i * 3 + j) * n + p] = nine[(j * 3 + i) * n + p] = six[static_cast<size_t>(a) * n + p];
  }
}

/// Inverse of a symmetric 3x3 stored component-major at point p.
void invert3(std::span<const double> m, std::span<double> inv, size_t n, size_t p, double scale = 1.0) {
  auto a = [&](int i, int j) { return m[static_cast<size_t>(i * 3 + j) * n + p]; };
  const double c00 = a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1), c01 = a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2),
               c02 = a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1), c11 = a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0),
               c12 = a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2), c22 = a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
  const double det = a(0, 0) * c00 + a(0, 1) * (a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2)) + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
  const double r = scale / det;
  const double c[3][3] = {{c00, c01, c02}, {c01, c11, c12}, {c02, c12, c22}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      inv[static_cast<size_t>(i * 3 + j) * n + p] = r * c[i][j];
}

/// ADM fields from BSSN: gamma = gammatilde / chi, gammaU = chi gammatilde^-1,
/// K_ij = (Atilde_ij + gammatilde_ij K / 3) / chi.
struct ADMFields {
  std::vector<double> gamma, gammaU, Kij;
};
ADMFields toADM(const BSSNState &s) {
  const size_t n = s.n;
  ADMFields a{std::vector<double>(9 * n), std::vector<double>(9 * n), std::vector<double>(9 * n)};
  for (size_t p = 0; p < n; ++p) {
    for (size_t c = 0; c < 9; ++c) {
      a.gamma[c * n + p] = s.gammatilde[c * n + p] / s.chi[p];
      a.Kij[c * n + p] = (s.Atilde[c * n + p] + s.gammatilde[c * n + p] * s.K[p] / 3) / s.chi[p];
    }
    invert3(s.gammatilde, a.gammaU, n, p, s.chi[p]);
  }
  return a;
}

/// The initial data of an exact-slice fixture (`tensorium_init_grid_affine`: alpha, gamma_ij,
/// gamma^ij from its metric4 and split_3p1) at the grid's points; coordinates named as the
/// fixture declares them (x, y, z or r, theta, phi). K_ij = 0 for these static slices.
struct ExactSlice {
  ADMFields adm;
  std::vector<double> alpha;
};
ExactSlice exactSlice(const std::string &kind, const Grid &g, std::vector<double> params) {
  const LoadedModule &m = moduleFor(kind, 0);
  runtime::GeneratedHostStorage storage(m.tables(), {g.n[0], g.n[1], g.n[2]});
  const bool spherical = storage.hasBuffer("r");
  const char *names[3] = {spherical ? "r" : "x", spherical ? "theta" : "y", spherical ? "phi" : "z"};
  for (int a = 0; a < 3; ++a) {
    std::span<double> c = storage.buffer(names[a]);
    for (int i = 0; i < g.n[0]; ++i)
      for (int j = 0; j < g.n[1]; ++j)
        for (int k = 0; k < g.n[2]; ++k)
          c[g.index(i, j, k)] = g.at(i, j, k)[static_cast<size_t>(a)];
  }
  storage.invoke(m.adapters(), "tensorium_init_grid_affine", params, {g.h[0], g.h[1], g.h[2]});
  ExactSlice out;
  auto get = [&](const char *name) {
    std::span<double> b = storage.buffer(name);
    return std::vector<double>(b.begin(), b.end());
  };
  out.adm = {get("gamma"), get("gammaU"), std::vector<double>(9 * g.points(), 0.0)};
  out.alpha = get("alpha");
  return out;
}

/// BSSN variables of a conformally flat slice with K_ij = 0: chi = det(gamma)^(-1/3),
/// gammatilde = chi gamma (= delta to round-off), Gammatilde^i = 0, Atilde = K = 0.
BSSNState fromConformallyFlatADM(const ExactSlice &e) {
  const size_t n = e.alpha.size();
  BSSNState s(n);
  for (size_t p = 0; p < n; ++p) {
    auto a = [&](size_t i, size_t j) { return e.adm.gamma[(i * 3 + j) * n + p]; };
    const double det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
                       a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
    s.chi[p] = std::cbrt(1.0 / det);
    for (size_t c = 0; c < 9; ++c)
      s.gammatilde[c * n + p] = s.chi[p] * e.adm.gamma[c * n + p];
    s.alpha[p] = e.alpha[p];
  }
  return s;
}

/// max |gamma_ij - psi^4 delta_ij| / psi^4 between a fixture's metric and the closed form.
double conformalFlatnessMismatch(const Grid &g, const ADMFields &adm, const std::function<double(const std::array<double, 3> &)> &psi) {
  double worst = 0;
  const size_t n = g.points();
  for (int i = 0; i < g.n[0]; ++i)
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k) {
        const size_t p = g.index(i, j, k);
        const double psi4 = std::pow(psi(g.at(i, j, k)), 4);
        if (!std::isfinite(psi4))
          continue; // a grid point on a puncture
        for (size_t c = 0; c < 9; ++c)
          worst = std::max(worst, std::abs(adm.gamma[c * n + p] - (c % 4 == 0 ? psi4 : 0.0)) / psi4);
      }
  return allMax(worst);
}

/// Weighted norms over every rank's points (masks weight only the points a rank owns).
Norms norms(std::span<const double> values, const Mask &mask, bool sqrtOf = false) {
  return verification::weightedNorms(values, mask, gComm, sqrtOf);
}

/// 1 on the points of the local grid this rank owns, 0 on its ghosts.
Mask ownedMask(const distributed::DistributedGrid &d) {
  Mask m(static_cast<size_t>(d.ghosted().points()), 0.0);
  const distributed::Box &o = d.owned();
  for (int64_t i = o.begin[0]; i < o.begin[0] + o.extent[0]; ++i)
    for (int64_t j = o.begin[1]; j < o.begin[1] + o.extent[1]; ++j)
      for (int64_t k = o.begin[2]; k < o.begin[2] + o.extent[2]; ++k)
        m[d.storageIndex(i, j, k)] = 1;
  return m;
}

struct ConstraintNorms {
  Norms H, M;
};

/// The generated ADM residual kernel (order p) on the ADM fields.
ConstraintNorms evaluateConstraints(const Grid &g, const ADMFields &adm, int order, const Mask &mask) {
  const LoadedModule &m = moduleFor("constraints", order);
  runtime::GeneratedHostStorage storage(m.tables(), {g.n[0], g.n[1], g.n[2]});
  auto copy = [&](const char *name, const std::vector<double> &v) {
    std::span<double> b = storage.buffer(name);
    std::copy(v.begin(), v.end(), b.begin());
  };
  copy("gamma", adm.gamma);
  copy("gammaU", adm.gammaU);
  copy("Kij", adm.Kij);
  storage.invoke(m.adapters(), "tensorium_residual_grid_parallel", {}, {g.h[0], g.h[1], g.h[2]});
  return {norms(storage.buffer("H"), mask), norms(storage.buffer("M2"), mask, true)};
}

// ------------------------------------------------------------------ reports

struct Options {
  std::vector<int> orders{4};
  std::vector<int> resolutions;
  std::string csv, plot, junit;
  bool json = false;
};

struct ConvergenceRow {
  std::string label;
  int order = 0, n = 0;
  double h = 0;
  ConstraintNorms c;
  double orderH = NAN, orderM = NAN;
};

/// Fills observed orders, prints the table and the verdict: the order between the two finest
/// spacings within 0.3 of the finite-difference order, for H and for |M| when M is not at
/// round-off.
void judgeConvergence(std::vector<ConvergenceRow> &rows, const std::string &what, const std::string &verdictName,
                      int expected, Report &report) {
  // No verdict from NaN: a non-finite norm is a run error.
  for (const ConvergenceRow &r : rows)
    if (!std::isfinite(r.c.H.l2) || !std::isfinite(r.c.H.max) || !std::isfinite(r.c.M.l2) || !std::isfinite(r.c.M.max))
      throw std::runtime_error(what + ": a constraint norm is not finite at n = " + std::to_string(r.n) +
                               " (the data are singular at a weighted point or its stencil)");
  for (size_t k = 1; k < rows.size(); ++k) {
    rows[k].orderH = observedOrder(rows[k - 1].c.H.l2, rows[k].c.H.l2, rows[k - 1].h, rows[k].h);
    rows[k].orderM = observedOrder(rows[k - 1].c.M.l2, rows[k].c.M.l2, rows[k - 1].h, rows[k].h);
  }
  char line[256];
  report.text << what << "\n";
  std::snprintf(line, sizeof line, "%6s %5s %9s %9s %12s %12s %7s %12s %12s %7s\n", "order", "n", "h", "points", "L2(H)",
                "max|H|", "p(H)", "L2(|M|)", "max|M|", "p(M)");
  report.text << line;
  for (const ConvergenceRow &r : rows) {
    std::snprintf(line, sizeof line, "%6d %5d %9.5f %9zu %12.4e %12.4e %7.3f %12.4e %12.4e %7.3f\n", r.order, r.n, r.h,
                  r.c.H.count, r.c.H.l2, r.c.H.max, r.orderH, r.c.M.l2, r.c.M.max, r.orderM);
    report.text << line;
    char row[320];
    std::snprintf(row, sizeof row, "%s,%d,%d,%.17g,%zu,%.17g,%.17g,%.6g,%.17g,%.17g,%.6g\n", r.label.c_str(), r.order, r.n,
                  r.h, r.c.H.count, r.c.H.l2, r.c.H.max, r.orderH, r.c.M.l2, r.c.M.max, r.orderM);
    report.csv << row;
    std::snprintf(row, sizeof row,
                  "{\"label\": \"%s\", \"order\": %d, \"n\": %d, \"h\": %.17g, \"L2_H\": %.17g, \"max_H\": %.17g, "
                  "\"L2_M\": %.17g, \"max_M\": %.17g}",
                  r.label.c_str(), r.order, r.n, r.h, r.c.H.l2, r.c.H.max, r.c.M.l2, r.c.M.max);
    report.json.push_back(row);
  }
  const ConvergenceRow &last = rows.back();
  const bool mAtRoundOff = last.c.M.l2 < 1e-12;
  const bool okH = std::abs(last.orderH - expected) <= 0.3;
  const bool okM = mAtRoundOff || std::abs(last.orderM - expected) <= 0.3;
  char orderM[32];
  std::snprintf(orderM, sizeof orderM, "%.3f", last.orderM);
  std::snprintf(line, sizeof line, "finest pair: p(H) = %.3f, p(M) = %s; required within 0.3 of %d", last.orderH,
                mAtRoundOff ? "round-off (exact data)" : orderM, expected);
  report.verdict(verdictName, okH && okM, line);
  report.text << "\n";
}

// ------------------------------------------------------------------ initial-data cases

struct PunctureSet {
  std::vector<std::array<double, 3>> centres;
};

/// Zero in the balls r <= excision around the punctures, rising smoothly to 1 at excision +
/// 0.3, times a taper from 1 at |x_a| <= box - 0.4 to 0 at |x_a| >= box along each axis.
Mask evaluationMask(const Grid &g, double box, const PunctureSet &p, double excision) {
  verification::NormRegion region;
  region.box = box;
  region.excisionCentres = p.centres;
  region.excision = excision;
  return region.mask(g);
}

/// Handoff of a solved two-puncture configuration through TwoPunctureHandoff's SoA buffers.
BSSNState handoffState(const Grid &g, const physics::TwoPunctureSolution &solution) {
  const size_t n = g.points();
  std::vector<double> x(n), y(n), z(n);
  for (int i = 0; i < g.n[0]; ++i)
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k) {
        auto c = g.at(i, j, k);
        const size_t p = g.index(i, j, k);
        x[p] = c[0], y[p] = c[1], z[p] = c[2];
      }
  BSSNState s(n);
  std::vector<double> gt6(6 * n), At6(6 * n);
  physics::BSSNFieldBuffers buffers{s.chi, gt6, s.K, At6, s.Gammatilde, s.alpha, s.beta, s.B, {}, {}};
  physics::TwoPunctureHandoff(solution).write(x, y, z, buffers);
  expandSymmetric(gt6, s.gammatilde, n);
  expandSymmetric(At6, s.Atilde, n);
  return s;
}

struct HandoffGeometry {
  PunctureSet punctures;
  double L = 2.5, box = 1.8, excision = 0.5;
};

/// Domain, norm box, punctures and excision radius of each constraint case.
HandoffGeometry handoffGeometry(const std::string &name) {
  HandoffGeometry g;
  g.punctures = name == "schwarzschild-isotropic" ? PunctureSet{{{0, 0, 0}}} : PunctureSet{{{1.0, 0, 0}, {-1.0, 0, 0}}};
  if (name == "schwarzschild-isotropic")
    g.excision = 0.8;
  return g;
}

struct HandoffCase : HandoffGeometry {
  std::string description;
  std::function<BSSNState(const Grid &)> state;
};

int runHandoffCase(const HandoffCase &c, const Options &o, Report &report) {
  std::vector<int> resolutions = o.resolutions.empty() ? std::vector<int>{49, 65, 81} : o.resolutions;
  report.text << c.description << "\n"
              << "grids: [-" << c.L << ", " << c.L << "]^3; norms over |x|, |y|, |z| <= " << c.box
              << " (smooth taper over the last 0.4) outside balls of radius " << c.excision
              << " around the punctures (weight rising smoothly to 1 at radius " << c.excision + 0.3
              << "); weighted L2 and max norms\n\n";
  std::map<int, std::vector<ConvergenceRow>> byOrder;
  for (int n : resolutions) {
    const Grid whole = cube(n, c.L);
    // This rank's part of the grid, with ghosts as wide as the widest constraint stencil.
    distributed::DistributedGrid part(gComm, {{n, n, n}, {whole.lo[0], whole.lo[1], whole.lo[2]},
                                              {whole.h[0], whole.h[1], whole.h[2]}, 3, distributed::Boundary::Open}, 1);
    const Grid g = localGrid(part);
    auto start = std::chrono::steady_clock::now();
    BSSNState s = c.state(g);
    ADMFields adm = toADM(s);
    Mask mask = evaluationMask(g, c.box, c.punctures, c.excision) * ownedMask(part);
    for (int order : o.orders) {
      ConvergenceRow row{"constraints", order, n, g.h[0], evaluateConstraints(g, adm, order, mask)};
      byOrder[order].push_back(row);
    }
    if (gRank == 0)
      std::fprintf(stderr, "  n=%d: data and constraints in %.2f s\n", n,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  for (auto &[order, rows] : byOrder)
    judgeConvergence(rows, "Hamiltonian and momentum constraints, finite-difference order " + std::to_string(order),
                     "constraints order " + std::to_string(order), order, report);
  return 0;
}

physics::TwoPunctureOptions solverOptions() {
  physics::TwoPunctureOptions options;
  options.nA = options.nB = 28;
  options.nPhi = 14;
  return options;
}

/// Solved once on rank 0; every rank receives the collocation values.
physics::TwoPunctureSolution solvePunctures(const physics::TwoPunctureParameters &p) {
  const tensorium_module_tables &t = moduleFor("two_puncture", 0).module->tables();
  physics::TwoPunctureSolution s = distributed::solveTwoPuncturesOnRoot(gComm, &t.spectral_kernels[0], p, solverOptions());
  if (gRank == 0)
    std::fprintf(stderr, "  two-puncture solve: %d Newton, %d Krylov iterations, M_ADM = %.12f\n", s.result().iterations,
                 s.result().krylovIterations, s.admMass());
  return s;
}

// ------------------------------------------------------------------ evolution

/// The generated BSSN right-hand side on the distributed engine (PETSc DMDA + TS RK4): on the
/// periodic unit cube with n cells per side, or on a given grid with open faces (right-hand
/// side checks only). `grid` is this rank's ghosted box; with one rank and periodic faces it is
/// periodicUnitCube(n, r).
struct Evolution {
  const LoadedModule *module;
  std::unique_ptr<distributed::DistributedEvolution> engine;
  Grid grid;
  runtime::UniformGridStorage &storage;
  std::vector<std::pair<std::string, std::string>> pairs; // (dX, X)

  static distributed::DistributedEvolution::Options options(const distributed::GridSpec &spec, std::vector<double> p) {
    distributed::DistributedEvolution::Options o;
    o.params = std::move(p);
    o.grid = spec;
    return o;
  }
  static distributed::GridSpec unitCube(int n) {
    const double h = 1.0 / n;
    return {{n, n, n}, {0, 0, 0}, {h, h, h}, 0, distributed::Boundary::Periodic};
  }
  static distributed::GridSpec openGrid(const Grid &g) {
    return {{g.n[0], g.n[1], g.n[2]}, {g.lo[0], g.lo[1], g.lo[2]}, {g.h[0], g.h[1], g.h[2]}, 0, distributed::Boundary::Open};
  }
  Evolution(const distributed::GridSpec &spec, int order, std::vector<double> p)
      : module(&moduleFor("bssn", order)),
        engine(std::make_unique<distributed::DistributedEvolution>(
            gComm, distributed::KernelModuleTables{module->tables(), module->adapters()}, options(spec, std::move(p)))),
        grid(localGrid(engine->grid())), storage(engine->storage()) {
    for (const distributed::EvolvedField &f : engine->fields())
      pairs.push_back({f.rhs, f.name});
    engine->setPreRhsHook(
        [](runtime::UniformGridStorage &s, const distributed::DistributedGrid &) { distributed::computeInverseConformalMetric(s); });
  }
  Evolution(int n, int order, std::vector<double> p) : Evolution(unitCube(n), order, std::move(p)) {}

  /// The owned points of this rank's grid.
  Mask interior() const { return ownedMask(engine->grid()); }
  void load(const BSSNState &s) {
    engine->initialize([&](runtime::UniformGridStorage &st, const distributed::DistributedGrid &) {
      for (auto [name, v] : bssnFields(s))
        std::copy(v->begin(), v->end(), st.buffer(name).begin());
    });
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

double maxDifference(const BSSNState &a, const BSSNState &b) {
  double d = 0;
  auto fa = bssnFields(a), fb = bssnFields(b);
  for (size_t f = 0; f < fa.size(); ++f)
    for (size_t i = 0; i < fa[f].second->size(); ++i)
      d = std::max(d, std::abs((*fa[f].second)[i] - (*fb[f].second)[i]));
  return d;
}

/// Kasner, ds^2 = -dt^2 + sum_i t^(2 p_i) dx_i^2 (sum p = sum p^2 = 1), in spatial coordinates
/// warped along the first axis, x = X + eps sin(2 pi X): with J = dx/dX the slice has
///   gamma_XX = t^(2 p1) J^2, gamma_YY = t^(2 p2), gamma_ZZ = t^(2 p3), K_ij = -(1/2) d_t gamma_ij,
/// so chi = (t J)^(-2/3), K = -1/t and Gammatilde^X = -d_X gammatilde^XX
/// = (4/3) t^(2/3 - 2 p1) J^(-7/3) J'. The map is time independent, so alpha = 1, beta = 0
/// (geodesic slicing) still evolve it exactly, and the data now vary in space: the numerical
/// error is the finite-difference error (plus RK4's).
BSSNState kasner(const Grid &g, double t, const std::array<double, 3> &pk, double eps) {
  BSSNState s(g.points());
  const size_t n = s.n;
  const double twoPi = 2 * std::numbers::pi;
  for (int i = 0; i < g.n[0]; ++i) {
    const double X = g.at(i, 0, 0)[0];
    const double J = 1 + twoPi * eps * std::cos(twoPi * X), dJ = -twoPi * twoPi * eps * std::sin(twoPi * X);
    const double chi = std::pow(t * J, -2.0 / 3.0), K = -1.0 / t;
    const double gamma[3] = {std::pow(t, 2 * pk[0]) * J * J, std::pow(t, 2 * pk[1]), std::pow(t, 2 * pk[2])};
    const double Kdd[3] = {-pk[0] * std::pow(t, 2 * pk[0] - 1) * J * J, -pk[1] * std::pow(t, 2 * pk[1] - 1),
                           -pk[2] * std::pow(t, 2 * pk[2] - 1)};
    const double GammaX = 4.0 / 3.0 * std::pow(t, 2.0 / 3.0 - 2 * pk[0]) * std::pow(J, -7.0 / 3.0) * dJ;
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k) {
        const size_t p = g.index(i, j, k);
        s.chi[p] = chi;
        s.K[p] = K;
        s.alpha[p] = 1.0;
        s.Gammatilde[p] = GammaX;
        for (size_t d = 0; d < 3; ++d) {
          s.gammatilde[d * 4 * n + p] = chi * gamma[d];
          s.Atilde[d * 4 * n + p] = chi * (Kdd[d] - gamma[d] * K / 3);
        }
      }
  }
  return s;
}

int runKasner(const Options &o, Report &report) {
  std::vector<int> resolutions = o.resolutions.empty() ? std::vector<int>{16, 24, 32} : o.resolutions;
  const std::array<double, 3> pk{-1.0 / 3, 2.0 / 3, 2.0 / 3};
  const double t0 = 1.0, t1 = 1.5, eps = 0.01;
  report.text << "Kasner (p1, p2, p3) = (-1/3, 2/3, 2/3) in coordinates warped along x (x = X + 0.01 sin(2 pi X)), "
                 "geodesic slicing (slicing = 0, shift_driver = 0), Kreiss-Oliger sigma = 0.1, periodic unit cube, "
                 "RK4 from t = 1 to 1.5\n"
                 "dt = h / 2 for orders 2 and 4; for order 6, dt = (h / 2) (h / h_coarsest)^(1/2) so that RK4's "
                 "error falls like h^6 too. Error: max over the interior of |numerical - exact| in chi, K, "
                 "gammatilde, Atilde and Gammatilde.\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%6s %5s %9s %7s %14s %8s %14s %14s\n", "order", "n", "h", "steps", "max error",
                "p", "|H| t=1", "|H| t=1.5");
  bool pass = true;
  // The closed form used here against fixtures/gr/kasner_warped_3d.tn (its generated init
  // kernel) at the start and end times: gamma_ij = gammatilde_ij / chi.
  {
    Grid g = periodicUnitCube(resolutions.back(), 3);
    double mismatch = 0;
    for (double t : {t0, t1}) {
      BSSNState closed = kasner(g, t, pk, eps);
      ADMFields fixture = exactSlice("kasner_warped", g, {pk[0], pk[1], pk[2], t, eps}).adm;
      const size_t N = g.points();
      for (size_t c = 0; c < 9; ++c)
        for (size_t p = 0; p < N; ++p) {
          const double want = closed.gammatilde[c * N + p] / closed.chi[p];
          mismatch = std::max(mismatch, std::abs(fixture.gamma[c * N + p] - want) / (1 + std::abs(want)));
        }
    }
    const bool agree = mismatch <= 1e-13;
    report.text << "closed form against fixtures/gr/kasner_warped_3d.tn at t = 1 and 1.5: max relative mismatch of "
                   "gamma_ij "
                << mismatch << (agree ? " (agree)" : " (DISAGREE)") << "\n\n";
    pass = pass && agree;
  }
  // The generated right-hand side at t = 1 against the exact time derivative of the solution
  // (a centred difference in t of the closed form, step 1e-5): it must converge at the order.
  {
    char head[200];
    std::snprintf(head, sizeof head, "%6s %5s %9s %16s %16s %8s %8s\n", "order", "n", "h", "max|dAtilde err|",
                  "max|dGt err|", "p(A)", "p(Gt)");
    std::ostringstream table;
    table << "Right-hand side at t = 1 against the exact time derivative (Atilde and Gammatilde; with alpha = 1 "
             "and beta = 0 the chi, K and gammatilde equations take no spatial derivatives):\n"
          << head;
    for (int order : o.orders) {
      OrderSeries series[2];
      for (int n : resolutions) {
        Evolution e(n, order, {2.0, 0.0, 0.0, 0.1, 0.0});
        const Grid &g = e.grid;
        e.load(kasner(g, t0, pk, eps));
        e.rhs();
        const double d = 1e-5;
        BSSNState plus = kasner(g, t0 + d, pk, eps), minus = kasner(g, t0 - d, pk, eps);
        Mask interior = e.interior();
        auto worst = [&](const char *name, const std::vector<double> &a, const std::vector<double> &b) {
          std::span<double> k = e.storage.buffer(std::string("d") + name);
          double w = 0;
          const size_t N = g.points(), comps = k.size() / N;
          for (size_t c = 0; c < comps; ++c)
            for (size_t p = 0; p < N; ++p)
              if (interior[p] > 0)
                w = std::max(w, std::abs(k[c * N + p] - (a[c * N + p] - b[c * N + p]) / (2 * d)));
          return allMax(w);
        };
        const double errors[2] = {worst("Atilde", plus.Atilde, minus.Atilde),
                                  worst("Gammatilde", plus.Gammatilde, minus.Gammatilde)};
        const double p[2] = {series[0].add(errors[0], g.h[0]), series[1].add(errors[1], g.h[0])};
        char row[200];
        std::snprintf(row, sizeof row, "%6d %5d %9.5f %16.4e %16.4e %8.3f %8.3f\n", order, n, g.h[0], errors[0], errors[1],
                      p[0], p[1]);
        table << row;
      }
      pass = pass && series[0].within(order) && series[1].within(order);
    }
    report.text << table.str() << "\nEvolution:\n";
  }
  report.text << line;
  for (int order : o.orders) {
    OrderSeries series;
    const double hCoarsest = 1.0 / resolutions.front();
    for (int n : resolutions) {
      const double h = 1.0 / n;
      double dtTarget = 0.5 * h;
      if (order > 4)
        dtTarget *= std::pow(h / hCoarsest, (order - 4) / 4.0);
      const int steps = static_cast<int>(std::ceil((t1 - t0) / dtTarget - 1e-9));
      const double dt = (t1 - t0) / steps;
      Evolution e(n, order, {2.0, 0.0, 0.0, 0.1, 0.0});
      const Grid &g = e.grid;
      e.load(kasner(g, t0, pk, eps));
      Mask interior = e.interior();
      ConstraintNorms c0 = evaluateConstraints(g, toADM(e.state()), order, interior);
      for (int s = 0; s < steps; ++s)
        e.step(dt);
      BSSNState end = e.state(), exact = kasner(g, t1, pk, eps);
      double error = 0;
      const size_t N = g.points();
      for (size_t p = 0; p < N; ++p)
        if (interior[p] > 0) {
          error = std::max({error, std::abs(end.chi[p] - exact.chi[p]), std::abs(end.K[p] - exact.K[p])});
          for (size_t c = 0; c < 9; ++c)
            error = std::max({error, std::abs(end.gammatilde[c * N + p] - exact.gammatilde[c * N + p]),
                              std::abs(end.Atilde[c * N + p] - exact.Atilde[c * N + p])});
          for (size_t c = 0; c < 3; ++c)
            error = std::max(error, std::abs(end.Gammatilde[c * N + p] - exact.Gammatilde[c * N + p]));
        }
      error = allMax(error);
      if (!std::isfinite(error))
        throw std::runtime_error("the Kasner evolution became non-finite at order " + std::to_string(order) + ", n = " +
                                 std::to_string(n));
      ConstraintNorms c1 = evaluateConstraints(g, toADM(end), order, interior);
      const double p = series.add(error, g.h[0]);
      std::snprintf(line, sizeof line, "%6d %5d %9.5f %7d %14.4e %8.3f %14.4e %14.4e\n", order, n, g.h[0], steps, error, p,
                    c0.H.max, c1.H.max);
      report.text << line;
      char row[256];
      std::snprintf(row, sizeof row, "kasner,%d,%d,%.17g,%d,%.17g,%.17g,%.6g,%.17g,%.17g,nan\n", order, n, g.h[0], steps,
                    error, error, p, c0.H.max, c1.H.max);
      report.csv << row;
      std::snprintf(row, sizeof row, "{\"label\": \"kasner\", \"order\": %d, \"n\": %d, \"h\": %.17g, \"error\": %.17g}",
                    order, n, g.h[0], error);
      report.json.push_back(row);
    }
    pass = pass && series.within(order);
  }
  report.verdict("kasner evolution orders", pass,
                 "observed orders of the finest pair, right-hand side and evolution, within 0.3 of the "
                 "finite-difference order");
  return 0;
}

/// Flat data with a non-uniform shift beta^i(x) and B^i(x) (periodic, analytic): every shift
/// term of the right-hand side has a closed form here (alpha = 1, K = Atilde = Gammatilde = 0),
///   d_t chi = -(2/3) div beta,   d_t gammatilde_ij = d_j beta^i + d_i beta^j - (2/3) delta_ij div beta,
///   d_t Gammatilde^i = lap beta^i + (1/3) d_i div beta,   d_t beta^i = (3/4) B^i + beta^k d_k beta^i,
///   d_t B^i = d_t Gammatilde^i - eta B^i + beta^k d_k B^i,   d_t K = d_t Atilde = d_t alpha = 0,
/// so the generated right-hand side (advected Gamma-driver) must approach it at the order.
void shiftTerms(const Options &o, Report &report) {
  std::vector<int> resolutions = o.resolutions.size() >= 2 ? o.resolutions : std::vector<int>{16, 24, 32};
  const double a = 0.1, c = 0.05, tp = 2 * std::numbers::pi, eta = 2.0;
  // beta = a (sin 2pi y, sin 2pi x cos 2pi z, sin 2pi (x + z)), B = c (cos 2pi x, sin 2pi y, cos 2pi (y + z)).
  auto beta = [&](const std::array<double, 3> &x, double J[3][3], double H[3][3][3], double b[3]) {
    const double X = tp * x[0], Y = tp * x[1], Z = tp * x[2];
    b[0] = a * std::sin(Y), b[1] = a * std::sin(X) * std::cos(Z), b[2] = a * std::sin(X + Z);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        J[i][j] = 0;
        for (int k = 0; k < 3; ++k)
          H[i][j][k] = 0;
      }
    J[0][1] = a * tp * std::cos(Y);
    H[0][1][1] = -a * tp * tp * std::sin(Y);
    J[1][0] = a * tp * std::cos(X) * std::cos(Z), J[1][2] = -a * tp * std::sin(X) * std::sin(Z);
    H[1][0][0] = -a * tp * tp * std::sin(X) * std::cos(Z), H[1][2][2] = H[1][0][0];
    H[1][0][2] = H[1][2][0] = -a * tp * tp * std::cos(X) * std::sin(Z);
    J[2][0] = J[2][2] = a * tp * std::cos(X + Z);
    H[2][0][0] = H[2][0][2] = H[2][2][0] = H[2][2][2] = -a * tp * tp * std::sin(X + Z);
  };
  auto bField = [&](const std::array<double, 3> &x, double B[3], double dB[3][3]) {
    const double X = tp * x[0], Y = tp * x[1], Z = tp * x[2];
    B[0] = c * std::cos(X), B[1] = c * std::sin(Y), B[2] = c * std::cos(Y + Z);
    for (int i = 0; i < 3; ++i)
      dB[i][0] = dB[i][1] = dB[i][2] = 0;
    dB[0][0] = -c * tp * std::sin(X), dB[1][1] = c * tp * std::cos(Y);
    dB[2][1] = dB[2][2] = -c * tp * std::sin(Y + Z);
  };
  report.text << "Flat data with a non-uniform shift beta = 0.1 (sin 2pi y, sin 2pi x cos 2pi z, sin 2pi (x + z)) and "
                 "B = 0.05 (cos 2pi x, sin 2pi y, cos 2pi (y + z)): the right-hand side (advected Gamma-driver, "
                 "Kreiss-Oliger sigma = 0.1) against its closed form, max over the interior and every field\n";
  char line[200];
  std::snprintf(line, sizeof line, "%6s %5s %9s %14s %8s\n", "order", "n", "h", "max|err|", "p");
  report.text << line;
  bool pass = true;
  for (int order : o.orders) {
    OrderSeries series;
    for (int n : resolutions) {
      Evolution e(n, order, {eta, 1.0, 0.75, 0.1, 1.0});
      const Grid &g = e.grid;
      const size_t N = g.points();
      BSSNState s(N);
      std::map<std::string, std::vector<double>> expected;
      for (const char *name : {"dchi", "dgammatilde", "dK", "dAtilde", "dGammatilde", "dalpha", "dbeta", "dB"})
        expected[name].assign(name == std::string("dgammatilde") || name == std::string("dAtilde") ? 9 * N
                              : name == std::string("dGammatilde") || name == std::string("dbeta") ||
                                      name == std::string("dB")
                                  ? 3 * N
                                  : N,
                              0.0);
      for (int i = 0; i < g.n[0]; ++i)
        for (int j = 0; j < g.n[1]; ++j)
          for (int k = 0; k < g.n[2]; ++k) {
            const size_t p = g.index(i, j, k);
            const auto x = g.at(i, j, k);
            double J[3][3], H[3][3][3], b[3], B[3], dB[3][3];
            beta(x, J, H, b);
            bField(x, B, dB);
            s.chi[p] = s.alpha[p] = 1.0;
            for (size_t d = 0; d < 3; ++d) {
              s.gammatilde[d * 4 * N + p] = 1.0;
              s.beta[d * N + p] = b[d];
              s.B[d * N + p] = B[d];
            }
            const double div = J[0][0] + J[1][1] + J[2][2];
            expected["dchi"][p] = -2.0 / 3.0 * div;
            for (size_t u = 0; u < 3; ++u) {
              for (size_t w = 0; w < 3; ++w)
                expected["dgammatilde"][(u * 3 + w) * N + p] = J[u][w] + J[w][u] - (u == w ? 2.0 / 3.0 * div : 0.0);
              double lap = 0, gradDiv = 0, advectBeta = 0, advectB = 0;
              for (size_t m = 0; m < 3; ++m) {
                lap += H[u][m][m];
                gradDiv += H[m][m][u];
                advectBeta += b[m] * J[u][m];
                advectB += b[m] * dB[u][m];
              }
              const double dGt = lap + gradDiv / 3;
              expected["dGammatilde"][u * N + p] = dGt;
              expected["dbeta"][u * N + p] = 0.75 * B[u] + advectBeta;
              expected["dB"][u * N + p] = dGt - eta * B[u] + advectB;
            }
          }
      e.load(s);
      e.rhs();
      Mask interior = e.interior();
      double worst = 0;
      for (auto &[name, want] : expected) {
        std::span<double> got = e.storage.buffer(name);
        std::vector<double> error(got.begin(), got.end());
        for (size_t q = 0; q < error.size(); ++q)
          error[q] -= want[q];
        for (size_t comp = 0; comp < error.size() / N; ++comp)
          worst = std::max(worst, norms(std::span<const double>(error).subspan(comp * N, N), interior).max);
      }
      const double p = series.add(worst, g.h[0]);
      std::snprintf(line, sizeof line, "%6d %5d %9.5f %14.4e %8.3f\n", order, n, g.h[0], worst, p);
      report.text << line;
    }
    pass = pass && series.within(order);
  }
  report.verdict("shift terms orders", pass, "finest pair within 0.3 of the order");
}

int runFlat(const Options &o, Report &report) {
  std::vector<int> resolutions = o.resolutions.empty() ? std::vector<int>{24} : o.resolutions;
  report.text << "Flat space (chi = alpha = 1, gammatilde = delta, everything else 0), 1+log slicing and Gamma-driver "
                 "shift (eta = 2), Kreiss-Oliger sigma = 0.1, periodic cube, 20 RK4 steps with dt = h / 4: every field must stay at its flat "
                 "value to round-off\n\n";
  char line[200];
  std::snprintf(line, sizeof line, "%6s %5s %7s %16s %14s %14s\n", "order", "n", "steps", "max |u - flat|", "|H| end",
                "|M| end");
  report.text << line;
  bool pass = true;
  for (int order : o.orders)
    for (int n : resolutions) {
      Evolution e(n, order, {2.0, 1.0, 0.75, 0.1, 1.0});
      const Grid &g = e.grid;
      BSSNState flat(g.points());
      for (size_t p = 0; p < flat.n; ++p) {
        flat.chi[p] = flat.alpha[p] = 1.0;
        for (size_t d = 0; d < 3; ++d)
          flat.gammatilde[d * 4 * flat.n + p] = 1.0;
      }
      e.load(flat);
      for (int s = 0; s < 20; ++s)
        e.step(0.25 * g.h[0]);
      BSSNState end = e.state();
      const double deviation = allMax(maxDifference(end, flat));
      ConstraintNorms c = evaluateConstraints(g, toADM(end), order, e.interior());
      std::snprintf(line, sizeof line, "%6d %5d %7d %16.4e %14.4e %14.4e\n", order, n, 20, deviation, c.H.max, c.M.max);
      report.text << line;
      // Second differences of round-off: eps / h^2 scale.
      const double eps = std::numeric_limits<double>::epsilon();
      pass = pass && deviation <= 1e-13 && c.H.max <= 1000 * eps / (g.h[0] * g.h[0]);
    }
  report.verdict("flat evolution stays flat", pass, "max deviation <= 1e-13, max |H| <= 1000 eps / h^2");
  report.text << "\n";
  shiftTerms(o, report);
  return 0;
}

/// Static Schwarzschild in isotropic coordinates with alpha = (1 - M/2r)/(1 + M/2r): the BSSN
/// right-hand side vanishes analytically, so its finite-difference value must fall like h^p.
/// The static Schwarzschild slice, once at rest and once in coordinates moving with constant
/// velocity -v (shift beta = v): the exact time derivative of every field is then v^k d_k of it
/// (zero at rest), so the generated right-hand side must approach it at the scheme's order. The
/// moving run exercises the advection terms beta^k d_k of every equation.
void schwarzschildStatic(const Options &o, Report &report, double M, double L, double box, double excision) {
  std::vector<int> resolutions = o.resolutions.empty() ? std::vector<int>{49, 65, 81} : o.resolutions;
  const std::array<double, 3> v{0.3, -0.2, 0.1};
  report.text << "Static lapse alpha = (1 - M/2r)/(1 + M/2r) from the fixture: the BSSN right-hand side equals the "
                 "exact time derivative, 0 at rest (Ricci and lapse terms balance) and v^k d_k u with a constant "
                 "shift beta = v = (0.3, -0.2, 0.1) (coordinates moving with -v); max error over the same box "
                 "outside r = "
              << excision << "\n";
  char line[200];
  std::snprintf(line, sizeof line, "%6s %5s %9s %14s %8s %14s %8s\n", "order", "n", "h", "max|err| rest", "p",
                "max|err| moving", "p");
  report.text << line;
  bool pass = true;
  for (int order : o.orders) {
    OrderSeries series[2];
    for (int n : resolutions) {
      Evolution e(Evolution::openGrid(cube(n, L)), order, {2.0, 1.0, 0.75, 0.1, 1.0});
      const Grid &g = e.grid;
      // fixtures/gr/schwarzschild_isotropic_3d.tn supplies the metric and the static lapse.
      BSSNState s = fromConformallyFlatADM(exactSlice("schwarzschild", g, {M}));
      Mask mask = evaluationMask(g, box, {{{0, 0, 0}}}, excision) * e.interior();
      double worst[2] = {0, 0};
      for (int moving = 0; moving < 2; ++moving) {
        const size_t N = g.points();
        for (size_t c = 0; c < 3; ++c)
          for (size_t p = 0; p < N; ++p)
            s.beta[c * N + p] = moving ? v[c] : 0.0;
        e.load(s);
        e.rhs(); // open faces: the slice is not periodic

        // Exact v . grad of chi = psi^-4 and alpha = (1 - q)/(1 + q), q = M/2r; every other field
        // is constant in space (gammatilde = delta) or zero.
        std::vector<double> dchi(N, 0.0), dalpha(N, 0.0);
        if (moving)
          for (int i = 0; i < g.n[0]; ++i)
            for (int j = 0; j < g.n[1]; ++j)
              for (int k = 0; k < g.n[2]; ++k) {
                auto x = g.at(i, j, k);
                const double r = std::hypot(x[0], x[1], x[2]), q = M / (2 * r), psi = 1 + q;
                const double vDotGradQ = -q * (v[0] * x[0] + v[1] * x[1] + v[2] * x[2]) / (r * r);
                dchi[g.index(i, j, k)] = -4 * std::pow(psi, -5) * vDotGradQ;
                dalpha[g.index(i, j, k)] = -2 / (psi * psi) * vDotGradQ;
              }
        for (auto &[d, x] : e.pairs) {
          std::span<double> b = e.storage.buffer(d);
          const size_t comps = b.size() / N;
          const std::vector<double> *exact = d == "dchi" ? &dchi : d == "dalpha" ? &dalpha : nullptr;
          for (size_t c = 0; c < comps; ++c) {
            std::vector<double> error(b.begin() + static_cast<std::ptrdiff_t>(c * N),
                                      b.begin() + static_cast<std::ptrdiff_t>((c + 1) * N));
            if (exact)
              for (size_t p = 0; p < N; ++p)
                error[p] -= (*exact)[p];
            worst[moving] = std::max(worst[moving], norms(error, mask).max);
          }
        }
      }
      const double p[2] = {series[0].add(worst[0], g.h[0]), series[1].add(worst[1], g.h[0])};
      std::snprintf(line, sizeof line, "%6d %5d %9.5f %14.4e %8.3f %14.4e %8.3f\n", order, n, g.h[0], worst[0], p[0],
                    worst[1], p[1]);
      report.text << line;
    }
    pass = pass && series[0].within(order) && series[1].within(order);
  }
  report.verdict("static and moving Schwarzschild right-hand side orders", pass, "finest pairs within 0.3 of the order");
  report.text << "\n";
}

/// The same slice in spherical coordinates (r, theta, phi): gamma = psi^4 diag(1, r^2, r^2 sin^2 theta).
void schwarzschildSpherical(const Options &o, Report &report, double M) {
  std::vector<int> resolutions = o.resolutions.empty() ? std::vector<int>{49, 65, 81} : o.resolutions;
  const double r0 = 0.6, r1 = 3.0, th0 = 0.4, th1 = std::numbers::pi - 0.4, ph1 = 1.0;
  std::vector<ConvergenceRow> rows;
  std::map<int, std::vector<ConvergenceRow>> byOrder;
  double mismatch = 0;
  for (int n : resolutions) {
    distributed::DistributedGrid part(gComm, {{n, n, n}, {r0, th0, 0.0}, {(r1 - r0) / (n - 1), (th1 - th0) / (n - 1), ph1 / (n - 1)}, 3,
                                              distributed::Boundary::Open}, 1);
    const Grid g = localGrid(part);
    const int64_t k0 = part.ghosted().begin[2]; // global index of the local grid's first phi point
    const Mask owned = ownedMask(part);
    const size_t N = g.points();
    // fixtures/gr/schwarzschild_spherical_3d.tn; checked against psi^4 diag(1, r^2, r^2 sin^2 theta).
    ADMFields a = exactSlice("schwarzschild_spherical", g, {M}).adm;
    Mask mask(N, 0.0);
    for (int i = 0; i < g.n[0]; ++i)
      for (int j = 0; j < g.n[1]; ++j)
        for (int k = 0; k < g.n[2]; ++k) {
          auto q = g.at(i, j, k);
          const size_t p = g.index(i, j, k);
          const double psi4 = std::pow(1 + M / (2 * q[0]), 4), s = std::sin(q[1]);
          const double diag[3] = {psi4, psi4 * q[0] * q[0], psi4 * q[0] * q[0] * s * s};
          for (size_t d = 0; d < 3; ++d)
            mismatch = std::max(mismatch, std::abs(a.gamma[d * 4 * N + p] - diag[d]) / diag[d]);
          // The central part of the shell in r and theta, all of phi's interior.
          mask[p] = smoothStep((q[0] - 1.0) / 0.3) * smoothStep((2.6 - q[0]) / 0.3) * smoothStep((q[1] - 0.7) / 0.3) *
                    smoothStep((std::numbers::pi - 0.7 - q[1]) / 0.3) * (k + k0 >= 3 && k + k0 <= n - 4 ? 1.0 : 0.0) *
                    owned[p];
        }
    for (int order : o.orders)
      byOrder[order].push_back({"spherical", order, n, g.h[0], evaluateConstraints(g, a, order, mask)});
  }
  for (auto &[order, r] : byOrder)
    judgeConvergence(r, "Spherical coordinates (r, theta, phi) on r in [0.6, 3], theta in [0.4, pi - 0.4], phi in [0, 1]; "
                        "norms over r in [1, 2.6], theta in [0.7, pi - 0.7]; h is the radial spacing; order " +
                            std::to_string(order),
                     "spherical constraints order " + std::to_string(order), order, report);
  mismatch = allMax(mismatch);
  const bool agree = mismatch <= 1e-13;
  report.text << "spherical fixture metric against psi^4 diag(1, r^2, r^2 sin^2 theta): max relative mismatch "
              << mismatch << (agree ? " (agree)" : " (DISAGREE)") << "\n";
  report.verdict("spherical fixture metric against the closed form", agree, "max relative mismatch <= 1e-13");
}

// ------------------------------------------------------------------ driver

/// Peak memory of a case at its largest resolution (all ranks together), from the measured
/// per-point costs in docs/memory.md: constraint cases keep the BSSN state, the ADM fields, the
/// mask and the constraint kernel's storage per point; the Schwarzschild case adds the BSSN
/// right-hand side on the distributed engine; evolutions keep PETSc's state, RK4 stages, the
/// ghosted local vector and the kernel storage per ghosted point.
double memoryEstimate(const std::string &name, const std::vector<int> &resolutions, const std::vector<int> &orders) {
  const double n = *std::max_element(resolutions.begin(), resolutions.end());
  const int order = *std::max_element(orders.begin(), orders.end());
  if (name == "kasner-evolution" || name == "flat-evolution") {
    const double ghosted = n + 2 * (order / 2 + 1);
    return 35e6 + 3500 * ghosted * ghosted * ghosted;
  }
  if (name == "schwarzschild-isotropic")
    return 65e6 + 1700 * n * n * n;
  const double solve = name.rfind("two-puncture", 0) == 0 ? physics::twoPunctureMemoryEstimate(solverOptions()) : 0;
  return 55e6 + 710 * n * n * n + solve;
}

/// Before any work: every resolution of a constraint case leaves points in the norm region, and
/// no stencil of a weighted point reaches a puncture that sits on a grid point (the data are
/// singular there). Throws UsageError naming the resolution.
void checkNormRegions(const std::string &name, const std::vector<int> &resolutions, const std::vector<int> &orders) {
  if (name == "kasner-evolution" || name == "flat-evolution")
    return;
  const HandoffGeometry geometry = handoffGeometry(name);
  const int order = *std::max_element(orders.begin(), orders.end());
  for (int n : resolutions) {
    const Grid g = cube(n, geometry.L);
    const double h = g.h[0], reach = (order / 2) * h * std::sqrt(3.0);
    // Points strictly inside the box taper along one axis; the region needs one per axis and a
    // box point outside every excision ball (the outermost box points are the farthest).
    std::vector<double> inside;
    for (int i = 0; i < n; ++i)
      if (std::abs(g.at(i, 0, 0)[0]) < geometry.box)
        inside.push_back(g.at(i, 0, 0)[0]);
    bool found = false;
    if (!inside.empty())
      for (double x : {inside.front(), inside.back()})
        for (double y : {inside.front(), inside.back()})
          for (double z : {inside.front(), inside.back()}) {
            bool outside = true;
            for (const auto &c : geometry.punctures.centres)
              outside = outside && std::hypot(x - c[0], y - c[1], z - c[2]) > geometry.excision;
            found = found || outside;
          }
    if (!found)
      throw tensorium_cli::UsageError("resolution " + std::to_string(n) + " leaves no grid point in the norm region (|x|, |y|, |z| < " +
                                      std::to_string(geometry.box) + " outside radius " +
                                      std::to_string(geometry.excision) + " of the punctures)");
    for (const auto &c : geometry.punctures.centres) {
      bool onGrid = true;
      for (int a = 0; a < 3; ++a) {
        const double s = (c[a] - g.lo[a]) / h;
        onGrid = onGrid && std::abs(s - std::round(s)) < 1e-9;
      }
      if (onGrid && reach >= geometry.excision)
        throw tensorium_cli::UsageError(
            "resolution " + std::to_string(n) + " puts a grid point on the puncture at (" + std::to_string(c[0]) + ", " +
            std::to_string(c[1]) + ", " + std::to_string(c[2]) + ") and order-" + std::to_string(order) +
            " stencils of weighted points reach it (h = " + std::to_string(h) + "): choose another resolution");
    }
  }
}

const char *kUsage = "usage: tensorium-verify CASE [--orders 2,4,6] [--resolutions n1,n2,...] [--csv F] [--plot F.png]\n"
                     "                        [--json] [--junit F.xml] [--kernel-dir DIR]\n"
                     "cases: two-puncture-boosted, two-puncture-spinning, brill-lindquist, schwarzschild-isotropic,\n"
                     "       kasner-evolution, flat-evolution\n"
                     "                        [--memory-estimate]\n"
                     "Exit status: 0 every verdict passed, 1 a verdict failed or a run error, 2 bad arguments,\n"
                     "an empty norm region or not enough memory (checked before any work).\n";

} // namespace

int run(int argc, char **argv);

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::cout << kUsage;
      return 0;
    }
  std::unique_ptr<distributed::PetscSession> session;
  try {
    session = std::make_unique<distributed::PetscSession>(&argc, &argv);
  } catch (const std::exception &e) {
    std::cerr << "tensorium-verify: error: " << e.what() << "\n";
    return 1;
  }
  gComm = PETSC_COMM_WORLD;
  gRank = session->rank();
  // Other ranks compute their parts and stay silent; rank 0 prints and writes every file.
  if (gRank != 0) {
    std::cout.setstate(std::ios::failbit);
    std::cerr.setstate(std::ios::failbit);
  }
  return run(argc, argv);
}

int run(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "tensorium-verify: error: no case given\n" << kUsage;
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h") {
    std::cout << kUsage;
    return 0;
  }
  Options o;
  bool memoryEstimateOnly = false;
  try {
    for (int i = 2; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--json") {
        o.json = true;
        continue;
      }
      if (arg == "--memory-estimate") {
        memoryEstimateOnly = true;
        continue;
      }
      if (i + 1 >= argc)
        throw std::invalid_argument("unknown option or missing value: '" + arg + "'");
      std::string value = argv[++i];
      if (arg == "--orders") {
        o.orders.clear();
        for (long p : tensorium_cli::parseIntegers("--orders", value, 2, 6, 1, 3)) {
          if (p % 2)
            throw std::invalid_argument("orders are 2, 4 or 6");
          o.orders.push_back(static_cast<int>(p));
        }
      } else if (arg == "--resolutions") {
        o.resolutions.clear();
        // The range keeps n^3 in range; memory decides what runs.
        for (long n : tensorium_cli::parseIntegers("--resolutions", value, 9, 2000, 1, 32))
          o.resolutions.push_back(static_cast<int>(n));
      } else if (arg == "--csv")
        o.csv = value;
      else if (arg == "--plot")
        o.plot = value;
      else if (arg == "--junit")
        o.junit = value;
      else if (arg == "--kernel-dir")
        gKernelDir = value;
      else
        throw std::invalid_argument("unknown option '" + arg + "'");
    }
    const bool evolution = name == "kasner-evolution" || name == "flat-evolution";
    if (!evolution && !o.resolutions.empty() && o.resolutions.size() < 3)
      throw std::invalid_argument("constraint cases need at least three resolutions");
    if (name == "kasner-evolution" && !o.resolutions.empty() && o.resolutions.size() < 2)
      throw std::invalid_argument("kasner-evolution needs at least two resolutions to measure an order");
    for (size_t i = 1; i < o.resolutions.size(); ++i)
      if (o.resolutions[i] <= o.resolutions[i - 1])
        throw std::invalid_argument("resolutions must increase");
    if (!o.plot.empty())
      tensorium_cli::requireWritableOutput("--plot", o.plot);
    if (!o.plot.empty() && o.csv.empty())
      o.csv = o.plot + ".csv";
    if (!o.csv.empty())
      tensorium_cli::requireWritableOutput("--csv", o.csv);
    if (!o.junit.empty())
      tensorium_cli::requireWritableOutput("--junit", o.junit);
  } catch (const std::invalid_argument &e) {
    std::cerr << "tensorium-verify: error: " << e.what() << "\n" << kUsage;
    return 2;
  }
  // Before any work: the memory the largest resolution needs, and norm regions that hold points.
  {
    const bool knownCase = name == "two-puncture-boosted" || name == "two-puncture-spinning" ||
                           name == "brill-lindquist" || name == "schwarzschild-isotropic" ||
                           name == "kasner-evolution" || name == "flat-evolution";
    if (!knownCase) {
      std::cerr << "tensorium-verify: error: unknown case '" << name << "'\n" << kUsage;
      return 2;
    }
    const std::vector<int> resolutions =
        !o.resolutions.empty() ? o.resolutions
        : name == "kasner-evolution" ? std::vector<int>{16, 24, 32}
        : name == "flat-evolution"   ? std::vector<int>{24, 32}
                                     : std::vector<int>{49, 65, 81};
    const double estimate = memoryEstimate(name, resolutions, o.orders);
    if (memoryEstimateOnly) {
      std::printf("estimated peak memory: %.0f bytes\n", estimate);
      return 0;
    }
    try {
      // Rank 0's view of the machine decides for everybody (one answer on every rank).
      double available = runtime::availableMemoryBytes();
      MPI_Bcast(&available, 1, MPI_DOUBLE, 0, gComm);
      if (!(estimate <= available))
        throw runtime::InsufficientMemory("case " + name + " at resolution " + std::to_string(resolutions.back()),
                                          estimate, available);
      checkNormRegions(name, resolutions, o.orders);
    } catch (const std::exception &e) {
      std::cerr << "tensorium-verify: error: " << e.what() << "\n";
      return 2;
    }
  }

  Report report;
  // Constraint rows: L2 and max of H and |M| with observed orders; kasner rows: steps, the max
  // error twice, its order, and max |H| at the start and the end.
  report.csv << "label,order,n,h,count,first_l2,first_max,first_order,second_l2,second_max,second_order\n";
  try {
    report.text << "tensorium-verify " << name << "\n";
    if (name == "two-puncture-boosted" || name == "two-puncture-spinning") {
      physics::TwoPunctureParameters p;
      p.b = 1.0;
      p.m1 = p.m2 = 0.5;
      if (name == "two-puncture-boosted")
        p.P1 = {0.0, 0.2, 0.0}, p.P2 = {0.0, -0.2, 0.0};
      else
        p.S1 = {0.0, 0.0, 0.2}, p.S2 = {0.0, 0.0, -0.1}, p.P1 = {0.0, 0.1, 0.0}, p.P2 = {0.0, -0.1, 0.0};
      auto solution = std::make_shared<physics::TwoPunctureSolution>(solvePunctures(p));
      HandoffCase c;
      static_cast<HandoffGeometry &>(c) = handoffGeometry(name);
      c.description = name == "two-puncture-boosted"
                          ? "two punctures b = 1, m1 = m2 = 0.5, P1 = -P2 = (0, 0.2, 0); spectral solve 28 x 28 x 14"
                          : "two punctures b = 1, m1 = m2 = 0.5, P1 = -P2 = (0, 0.1, 0), S1 = (0, 0, 0.2), "
                            "S2 = (0, 0, -0.1); spectral solve 28 x 28 x 14";
      c.state = [solution](const Grid &g) { return handoffState(g, *solution); };
      runHandoffCase(c, o, report);
    } else if (name == "brill-lindquist" || name == "schwarzschild-isotropic") {
      // The exact data come from the project's fixtures (generated init kernels); the closed
      // form of psi checks them on every grid.
      const bool bl = name == "brill-lindquist";
      auto psi = [bl](const std::array<double, 3> &x) {
        return bl ? 1 + 0.5 / (2 * std::hypot(x[0] - 1, x[1], x[2])) + 0.3 / (2 * std::hypot(x[0] + 1, x[1], x[2]))
                  : 1 + 1.0 / (2 * std::hypot(x[0], x[1], x[2]));
      };
      auto mismatch = std::make_shared<double>(0.0);
      HandoffCase c;
      static_cast<HandoffGeometry &>(c) = handoffGeometry(name);
      c.description = bl ? "Brill-Lindquist data m1 = 0.5 at (1, 0, 0), m2 = 0.3 at (-1, 0, 0) from "
                           "fixtures/gr/brill_lindquist_3d.tn, K_ij = 0"
                         : "Schwarzschild M = 1 in isotropic Cartesian coordinates from "
                           "fixtures/gr/schwarzschild_isotropic_3d.tn, K_ij = 0";
      c.state = [bl, psi, mismatch](const Grid &g) {
        ExactSlice e = bl ? exactSlice("brill_lindquist", g, {0.5, 0.3, 1, 0, 0, -1, 0, 0})
                          : exactSlice("schwarzschild", g, {1.0});
        *mismatch = std::max(*mismatch, conformalFlatnessMismatch(g, e.adm, psi));
        return fromConformallyFlatADM(e);
      };
      runHandoffCase(c, o, report);
      const bool agree = *mismatch <= 1e-13;
      report.text << "fixture metric against psi^4 delta_ij from the closed form: max relative mismatch "
                  << *mismatch << (agree ? " (agree)" : " (DISAGREE)") << "\n";
      report.verdict("fixture metric against the closed form", agree, "max relative mismatch <= 1e-13");
      report.text << "\n";
      if (!bl) {
          // The 3+1 split of the fixture's metric4 gives alpha = |(1 - M/2r)/(1 + M/2r)|, which has a
        // kink at r = M/2: exclude r <= 1 so that no stencil (radius <= 4 h) reaches it.
        schwarzschildStatic(o, report, 1.0, c.L, c.box, 1.0);
        schwarzschildSpherical(o, report, 1.0);
      }
    } else if (name == "kasner-evolution") {
      runKasner(o, report);
    } else if (name == "flat-evolution") {
      runFlat(o, report);
    } else {
      std::cerr << "tensorium-verify: error: unknown case '" << name << "'\n" << kUsage;
      return 2;
    }
  } catch (const std::exception &e) {
    std::cerr << "tensorium-verify: error: " << e.what() << "\n";
    // A run error is a failed test case of the JUnit report too.
    report.verdict("run", false, std::string("run error: ") + e.what());
    if (gRank == 0 && !o.junit.empty())
      tensorium_cli::writeFileAtomically(o.junit, verification::junitXml(name, report.verdicts, report.text.str()));
    return 1;
  }
  if (gRank == 0 && !o.junit.empty()) {
    if (!tensorium_cli::writeFileAtomically(o.junit, verification::junitXml(name, report.verdicts, report.text.str()))) {
      std::cerr << "tensorium-verify: error: cannot write '" << o.junit << "'\n";
      return 1;
    }
  }
  if (o.json) {
    std::cout << "{\"case\": \"" << name << "\", \"pass\": " << (report.pass() ? "true" : "false") << ", \"rows\": [";
    for (size_t i = 0; i < report.json.size(); ++i)
      std::cout << (i ? ", " : "") << report.json[i];
    std::cout << "], \"verdicts\": [";
    for (size_t i = 0; i < report.verdicts.size(); ++i) {
      const verification::Verdict &v = report.verdicts[i];
      std::cout << (i ? ", " : "") << "{\"name\": " << verification::jsonString(v.name)
                << ", \"pass\": " << (v.pass ? "true" : "false") << ", \"message\": " << verification::jsonString(v.message)
                << "}";
    }
    std::cout << "]}\n";
  } else {
    std::cout << report.text.str();
  }
  if (gRank != 0)
    return report.pass() ? 0 : 1;
  if (!o.csv.empty() && !tensorium_cli::writeFileAtomically(o.csv, report.csv.str())) {
    std::cerr << "tensorium-verify: error: cannot write '" << o.csv << "'\n";
    return 1;
  }
  if (!o.plot.empty()) {
    const std::string partial = tensorium_cli::partialName(o.plot);
    std::string command = std::string("'") + TENSORIUM_PLOT_PYTHON + "' '" + TENSORIUM_VERIFY_PLOT_SCRIPT + "' '" + o.csv +
                          "' '" + partial + "' '" + name + "'";
    if (std::system(command.c_str()) != 0 || std::rename(partial.c_str(), o.plot.c_str()) != 0) {
      std::remove(partial.c_str());
      std::cerr << "tensorium-verify: error: plotting failed (needs " << TENSORIUM_PLOT_PYTHON << " with matplotlib)\n";
      return 1;
    }
    std::cerr << "wrote " << o.plot << "\n";
  }
  return report.pass() ? 0 : 1;
}
