#include "tensorium_mlir/Distributed/TwoPunctureBroadcast.h"
#include "tensorium_mlir/Distributed/DistributedGrid.h"

#include <memory>
#include <string>

namespace tensorium_mlir::distributed {

physics::TwoPunctureSolution solveTwoPuncturesOnRoot(MPI_Comm comm, const tensorium_spectral_residual_kernel_desc *kernel,
                                                     const physics::TwoPunctureParameters &params,
                                                     const physics::TwoPunctureOptions &options) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::unique_ptr<physics::TwoPunctureSolution> solved;
  // status: 0 converged, 1 solver failure, 2 invalid input (exception on rank 0).
  int status = 0;
  std::string message;
  long size = 0;
  if (rank == 0) {
    try {
      solved = std::make_unique<physics::TwoPunctureSolution>(physics::solveTwoPunctures(kernel, params, options));
      status = solved->result().converged() ? 0 : 1;
      message = solved->result().message;
      size = solved->v().size();
    } catch (const std::exception &e) {
      status = 2;
      message = e.what();
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, comm);
  if (status != 0) {
    broadcastText(message, comm);
    throw DistributedError((status == 1 ? "two-puncture solve failed: " : "two-puncture data: ") + message);
  }
  MPI_Bcast(&size, 1, MPI_LONG, 0, comm);
  elliptic::Vector v = rank == 0 ? solved->v() : elliptic::Vector(static_cast<Eigen::Index>(size));
  elliptic::SpectralNewtonResult result = rank == 0 ? solved->result() : elliptic::SpectralNewtonResult{};
  MPI_Bcast(v.data(), static_cast<int>(size), MPI_DOUBLE, 0, comm);
  int counts[2] = {result.iterations, result.krylovIterations};
  MPI_Bcast(&result.residualNorm, 1, MPI_DOUBLE, 0, comm);
  MPI_Bcast(counts, 2, MPI_INT, 0, comm);
  result.iterations = counts[0], result.krylovIterations = counts[1];
  result.status = elliptic::NewtonStatus::Converged;
  // Every rank rebuilds the solution (and checks its own memory for it): if any rank cannot,
  // all of them throw, so that none goes on into a collective alone.
  solved.reset();
  std::unique_ptr<physics::TwoPunctureSolution> restored;
  int ok = 1;
  message.clear();
  try {
    restored = std::make_unique<physics::TwoPunctureSolution>(physics::restoreTwoPunctures(kernel, params, options, v, result));
  } catch (const std::exception &e) {
    ok = 0;
    message = e.what();
  }
  int everywhere = 0;
  MPI_Allreduce(&ok, &everywhere, 1, MPI_INT, MPI_MIN, comm);
  if (!everywhere)
    throw DistributedError("two-puncture data: " +
                           (message.empty() ? std::string("another rank could not rebuild the solution") : message));
  return std::move(*restored);
}

} // namespace tensorium_mlir::distributed
