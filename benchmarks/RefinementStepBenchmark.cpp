// One RK4 step of the BSSN right-hand side on three engines, interleaved in one process: the
// uniform distributed grid (PETSc), the block forest without refinement (the same points as
// blocks of N^3), and the block forest with nested refined spheres (--levels of them), the last
// with the ghost fill's reference pass order and with passes chosen by box shape. Prints, per
// run, the time per point and step and the block engine's split (ghost exchange and fill,
// kernel, update), so that the cost of blocks and of level boundaries can be read against the
// uniform grid's.
#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Distributed/BssnSetup.h"
#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Distributed/ModuleCatalog.h"
#include "tensorium_mlir/Refinement/RefinedBssn.h"
#include "tensorium_mlir/Runtime/KernelModule.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace tensorium_mlir;

namespace {

/// A smooth, small perturbation of flat space: every field away from its trivial value.
void perturbedFlat(runtime::UniformGridStorage &s, const distributed::StorageLattice &l) {
  const size_t N = static_cast<size_t>(l.points());
  for (const char *f : {"gammatilde", "Atilde", "Gammatilde", "beta", "B", "K"})
    std::fill(s.buffer(f).begin(), s.buffer(f).end(), 0.0);
  for (int64_t i = 0; i < l.extent[0]; ++i)
    for (int64_t j = 0; j < l.extent[1]; ++j)
      for (int64_t k = 0; k < l.extent[2]; ++k) {
        const size_t p = l.index(i, j, k);
        const auto x = l.coordinate(i, j, k);
        const double bump = 1e-3 * std::exp(-(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) / 4);
        s.buffer("chi")[p] = 1 + bump;
        s.buffer("alpha")[p] = 1 - bump;
        s.buffer("K")[p] = bump;
        for (size_t c : {0u, 4u, 8u})
          s.buffer("gammatilde")[c * N + p] = 1 + (c == 0 ? bump : 0.0);
        s.buffer("beta")[p] = bump;
      }
}

double uniformStep(const distributed::KernelModuleTables &tables, long n, double extent, long steps) {
  distributed::BssnRunOptions ro;
  ro.points = n;
  ro.extent = extent;
  distributed::DistributedEvolution::Options o = distributed::bssnEvolutionOptions(ro);
  o.params = {2.0, 1.0, 0.75, 0.1, 1.0};
  distributed::DistributedEvolution e(PETSC_COMM_WORLD, tables, o);
  e.initialize([](runtime::UniformGridStorage &s, const distributed::DistributedGrid &g) {
    perturbedFlat(s, distributed::ghostedLattice(g));
  });
  e.setPreRhsHook([](runtime::UniformGridStorage &s, const distributed::DistributedGrid &) {
    distributed::computeInverseConformalMetric(s);
  });
  const double h = ro.spacing();
  e.advance(1, 0.25 * h); // warm-up
  const double start = MPI_Wtime();
  e.advance(steps, 0.25 * h);
  return (MPI_Wtime() - start) / static_cast<double>(steps);
}

struct RefinedResult {
  double step = 0, fill = 0, kernel = 0, update = 0;
  long points = 0, leaves = 0;
};

RefinedResult refinedStep(const distributed::KernelModuleTables &tables, int roots, int blockPoints, double extent,
                          int levels, long steps, refinement::FillPassOrder order) {
  refinement::RefinedEvolution::Options o;
  o.fillOrder = order;
  distributed::BssnRunOptions ro;
  ro.extent = extent;
  o.params = {2.0, 1.0, 0.75, 0.1, 1.0};
  o.rhsKernel = "tensorium_rhs_grid_affine";
  o.radiative = distributed::bssnEvolutionOptions(ro).radiative;
  o.forest.lower = {-extent, -extent, -extent};
  o.forest.rootWidth = 2 * extent / roots;
  o.forest.roots = {roots, roots, roots};
  o.forest.blockPoints = blockPoints;
  o.forest.maxLevel = levels;
  for (int l = 1; l <= levels; ++l)
    o.regions.push_back({{0.1, 0.1, 0.1}, extent / 2 * std::ldexp(1.0, 1 - l), l});
  refinement::RefinedEvolution e(PETSC_COMM_WORLD, tables, o);
  e.initialize([](runtime::UniformGridStorage &s, const refinement::Block &b) { perturbedFlat(s, refinement::blockLattice(b)); });
  refinement::installBssnHooks(e, distributed::BssnFloors{});
  const double dt = 0.25 * o.forest.spacing(levels);
  e.advance(1, dt); // warm-up
  e.resetTimers();
  const double start = MPI_Wtime();
  e.advance(steps, dt);
  RefinedResult r;
  r.step = (MPI_Wtime() - start) / static_cast<double>(steps);
  const refinement::RefinedTimers &t = e.timers();
  r.fill = (t.fill + t.exchange) / static_cast<double>(steps);
  r.kernel = t.kernel / static_cast<double>(steps);
  r.update = (t.update + t.postStep + t.radiative) / static_cast<double>(steps);
  r.points = static_cast<long>(e.blocks().size()) * blockPoints * blockPoints * blockPoints;
  MPI_Allreduce(MPI_IN_PLACE, &r.points, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD);
  r.leaves = e.forest().globalCount();
  return r;
}

} // namespace

int main(int argc, char **argv) {
  distributed::PetscSession session(&argc, &argv);
  long n = 64, steps = 2, repeats = 2;
  int block = 16, levels = 2;
  std::string module = std::string(TENSORIUM_BENCH_VERIFY_DIR) + "/libverify_bssn_o4.so";
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string key = argv[a];
    char *end = nullptr;
    const long v = std::strtol(argv[a + 1], &end, 10);
    const bool number = end != argv[a + 1] && *end == '\0' && v > 0;
    if (key == "--module")
      module = argv[a + 1];
    else if (number && key == "--grid")
      n = v;
    else if (number && key == "--block")
      block = static_cast<int>(v);
    else if (number && key == "--steps")
      steps = v;
    else if (number && key == "--repeats")
      repeats = v;
    else if (number && key == "--levels" && v <= 12)
      levels = static_cast<int>(v);
    else {
      if (session.rank() == 0)
        std::fprintf(stderr, "RefinementStepBenchmark: error: bad option '%s %s'\nusage: TensoriumRefinementStepBenchmark "
                             "[--grid N] [--block N] [--levels L] [--steps S] [--repeats R] [--module LIB.so]\n",
                     argv[a], argv[a + 1]);
      return 2;
    }
  }
  if (n % block != 0) {
    if (session.rank() == 0)
      std::fprintf(stderr, "RefinementStepBenchmark: error: --grid %ld is not a multiple of --block %d\n", n, block);
    return 2;
  }
  try {
    runtime::KernelModule m(module);
    const distributed::KernelModuleTables tables = distributed::moduleTables(m);
    const double extent = 8;
    const int roots = static_cast<int>(n / block);
    if (session.rank() == 0)
      std::printf("BSSN RK4 step, %d rank(s), OMP threads as the environment sets; grid %ld^3 on [-8, 8]^3, blocks of %d^3\n",
                  session.size(), n, block);
    for (long r = 0; r < repeats; ++r) {
      const double uniform = uniformStep(tables, n, extent, steps);
      using refinement::FillPassOrder;
      const RefinedResult flat = refinedStep(tables, roots, block, extent, 0, steps, FillPassOrder::ByShape);
      const RefinedResult reference = refinedStep(tables, roots, block, extent, levels, steps, FillPassOrder::ZFirst);
      const RefinedResult refined = refinedStep(tables, roots, block, extent, levels, steps, FillPassOrder::ByShape);
      if (session.rank() != 0)
        continue;
      const double points = static_cast<double>(n * n * n);
      std::printf("%-36s %8ld points, %.3f s/step, %.3f us per point and step\n", "uniform grid", n * n * n, uniform,
                  1e6 * uniform / points);
      const std::string deep = "blocks, " + std::to_string(levels + 1) + " levels";
      for (const auto &[name, x] : {std::pair{std::string("blocks, one level"), flat},
                                    std::pair{deep + ", z-first fill", reference},
                                    std::pair{deep + ", fill by shape", refined}})
        std::printf("%-36s %8ld points (%ld leaves), %.3f s/step, %.3f us per point and step (%.2fx the uniform grid's); "
                    "fill %.3f s, kernel %.3f s, update %.3f s\n",
                    name.c_str(), x.points, x.leaves, x.step, 1e6 * x.step / static_cast<double>(x.points),
                    (x.step / static_cast<double>(x.points)) / (uniform / points), x.fill, x.kernel, x.update);
    }
  } catch (const std::exception &e) {
    if (session.rank() == 0)
      std::fprintf(stderr, "RefinementStepBenchmark: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
