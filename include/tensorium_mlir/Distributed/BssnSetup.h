#pragma once
// What every BSSN run needs between generated modules and the distributed engine: the
// moving-puncture engine configuration (grid, gauge parameters, radiative boundaries, hooks),
// initial data from solved two-puncture data or from an exact-solution fixture's slice kernel
// (the one ADM -> BSSN conversion), used by tensorium-evolve and the evolution studies alike.
// No MLIR.
#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Distributed/SystemEvolution.h"
#include "tensorium_mlir/Physics/TwoPunctures.h"

#include <array>
#include <vector>

namespace tensorium_mlir::distributed {

struct BssnRunOptions {
  long points = 48;        ///< per axis, cell-centred on [-extent, extent]^3
  double extent = 6;
  int ghost = 0;            ///< 0: the module's stencil radius
  double eta = 2;          ///< Gamma-driver damping
  double koSigma = 0.1;    ///< Kreiss-Oliger dissipation
  TimeIntegrator integrator = TimeIntegrator::RK4;
  BssnFloors floors;       ///< chi and lapse floors after each step (BssnHooks.h)
  double spacing() const { return 2 * extent / static_cast<double>(points); }
};

/// The engine options of a moving-puncture run: cell-centred points x_i = -L + (i + 1/2) h (the
/// origin and the punctures of most configurations fall between points), 1+log slicing, the
/// Gamma-driver shift with advection, radiative boundaries (gauge speed sqrt 2 for alpha and K).
DistributedEvolution::Options bssnEvolutionOptions(const BssnRunOptions &o);

/// The fields every BSSN module evolves (a module evolving all of them runs the moving-puncture path).
inline constexpr std::array<const char *, 8> kBssnFields{"chi", "gammatilde", "K", "Atilde", "Gammatilde", "alpha", "beta", "B"};

/// A moving-puncture run as a system: bssnEvolutionOptions' grid and radiative faces (far
/// values per component: gammatilde -> delta_ij), the inverse conformal metric before each
/// right-hand side, the algebraic constraints and then the floors after each step, and
/// `initialData` (two-puncture or exact-slice data) for the fields the module cannot assign
/// itself.
SystemHooks bssnSystemHooks(const BssnRunOptions &o, DistributedEvolution::StorageHook initialData);

/// The gauge and dissipation parameters of a moving-puncture run by name (eta, slicing = 1 for
/// 1+log, shift_driver = 3/4, ko_sigma, shift_advect = 1), in the module's order; a parameter
/// the module declares beyond these takes its declared default.
std::vector<double> bssnParameters(const SystemDescription &system, const BssnRunOptions &o);

/// Refuses (DistributedError) an engine that does not evolve every BSSN field, naming the first
/// one missing.
void checkBssnFields(const DistributedEvolution &e);

/// Where the points of a storage lie: point (i, j, k), each in [0, extent), at
/// origin + (offset + (i, j, k)) spacing, stored at ((i extent_y + j) extent_z + k) (the kernels'
/// order). A rank's ghosted box of the uniform grid (origin the grid's corner, offset the box's
/// first global index: coordinates from global indices, the same on any rank count), or a block
/// of the refined grid with its ghost layers.
struct StorageLattice {
  std::array<int64_t, 3> extent{1, 1, 1}, offset{0, 0, 0};
  std::array<double, 3> origin{0, 0, 0}, spacing{1, 1, 1};
  int64_t points() const { return extent[0] * extent[1] * extent[2]; }
  size_t index(int64_t i, int64_t j, int64_t k) const { return static_cast<size_t>((i * extent[1] + j) * extent[2] + k); }
  std::array<double, 3> coordinate(int64_t i, int64_t j, int64_t k) const {
    return {origin[0] + static_cast<double>(offset[0] + i) * spacing[0],
            origin[1] + static_cast<double>(offset[1] + j) * spacing[1],
            origin[2] + static_cast<double>(offset[2] + k) * spacing[2]};
  }
};
/// The rank's ghosted box as a lattice.
StorageLattice ghostedLattice(const DistributedGrid &g);

/// The handoff's BSSN fields at every point of the lattice (the rank's ghosted box).
void writeTwoPunctureData(const physics::TwoPunctureSolution &solution, runtime::UniformGridStorage &s,
                          const StorageLattice &lattice);
inline void writeTwoPunctureData(const physics::TwoPunctureSolution &solution, runtime::UniformGridStorage &s,
                                 const DistributedGrid &g) {
  writeTwoPunctureData(solution, s, ghostedLattice(g));
}

/// BSSN variables from an exact-solution module's slice kernel on the rank's ghosted box:
/// chi = det(gamma)^(-1/3), gammatilde = chi gamma, K = gamma^ij K_ij, Atilde = chi (K_ij -
/// gamma_ij K / 3) with K_ij from the metric4 and its time derivatives, beta^i when the split
/// maps it (else 0), B = 0, and Gammatilde^i = -d_j gammatilde^ij by centred differences of
/// `order` (2, 4, 6 or 8: the evolution module's own). A module without K_ij is refused, never
/// taken as K_ij = 0.
void writeExactData(const KernelModuleTables &initial, const std::vector<double> &params, int order,
                    runtime::UniformGridStorage &s, const StorageLattice &lattice);
inline void writeExactData(const KernelModuleTables &initial, const std::vector<double> &params, int order,
                           runtime::UniformGridStorage &s, const DistributedGrid &g) {
  writeExactData(initial, params, order, s, ghostedLattice(g));
}

} // namespace tensorium_mlir::distributed
