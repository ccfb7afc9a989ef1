#pragma once
// Vector width and remainder handling: loops step `width` points along the contiguous axis;
// the last step of a line starts `width` points before its end (it overlaps the previous one
// and stores the same values again), so every lane holds a real point, and only a line
// shorter than the width leaves lanes off, masked.
#include "BodyEmitter.h"

namespace tensorium_mlir::codegen::emission {

class VectorSteps {
public:
  explicit VectorSteps(BodyEmitter &body) : body_(body) {}

  /// Steps over [lower, upper). Call before the loops: the bounds of the last step are hoisted.
  /// Starts unaligned steps (alignSteps() again for a row function).
  void prepare(Value lower, Value upper);
  /// Inside the loop: the start index of the step at `k`; sets the step's mask.
  Value step(Value k);
  /// Steps start up to width - 1 points before `lower` (row functions align them to the
  /// buffer's lines); step() clamps them to the line.
  void alignSteps() { alignedSteps_ = true; }

  /// Points of the line from the current step's start to its end (the mask's length).
  Value remaining() const { return remaining_; }

  /// A load of the point or step at `index` (masked in vector loops).
  Value load(Value buffer, Value index);
  void store(Value value, Value buffer, Value index);
  /// A stored value; in vector loops a point-independent one is broadcast.
  Value storedValue(NodeId id);

private:
  BodyEmitter &body_;
  Value mask_, remaining_, upper_, lower_, lastStart_, fits_;
  bool alignedSteps_ = false;
};

} // namespace tensorium_mlir::codegen::emission
