#pragma once
// The plan that fills the ghost layers of a rank's blocks from the interiors of the leaves it
// knows (its own and the ghost leaves of the forest), made once per forest and replayed every
// stage. A ghost point in a leaf of the same level is a copy. In a finer leaf it is restricted:
// Lagrange interpolation over a window inside that leaf. In a coarser leaf it is prolonged from
// a coarse buffer of the block: the coarser level's lattice around the block, each of its points
// copied from the coarse leaf or restricted from a finer one (the block itself included), so
// that the prolongation windows are centred on the ghost point instead of one-sided inside the
// coarse leaf (one-sided windows of 6 or more points make the coupled levels unstable).
// Windows never leave the domain on non-periodic faces. No MLIR here.
#include "tensorium_mlir/Refinement/BlockForest.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tensorium_mlir::refinement {

/// target[targetIndex] = sum of weights x source values over a p0 x p1 x p2 window whose first
/// point is sourceIndex (strides stride[0], stride[1] and 1); a copy when every points[] is 1.
struct FillEntry {
  uint32_t target = 0, source = 0;
  size_t targetIndex = 0, sourceIndex = 0;
  uint32_t stride[2] = {0, 0};
  uint8_t points[3] = {1, 1, 1};
  double weights[3][8] = {{1}, {1}, {1}};
};

struct FillPhase {
  std::vector<FillEntry> copies, interpolations;
};

class GhostFillPlan {
public:
  /// `leaves`: the forest's leaves (local first, `localCount` of them); local leaves are stored
  /// with `ghost` layers, ghost leaves as packed interiors.
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
  /// prolongation inside the coarse leaf (where a buffer point lay in a leaf this rank does not see).
  struct Counts {
    size_t copied = 0, restricted = 0, prolonged = 0, oneSided = 0;
  };
  const Counts &counts() const { return counts_; }

private:
  FillPhase coarse_, blocks_;
  std::vector<int> bufferSide_;
  Counts counts_;
};

/// Replays one phase for `dof` components: targets[t * dof + d] and sources[s * dof + d] are the
/// base pointers of component d of target t and source s. OpenMP across entries.
void executeFill(const FillPhase &phase, std::span<double *const> targets, std::span<const double *const> sources,
                 size_t dof);

} // namespace tensorium_mlir::refinement
