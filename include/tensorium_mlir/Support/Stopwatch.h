#pragma once
// Wall-clock seconds added to a running total when a scope ends: the per-part timers of the
// evolution engines.
#include <chrono>

namespace tensorium_mlir::support {

inline double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Stopwatch {
  double &sink;
  double start = steadySeconds();
  ~Stopwatch() { sink += steadySeconds() - start; }
};

} // namespace tensorium_mlir::support
