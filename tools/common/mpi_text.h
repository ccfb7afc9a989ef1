#pragma once
// Text that rank 0 decided (a module path, an error message), sent to every rank of `comm`.
#include <mpi.h>

#include <string>

namespace tensorium_cli {

inline void broadcastText(std::string &text, MPI_Comm comm) {
  long length = static_cast<long>(text.size());
  MPI_Bcast(&length, 1, MPI_LONG, 0, comm);
  text.resize(static_cast<size_t>(length));
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, comm);
}

} // namespace tensorium_cli
