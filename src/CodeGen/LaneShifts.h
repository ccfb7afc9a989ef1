#pragma once
// Lane shifts: the reads of a component row at z shifts -r..r of one vector step cover the
// vector at the step and the r points on either side. Loaded as three vectors, the one before
// (only its last r lanes), the one at the step (its active lanes and r more) and the one after
// (its first r lanes, within r of the step's last active lane), every shifted read is a lane
// shift of two of them: in the active lanes the same values as the unaligned load, without the
// load that straddles two cache lines. The vectors are loaded as 64-bit integers, for which
// LLVM emits the shift as one valignq (for f64 vectors it chooses a two-table permute with an
// index register). Every lane read lies inside the component's row: the interior starts and
// ends r points from its ends. Inactive lanes may hold other values than the masked loads'
// zeros; they are never stored.
//
// With them, mixed derivatives across z may be formed from the transverse derivatives' values
// at the neighbouring points (KernelPlan::zFactored) instead of a tensor-product stencil.
#include "StencilAddressing.h"

#include <memory>
#include <unordered_map>

namespace tensorium_mlir::codegen::emission {

/// The row vectors of one vector step, shared by the loaders of the step.
struct RowLines {
  std::map<std::tuple<int, int, int, int, int>, Value> lines; // (arg, component, dx, dy, -1|0|1)
  std::map<void *, Value> pointers;                            // aligned base pointer of a buffer
  Value zero, maskBefore, maskAt, maskAfter;                   // shared by the rows of a step
};

/// The mixed derivatives across z that a first pass may form from its transverse derivatives:
/// those whose transverse stencil and z coefficients the kernel computes anyway (so that every
/// node they use has its varying flag and, if loop invariant, its value before the loops), by
/// the mixed derivative's node.
std::unordered_map<NodeId, const ZFactoredStencil *> chooseZFactorings(const KernelPlan &plan);

class LaneShifts {
public:
  /// `enabled`: lane shifts are used at all (8-wide steps, a z radius below 8); `factorMixed`:
  /// mixed derivatives across z are formed from lane shifts where they can be.
  LaneShifts(BodyEmitter &body, VectorSteps &steps, StencilAddressing &addressing, bool enabled, bool factorMixed);

  bool enabled() const { return enabled_; }

  /// The loader of buffer leaves at the step at `linear`; with `lines`, reads shifted along z
  /// are lane shifts of the step's row vectors. It refers to `a` and `readFrom`: use it while
  /// they live (within the step's emission).
  LeafLoader loader(const Addressing &a, const std::map<int, Value> &readFrom, Value linear,
                    std::shared_ptr<RowLines> lines = nullptr);

  /// Computes, before `root` itself, the mixed derivatives inside it that factor across z: the
  /// transverse stencil T at the step and on the vectors before and after it, then the z
  /// stencil as lane shifts of T, grouped as the plain stencil groups its weights.
  void emitZFactored(NodeId root, const Addressing &a, const std::map<int, Value> &readFrom, Value linear,
                     const std::shared_ptr<RowLines> &lines, const LeafLoader &loader);

private:
  /// The lanes of `at` shifted by `by` (-width < by < width), filled from `beside`, the vector
  /// before `at` (by < 0) or after it.
  Value laneShift(Value at, Value beside, int64_t by);
  Value evaluateApart(NodeId root, const LeafLoader &load);
  Value rowPointer(RowLines &lines, Value buffer);
  Value rowLine(RowLines &lines, const Addressing &a, Value buffer, Value linear, const Leaf &l, int which);

  BodyEmitter &body_;
  VectorSteps &steps_;
  StencilAddressing &addressing_;
  bool enabled_;
  std::unordered_map<NodeId, const ZFactoredStencil *> zFactored_;
};

} // namespace tensorium_mlir::codegen::emission
