// BSSN right-hand-side throughput (fixtures/gr/bssn_evolution_3d.tn, 4th-order differences,
// Kreiss-Oliger dissipation on, runtime parameters), three code paths side by side in one
// interleaved run: the default kernels (SIMD across grid points, fused multiply-adds, cache
// blocking, prefetch), the scalar path (--vector-width 1 --fp-contract=off) and the first code
// generator's kernel (the fixture with Atilde not declared symmetric, --derivative-sharing=off
// --simplify=off, scalar, no blocking or prefetch). Also: the OpenMP speed-up from 1 to 2
// threads; flops per point counted in each module's optimised LLVM IR; the fraction of this
// machine's measured peak double-precision rate and of a STREAM-triad bandwidth bound.
//
//   build/bin/TensoriumBssnBenchmark [n ...]        (default: 64 128)
#include "tensorium_mlir/Lowering/Compiler.h"
#include "tensorium_mlir/Frontend/Frontend.h"
#include "tensorium_mlir/Runtime/HostStorage.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <immintrin.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <iterator>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern "C" void omp_set_num_threads(int);

using namespace tensorium_mlir;

namespace {

double seconds(const std::chrono::steady_clock::time_point &start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Runs `work(thread)` on `threads` threads at once; returns the wall time.
template <typename F> double onThreads(int threads, F work) {
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back(work, t);
  work(0);
  for (auto &th : pool)
    th.join();
  return seconds(start);
}

/// STREAM triad a = b + s c over `threads` threads; best of 5, bytes counted as 24 per element.
double triadBandwidth(int threads) {
  const size_t n = size_t{1} << 25; // 32 Mi doubles per array, 768 MiB in all
  std::vector<double> a(n), b(n, 1.0), c(n, 2.0);
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep)
    best = std::min(best, onThreads(threads, [&](int t) {
      const size_t begin = n * static_cast<size_t>(t) / static_cast<size_t>(threads);
      const size_t end = n * static_cast<size_t>(t + 1) / static_cast<size_t>(threads);
      for (size_t i = begin; i < end; ++i)
        a[i] = b[i] + 3.0 * c[i];
    }));
  if (a[n / 2] != 7.0)
    std::abort();
  return 24.0 * static_cast<double>(n) / best;
}

// Peak double-precision rate: independent FMA chains in the widest vector registers the CPU
// has (12 accumulators hide the FMA latency), 2 flops per lane per FMA.
__attribute__((target("avx512f"))) double fmaChains512(long iterations) {
  __m512d acc[12];
  const __m512d m = _mm512_set1_pd(0.999999), c = _mm512_set1_pd(1e-7);
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm512_set1_pd(1.0 + i);
  for (long it = 0; it < iterations; ++it)
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm512_fmadd_pd(acc[i], m, c);
  double lanes[8], sum = 0;
  for (int i = 0; i < 12; ++i) {
    _mm512_storeu_pd(lanes, acc[i]);
    for (double l : lanes)
      sum += l;
  }
  return sum;
}
__attribute__((target("avx2,fma"))) double fmaChains256(long iterations) {
  __m256d acc[12];
  const __m256d m = _mm256_set1_pd(0.999999), c = _mm256_set1_pd(1e-7);
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm256_set1_pd(1.0 + i);
  for (long it = 0; it < iterations; ++it)
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm256_fmadd_pd(acc[i], m, c);
  double lanes[4], sum = 0;
  for (int i = 0; i < 12; ++i) {
    _mm256_storeu_pd(lanes, acc[i]);
    sum += lanes[0] + lanes[1] + lanes[2] + lanes[3];
  }
  return sum;
}

struct Peak {
  const char *how;
  double flops; // per second, all threads
};

Peak peakRate(int threads) {
  const bool avx512 = __builtin_cpu_supports("avx512f");
  const bool fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (!avx512 && !fma)
    return {"no FMA unit: peak not measured", 0};
  const long iterations = 20'000'000;
  const double lanes = avx512 ? 8 : 4;
  std::vector<double> sink(static_cast<size_t>(threads));
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep)
    best = std::min(best, onThreads(threads, [&](int t) {
      sink[static_cast<size_t>(t)] = avx512 ? fmaChains512(iterations) : fmaChains256(iterations);
    }));
  if (!std::isfinite(sink[0]))
    std::abort();
  return {avx512 ? "AVX-512 FMA chains" : "AVX2 FMA chains", threads * iterations * 12 * lanes * 2 / best};
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Flops per point of `function` (its own body and the local functions it calls: outlined
/// OpenMP bodies, shared row functions), counted in the optimised LLVM IR.
double flopsPerPoint(const std::string &counts, const std::string &function) {
  std::istringstream lines(counts);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(function + " ", 0) == 0)
      return std::atof(line.substr(line.find("flops=") + 6).c_str());
  return 0;
}

/// The arena of a storage (its first buffer starts at the arena's start).
std::span<double> arenaOf(runtime::GeneratedHostStorage &storage) {
  return {storage.buffer(storage.buffers().front().name).data(), storage.arenaSize()};
}

/// Bytes of the mapping that holds `address` backed by transparent huge pages, from
/// /proc/self/smaps (-1 where it cannot be read).
double hugePageBytes(const void *address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto a = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 && line.find(':') > line.find(' ')) {
      inside = a >= begin && a < end;
      continue;
    }
    unsigned long kb = 0;
    if (inside && std::sscanf(line.c_str(), "AnonHugePages: %lu kB", &kb) == 1)
      return 1024.0 * static_cast<double>(kb);
  }
  return -1;
}

struct KernelModule {
  const char *label = "";
  const char *file = "";
  std::string fixture;
  unsigned vectorWidth = 0;
  bool fpContract = true;
  bool firstGenerator = false; // --derivative-sharing=off --simplify=off, plain loops
  bool onePass = false;        // --stencil-pass=off
  bool laneShifts = true;      // --lane-shifts=off when false
  bool factorMixed = true;     // --factor-mixed=off when false
  bool lopsided = false;       // --advection lopsided
  void *handle = nullptr;
  std::span<const tensorium_host_kernel_adapter> adapters;
  const tensorium_module_tables *tables = nullptr;
  std::string opCounts;
};

} // namespace

static int run(int argc, char **argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    char *end = nullptr;
    const long n = std::strtol(argv[i], &end, 10);
    // At least one interior point inside the 4th-order stencil's 3 ghost points on each side;
    // at most what 24 GiB holds (two storages, huge and 4 KiB pages, of about 550 bytes per point).
    if (arg == "--help" || arg == "-h" || end == argv[i] || *end != '\0' || n < 7 || n > 256) {
      if (arg != "--help" && arg != "-h")
        std::fprintf(stderr, "TensoriumBssnBenchmark: error: grid size must be an integer from 7 to 256, got '%s'\n",
                     argv[i]);
      std::fputs("usage: TensoriumBssnBenchmark [n ...]   (grid points per axis; default: 64 128)\n", stderr);
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
    sizes.push_back(static_cast<int>(n));
  }
  if (sizes.empty())
    sizes = {64, 128};

  // The modules tensorium_add_kernel built (benchmarks/CMakeLists.txt), with the options that
  // built them, so that their operations can be counted here.
  KernelModule modules[7];
  const std::string fixture = std::string(TENSORIUM_SOURCE_DIR) + "/fixtures/gr/bssn_evolution_3d.tn";
  modules[0].label = "simd+fma", modules[0].file = "libbench_bssn.so", modules[0].fixture = fixture;
  modules[1].label = "scalar", modules[1].file = "libbench_bssn_scalar.so", modules[1].fixture = fixture;
  modules[1].vectorWidth = 1, modules[1].fpContract = false;
  modules[2].label = "first", modules[2].file = "libbench_bssn_first.so";
  modules[2].fixture = std::string(TENSORIUM_BENCH_KERNEL_DIR) + "/bssn_first_generator.tn";
  modules[2].vectorWidth = 1, modules[2].fpContract = false, modules[2].firstGenerator = true;
  // The default kernels with rows in one pass (--stencil-pass=off): what the two-pass rows gain.
  modules[3].label = "1-pass", modules[3].file = "libbench_bssn_onepass.so", modules[3].fixture = fixture;
  modules[3].onePass = true;
  // The default kernels with z-shifted reads as unaligned loads (--lane-shifts=off).
  modules[4].label = "no-shift", modules[4].file = "libbench_bssn_noshift.so", modules[4].fixture = fixture;
  modules[4].laneShifts = false;
  // The default kernels with mixed derivatives across z as their own stencils (--factor-mixed=off).
  modules[5].label = "direct", modules[5].file = "libbench_bssn_direct.so", modules[5].fixture = fixture;
  modules[5].factorMixed = false;
  // The default kernels with advect() on lopsided stencils (--advection lopsided).
  modules[6].label = "lopsided", modules[6].file = "libbench_bssn_lopsided.so", modules[6].fixture = fixture;
  modules[6].lopsided = true;
  for (KernelModule &m : modules) {
    const std::string path = std::string(TENSORIUM_BENCH_KERNEL_DIR) + "/" + m.file;
    m.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!m.handle) {
      std::fprintf(stderr, "cannot load %s: %s\n", path.c_str(), dlerror());
      return 1;
    }
    auto get = reinterpret_cast<tensorium_get_module_tables_fn>(dlsym(m.handle, "tensorium_get_module_tables"));
    m.tables = get();
    m.adapters = {m.tables->adapters, static_cast<size_t>(m.tables->adapter_count)};
    frontend::SourceManager sources(m.fixture, readFile(m.fixture));
    frontend::DiagnosticEngine diags(sources, nullptr);
    frontend::Module program;
    if (!frontend::parseAndAnalyze(sources, diags, program)) {
      std::fprintf(stderr, "cannot analyse %s\n", m.fixture.c_str());
      return 1;
    }
    if (m.lopsided)
      program.sim.lopsidedAdvection = true;
    codegen::CompileOptions options;
    options.codegen.kernels = static_cast<unsigned>(codegen::KernelSelection::Rhs);
    options.vectorWidth = m.vectorWidth;
    options.fpContract = m.fpContract;
    if (m.onePass)
      options.stencilPass = codegen::CompileOptions::StencilPass::Off;
    if (!m.laneShifts)
      options.laneShifts = codegen::CompileOptions::LaneShifts::Off;
    if (!m.factorMixed)
      options.factorMixed = codegen::CompileOptions::FactorMixed::Off;
    if (m.firstGenerator) {
      options.codegen.derivativeSharing = options.codegen.simplify = false;
      options.cacheBlocking = options.prefetch = false;
    }
    std::string error;
    if (!codegen::compileModule(program, options, codegen::OutputKind::OpCounts, diags, m.opCounts, error)) {
      std::fprintf(stderr, "cannot count operations: %s\n", error.c_str());
      return 1;
    }
    if (!m.vectorWidth)
      m.vectorWidth = codegen::resolveVectorWidth(options, error);
  }
  const tensorium_module_tables &t = *modules[0].tables;
  runtime::GeneratedHostTables tables{t.kernels, static_cast<size_t>(t.kernel_count), t.buffers,
                                      static_cast<size_t>(t.buffer_count), t.param_names,
                                      static_cast<size_t>(t.param_count), static_cast<unsigned>(t.dimension)};

  const double triad1 = triadBandwidth(1), triad2 = triadBandwidth(2);
  const Peak peak1 = peakRate(1), peak2 = peakRate(2);
  // Compulsory traffic per point: 39 state doubles read (gammatildeU included), 30 derivative
  // doubles written; stencil neighbours come from cache.
  const double bytesPerPoint = 69 * 8.0;
  std::printf("STREAM triad: %.2f GB/s (1 thread), %.2f GB/s (2 threads)\n", triad1 / 1e9, triad2 / 1e9);
  std::printf("peak (%s): %.1f GFLOP/s (1 thread), %.1f GFLOP/s (2 threads)\n", peak1.how, peak1.flops / 1e9,
              peak2.flops / 1e9);
  std::printf("BSSN RHS, 4th-order differences, KO dissipation, runtime parameters; %g bytes per point "
              "compulsory\n", bytesPerPoint);
  std::printf("%5s %-9s %-9s %7s %5s %9s %10s %11s %8s %8s %9s %9s %9s %9s %9s %9s %9s %9s %16s\n", "n", "path",
              "kernel", "threads", "width", "flops/pt", "best ms", "points/s", "GFLOP/s", "of peak", "of bound",
              "vs scalar", "vs first", "2 threads", "huge/4k", "vs 1-pass", "vs no-shift", "vs direct",
              "centred/lopsided");

  struct Run {
    int module;
    const char *symbol;
    int threads;
    bool smallPages = false; // the storage without transparent huge pages
  };
  std::vector<Run> runs;
  for (int m = 0; m < 3; ++m)
    for (const Run &r : {Run{m, "tensorium_rhs_grid_scf", 1}, Run{m, "tensorium_rhs_grid_parallel", 1},
                         Run{m, "tensorium_rhs_grid_parallel", 2}})
      runs.push_back(r);
  // The default kernels with rows in one pass: what the two-pass rows gain.
  runs.push_back({3, "tensorium_rhs_grid_scf", 1});
  runs.push_back({3, "tensorium_rhs_grid_parallel", 2});
  // The default kernels without lane shifts: what they gain.
  runs.push_back({4, "tensorium_rhs_grid_scf", 1});
  runs.push_back({4, "tensorium_rhs_grid_parallel", 2});
  // The default kernels with mixed derivatives as their own stencils: what the factoring gains.
  runs.push_back({5, "tensorium_rhs_grid_scf", 1});
  runs.push_back({5, "tensorium_rhs_grid_parallel", 2});
  // The default kernels with lopsided advection: what upwinding costs.
  runs.push_back({6, "tensorium_rhs_grid_scf", 1});
  runs.push_back({6, "tensorium_rhs_grid_parallel", 2});
  // The default kernels once more on storage backed by 4 KiB pages: what the runtime's huge-page
  // allocation (LargePageAllocator) is worth, measured in the same interleaved rounds.
  runs.push_back({0, "tensorium_rhs_grid_scf", 1, true});
  runs.push_back({0, "tensorium_rhs_grid_parallel", 2, true});
  for (int n : sizes) {
    // Transparent huge pages off for this process while the second storage is first touched,
    // and that storage advised against them afterwards (otherwise khugepaged may collapse its
    // pages later in the run); the process's previous setting is restored.
    const int previous = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
    const bool thpOff = previous >= 0 && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0;
    runtime::GeneratedHostStorage smallPageStorage(tables, {n, n, n});
    {
      const std::span<double> arena = arenaOf(smallPageStorage);
      const auto start = reinterpret_cast<uintptr_t>(arena.data());
      const uintptr_t page = start & ~uintptr_t{4095};
      (void)madvise(reinterpret_cast<void *>(page), arena.size_bytes() + (start - page), MADV_NOHUGEPAGE);
    }
    if (thpOff)
      prctl(PR_SET_THP_DISABLE, previous, 0, 0, 0);
    else
      std::printf("warning: transparent huge pages could not be disabled; the 'simd 4k' rows may use huge pages\n");
    runtime::GeneratedHostStorage storage(tables, {n, n, n});
    // A smooth, non-trivial state: conformal metric near delta, chi and alpha near 1.
    const size_t N = static_cast<size_t>(n) * n * n;
    for (runtime::GeneratedHostStorage *s : {&storage, &smallPageStorage}) {
      for (const auto &b : s->buffers()) {
        std::span<double> v = s->buffer(b.name);
        for (size_t i = 0; i < v.size(); ++i) {
          const size_t c = i / N, p = i % N;
          const bool diagonal = b.componentCount == 9 && (c == 0 || c == 4 || c == 8);
          const bool unit = b.name == "chi" || b.name == "alpha" || diagonal;
          v[i] = (unit ? 1.0 : 0.0) + 0.01 * std::sin(0.001 * static_cast<double>(p) + static_cast<double>(c));
        }
      }
    }
    const double h = 1.0 / n, params[5] = {2.0, 1.0, 0.75, 0.1, 1.0}; // eta, 1+log, Gamma-driver, KO sigma, advected
    const double interior = std::pow(n - 6, 3); // stencil radius 3 (Kreiss-Oliger)
    auto invoke = [&](const Run &r) {
      omp_set_num_threads(r.threads);
      (r.smallPages ? smallPageStorage : storage).invoke(modules[r.module].adapters, r.symbol, params, {h, h, h});
    };
    // Interleaved repetitions (every configuration once per round) so that slow phases of a
    // shared machine hit all configurations alike; the best time of each is reported. The
    // order is shuffled every round (with a fixed seed), because a run's time can depend on
    // the run before it, and in a fixed cycle a configuration always follows the same one (the
    // 30 ms SIMD run at 64^3, first in the cycle after the 4 KiB-page storage's run: 6.0 M
    // points/s; with the scalar runs moved before it: 6.2 M).
    // Best of 15 at 64^3 (9 left the 2-thread speed-up of one run at 1.75x against 1.89-1.94x
    // in others on a shared host), 7 at 128^3 and above.
    const int rounds = n >= 128 ? 7 : 15;
    std::vector<std::vector<double>> times(runs.size());
    for (const Run &r : runs) // warm-up
      invoke(r);
    std::vector<size_t> order(runs.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::mt19937 shuffler(20261205u + static_cast<unsigned>(n));
    for (int round = 0; round < rounds; ++round) {
      std::shuffle(order.begin(), order.end(), shuffler);
      for (size_t c : order) {
        auto start = std::chrono::steady_clock::now();
        invoke(runs[c]);
        times[c].push_back(seconds(start));
      }
    }
    // Which pages the two storages ended the rounds on.
    const std::span<double> hugeArena = arenaOf(storage), smallArena = arenaOf(smallPageStorage);
    std::printf("%5d storage on huge pages: %.0f of %.0f MB (default), %.0f of %.0f MB ('simd 4k' rows)\n", n,
                hugePageBytes(hugeArena.data()) / 1e6, static_cast<double>(hugeArena.size_bytes()) / 1e6,
                hugePageBytes(smallArena.data()) / 1e6, static_cast<double>(smallArena.size_bytes()) / 1e6);
    std::vector<double> rate(runs.size());
    for (size_t c = 0; c < runs.size(); ++c)
      rate[c] = interior / *std::min_element(times[c].begin(), times[c].end());
    for (size_t c = 0; c < runs.size(); ++c) {
      const Run &r = runs[c];
      const KernelModule &m = modules[r.module];
      const bool parallel = std::string(r.symbol).find("parallel") != std::string::npos;
      const double flops = flopsPerPoint(m.opCounts, r.symbol);
      const double gflops = flops * rate[c] / 1e9;
      const double peak = r.threads == 1 ? peak1.flops : peak2.flops;
      const double bound = (r.threads == 1 ? triad1 : triad2) / bytesPerPoint;
      char vsScalar[32] = "", vsFirst[32] = "", speedup[32] = "", ofPeak[32] = "-", hugeVsSmall[32] = "",
           vsOnePass[32] = "", vsNoShift[32] = "", vsDirect[32] = "", centredVsLopsided[32] = "";
      for (size_t s = 0; s < runs.size(); ++s) {
        if (std::string(runs[s].symbol) != r.symbol || runs[s].threads != r.threads)
          continue;
        if (r.smallPages && runs[s].module == 0 && !runs[s].smallPages)
          std::snprintf(hugeVsSmall, sizeof hugeVsSmall, "%.2fx", rate[s] / rate[c]);
        if (r.smallPages || runs[s].smallPages)
          continue;
        if (r.module == 0 && runs[s].module == 1)
          std::snprintf(vsScalar, sizeof vsScalar, "%.2fx", rate[c] / rate[s]);
        if (r.module == 0 && runs[s].module == 3)
          std::snprintf(vsOnePass, sizeof vsOnePass, "%.2fx", rate[c] / rate[s]);
        if (r.module == 0 && runs[s].module == 4)
          std::snprintf(vsNoShift, sizeof vsNoShift, "%.2fx", rate[c] / rate[s]);
        if (r.module == 0 && runs[s].module == 5)
          std::snprintf(vsDirect, sizeof vsDirect, "%.2fx", rate[c] / rate[s]);
        // How much longer the lopsided kernel takes than the centred one.
        if (r.module == 6 && runs[s].module == 0)
          std::snprintf(centredVsLopsided, sizeof centredVsLopsided, "%.2fx", rate[s] / rate[c]);
        if (r.module != 2 && runs[s].module == 2)
          std::snprintf(vsFirst, sizeof vsFirst, "%.2fx", rate[c] / rate[s]);
      }
      if (parallel && r.threads == 2 && !r.smallPages && c > 0 && runs[c - 1].module == r.module &&
          std::string(runs[c - 1].symbol) == r.symbol && runs[c - 1].threads == 1)
        std::snprintf(speedup, sizeof speedup, "%.2fx", rate[c] / rate[c - 1]);
      if (peak > 0)
        std::snprintf(ofPeak, sizeof ofPeak, "%.1f%%", 100 * gflops * 1e9 / peak);
      std::printf("%5d %-9s %-9s %7d %5u %9.0f %10.1f %11.3e %8.2f %8s %8.1f%% %9s %9s %9s %9s %9s %9s %9s %16s\n", n,
                  r.smallPages ? "simd 4k" : m.label, r.symbol + 19, r.threads, m.vectorWidth, flops,
                  *std::min_element(times[c].begin(), times[c].end()) * 1e3, rate[c], gflops, ofPeak,
                  100 * rate[c] / bound, vsScalar, vsFirst, speedup, hugeVsSmall, vsOnePass, vsNoShift, vsDirect,
                  centredVsLopsided);
      std::fflush(stdout);
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "TensoriumBssnBenchmark: error: %s\n", e.what());
    return 1;
  }
}
