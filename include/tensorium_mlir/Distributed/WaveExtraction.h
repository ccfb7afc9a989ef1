#pragma once
// Gravitational waves and ADM surface integrals during a BSSN evolution: Psi4 from the generated
// Weyl-scalar kernel (fixtures/gr/weyl_scalars_3d.tn) over every rank's points, its ghost layers
// filled by PETSc, cubic interpolation onto coordinate spheres and the spin-weight -2 modes up to
// lmax; on the same spheres the ADM mass, momentum and angular momentum as flat-space surface
// integrals. One CSV row per sphere, mode and time. No MLIR.
#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Distributed/EvolutionIO.h"
#include "tensorium_mlir/Horizons/SpatialGeometry.h"
#include "tensorium_mlir/Waves/SpinWeightedHarmonics.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace tensorium_mlir::distributed {

struct WaveExtractionSettings {
  long every = 0; ///< every K steps (0: never)
  std::vector<double> radii;
  int lmax = 8;
  std::array<double, 3> center{};
  std::string modesTable;    ///< time, radius, l, m, Re, Im of Psi4's modes ("" for none)
  std::string integralsTable; ///< time, radius, M, P, J ("" for none)
};

class WaveExtractor {
public:
  /// `weyl`: a module with tensorium_residual_grid_parallel reading gamma, gammaU, Kij and the
  /// coordinates and writing psi4re and psi4im, with parameters cx, cy, cz. Throws
  /// DistributedError for spheres that do not fit in the grid's interpolation region, a stencil
  /// wider than the ghost width, or a module without those buffers.
  WaveExtractor(DistributedEvolution &e, const KernelModuleTables &weyl, WaveExtractionSettings settings);
  /// For another engine (the refined grid): the spheres and tables only. The engine samples Psi4
  /// and the slice at points() and hands them to record(). Throws DistributedError for a bad
  /// cadence, lmax or radius.
  WaveExtractor(MPI_Comm comm, WaveExtractionSettings settings);
  ~WaveExtractor();
  bool enabled() const { return settings_.every > 0 && !settings_.radii.empty(); }
  long every() const { return settings_.every; }
  /// Extracts at the present state (collective; the evolution's storage loaded). Prints the
  /// (2, 0) and (2, 2) modes and the ADM mass on the first sphere (rank 0).
  void observe(DistributedEvolution &e);
  /// Every sphere's quadrature nodes, sphere after sphere.
  const std::vector<horizons::Point3> &points() const;
  /// The modes and integrals at time t from Psi4 at points() (real and imaginary parts
  /// interleaved) and the slice there; appends the rows and prints on rank 0. Collective.
  void record(MPI_Comm comm, double t, long step, const std::vector<double> &psi4,
              const std::vector<horizons::SpatialGeometry> &slice);
  void finish();
  double seconds() const { return seconds_; }
  /// Every extraction so far, for the run's HDF5 output: the modes (time, step, radius, l, m,
  /// psi4_re, psi4_im) and the integrals (time, step, radius, M_adm, P_x, P_y, P_z, J_x, J_y, J_z).
  static std::vector<std::string> modeColumns();
  static std::vector<std::string> integralColumns();
  const std::vector<double> &modeRows() const { return modeRows_; }
  const std::vector<double> &integralRows() const { return integralRows_; }

private:
  struct Impl;
  /// Checks the cadence, lmax and radii; the nodes of every sphere.
  std::vector<horizons::Point3> checkedSpheres() const;
  std::unique_ptr<Impl> impl_;
  WaveExtractionSettings settings_;
  double seconds_ = 0;
  std::vector<double> modeRows_, integralRows_;
};

} // namespace tensorium_mlir::distributed
