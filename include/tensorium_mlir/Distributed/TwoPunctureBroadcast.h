#pragma once
// Two-puncture initial data for many ranks: the spectral problem is solved once, on rank 0, and
// its collocation values are broadcast, so that every rank evaluates the same solution at its
// own grid points.
#include "tensorium_mlir/Physics/TwoPunctures.h"

#include <mpi.h>

namespace tensorium_mlir::distributed {

/// Collective. Throws DistributedError on every rank when the solve on rank 0 failed.
physics::TwoPunctureSolution solveTwoPuncturesOnRoot(MPI_Comm comm, const tensorium_spectral_residual_kernel_desc *kernel,
                                                     const physics::TwoPunctureParameters &params,
                                                     const physics::TwoPunctureOptions &options);

} // namespace tensorium_mlir::distributed
