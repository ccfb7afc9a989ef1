// One RK4 step of the BSSN evolution on the distributed engine, split into its parts: the
// generated kernel, ghost exchange, copies between PETSc's interlaced vectors and kernel
// storage, boundary work (physical ghost fill and radiative faces), the gammatilde^ij hook, the
// post-step algebraic constraints, and the integrator's own vector work (the rest). Prints one
// line per run with the maximum over ranks of each part, per step; benchmarks/scaling.py runs it
// interleaved over grid sizes and rank counts.
#include "tensorium_mlir/Runtime/KernelModule.h"

#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Distributed/DistributedEvolution.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace tensorium_mlir;
using namespace tensorium_mlir::distributed;

int main(int argc, char **argv) {
  PetscSession session(&argc, &argv);
  long n = 64, steps = 2;
  std::string module = std::string(TENSORIUM_BENCH_VERIFY_DIR) + "/libverify_bssn_o4.so";
  const char *usage = "usage: TensoriumDistributedStepBenchmark [--grid N] [--steps S] [--module LIB.so] "
                      "[PETSc options]\n";
  // A whole positive integer or nothing: atol would turn "abc" into 0 and "64x" into 64.
  auto count = [](const char *text, long &out) {
    char *end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || v <= 0)
      return false;
    out = v;
    return true;
  };
  for (int a = 1; a < argc; a += 2) {
    const std::string key = argv[a];
    if (key.size() > 1 && key[0] == '-' && key[1] != '-' && key != "-h") {
      // PETSc's own options (single dash), with their value if one follows.
      if (a + 1 >= argc || argv[a + 1][0] != '-')
        continue; // the loop's step skips the value
      --a;        // no value: the next word is an option again
      continue;
    }
    const bool known = key == "--grid" || key == "--steps" || key == "--module";
    const bool valued = a + 1 < argc;
    bool ok = known && valued;
    if (ok && key == "--grid") ok = count(argv[a + 1], n);
    else if (ok && key == "--steps") ok = count(argv[a + 1], steps);
    else if (ok) module = argv[a + 1];
    if (!ok) {
      if (session.rank() == 0) {
        if (key != "--help" && key != "-h")
          std::fprintf(stderr, "DistributedStepBenchmark: error: %s\n",
                       !known ? ("unknown option '" + key + "'").c_str()
                       : !valued ? ("option '" + key + "' needs a value").c_str()
                                 : ("option '" + key + "' needs a positive integer, got '" + argv[a + 1] + "'").c_str());
        std::fputs(usage, stderr);
      }
      return key == "--help" || key == "-h" ? 0 : 2;
    }
  }
  try {
    runtime::KernelModule m(module);
    const tensorium_module_tables &t = m.tables();
    KernelModuleTables tables{{t.kernels, static_cast<size_t>(t.kernel_count), t.buffers, static_cast<size_t>(t.buffer_count),
                               t.param_names, static_cast<size_t>(t.param_count), static_cast<unsigned>(t.dimension)},
                              {t.adapters, static_cast<size_t>(t.adapter_count)}};
    DistributedEvolution::Options o;
    o.params = {2.0, 1.0, 0.75, 0.1, 1.0};
    const double h = 12.0 / static_cast<double>(n), lo = -6 + h / 2;
    o.grid = {{n, n, n}, {lo, lo, lo}, {h, h, h}, 0, Boundary::Radiative};
    o.radiative.farValues = {{"chi", {1.0}}, {"alpha", {1.0}}, {"gammatilde", {1, 0, 0, 0, 1, 0, 0, 0, 1}}};
    DistributedEvolution e(PETSC_COMM_WORLD, tables, o);
    e.setPreRhsHook([](runtime::UniformGridStorage &s, const DistributedGrid &) { computeInverseConformalMetric(s); });
    e.setPostStepHook(bssnAlgebraicConstraints());
    // A lapse and conformal-factor pulse on flat space: every term of the kernel does work.
    e.initialize([&](runtime::UniformGridStorage &s, const DistributedGrid &g) {
      const Box &b = g.ghosted();
      const size_t np = static_cast<size_t>(b.points());
      for (const EvolvedField &f : e.fields())
        std::fill(s.buffer(f.name).begin(), s.buffer(f.name).end(), 0.0);
      for (int64_t i = b.begin[0]; i < b.begin[0] + b.extent[0]; ++i)
        for (int64_t j = b.begin[1]; j < b.begin[1] + b.extent[1]; ++j)
          for (int64_t k = b.begin[2]; k < b.begin[2] + b.extent[2]; ++k) {
            const auto x = g.coordinate(i, j, k);
            const double bump = 0.1 * std::exp(-(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) / 4);
            const size_t p = g.storageIndex(i, j, k);
            s.buffer("chi")[p] = 1 - bump;
            s.buffer("alpha")[p] = 1 - bump;
            for (size_t d = 0; d < 3; ++d)
              s.buffer("gammatilde")[(4 * d) * np + p] = 1.0;
            s.buffer("beta")[p] = 0.5 * bump;
          }
    });
    const double dt = 0.25 * h;
    e.advance(1, dt); // warm-up: first-touch of every vector and the TS work space
    e.resetTimers();
    MPI_Barrier(PETSC_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    e.advance(steps, dt);
    MPI_Barrier(PETSC_COMM_WORLD);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const EvolutionTimers &tm = e.timers();
    double local[8] = {tm.kernel, tm.exchange, tm.copyIn + tm.copyOut, tm.boundary + tm.radiative, tm.hook, tm.postStep,
                       wall - tm.total() - tm.postStep, 0};
    double worst[8];
    MPI_Reduce(local, worst, 8, MPI_DOUBLE, MPI_MAX, 0, PETSC_COMM_WORLD);
    long halo = e.grid().haloValuesPerExchange() * 8, haloMax = 0;
    MPI_Reduce(&halo, &haloMax, 1, MPI_LONG, MPI_MAX, 0, PETSC_COMM_WORLD);
    if (session.rank() == 0) {
      const double s = static_cast<double>(steps);
      const char *threads = std::getenv("OMP_NUM_THREADS");
      std::printf("grid=%ld ranks=%d threads=%s layout=%dx%dx%d step_s=%.4f kernel_s=%.4f exchange_s=%.4f copy_s=%.4f "
                  "boundary_s=%.4f hook_s=%.4f poststep_s=%.4f integrator_s=%.4f halo_bytes_per_exchange=%ld "
                  "exchanges_per_step=4 points_per_s=%.4g\n",
                  n, session.size(), threads ? threads : "default", e.grid().ranksPerAxis()[0], e.grid().ranksPerAxis()[1],
                  e.grid().ranksPerAxis()[2], wall / s, worst[0] / s, worst[1] / s, worst[2] / s, worst[3] / s, worst[4] / s,
                  worst[5] / s, worst[6] / s, haloMax, static_cast<double>(n * n * n) * s / wall);
    }
  } catch (const std::exception &ex) {
    if (session.rank() == 0)
      std::fprintf(stderr, "DistributedStepBenchmark: error: %s\n", ex.what());
    return 1;
  }
  return 0;
}
