#pragma once
// Method-of-lines evolution of a generated `rhs_grid` kernel on the leaves of a BlockForest.
// Each local leaf is a block of N^3 cell-centred points with ghost layers of the kernel's stencil
// radius, stored exactly as on the uniform grid (the generated storage, component-major, z
// fastest), so the kernel runs per block unchanged through its adapter; blocks run in parallel
// (OpenMP). Ghost points are filled from the interior points of the leaf that contains them:
// a copy at the same level, Lagrange interpolation of a window inside that leaf across a level
// change (prolongation from the coarser leaf, restriction from the finer one). Every ghost value
// depends on leaf interiors only, never on another ghost, so the fill has no ordering and the
// result is the same on any number of ranks. One global time step (RK4) for every level.
// No MLIR here.
#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Refinement/BlockForest.h"
#include "tensorium_mlir/Refinement/GhostFill.h"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tensorium_mlir::refinement {

using distributed::EvolvedField;
using distributed::KernelModuleTables;
using distributed::RadiativeCondition;

/// The state turned non-finite; the message names the time, step, field, point and level.
class NonFiniteRefinedState : public RefinementError {
public:
  using RefinementError::RefinementError;
};

/// A local block: its leaf and storage in the kernels' layout, ghost layers included.
struct Block {
  Leaf leaf;
  std::array<double, 3> lower{}; // coordinate of interior point (0, 0, 0)
  double spacing = 0;
  int n = 0, ghost = 0;
  bool outerFace = false; // touches a non-periodic face of the domain
  std::unique_ptr<runtime::GeneratedHostStorage> storage;

  int64_t extent() const { return n + 2 * ghost; }
  /// Storage index of point (i, j, k), each in [-ghost, n + ghost).
  size_t index(int i, int j, int k) const {
    const int64_t e = extent();
    return static_cast<size_t>(((i + ghost) * e + (j + ghost)) * e + (k + ghost));
  }
  std::array<double, 3> coordinate(int i, int j, int k) const {
    return {lower[0] + i * spacing, lower[1] + j * spacing, lower[2] + k * spacing};
  }
};

/// Seconds per part of the work, summed over calls (this rank).
struct RefinedTimers {
  double exchange = 0, fill = 0, kernel = 0, radiative = 0, update = 0, postStep = 0, regrid = 0;
  long rhsEvaluations = 0, steps = 0, regrids = 0;
  double total() const { return exchange + fill + kernel + radiative + update + postStep + regrid; }
};

class RefinedEvolution {
public:
  struct Options {
    /// A serial kernel: the blocks are the parallel loop.
    std::string rhsKernel = "tensorium_rhs_grid_affine";
    std::vector<double> params;
    ForestSpec forest;
    std::vector<RefinementRegion> regions;
    RadiativeCondition radiative; // forests with outer faces
    int ghostWidth = 0;           // 0: the kernel's stencil radius (at least 2 with outer faces)
    int interpolationPoints = 6;  // Lagrange points per axis across level changes
    FillPassOrder fillOrder = FillPassOrder::ByShape; // ZFirst: the reference order of the passes
    /// A restart: exactly these leaves (all of them, in global order) instead of the forest the
    /// regions make; the regions are kept for the next regrid.
    std::vector<Leaf> leaves;
  };
  /// Writes the evolved fields at every point of a block (ghost layers too) in its storage.
  using BlockHook = std::function<void(runtime::UniformGridStorage &, const Block &)>;
  /// Called for every block before the kernel, after its ghost layers are filled (auxiliary
  /// fields such as an inverse metric), from the block's thread.
  using PreRhsHook = std::function<void(runtime::UniformGridStorage &, const Block &)>;
  /// Called for every block after each step, on its interior points (algebraic constraints,
  /// floors), from the block's thread.
  using PostStepHook = std::function<void(Block &)>;

  RefinedEvolution(MPI_Comm comm, const KernelModuleTables &module, Options options);
  ~RefinedEvolution();
  RefinedEvolution(const RefinedEvolution &) = delete;
  RefinedEvolution &operator=(const RefinedEvolution &) = delete;

  const Options &options() const { return options_; }
  const BlockForest &forest() const { return *forest_; }
  const std::vector<EvolvedField> &fields() const { return fields_; }
  const EvolvedField &field(const std::string &name) const;
  int dof() const { return dof_; }
  int stencilRadius() const { return radius_; }
  std::vector<Block> &blocks() { return blocks_; }
  const std::vector<Block> &blocks() const { return blocks_; }
  double time() const { return time_; }
  long stepNumber() const { return step_; }
  const RefinedTimers &timers() const { return timers_; }
  void resetTimers() { timers_ = {}; }
  /// How this rank's ghost points are filled (copies, restrictions, prolongations).
  const GhostFillPlan::Counts &fillCounts() const { return plan_->counts(); }
  /// Estimated peak bytes of this rank's blocks (checked against the node's memory first).
  double memoryEstimate() const { return memoryEstimate_; }

  void initialize(const BlockHook &fill);
  void setPreRhsHook(PreRhsHook hook) { preRhs_ = std::move(hook); }
  /// The pre-RHS hook on one block (auxiliary fields of the present state, for diagnostics).
  void applyPreRhsHook(Block &k) const {
    if (preRhs_)
      preRhs_(*k.storage, k);
  }
  void setPostStepHook(PostStepHook hook) { postStep_ = std::move(hook); }
  /// Fills every block's ghost layers from the current state. Collective.
  void fillGhosts();
  /// dX of every block at stage time t: ghost fill, kernel, radiative outer layers. Collective.
  void evaluateRhs(double t);
  /// `steps` RK4 steps of size dt; throws NonFiniteRefinedState when the state turns non-finite
  /// (checked after every step). Collective.
  void advance(long steps, double dt);
  /// New refinement regions: leaves refined and coarsened (one level per call), the state
  /// carried by the same Lagrange interpolation as the ghost fill. Collective.
  bool regrid(std::vector<RefinementRegion> regions);

  /// This rank's leaves' interior evolved values, leaf after leaf (dof components of N^3 points
  /// each, z fastest): what a checkpoint stores.
  std::vector<double> localState() const { return packState(); }
  /// The inverse: interiors from localState()'s layout, with the time and step they belong to.
  void setLocalState(std::span<const double> values, double time, long step);

  /// Every leaf's interior evolved values in global leaf order (per leaf dof components of N^3
  /// points, z fastest) on rank 0; empty elsewhere. Collective.
  std::vector<double> gatherOnRoot() const;
  /// The same leaves' levels and first points (rank 0).
  std::vector<Leaf> gatherLeavesOnRoot() const;

private:
  void buildBlocks(const std::vector<double> *payload);
  void planFill();
  void applyRadiative();
  std::vector<double> packState() const;
  /// A block's interior evolved values, component-major, z fastest; returns the end.
  double *packBlock(const Block &k, double *out) const;
  /// The inverse: a block's interior from packBlock's layout; returns the end of what it read.
  const double *unpackBlock(const double *in, Block &k) const;
  void checkFinite() const;

  struct LayerPoint {
    uint32_t block = 0;
    size_t index = 0;
    double slope[3] = {0, 0, 0};
    double inverseRadius = 0;
    int8_t direction[3] = {0, 0, 0};
  };

  MPI_Comm comm_;
  Options options_;
  KernelModuleTables module_;
  int radius_ = 0, dof_ = 0;
  std::vector<EvolvedField> fields_;
  std::unique_ptr<BlockForest> forest_;
  std::vector<Block> blocks_;
  std::vector<double> ghostValues_, mirrorValues_;
  std::unique_ptr<GhostFillPlan> plan_;
  std::vector<double> coarseValues_; // the plan's coarse buffers, dof components each
  std::vector<LayerPoint> layers_;
  std::vector<double> farValues_, speeds_;
  std::vector<std::vector<double>> start_, accumulated_; // RK4 work space per block
  PreRhsHook preRhs_;
  PostStepHook postStep_;
  double time_ = 0;
  long step_ = 0;
  double memoryEstimate_ = 0;
  RefinedTimers timers_;
};

} // namespace tensorium_mlir::refinement
