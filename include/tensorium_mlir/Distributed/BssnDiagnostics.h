#pragma once
// Diagnostics of a distributed BSSN evolution: ADM constraint norms through a generated
// residual kernel (MPI reductions over owned points), point values by Lagrange interpolation
// (the rank owning the point computes, everyone receives), and puncture tracking by
// integrating dx/dt = -beta(x).
#include "tensorium_mlir/Distributed/DistributedEvolution.h"

#include <array>
#include <functional>
#include <memory>

namespace tensorium_mlir::distributed {

/// ADM variables of the BSSN state over a storage's points: gamma_ij = gammatilde_ij / chi,
/// gamma^ij = chi gammatilde^ij, K_ij = (Atilde_ij + gammatilde_ij K / 3) / chi, written into the
/// 9-component buffers gamma, gammaU and Kij of `adm` (same shape as `bssn`).
void admFromBssn(const runtime::UniformGridStorage &bssn, runtime::UniformGridStorage &adm);

struct ConstraintNorms {
  double l2H = 0, maxH = 0, l2M = 0, maxM = 0; // |M| = sqrt(gamma^ij M_i M_j)
  long points = 0;
};

/// The sums behind ConstraintNorms: every point added with its weight (1 on one grid, the cell
/// volume across levels), then reduced over the ranks. NaN wins the maxima: a blown-up run
/// shows it.
class ConstraintSums {
public:
  void add(double H, double M2, double weight);
  ConstraintNorms reduce(MPI_Comm comm) const;

private:
  double sum_[4] = {0, 0, 0, 0}; // H^2 w, |M|^2 w, w, points
  double max_[2] = {0, 0};
};

class ConstraintMonitor {
public:
  /// `constraints`: a module with `kernel` (residual grid) reading gamma, gammaU, Kij and
  /// writing H and M2; its stencil radius must fit in the evolution's ghost width.
  ConstraintMonitor(const DistributedEvolution &e, const KernelModuleTables &constraints,
                    std::string kernel = "tensorium_residual_grid_parallel");
  ~ConstraintMonitor();
  /// Norms over owned points at least `2 * ghost width` from the outer faces (whose ghost
  /// values are boundary fill) for which `excluded(x)` is false. Collective; needs the
  /// evolution's storage loaded (DistributedEvolution::loadStorage).
  ConstraintNorms evaluate(DistributedEvolution &e, const std::function<bool(const std::array<double, 3> &)> &excluded);

private:
  KernelModuleTables module_;
  std::string kernel_;
  std::unique_ptr<runtime::GeneratedHostStorage> storage_;
};

/// The most nodes per axis interpolateField takes.
inline constexpr int kMaxInterpolationNodes = 12;

/// Component `component` of evolved or auxiliary field `name` at x: Lagrange interpolation per
/// axis on `nodes` points (4: cubic, error O(h^4); 6 to 12 for comparisons at higher order) from
/// the loaded storage (x inside the grid, nodes / 2 - 1 points from the faces; the ghost width at
/// least nodes / 2). Collective: every rank returns the owner's value.
double interpolateField(DistributedEvolution &e, const std::string &name, unsigned component,
                        const std::array<double, 3> &x, int nodes = 4);

/// The smallest value of component `component` of evolved field `name` over the owned points of
/// the state (the same on every rank). Collective.
double minimumOverGrid(const DistributedEvolution &e, const std::string &name, unsigned component = 0);

/// Punctures moved by dx/dt = -beta(x) with Heun's method over each step.
class PunctureTracker {
public:
  explicit PunctureTracker(std::vector<std::array<double, 3>> positions) : positions_(std::move(positions)) {}
  const std::vector<std::array<double, 3>> &positions() const { return positions_; }
  /// Velocities -beta at the current positions from the state now loaded (call before a step).
  void sampleBefore(DistributedEvolution &e);
  /// After the step of size dt, with the new state loaded: predictor with the earlier
  /// velocity, corrector with -beta at the predicted point.
  void advance(DistributedEvolution &e, double dt);

private:
  std::array<double, 3> velocity(DistributedEvolution &e, const std::array<double, 3> &x) const;
  std::vector<std::array<double, 3>> positions_, before_;
};

} // namespace tensorium_mlir::distributed
