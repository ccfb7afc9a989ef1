// The apparent-horizon finder on grid data: a Brill-Lindquist binary (m = 0.5 each at z = +-0.3,
// common horizon and two individual horizons) sampled on 64^3 and 128^3 points over [-1.5, 1.5]^3,
// found from a sphere at several lmax, one core. Counters: Newton iterations and interpolated
// points per second. The sampling of the grid is outside the timed loop.
#include "tensorium_mlir/Horizons/HorizonFinder.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>

using namespace tensorium_mlir::horizons;

namespace {

const std::shared_ptr<UniformGridData> &gridData(int n) {
  static std::map<int, std::shared_ptr<UniformGridData>> cache;
  auto &slot = cache[n];
  if (!slot) {
    const GeometrySampler bl = brillLindquistGeometry({{0.5, {0, 0, 0.3}}, {0.5, {0, 0, -0.3}}});
    const MetricSampler metric = [bl](std::span<const Point3> points, std::span<Sym3> gamma, std::span<Sym3> K) {
      std::vector<SpatialGeometry> g(points.size());
      bl(points, g);
      for (size_t p = 0; p < points.size(); ++p)
        gamma[p] = g[p].gamma, K[p] = g[p].K;
    };
    slot = sampleOnGrid(metric, n, -1.5, 1.5);
  }
  return slot;
}

// state.range(0): grid points per direction; range(1): lmax; range(2): 0 common horizon,
// 1 the individual horizon of the puncture at z = +0.3.
void BM_FindHorizon(benchmark::State &state) {
  const int n = static_cast<int>(state.range(0)), lmax = static_cast<int>(state.range(1));
  const bool individual = state.range(2) == 1;
  const GeometrySampler geometry = interpolatedGeometry(gridData(n));
  HorizonOptions options;
  options.lmax = lmax;
  const StarSurface guess = individual ? StarSurface::sphere({0, 0, 0.3}, 0.25, lmax) : StarSurface::sphere({0, 0, 0}, 0.8, lmax);
  int iterations = 0;
  double area = 0;
  for (auto _ : state) {
    const HorizonResult r = findHorizon(geometry, guess, options);
    if (!r.found) {
      state.SkipWithError(r.message.c_str());
      return;
    }
    iterations = r.iterations;
    area = r.measures.area;
  }
  char label[128];
  std::snprintf(label, sizeof label, "%s horizon, %d^3 grid, %d Newton iterations, area %.8f", individual ? "individual" : "common",
                n, iterations, area);
  state.SetLabel(label);
}

} // namespace

BENCHMARK(BM_FindHorizon)
    ->ArgsProduct({{64, 128}, {6, 8, 12}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
