#pragma once
// What a BSSN run needs on the refined grid beyond the engine: the blocks as lattices for the
// initial-data writers of the uniform grid (two-puncture handoff, exact slices), the hooks around
// the kernel (inverse conformal metric; algebraic constraints and floors), values of fields at
// arbitrary points (the finest leaf holding the point), puncture tracking, and refinement regions
// that follow the tracked points. No MLIR here.
#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Distributed/BssnHorizons.h"
#include "tensorium_mlir/Distributed/BssnSetup.h"
#include "tensorium_mlir/Refinement/RefinedEvolution.h"

#include <array>
#include <string>
#include <vector>

namespace tensorium_mlir::refinement {

/// A block's storage (ghost layers included) as a lattice for the data writers.
distributed::StorageLattice blockLattice(const Block &b);

/// gammatilde^ij before every right-hand side (every point of a block); after every step the
/// algebraic constraints (det gammatilde = 1, trace-free Atilde) and then the floors.
void installBssnHooks(RefinedEvolution &e, const distributed::BssnFloors &floors,
                      distributed::ConformalMetricForm form = distributed::ConformalMetricForm::Full);

/// The local block that holds x (leaves do not overlap: the finest data there), or null.
const Block *blockHolding(const RefinedEvolution &e, const std::array<double, 3> &x);

/// Values of field components at points, by 4-point Lagrange interpolation per axis inside the
/// block that holds each point (ghost layers refilled once first): one vector per component. The
/// same answer on every rank; throws RefinementError for a point outside the domain. Collective.
std::vector<std::vector<double>> interpolateField(RefinedEvolution &e, const std::string &field,
                                                  const std::vector<unsigned> &components,
                                                  const std::vector<std::array<double, 3>> &points);

/// The slice as the horizon finder reads it (gamma_ij, its derivatives, K_ij), from the block
/// holding each point: Lagrange interpolation on `nodes` (4 or 6) points per axis inside the
/// block and its ghost layers, derivatives of the interpolant. The ghost layers are filled once,
/// now: the sampler belongs to the present state. Collective: every rank calls it with the same
/// points; a point outside the domain, or where chi <= 0, throws horizons::GeometryDomainError
/// on every rank.
horizons::GeometrySampler refinedSliceGeometry(RefinedEvolution &e, int nodes = 6);

/// Punctures followed by dx/dt = -beta(x) (Heun's method), as on the uniform grid.
class RefinedPunctureTracker {
public:
  explicit RefinedPunctureTracker(std::vector<std::array<double, 3>> positions) : positions_(std::move(positions)) {}
  const std::vector<std::array<double, 3>> &positions() const { return positions_; }
  /// Velocities -beta at the current positions, before a step.
  void sampleBefore(RefinedEvolution &e);
  /// After the step of size dt: predictor with the earlier velocity, corrector at the predicted point.
  void advance(RefinedEvolution &e, double dt);

private:
  std::vector<std::array<double, 3>> velocities(RefinedEvolution &e, const std::vector<std::array<double, 3>> &x) const;
  std::vector<std::array<double, 3>> positions_, before_;
};

/// Spheres about each point: radii[l - 1] asks for level l (radii decreasing with the level).
/// A point outside the domain is refused.
std::vector<RefinementRegion> regionsAround(const std::vector<std::array<double, 3>> &points,
                                            const std::vector<double> &radii);

} // namespace tensorium_mlir::refinement
