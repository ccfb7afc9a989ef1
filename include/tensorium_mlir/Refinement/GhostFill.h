#pragma once
// The plan that fills the ghost layers of a rank's blocks from the interiors of the leaves it
// knows (its own and the ghost leaves of the forest), made once per forest and replayed every
// stage. A ghost point in a leaf of the same level is a copy. In a finer leaf it is restricted:
// Lagrange interpolation over a window inside that leaf. In a coarser leaf it is prolonged from
// a coarse buffer of the block: the coarser level's lattice around the block, each of its points
// copied from the coarse leaf or restricted from a finer one (the block itself included), so
// that the prolongation windows are centred on the ghost point instead of one-sided inside the
// coarse leaf (one-sided windows of 6 or more points make the coupled levels unstable).
//
// The plan is a list of boxes, each inside one source leaf, whose windows depend on one axis
// at a time, so that every interpolation is done axis by axis (about 3 p operations per point
// and component instead of p^3). Which leaves a block's plan reads depends on the forest only
// (leaves touching the block), never on how it is partitioned: the values are the same on any
// number of ranks. Windows never leave the domain on non-periodic faces. No MLIR here.
#include "tensorium_mlir/Refinement/BlockForest.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace tensorium_mlir::refinement {

/// Source nodes [first, first + points) along one axis and their weights, for one target index.
struct AxisWindow {
  int32_t first = 0;
  uint8_t points = 1;
  double weights[8] = {1, 0, 0, 0, 0, 0, 0, 0};
};

/// target[box point (i, j, k)] = sum over the window product of weights x source nodes.
/// Targets are blocks (point (i, j, k) of the ghosted block, i in [-ghost, n + ghost)) or
/// coarse buffers; sources are leaves (interior node indices) or coarse buffers.
struct FillBox {
  uint32_t target = 0, source = 0;
  std::array<int32_t, 3> lower{}, extent{}; // of the box, in the target's indices
  std::array<std::vector<AxisWindow>, 3> windows; // extent[a] windows per axis
  bool copy = false;                              // every window one point of weight 1
};

struct FillPhase {
  std::vector<FillBox> boxes;
};

class GhostFillPlan {
public:
  /// `leaves`: the forest's leaves (local first, `localCount` of them).
  GhostFillPlan(const ForestSpec &spec, const std::vector<Leaf> &leaves, size_t localCount, int ghost, int points);

  /// Sources are the leaves, then the coarse buffers: source id leaves.size() + c is buffer c.
  size_t coarseBufferCount() const { return bufferSide_.size(); }
  /// Points along each edge of coarse buffer c (it holds side^3 points per component).
  int coarseBufferSide(size_t c) const { return bufferSide_[c]; }
  /// Phase 1 writes the coarse buffers (targets: buffer ids) from leaves.
  const FillPhase &coarsePhase() const { return coarse_; }
  /// Phase 2 writes the blocks' ghost points (targets: local leaf ids) from leaves and buffers.
  const FillPhase &blockPhase() const { return blocks_; }
  /// Ghost points filled by copy, restriction, prolongation through a buffer, and one-sided
  /// prolongation inside the coarse leaf (where a buffer point lies in a leaf that does not
  /// touch the block: a leaf the block's rank need not see).
  struct Counts {
    size_t copied = 0, restricted = 0, prolonged = 0, oneSided = 0;
  };
  const Counts &counts() const { return counts_; }

private:
  FillPhase coarse_, blocks_;
  std::vector<int> bufferSide_;
  Counts counts_;
};

/// Addressing of one target or source: component d of item t starts at base[t * dof + d];
/// point (i, j, k) is at offset + i * stride0 + j * stride1 + k.
struct FillAddress {
  std::vector<double *> base;
  std::vector<int64_t> offset, stride0, stride1; // per item
};

/// The order of the three one-axis passes of an interpolated box. ZFirst gathers along z over
/// every source row first; ByShape takes, box by box, ZFirst or x first (whole source rows along
/// z, vectorised, and the gather on the targets only), whichever does fewer operations. The two
/// agree to round-off; ZFirst stays selectable as the reference.
enum class FillPassOrder { ZFirst, ByShape };

/// Replays one phase for `dof` components. OpenMP across targets.
void executeFill(const FillPhase &phase, const FillAddress &targets, const FillAddress &sources, size_t dof,
                 FillPassOrder order = FillPassOrder::ByShape);

} // namespace tensorium_mlir::refinement
