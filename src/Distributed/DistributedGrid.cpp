#include "tensorium_mlir/Distributed/DistributedGrid.h"

#include <hdf5.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

namespace tensorium_mlir::distributed {

void broadcastText(std::string &text, MPI_Comm comm) {
  long length = static_cast<long>(text.size());
  MPI_Bcast(&length, 1, MPI_LONG, 0, comm);
  text.resize(static_cast<size_t>(length));
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, comm);
}

void checkPetsc(PetscErrorCode code, const char *what) {
  if (code == 0)
    return;
  const char *text = nullptr;
  PetscErrorMessage(code, &text, nullptr);
  throw DistributedError(std::string(what) + " failed (PETSc error " + std::to_string(code) + ": " +
                         (text ? text : "unknown") + ")");
}

PetscSession::PetscSession(int *argc, char ***argv) {
  checkPetsc(PetscInitialize(argc, argv, nullptr, nullptr), "PetscInitialize");
  // Errors come back as codes turned into exceptions with a message; PETSc's own handler would
  // print a traceback on every rank.
  if (!std::getenv("TENSORIUM_PETSC_TRACEBACK"))
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  // HDF5 would print its error stack on every rank; failures surface as PETSc errors instead.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank_);
  MPI_Comm_size(PETSC_COMM_WORLD, &size_);
}

PetscSession::~PetscSession() { PetscFinalize(); }

const char *boundaryName(Boundary b) {
  switch (b) {
  case Boundary::Periodic:
    return "periodic";
  case Boundary::Radiative:
    return "radiative";
  case Boundary::Open:
    return "open";
  }
  return "?";
}

namespace {

/// Ranks per axis for `size` ranks: among all factorizations whose every slab is at least
/// `minWidth` points wide, the one with the least ghost surface (a cube-like split). Every rank
/// computes the same answer, so a refusal is collective and nobody waits on a peer that quit.
std::array<int, 3> chooseProcessGrid(int size, const std::array<int64_t, 3> &n, int minWidth) {
  std::array<int, 3> best{0, 0, 0};
  double bestSurface = std::numeric_limits<double>::infinity();
  for (int px = 1; px <= size; ++px) {
    if (size % px)
      continue;
    for (int py = 1; py <= size / px; ++py) {
      if ((size / px) % py)
        continue;
      const int pz = size / px / py;
      const std::array<int, 3> p{px, py, pz};
      bool fits = true;
      std::array<double, 3> w{};
      for (int a = 0; a < 3; ++a) {
        fits = fits && n[a] / p[a] >= minWidth;
        w[a] = static_cast<double>(n[a]) / p[a];
      }
      double surface = 0; // faces of one rank's box that face a neighbour
      for (int a = 0; a < 3; ++a)
        if (p[a] > 1)
          surface += 2 * w[(a + 1) % 3] * w[(a + 2) % 3];
      if (fits && surface <= bestSurface) { // ties: split the slowest storage axis (x) first
        bestSurface = surface;
        best = p;
      }
    }
  }
  return best;
}

/// PETSc's default ownership split along one axis: the first n % p ranks one point wider.
std::vector<PetscInt> split(int64_t n, int p) {
  std::vector<PetscInt> widths(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r)
    widths[static_cast<size_t>(r)] = static_cast<PetscInt>(n / p + (r < n % p ? 1 : 0));
  return widths;
}

} // namespace

DistributedGrid::DistributedGrid(MPI_Comm comm, const GridSpec &spec, int dof) : comm_(comm), dof_(dof), spec_(spec) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  if (dof < 1)
    throw DistributedError("a distributed grid needs at least one value per point");
  if (spec.ghostWidth < 0)
    throw DistributedError("ghost width must be non-negative");
  for (int a = 0; a < 3; ++a) {
    if (!(spec.spacing[a] > 0) || !std::isfinite(spec.spacing[a]) || !std::isfinite(spec.lower[a]))
      throw DistributedError("grid spacing must be positive and finite, origin finite");
    if (spec.points[a] < 2 * static_cast<int64_t>(spec.ghostWidth) + 1)
      throw DistributedError("grid of " + std::to_string(spec.points[a]) + " points along axis " + std::to_string(a) +
                             " is smaller than a stencil of width " + std::to_string(spec.ghostWidth) +
                             " needs (at least " + std::to_string(2 * spec.ghostWidth + 1) + ")");
    if (spec.points[a] > std::numeric_limits<PetscInt>::max())
      throw DistributedError("grid too large for PETSc's index type");
  }
  const double values = static_cast<double>(spec.points[0]) * static_cast<double>(spec.points[1]) *
                        static_cast<double>(spec.points[2]) * dof;
  if (values > static_cast<double>(std::numeric_limits<PetscInt>::max()))
    throw DistributedError("a " + std::to_string(spec.points[0]) + "x" + std::to_string(spec.points[1]) + "x" +
                           std::to_string(spec.points[2]) + " grid with " + std::to_string(dof) +
                           " values per point exceeds this PETSc's " + std::to_string(8 * sizeof(PetscInt)) +
                           "-bit index range (" + std::to_string(std::numeric_limits<PetscInt>::max()) +
                           " values); a PETSc built with 64-bit indices (Debian: libpetsc64-real-dev) lifts it");
  ranks_ = chooseProcessGrid(size_, spec.points, std::max(spec.ghostWidth, 1));
  if (ranks_[0] == 0)
    throw DistributedError("cannot split a " + std::to_string(spec.points[0]) + "x" + std::to_string(spec.points[1]) +
                           "x" + std::to_string(spec.points[2]) + " grid over " + std::to_string(size_) +
                           " ranks with every slab at least " + std::to_string(std::max(spec.ghostWidth, 1)) +
                           " points (the ghost width) wide: use fewer ranks or more points");
  const DMBoundaryType type = spec.boundary == Boundary::Periodic   ? DM_BOUNDARY_PERIODIC
                              : spec.boundary == Boundary::Radiative ? DM_BOUNDARY_GHOSTED
                                                                     : DM_BOUNDARY_NONE;
  std::vector<PetscInt> lx = split(spec.points[0], ranks_[0]), ly = split(spec.points[1], ranks_[1]),
                        lz = split(spec.points[2], ranks_[2]);
  checkPetsc(DMDACreate3d(comm, type, type, type, DMDA_STENCIL_BOX, static_cast<PetscInt>(spec.points[0]),
                          static_cast<PetscInt>(spec.points[1]), static_cast<PetscInt>(spec.points[2]), ranks_[0],
                          ranks_[1], ranks_[2], dof, spec.ghostWidth, lx.data(), ly.data(), lz.data(), &dm_),
             "DMDACreate3d");
  checkPetsc(DMSetUp(dm_), "DMSetUp");
  PetscInt xs, ys, zs, xm, ym, zm;
  checkPetsc(DMDAGetCorners(dm_, &xs, &ys, &zs, &xm, &ym, &zm), "DMDAGetCorners");
  owned_ = {{xs, ys, zs}, {xm, ym, zm}};
  checkPetsc(DMDAGetGhostCorners(dm_, &xs, &ys, &zs, &xm, &ym, &zm), "DMDAGetGhostCorners");
  ghosted_ = {{xs, ys, zs}, {xm, ym, zm}};
}

DistributedGrid::~DistributedGrid() {
  if (dm_)
    DMDestroy(&dm_);
}

int64_t DistributedGrid::haloValuesPerExchange() const {
  // Points of the ghosted box that this rank does not own and that a neighbour (not a physical
  // face) supplies: everything in the ghosted box minus the owned box, per value.
  int64_t ghostPoints = ghosted_.points() - owned_.points();
  if (spec_.boundary == Boundary::Radiative) {
    // Layers beyond a physical face are filled locally, not exchanged.
    std::array<int64_t, 3> e = owned_.extent;
    for (int a = 0; a < 3; ++a) {
      const int64_t lo = owned_.begin[a] - ghosted_.begin[a], hi = ghosted_.begin[a] + ghosted_.extent[a] - owned_.begin[a] - owned_.extent[a];
      e[a] += (owned_.begin[a] > 0 ? lo : 0) + (owned_.begin[a] + owned_.extent[a] < spec_.points[a] ? hi : 0);
    }
    ghostPoints = e[0] * e[1] * e[2] - owned_.points();
  }
  return ghostPoints * dof_;
}

} // namespace tensorium_mlir::distributed
