// Code-generation benchmarks: compile time of a fixture to an object file, and throughput of
// the scf, affine and parallel RHS kernels of the default path (SIMD + FMA) and of the scalar
// path (--vector-width 1 --fp-contract=off) measured side by side in one run. Flops per point
// come from `Tensorium_cc --emit-op-counts` (reported as a counter).
#include "../tests/kernels/KernelLibrary.h"
#include "tensorium_mlir/Lowering/Compiler.h"
#include "tensorium_mlir/Frontend/Frontend.h"

#include <benchmark/benchmark.h>

#include <fstream>
#include <random>
#include <sstream>

using namespace tensorium_mlir;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void BM_CompileFixtureToObject(benchmark::State &state, const char *relativePath) {
  std::string path = std::string(TENSORIUM_SOURCE_DIR) + "/" + relativePath;
  frontend::SourceManager sources(path, readFile(path));
  frontend::DiagnosticEngine diags(sources, nullptr);
  frontend::Module module;
  if (!frontend::parseAndAnalyze(sources, diags, module)) {
    state.SkipWithError("fixture does not analyse");
    return;
  }
  codegen::CompileOptions options;
  size_t bytes = 0;
  for (auto _ : state) {
    std::string object, error;
    if (!codegen::compileModule(module, options, codegen::OutputKind::Object, diags, object, error)) {
      state.SkipWithError(error.c_str());
      return;
    }
    bytes = object.size();
  }
  state.counters["object_bytes"] = static_cast<double>(bytes);
}
BENCHMARK_CAPTURE(BM_CompileFixtureToObject, bssn_like, "fixtures/gr/bssn_like_evolution_3d.tn")
    ->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_CompileFixtureToObject, variants_mix, "fixtures/codegen/variants_mix_3d.tn")
    ->Unit(benchmark::kMillisecond)->Iterations(3);

/// Buffers of fixtures/codegen/variants_mix_3d.tn in ABI order: coordinates x, y, z; fields
/// alpha, K, beta, gamma, gammaU; outputs dalpha, dK, dbeta, dgamma.
struct MixState {
  int64_t n;
  std::vector<std::vector<double>> buffers;
  std::vector<int64_t> ints;
  explicit MixState(int64_t n) : n(n) {
    const int64_t N = n * n * n;
    const unsigned comps[12] = {1, 1, 1, 1, 1, 3, 9, 9, 1, 1, 3, 9};
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> dist(0.5, 1.5);
    for (unsigned c : comps) {
      buffers.emplace_back(static_cast<size_t>(c * N));
      for (double &v : buffers.back())
        v = dist(rng);
    }
    for (auto &b : buffers)
      tensorium_test::pushMemref(ints, b.data(), static_cast<int64_t>(b.size()));
  }
};

void BM_RhsThroughput(benchmark::State &state, const char *module, const char *symbol) {
  static tensorium_test::KernelLibrary simd(std::string(TENSORIUM_BENCH_KERNEL_DIR) + "/libbench_variants_mix.so");
  static tensorium_test::KernelLibrary scalar(std::string(TENSORIUM_BENCH_KERNEL_DIR) +
                                              "/libbench_variants_mix_scalar.so");
  const int64_t n = state.range(0);
  MixState s(n);
  void *fn = (std::string(module) == "scalar" ? scalar : simd).symbol(symbol);
  const double h = 1.0 / static_cast<double>(n);
  for (auto _ : state) {
    tensorium_test::callKernel<3, 5, 60>(fn, {n, n, n}, {h, h, h, 0.75, 0.3}, s.ints);
    benchmark::ClobberMemory();
  }
  const double interior = static_cast<double>((n - 4) * (n - 4) * (n - 4));
  state.counters["points_per_s"] = benchmark::Counter(interior, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(BM_RhsThroughput, simd_scf, "simd", "tensorium_rhs_grid_scf")->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RhsThroughput, scalar_scf, "scalar", "tensorium_rhs_grid_scf")->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RhsThroughput, simd_affine, "simd", "tensorium_rhs_grid_affine")->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RhsThroughput, scalar_affine, "scalar", "tensorium_rhs_grid_affine")->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RhsThroughput, simd_parallel, "simd", "tensorium_rhs_grid_parallel")->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RhsThroughput, scalar_parallel, "scalar", "tensorium_rhs_grid_parallel")->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
