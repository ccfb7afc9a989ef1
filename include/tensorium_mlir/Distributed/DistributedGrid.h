#pragma once
// A uniform Cartesian grid distributed over MPI ranks with a PETSc DMDA. The DMDA's axes are
// ours (x, y, z), so its global vectors are in the natural x-fastest order that HDF5/XDMF
// readers expect; each rank copies its ghosted box into generated-kernel storage, whose point
// index is row-major over (x, y, z) (z fastest). No MLIR here.
#include <petscdmda.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tensorium_mlir::distributed {

/// Anything a caller got wrong or PETSc refused; thrown before anything is written.
class DistributedError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Throws DistributedError naming `what` when a PETSc call failed.
void checkPetsc(PetscErrorCode code, const char *what);

/// `text` as rank 0 has it (a path, an error message), on every rank of `comm`. Collective.
void broadcastText(std::string &text, MPI_Comm comm);

/// PetscInitialize/PetscFinalize around a program; argv goes to PETSc so that its options
/// (-log_view, -ts_monitor, ...) work as users know them.
class PetscSession {
public:
  PetscSession(int *argc, char ***argv);
  ~PetscSession();
  PetscSession(const PetscSession &) = delete;
  PetscSession &operator=(const PetscSession &) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

private:
  int rank_ = 0, size_ = 1;
};

/// Outer faces: Periodic wraps; Radiative keeps ghost layers beyond the faces (filled by the
/// evolution's boundary condition); Open has none (kernels leave the outer layers unset).
enum class Boundary { Periodic, Radiative, Open };
const char *boundaryName(Boundary b);

struct GridSpec {
  std::array<int64_t, 3> points{1, 1, 1};
  std::array<double, 3> lower{0, 0, 0};
  std::array<double, 3> spacing{1, 1, 1};
  int ghostWidth = 1;
  Boundary boundary = Boundary::Periodic;
};

/// A box of global point indices (begin may be negative or past the end in ghost layers).
struct Box {
  std::array<int64_t, 3> begin{0, 0, 0}, extent{0, 0, 0};
  int64_t points() const { return extent[0] * extent[1] * extent[2]; }
  bool contains(int64_t i, int64_t j, int64_t k) const {
    return i >= begin[0] && i < begin[0] + extent[0] && j >= begin[1] && j < begin[1] + extent[1] &&
           k >= begin[2] && k < begin[2] + extent[2];
  }
};

class DistributedGrid {
public:
  /// `dof` values per point in the global vectors (interlaced, as PETSc stores them).
  DistributedGrid(MPI_Comm comm, const GridSpec &spec, int dof);
  ~DistributedGrid();
  DistributedGrid(const DistributedGrid &) = delete;
  DistributedGrid &operator=(const DistributedGrid &) = delete;

  DM dm() const { return dm_; }
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const GridSpec &spec() const { return spec_; }
  int dof() const { return dof_; }
  /// Points this rank owns, and the ghosted box its local vectors cover.
  const Box &owned() const { return owned_; }
  const Box &ghosted() const { return ghosted_; }
  /// Number of ranks along each axis.
  std::array<int, 3> ranksPerAxis() const { return ranks_; }
  std::array<double, 3> coordinate(int64_t i, int64_t j, int64_t k) const {
    return {spec_.lower[0] + static_cast<double>(i) * spec_.spacing[0],
            spec_.lower[1] + static_cast<double>(j) * spec_.spacing[1],
            spec_.lower[2] + static_cast<double>(k) * spec_.spacing[2]};
  }
  /// Index of ghosted-box point (i, j, k) (global indices) in the kernels' storage order.
  size_t storageIndex(int64_t i, int64_t j, int64_t k) const {
    return static_cast<size_t>(((i - ghosted_.begin[0]) * ghosted_.extent[1] + (j - ghosted_.begin[1])) *
                                   ghosted_.extent[2] +
                               (k - ghosted_.begin[2]));
  }
  /// Index of ghosted-box point (i, j, k) in PETSc's local vector (x fastest), times dof.
  size_t localIndex(int64_t i, int64_t j, int64_t k) const {
    return static_cast<size_t>(((k - ghosted_.begin[2]) * ghosted_.extent[1] + (j - ghosted_.begin[1])) *
                                   ghosted_.extent[0] +
                               (i - ghosted_.begin[0])) *
           static_cast<size_t>(dof_);
  }
  /// Doubles sent to neighbours by one ghost exchange of this rank (faces, edges and corners of
  /// the box stencil), as an estimate from the box geometry.
  int64_t haloValuesPerExchange() const;

private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, dof_ = 1;
  GridSpec spec_;
  DM dm_ = nullptr;
  Box owned_, ghosted_;
  std::array<int, 3> ranks_{1, 1, 1};
};

} // namespace tensorium_mlir::distributed
