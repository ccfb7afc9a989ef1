#pragma once
// Index arithmetic of stencil reads and the software prefetch strategy. Every access is
// `component * N + linear + delta`: strides and the loop-invariant offset of every (component,
// x and y shift) the kernel reads or writes are computed before the loops, and the z shift is
// added inside as a constant, so that the reads of one row of a component share one offset and
// differ only in the displacement of their addresses.
#include "VectorSteps.h"

#include <array>
#include <map>
#include <tuple>

namespace tensorium_mlir::codegen::emission {

/// A prefetched point: a buffer argument's component, shifted from the current point.
struct PrefetchTarget {
  int arg, component;
  std::array<int8_t, 3> shift;
  bool operator==(const PrefetchTarget &) const = default;
};

/// The read prefetches of a stencil kernel, in emission order: for every buffer component it
/// reads, the x-plane that enters the stencils at the next i; for those read with a y-stencil
/// also that plane at rows j -+ ry (the rows a tile's stencils reach beyond its edges, which
/// no row of the tile prefetches as its own). Empty without `prefetch`.
std::vector<PrefetchTarget> readPrefetches(const KernelPlan &plan, bool prefetch);

struct Addressing {
  Value sx, nz, total;
  std::map<std::tuple<int, int, int, int>, Value> deltas;
  std::vector<PrefetchTarget> prefetches; // in emission order
  bool prefetchOutputs = false;           // write-prefetch each output's next line along z
};

class StencilAddressing {
public:
  /// `prefetch`: software prefetch of reads; with `sharedRowBody` also of the outputs' lines.
  StencilAddressing(BodyEmitter &body, bool prefetch, bool sharedRowBody)
      : body_(body), prefetch_(prefetch), sharedRowBody_(sharedRowBody) {}

  /// Builds the addressing over a grid of nx x ny x nz points (before the loops) and emits
  /// the loop invariants.
  Addressing prepare(Value nx, Value ny, Value nz);
  /// The linear index of the point (or of the vector step's first point) at ivs.
  Value linearIndex(const Addressing &a, const Value ivs[3]);
  Value addressOf(const Addressing &a, Value linear, int component, const std::array<int8_t, 3> &off);
  /// The prefetches of every read (argument, component), or of those `wanted` accepts.
  void emitPrefetches(const Addressing &a, const std::map<int, Value> &readFrom, Value linear,
                      const std::function<bool(int, int)> &wanted = nullptr);
  /// Write prefetches of every output's line after the step's (see prepare()).
  void emitOutputPrefetches(const Addressing &a, Value linear);

private:
  BodyEmitter &body_;
  bool prefetch_, sharedRowBody_;
};

} // namespace tensorium_mlir::codegen::emission
