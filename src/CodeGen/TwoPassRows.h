#pragma once
// Two-pass rows (kernels with a shared row function): a row in chunks of up to
// kStencilPassSteps vector steps (fewer where the scratch block would exceed kScratchBytes),
// each in two passes: the stencil values of every step into a scratch block, one loop per
// buffer component, then the equations reading them back. Each pass keeps far fewer values
// live than the single body, and only the first one streams the stencils.
#include "LaneShifts.h"

namespace tensorium_mlir::codegen::emission {

/// Vector steps per chunk of a two-pass row: long enough that each component's first-pass loop
/// streams its rows for a while (BSSN: 16 steps, i.e. 128 points, were 1.1-1.2x faster at 128^3
/// than 8 steps and 1.25x faster than 4; equal at 64^3, where a row has 58 points).
inline constexpr int64_t kStencilPassSteps = 16;
/// Largest scratch block of a two-pass row (stack of the thread that runs it).
inline constexpr int64_t kScratchBytes = 256 * 1024;

/// Doubles from one value's chunk to the next in the scratch block: the chunk rounded up to an
/// odd number of 64-byte lines. The second pass reads every value of one step, one stride
/// apart; at an even number of lines (16 steps of 8 points are 1 KiB) those reads would share
/// a few sets of the L1 cache (4 of 64 at 1 KiB) and evict each other and the spill slots.
inline int64_t scratchStride(int64_t chunk) { return ((chunk + 7) / 8 | 1) * 8; }

/// Vector steps of `width` points per chunk with `values` stencil values: as many as fit the
/// scratch block, at most kStencilPassSteps; 0 when not even one step fits.
int64_t scratchSteps(size_t values, unsigned width);

/// What the first pass computes: the maximal subexpressions that read one buffer component
/// through a stencil and no other varying value (a field's derivatives, its dissipation term),
/// grouped by component, with the (argument, component) each reads.
struct StencilValues {
  std::vector<NodeId> values;
  std::vector<std::pair<int, int>> sources;
};
StencilValues findStencilValues(const KernelPlan &plan);

class TwoPassRows {
public:
  /// `values`: the first pass's values (none: rows stay one pass).
  TwoPassRows(BodyEmitter &body, VectorSteps &steps, StencilAddressing &addressing, LaneShifts &lanes,
              StencilValues values)
      : body_(body), steps_(steps), addressing_(addressing), lanes_(lanes), stencil_(std::move(values)) {}

  bool enabled() const { return !stencil_.values.empty(); }

  /// The row (i, j, stepsFrom..kEnd) in chunks and two passes. `emitStores(linear)` computes and
  /// stores every output at the step at `linear`.
  void emitRow(const Addressing &a, const std::map<int, Value> &readFrom, Value i, Value j, Value stepsFrom, Value kEnd,
               const std::function<void(Value)> &emitStores);

private:
  Value scratchIndex(size_t slot);
  Value loadScratch(size_t slot);
  void storeScratch(Value v, size_t slot);

  BodyEmitter &body_;
  VectorSteps &steps_;
  StencilAddressing &addressing_;
  LaneShifts &lanes_;
  StencilValues stencil_;
  // The stride of the values' chunks in the scratch block, the block, the slot of each
  // first-pass value, and the current step's offset in the chunk.
  int64_t scratchStride_ = 0;
  Value scratch_, scratchStep_;
  std::unordered_map<NodeId, size_t> scratchSlot_;
};

} // namespace tensorium_mlir::codegen::emission
