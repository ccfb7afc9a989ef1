// BSSN right-hand-side throughput of the generated scf, affine and parallel kernels
// (fixtures/gr/bssn_evolution_3d.tn, 4th-order differences), the OpenMP speed-up from 1 to 2
// threads, and the fraction of a STREAM-triad bandwidth measured in the same run. Prints a table.
//
//   build/bin/TensoriumBssnBenchmark [n ...]        (default: 64 128)
#include "tensorium_mlir/Runtime/HostStorage.h"

#include <algorithm>
#include <iterator>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <thread>
#include <vector>

extern "C" void omp_set_num_threads(int);

using namespace tensorium_mlir;

namespace {

double seconds(const std::chrono::steady_clock::time_point &start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// STREAM triad a = b + s c over `threads` threads; best of 5, bytes counted as 24 per element.
double triadBandwidth(int threads) {
  const size_t n = size_t{1} << 25; // 32 Mi doubles per array, 768 MiB in all
  std::vector<double> a(n), b(n, 1.0), c(n, 2.0);
  auto run = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      a[i] = b[i] + 3.0 * c[i];
  };
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
      pool.emplace_back(run, n * static_cast<size_t>(t) / static_cast<size_t>(threads),
                        n * static_cast<size_t>(t + 1) / static_cast<size_t>(threads));
    run(0, n / static_cast<size_t>(threads));
    for (auto &th : pool)
      th.join();
    best = std::min(best, seconds(start));
  }
  if (a[n / 2] != 7.0)
    std::abort();
  return 24.0 * static_cast<double>(n) / best;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i)
    sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty())
    sizes = {64, 128};
  const std::string path = std::string(TENSORIUM_BENCH_KERNEL_DIR) + "/libbench_bssn.so";
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::fprintf(stderr, "cannot load %s: %s\n", path.c_str(), dlerror());
    return 1;
  }
  auto get = reinterpret_cast<tensorium_get_module_tables_fn>(dlsym(handle, "tensorium_get_module_tables"));
  const tensorium_module_tables &t = *get();
  runtime::GeneratedHostTables tables{t.kernels, static_cast<size_t>(t.kernel_count), t.buffers,
                                      static_cast<size_t>(t.buffer_count), t.param_names,
                                      static_cast<size_t>(t.param_count), static_cast<unsigned>(t.dimension)};
  std::span<const tensorium_host_kernel_adapter> adapters(t.adapters, static_cast<size_t>(t.adapter_count));

  const double triad1 = triadBandwidth(1), triad2 = triadBandwidth(2);
  // Compulsory traffic per point: 39 state doubles read (gammatildeU included), 30 derivative
  // doubles written; stencil neighbours come from cache.
  const double bytesPerPoint = 69 * 8.0;
  std::printf("STREAM triad: %.2f GB/s (1 thread), %.2f GB/s (2 threads)\n", triad1 / 1e9, triad2 / 1e9);
  std::printf("BSSN RHS, 4th-order differences, %g bytes per point compulsory; bound = triad / bytes\n", bytesPerPoint);
  std::printf("%5s %-22s %8s %12s %14s %10s %10s\n", "n", "kernel", "threads", "best ms", "points / s",
              "of bound", "speed-up");
  for (int n : sizes) {
    runtime::GeneratedHostStorage storage(tables, {n, n, n});
    // A smooth, non-trivial state: conformal metric near delta, chi and alpha near 1.
    const size_t N = static_cast<size_t>(n) * n * n;
    for (const auto &b : storage.buffers()) {
      std::span<double> v = storage.buffer(b.name);
      for (size_t i = 0; i < v.size(); ++i) {
        const size_t c = i / N, p = i % N;
        const bool diagonal = b.componentCount == 9 && (c == 0 || c == 4 || c == 8);
        const bool unit = b.name == "chi" || b.name == "alpha" || diagonal;
        v[i] = (unit ? 1.0 : 0.0) + 0.01 * std::sin(0.001 * static_cast<double>(p) + static_cast<double>(c));
      }
    }
    const double h = 1.0 / n, params[5] = {2.0, 1.0, 0.75, 0.1, 1.0}; // eta, 1+log, Gamma-driver, KO sigma, advected
    const double interior = std::pow(n - 6, 3); // stencil radius 3 (Kreiss-Oliger)
    struct Run {
      const char *symbol;
      int threads;
    } runs[] = {{"tensorium_rhs_grid_scf", 1},
                {"tensorium_rhs_grid_affine", 1},
                {"tensorium_rhs_grid_parallel", 1},
                {"tensorium_rhs_grid_parallel", 2}};
    // Interleaved repetitions (every configuration once per round) so that slow phases of a
    // shared machine hit all configurations alike; the best time of each is reported.
    const int rounds = n >= 128 ? 5 : 9;
    std::vector<std::vector<double>> times(std::size(runs));
    for (const Run &r : runs) { // warm-up
      omp_set_num_threads(r.threads);
      storage.invoke(adapters, r.symbol, params, {h, h, h});
    }
    for (int round = 0; round < rounds; ++round)
      for (size_t c = 0; c < std::size(runs); ++c) {
        omp_set_num_threads(runs[c].threads);
        auto start = std::chrono::steady_clock::now();
        storage.invoke(adapters, runs[c].symbol, params, {h, h, h});
        times[c].push_back(seconds(start));
      }
    double parallelOne = 0;
    for (size_t c = 0; c < std::size(runs); ++c) {
      const Run &r = runs[c];
      const double best = *std::min_element(times[c].begin(), times[c].end()), rate = interior / best;
      const bool parallel = std::string(r.symbol).find("parallel") != std::string::npos;
      if (parallel && r.threads == 1)
        parallelOne = rate;
      const double bound = (r.threads == 1 ? triad1 : triad2) / bytesPerPoint;
      char speedup[32] = "";
      if (parallel && r.threads == 2)
        std::snprintf(speedup, sizeof speedup, "%.2fx", rate / parallelOne);
      std::printf("%5d %-22s %8d %12.1f %14.3e %9.1f%% %10s\n", n, r.symbol + 19, r.threads, best * 1e3, rate,
                  100 * rate / bound, speedup);
      std::fflush(stdout);
    }
  }
  return 0;
}
