// The distributed engine against itself on other rank counts and against the single-process
// storage path: the generated BSSN right-hand side on one global grid, and the state after a
// number of RK4 steps. Writes the gathered result (natural order) and, given a reference file
// from another run, prints the largest difference and fails unless the two are bitwise equal.
#include "tensorium_mlir/Runtime/KernelModule.h"

#include "tensorium_mlir/Distributed/BssnDiagnostics.h"
#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Distributed/DistributedEvolution.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <numbers>
#include <string>

using namespace tensorium_mlir;
using namespace tensorium_mlir::distributed;

namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;

/// Smooth, non-trivial BSSN-like data at a point (periodic in the unit cube for periodic runs).
void bssnData(const std::array<double, 3> &x, double v[24], const EvolvedField *fields, size_t count) {
  const double s = std::sin(kTwoPi * x[0]), c = std::cos(kTwoPi * x[1]), t = std::sin(kTwoPi * (x[2] + x[0]));
  for (size_t f = 0; f < count; ++f) {
    double *u = v + fields[f].offset;
    const std::string &name = fields[f].name;
    if (fields[f].components == 9) {
      const double sym[6] = {0.05 * s, 0.02 * c * t, 0.01 * s * c, 0.04 * t, 0.03 * s * t, 0.02 * c};
      const int map[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
      for (int a = 0; a < 9; ++a)
        u[a] = (name == "gammatilde" && a % 4 == 0 ? 1.0 : 0.0) + sym[map[a]];
    } else if (fields[f].components == 3) {
      u[0] = 0.1 * s * c, u[1] = 0.05 * t, u[2] = -0.07 * c;
    } else {
      const double base = (name == "chi" || name == "alpha") ? 1.0 : 0.0;
      u[0] = base + 0.1 * s * t + 0.05 * c;
    }
  }
}

void fillStorage(runtime::UniformGridStorage &storage, const std::vector<EvolvedField> &fields,
                 const std::array<int64_t, 3> &extent, const std::function<std::array<double, 3>(int64_t, int64_t, int64_t)> &at) {
  const size_t n = static_cast<size_t>(extent[0] * extent[1] * extent[2]);
  size_t p = 0;
  for (int64_t i = 0; i < extent[0]; ++i)
    for (int64_t j = 0; j < extent[1]; ++j)
      for (int64_t k = 0; k < extent[2]; ++k, ++p) {
        double v[64];
        bssnData(at(i, j, k), v, fields.data(), fields.size());
        for (const EvolvedField &f : fields) {
          std::span<double> b = storage.buffer(f.name);
          for (unsigned c = 0; c < f.components; ++c)
            b[c * n + p] = v[f.offset + c];
        }
      }
}

/// The BSSN inverse-metric hook and bssnData on every rank's ghosted box.
void prepareSmoothData(DistributedEvolution &e) {
  e.setPreRhsHook([](runtime::UniformGridStorage &s, const DistributedGrid &) { computeInverseConformalMetric(s); });
  e.initialize([&](runtime::UniformGridStorage &s, const DistributedGrid &g) {
    const Box &b = g.ghosted();
    fillStorage(s, e.fields(), b.extent, [&](int64_t i, int64_t j, int64_t k) {
      return g.coordinate(b.begin[0] + i, b.begin[1] + j, b.begin[2] + k);
    });
  });
}

/// Everything after T = 8 h / 8 with dt = h / 8, h / 16, h / 32 on one periodic grid: the
/// differences between successive runs isolate the time-integration error, which must fall like
/// dt^4 (RK4) or dt^3 (SSP-RK3).
int temporalOrder(const KernelModuleTables &tables, TimeIntegrator integrator, int n) {
  const double h = 1.0 / n, T = h;
  std::vector<std::vector<double>> finals;
  for (int refine = 0; refine < 3; ++refine) {
    DistributedEvolution::Options o;
    o.params = {2.0, 1.0, 0.75, 0.1, 1.0};
    o.grid = {{n, n, n}, {0, 0, 0}, {h, h, h}, 0, Boundary::Periodic};
    o.integrator = integrator;
    DistributedEvolution e(PETSC_COMM_WORLD, tables, o);
    prepareSmoothData(e);
    const long steps = 8L << refine;
    e.advance(steps, T / static_cast<double>(steps));
    finals.push_back(e.gatherOnRoot(e.state()));
  }
  int rank;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (rank != 0)
    return 0;
  double d[2] = {0, 0};
  for (size_t q = 0; q < finals[0].size(); ++q) {
    d[0] = std::max(d[0], std::abs(finals[0][q] - finals[1][q]));
    d[1] = std::max(d[1], std::abs(finals[1][q] - finals[2][q]));
  }
  const double observed = std::log2(d[0] / d[1]), expected = integrator == TimeIntegrator::RK4 ? 4 : 3;
  const bool ok = std::abs(observed - expected) <= 0.3;
  std::printf("%s: max |u(dt) - u(dt/2)| = %.3e, max |u(dt/2) - u(dt/4)| = %.3e, observed order %.3f (expected %g): %s\n",
              integratorName(integrator), d[0], d[1], observed, expected, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

/// Puncture tracking against an exact trajectory: flat data with the static shift
/// beta^i = -k x^i move a puncture as dx/dt = k x, x(t) = x0 e^(k t). The tracker's
/// interpolation (cubic Lagrange) is exact for a linear field, so what remains is its Heun
/// integration: the error at t = 1 must fall like dt^2 from 10 to 20 to 40 steps.
int trackStaticShift(const KernelModuleTables &tables) {
  const int n = 19;
  const double h = 2.0 / (n - 1), k = 0.5, T = 1.0;
  const std::array<double, 3> x0{0.25, -0.25, 0.25}; // crosses x, y, z = +-1/3 (rank boundaries on 3 ranks)
  DistributedEvolution::Options o;
  o.params = {2.0, 1.0, 0.75, 0.0, 1.0};
  o.grid = {{n, n, n}, {-1.0, -1.0, -1.0}, {h, h, h}, 0, Boundary::Radiative};
  o.radiative.farValues = {{"chi", {1.0}}, {"alpha", {1.0}}, {"gammatilde", {1, 0, 0, 0, 1, 0, 0, 0, 1}}};
  DistributedEvolution e(PETSC_COMM_WORLD, tables, o);
  e.setPreRhsHook([](runtime::UniformGridStorage &s, const DistributedGrid &) { computeInverseConformalMetric(s); });
  e.initialize([&](runtime::UniformGridStorage &s, const DistributedGrid &g) {
    const Box &b = g.ghosted();
    const size_t np = static_cast<size_t>(b.points());
    for (const EvolvedField &f : e.fields()) {
      std::span<double> u = s.buffer(f.name);
      for (int64_t i = b.begin[0]; i < b.begin[0] + b.extent[0]; ++i)
        for (int64_t j = b.begin[1]; j < b.begin[1] + b.extent[1]; ++j)
          for (int64_t q = b.begin[2]; q < b.begin[2] + b.extent[2]; ++q) {
            const size_t p = g.storageIndex(i, j, q);
            const std::array<double, 3> x = g.coordinate(i, j, q);
            for (unsigned c = 0; c < f.components; ++c)
              u[c * np + p] = f.name == "beta"                                   ? -k * x[c]
                              : f.name == "chi" || f.name == "alpha"             ? 1.0
                              : f.name == "gammatilde" && c % 4 == 0             ? 1.0
                                                                                 : 0.0;
          }
    }
  });
  e.loadStorage(e.state());
  double errors[3];
  for (int refine = 0; refine < 3; ++refine) {
    const long steps = 10L << refine;
    const double dt = T / static_cast<double>(steps);
    PunctureTracker tracker({x0});
    for (long s = 0; s < steps; ++s) {
      tracker.sampleBefore(e);
      tracker.advance(e, dt);
    }
    const std::array<double, 3> x = tracker.positions()[0];
    errors[refine] = 0;
    for (int a = 0; a < 3; ++a)
      errors[refine] = std::max(errors[refine], std::abs(x[a] - x0[a] * std::exp(k * T)));
  }
  const double p1 = std::log2(errors[0] / errors[1]), p2 = std::log2(errors[1] / errors[2]);
  const bool ok = std::abs(p1 - 2) <= 0.2 && std::abs(p2 - 2) <= 0.2 && errors[2] < 1e-4;
  if (e.grid().rank() == 0)
    std::printf("puncture track under beta = -%g x to t = %g: errors %.3e, %.3e, %.3e at 10, 20, 40 steps; observed "
                "orders %.3f, %.3f (expected 2): %s\n",
                k, T, errors[0], errors[1], errors[2], p1, p2, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

/// Outgoing radiation through the radiative faces: the scalar wave phi = (F(r - t) - F(-r - t)) / r
/// (F a Gaussian pulse at r = 1.5; regular at the origin) leaves the cube [-4, 4]^3, on which
/// the Sommerfeld condition d_t u = -(x^i / r) d_i u - u / r holds exactly for it. After the
/// pulse has left (t = 6), what remains inside is discretisation error that falls with h
/// (4th-order interior, 2nd-order one-sided faces), not a reflection of the pulse.
int sommerfeldScalarWave(const KernelModuleTables &tables, int rank) {
  const double s0 = 1.5, w = 0.5, L = 4.0, T = 6.0;
  auto F = [&](double s, int derivative) {
    const double g = std::exp(-(s - s0) * (s - s0) / (w * w)), d = s - s0;
    return derivative == 0 ? g : derivative == 1 ? -2 * d / (w * w) * g : (4 * d * d / (w * w * w * w) - 2 / (w * w)) * g;
  };
  auto exact = [&](const std::array<double, 3> &x, double t, bool pi) {
    const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    if (r < 1e-12) // the limits at the origin
      return pi ? -2 * F(-t, 2) : 2 * F(-t, 1);
    return pi ? (-F(r - t, 1) + F(-r - t, 1)) / r : (F(r - t, 0) - F(-r - t, 0)) / r;
  };
  double errors[2] = {0, 0}, initial = 0;
  const int sizes[2] = {33, 65};
  for (int level = 0; level < 2; ++level) {
    const int n = sizes[level];
    const double h = 2 * L / (n - 1);
    DistributedEvolution::Options o;
    o.params = {1.0}; // c
    o.grid = {{n, n, n}, {-L, -L, -L}, {h, h, h}, 0, Boundary::Radiative};
    DistributedEvolution e(PETSC_COMM_WORLD, tables, o);
    e.initialize([&](runtime::UniformGridStorage &s, const DistributedGrid &g) {
      const Box &b = g.ghosted();
      for (int64_t i = b.begin[0]; i < b.begin[0] + b.extent[0]; ++i)
        for (int64_t j = b.begin[1]; j < b.begin[1] + b.extent[1]; ++j)
          for (int64_t k = b.begin[2]; k < b.begin[2] + b.extent[2]; ++k) {
            const size_t p = g.storageIndex(i, j, k);
            const std::array<double, 3> x = g.coordinate(i, j, k);
            s.buffer("phi")[p] = exact(x, 0, false);
            s.buffer("Pi")[p] = exact(x, 0, true);
          }
    });
    const long steps = std::lround(T / (h / 4));
    e.advance(steps, T / static_cast<double>(steps));
    const std::vector<double> result = e.gatherOnRoot(e.state());
    if (rank != 0)
      continue;
    const int dof = e.grid().dof();
    int phi = -1;
    for (const EvolvedField &f : e.fields())
      if (f.name == "phi")
        phi = f.offset;
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
          const std::array<double, 3> x{-L + i * h, -L + j * h, -L + k * h};
          const double v = result[static_cast<size_t>(((k * n + j) * n + i) * dof + phi)];
          errors[level] = std::max(errors[level], std::abs(v - exact(x, T, false)));
          initial = std::max(initial, std::abs(exact(x, 0, false)));
        }
  }
  if (rank != 0)
    return 0;
  const double order = std::log2(errors[0] / errors[1]);
  // A reflected pulse would leave errors of the order of the pulse at the faces (1/4 of its
  // initial amplitude); what remains must be a small fraction of it and fall with h.
  const bool ok = order >= 1.5 && errors[1] < 0.02 * initial;
  std::printf("outgoing scalar pulse through radiative faces, t = %g: max |phi - exact| %.3e at 33^3, %.3e at 65^3 "
              "(pulse amplitude %.3f); observed order %.2f (at least 1.5): %s\n",
              T, errors[0], errors[1], initial, order, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

int run(int argc, char **argv) {
  std::string kind = "rhs", boundary = "periodic", out, reference, module = std::string(TENSORIUM_KERNEL_DIR) + "/libverify_bssn_o4.so";
  int n = 19, steps = 20;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string key = argv[a], value = argv[a + 1];
    if (key == "--case") kind = value;
    else if (key == "--boundary") boundary = value;
    else if (key == "--n") n = std::stoi(value);
    else if (key == "--steps") steps = std::stoi(value);
    else if (key == "--out") out = value;
    else if (key == "--reference") reference = value;
    else if (key == "--module") module = value;
  }
  runtime::KernelModule m(module);
  const tensorium_module_tables &t = m.tables();
  KernelModuleTables tables{{t.kernels, static_cast<size_t>(t.kernel_count), t.buffers, static_cast<size_t>(t.buffer_count),
                             t.param_names, static_cast<size_t>(t.param_count), static_cast<unsigned>(t.dimension)},
                            {t.adapters, static_cast<size_t>(t.adapter_count)}};
  if (kind == "order")
    return temporalOrder(tables, TimeIntegrator::RK4, n) | temporalOrder(tables, TimeIntegrator::SSPRK3, n);
  if (kind == "track")
    return trackStaticShift(tables);
  if (kind == "sommerfeld") {
    int rank;
    MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
    return sommerfeldScalarWave(tables, rank);
  }
  DistributedEvolution::Options o;
  o.params = {2.0, 1.0, 0.75, 0.1, 1.0}; // eta, slicing, shift_driver, ko_sigma, shift_advect
  const bool periodic = boundary == "periodic";
  const double h = periodic ? 1.0 / n : 2.0 / (n - 1);
  o.grid = {{n, n, n}, {periodic ? 0.0 : -1.0, periodic ? 0.0 : -1.0, periodic ? 0.0 : -1.0}, {h, h, h}, 0,
            periodic ? Boundary::Periodic : Boundary::Radiative};
  o.radiative.farValues = {{"chi", {1.0}}, {"alpha", {1.0}}, {"gammatilde", {1, 0, 0, 0, 1, 0, 0, 0, 1}}};
  DistributedEvolution e(PETSC_COMM_WORLD, tables, o);
  const std::vector<EvolvedField> &fields = e.fields();
  prepareSmoothData(e);
  if (e.grid().rank() == 0)
    std::printf("grid %d^3 %s, %d rank(s) as %dx%dx%d, ghost width %d, %d values per point\n", n, boundary.c_str(),
                e.grid().size(), e.grid().ranksPerAxis()[0], e.grid().ranksPerAxis()[1], e.grid().ranksPerAxis()[2],
                e.grid().spec().ghostWidth, e.grid().dof());
  std::vector<double> result;
  if (kind == "rhs") {
    Vec f;
    VecDuplicate(e.state(), &f);
    e.evaluateRhs(e.state(), f);
    result = e.gatherOnRoot(f);
    VecDestroy(&f);
  } else {
    e.setPostStepHook(bssnAlgebraicConstraints());
    e.advance(steps, h / 4);
    result = e.gatherOnRoot(e.state());
  }
  if (e.grid().rank() != 0)
    return 0;
  int status = 0;
  // One process, periodic: the single-process storage path on the grid padded with r wrapped
  // layers must give the same bits at every point.
  if (periodic && kind == "rhs" && e.grid().size() == 1) {
    const int r = e.stencilRadius();
    const int64_t w = n + 2 * r;
    runtime::GeneratedHostStorage s(tables.tables, {w, w, w});
    fillStorage(s, fields, {w, w, w}, [&](int64_t i, int64_t j, int64_t k) {
      auto wrap = [&](int64_t q) { return ((q - r) % n + n) % n; };
      return std::array<double, 3>{wrap(i) * h, wrap(j) * h, wrap(k) * h};
    });
    computeInverseConformalMetric(s);
    s.invoke(tables.adapters, o.rhsKernel, o.params, {h, h, h});
    const size_t np = static_cast<size_t>(w * w * w);
    size_t differing = 0;
    const int dof = e.grid().dof();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t k = 0; k < n; ++k)
          for (const EvolvedField &f : fields)
            for (unsigned c = 0; c < f.components; ++c) {
              const double a = s.buffer(f.rhs)[c * np + static_cast<size_t>(((i + r) * w + j + r) * w + k + r)];
              const double b = result[static_cast<size_t>((k * n + j) * n + i) * static_cast<size_t>(dof) + f.offset + c];
              differing += std::memcmp(&a, &b, sizeof a) != 0;
            }
    std::printf("single-process storage path vs distributed engine: %zu of %zu values differ\n", differing, result.size());
    status |= differing != 0;
  }
  double norm = 0;
  for (double v : result)
    norm = std::max(norm, std::abs(v));
  std::printf("%s: %zu values, max |value| = %.6e\n", kind.c_str(), result.size(), norm);
  if (!std::isfinite(norm) || norm == 0) {
    std::printf("FAIL: result is not finite or identically zero\n");
    status = 1;
  }
  if (!out.empty())
    std::ofstream(out, std::ios::binary).write(reinterpret_cast<const char *>(result.data()),
                                                static_cast<std::streamsize>(result.size() * sizeof(double)));
  if (!reference.empty()) {
    std::ifstream in(reference, std::ios::binary);
    std::vector<double> ref(result.size());
    in.read(reinterpret_cast<char *>(ref.data()), static_cast<std::streamsize>(ref.size() * sizeof(double)));
    if (!in || in.peek() != EOF) {
      std::printf("FAIL: reference %s is not %zu values\n", reference.c_str(), result.size());
      return 1;
    }
    double diff = 0;
    size_t differing = 0;
    for (size_t q = 0; q < ref.size(); ++q) {
      diff = std::max(diff, std::abs(ref[q] - result[q]));
      differing += std::memcmp(&ref[q], &result[q], sizeof(double)) != 0;
    }
    std::printf("against %s: max |difference| = %.3e, %zu of %zu values differ bitwise\n", reference.c_str(), diff,
                differing, ref.size());
    status |= differing != 0;
  }
  std::printf("%s\n", status ? "FAIL" : "PASS");
  return status;
}

} // namespace

int main(int argc, char **argv) {
  PetscSession session(&argc, &argv);
  try {
    return run(argc, argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "distributed_consistency: error: %s\n", e.what());
    return 1;
  }
}
