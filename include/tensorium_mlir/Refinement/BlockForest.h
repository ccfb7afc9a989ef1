#pragma once
// A forest of octrees (p4est's 3-D p8est) over a brick of root blocks. Every leaf is a block of
// N^3 cell-centred points; a leaf of level l has spacing rootWidth / (N 2^l). Refinement follows
// spheres that each ask for a level; the forest is 2:1 balanced across faces, edges and corners
// and partitioned along p4est's space-filling curve, so the leaves, their order and every value
// computed from them are the same on any number of ranks. No MLIR here.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tensorium_mlir::refinement {

/// Anything a caller got wrong (sizes, levels, regions outside the domain); thrown before
/// anything grid-sized exists.
class RefinementError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Leaves meeting the sphere |x - center| < radius are refined to `level` (at least).
struct RefinementRegion {
  std::array<double, 3> center{0, 0, 0};
  double radius = 0;
  int level = 0;
};

struct ForestSpec {
  std::array<double, 3> lower{-1, -1, -1}; // corner of the domain
  double rootWidth = 2;                    // edge of a level-0 block
  std::array<int, 3> roots{1, 1, 1};       // level-0 blocks along each axis
  bool periodic = false;
  int blockPoints = 16; // N: points along each edge of every block (a multiple of 4)
  int maxLevel = 0;     // finest level any region may ask for

  std::array<double, 3> upper() const {
    return {lower[0] + roots[0] * rootWidth, lower[1] + roots[1] * rootWidth, lower[2] + roots[2] * rootWidth};
  }
  double spacing(int level) const { return rootWidth / (blockPoints * static_cast<double>(int64_t{1} << level)); }
  /// Points along axis a of the whole domain at `level`.
  int64_t pointsAt(int level, int a) const { return int64_t{roots[a]} * blockPoints << level; }
};

/// A leaf as the forest knows it: its level and the index (at that level) of its first point.
/// Local leaves come first, in the forest's order; then the ghost leaves of other ranks that
/// touch a local leaf (faces, edges, corners, across periodic faces too).
struct Leaf {
  int level = 0;
  std::array<int64_t, 3> first{0, 0, 0};
  int owner = 0;
  bool local = true;
  /// Lower corner and edge in root-block units (exact: dyadic).
  std::array<double, 3> lowerRoot() const;
  double widthRoot() const { return 1.0 / static_cast<double>(int64_t{1} << level); }
  int blockPoints = 0;
};

/// Throws RefinementError for a spec or regions that do not fit (levels, sizes, regions outside
/// the domain); `ghostWidth` and `interpolationPoints` are what the blocks will need.
void validate(const ForestSpec &spec, std::span<const RefinementRegion> regions, int ghostWidth, int interpolationPoints);

/// An estimate of the leaves the regions make, before anything is built: per region and level up
/// to its own, the volume of the sphere grown by half a leaf in leaves (at most the domain's),
/// plus the roots. It is meant to refuse what cannot fit by far, not to budget closely (the
/// built forest is checked again, block by block).
double estimatedLeaves(const ForestSpec &spec, std::span<const RefinementRegion> regions);

class BlockForest {
public:
  BlockForest(MPI_Comm comm, const ForestSpec &spec, std::vector<RefinementRegion> regions);
  /// The forest whose leaves are exactly `leaves` (all of them, in global order, as a checkpoint
  /// stores them), partitioned for this communicator; `regions` are kept for the next adapt().
  /// Throws RefinementError on every rank when they are not the leaves of a balanced forest of
  /// `spec`.
  BlockForest(MPI_Comm comm, const ForestSpec &spec, std::vector<RefinementRegion> regions, std::span<const Leaf> leaves);
  ~BlockForest();
  BlockForest(const BlockForest &) = delete;
  BlockForest &operator=(const BlockForest &) = delete;

  const ForestSpec &spec() const { return spec_; }
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::vector<RefinementRegion> &regions() const { return regions_; }

  /// Local leaves (in forest order), then ghost leaves.
  const std::vector<Leaf> &leaves() const { return leaves_; }
  size_t localCount() const { return localCount_; }
  int64_t globalCount() const { return globalCount_; }
  /// Global index of this rank's first leaf.
  int64_t globalOffset() const { return globalOffset_; }
  /// Leaves per level over all ranks.
  std::vector<int64_t> leavesPerLevel() const;

  /// Local leaves that other ranks hold as ghosts, in the order exchange() takes their values.
  std::vector<size_t> mirrorLeaves() const;
  /// The ghost leaves' values: `mirrors[i]` points at valuesPerLeaf values of local leaf
  /// mirrorLeaves()[i]; `ghosts` receives valuesPerLeaf values per ghost leaf, in leaves()
  /// order. Collective.
  void exchange(const std::vector<const double *> &mirrors, size_t valuesPerLeaf, std::vector<double> &ghosts);

  /// Refines and coarsens to new regions (balance, partition). `payload` holds valuesPerLeaf
  /// values per local leaf, `dof` components of N^3 points each (component-major, z fastest);
  /// it comes back for the new leaves: unchanged leaves copied, refined and coarsened ones
  /// sampled from their old leaf by Lagrange windows of `interpolationPoints`, then moved with
  /// the partition. Returns whether any leaf changed anywhere. Collective.
  bool adapt(std::vector<RefinementRegion> regions, std::vector<double> &payload, int dof, int interpolationPoints);

  /// Level a box (root units) needs from the regions: the finest level asked by a sphere it meets.
  int requiredLevel(const std::array<double, 3> &lowerRoot, double widthRoot) const;

  // Used by the p4est callbacks.
  struct Impl;

private:
  /// The brick of root blocks as a p4est forest of one leaf per root (also sets rank and size).
  void createBrick();
  void rebuildLeaves();

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  ForestSpec spec_;
  std::vector<RefinementRegion> regions_;
  std::unique_ptr<Impl> impl_;
  std::vector<Leaf> leaves_;
  size_t localCount_ = 0;
  int64_t globalCount_ = 0, globalOffset_ = 0;
};

/// Lagrange interpolation along one axis of a block: nodes at u = 0, 1, ..., n - 1; the window
/// of `points` consecutive nodes nearest u that fits inside the block.
struct LagrangeWindow {
  int first = 0;
  int points = 0;
  double weights[8] = {0, 0, 0, 0, 0, 0, 0, 0};
};
LagrangeWindow lagrangeWindow(double u, int n, int points);
/// Weights of Lagrange interpolation at u through the nodes first, ..., first + points - 1
/// (points <= 8; u may lie outside them).
void lagrangeWeightsAt(double u, int first, int points, double *w);

} // namespace tensorium_mlir::refinement
