#pragma once
// The ADM slice of one snapshot of a tensorium-evolve HDF5 file, for the horizon finder:
// gamma_ij = gammatilde_ij / chi and K_ij = (Atilde_ij + gammatilde_ij K / 3) / chi at every grid
// point, from /snapshot_<step>/state (points x fields, x fastest), the layout attribute that names
// the fields' offsets and the grid's origin, spacing and point attributes. Plain HDF5 reads on one
// process (no MPI needed).
#include "tensorium_mlir/Horizons/SpatialGeometry.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tensorium_mlir::distributed {

struct SnapshotError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The steps of the snapshots in the file, increasing. Throws SnapshotError for a file that
/// cannot be opened or is not a tensorium-evolve snapshot file.
std::vector<long> snapshotSteps(const std::string &path);

struct SnapshotSlice {
  long step = 0;
  double time = 0;
  std::shared_ptr<horizons::UniformGridData> data;
};

/// Reads snapshot `step` (-1: the last) and converts it. Throws SnapshotError naming what is
/// missing (the step, a BSSN field in the layout, a grid attribute) or a chi that is not positive.
SnapshotSlice readSnapshotSlice(const std::string &path, long step = -1);

} // namespace tensorium_mlir::distributed
