#pragma once
// Apparent horizons during a BSSN evolution: the slice's gamma_ij = gammatilde_ij / chi, its
// derivatives and K_ij = (Atilde_ij + gammatilde_ij K / 3) / chi interpolated from the
// distributed state (each rank the points it owns, one reduction per batch), and a monitor that
// looks for horizons every K steps from guesses that follow the tracked punctures, each search
// starting from the surface found the time before. No MLIR.
#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Distributed/EvolutionIO.h"
#include "tensorium_mlir/Horizons/HorizonFinder.h"

#include <optional>
#include <string>
#include <vector>

namespace tensorium_mlir::distributed {

/// What the finder's samplers interpolate per point: chi, gammatilde (6), Atilde (6), K, then
/// d_k chi and d_k gammatilde (7 per axis).
inline constexpr int kSliceValues = 35;
struct SliceBuffers {
  const double *chi, *gammatilde, *Atilde, *K;
  size_t points; // per component
};
SliceBuffers sliceBuffers(const runtime::UniformGridStorage &s);
/// Adds storage point `index` with value weight wv and derivative weights wd to v[kSliceValues].
void addSliceSample(const SliceBuffers &b, size_t index, double wv, const double wd[3], double *v);
/// gamma_ij, its derivatives and K_ij from the interpolated values at x; throws
/// horizons::GeometryDomainError where chi <= 0 (the surface reaches the puncture).
void sliceGeometryFromValues(const double *v, const horizons::Point3 &x, horizons::SpatialGeometry &out);

/// The slice of the loaded storage (DistributedEvolution::loadStorage) as the finder reads it:
/// Lagrange interpolation on `nodes` points per axis (4 or 6; at most twice the ghost width),
/// derivatives of the interpolant. Collective: every rank must call the sampler with the same
/// points. Points outside the interpolation region, or where chi <= 0, throw
/// horizons::GeometryDomainError on every rank.
horizons::GeometrySampler bssnSliceGeometry(DistributedEvolution &e, int nodes = 6);

/// Where a guess sits: at fixed coordinates, on tracked point `tracked`, or at the centroid of
/// all tracked points (a common horizon).
struct HorizonGuess {
  enum class Follows { Fixed, Tracked, Centroid } follows = Follows::Fixed;
  size_t tracked = 0;
  horizons::Point3 center{};
  double radius = 1;
};

struct HorizonMonitorSettings {
  long every = 0; ///< look every K steps (0: never)
  std::vector<HorizonGuess> guesses;
  horizons::HorizonOptions options;
  /// Newton iterations for a guess without an earlier surface (a common horizon searched for
  /// before it exists fails fast).
  int firstSearchIterations = 20;
  std::string table; ///< CSV, one row per guess per search ("" for none)
};

class HorizonMonitor {
public:
  /// Checks the settings (guesses referring to tracked points that exist, radii > 0) and
  /// creates the table. Throws DistributedError.
  HorizonMonitor(const DistributedEvolution &e, HorizonMonitorSettings settings, size_t trackedPoints);
  /// The same for any engine whose ranks form `comm`.
  HorizonMonitor(MPI_Comm comm, HorizonMonitorSettings settings, size_t trackedPoints);
  bool enabled() const { return settings_.every > 0 && !settings_.guesses.empty(); }
  long every() const { return settings_.every; }
  /// Searches from every guess at the present state (collective); prints one line on rank 0 and
  /// appends the rows. The first time a Centroid guess finds a horizon is printed as the time
  /// the common horizon appeared.
  void observe(DistributedEvolution &e, const std::vector<horizons::Point3> &tracked);
  /// The same on the slice `geometry` samples (collective over `comm`) at time t, step `step`.
  void observe(const horizons::GeometrySampler &geometry, MPI_Comm comm, double t, long step,
               const std::vector<horizons::Point3> &tracked);
  void finish() { table_.finish(); }
  /// When the common horizon was first found (none yet: empty).
  std::optional<double> commonHorizonTime() const { return commonTime_; }
  /// Wall seconds spent in searches.
  double seconds() const { return seconds_; }
  /// Every search so far, one row each (columns()), for the run's HDF5 output; follows is 0 for
  /// a fixed guess, 1 for a tracked point, 2 for the common horizon.
  static std::vector<std::string> columns();
  const std::vector<double> &rows() const { return rows_; }

private:
  HorizonMonitorSettings settings_;
  ProgressTable table_;
  std::vector<std::optional<horizons::StarSurface>> previous_;
  std::optional<double> commonTime_;
  double seconds_ = 0;
  std::vector<double> rows_;
};

} // namespace tensorium_mlir::distributed
