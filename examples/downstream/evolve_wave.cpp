// The installed evolution engine (Tensorium::evolution) driving this project's own wave kernel
// (wave.tn, symbol prefix "wave") on a periodic MPI-distributed grid: a standing wave
// phi = sin(2 pi x), Pi = 0 with c2 = 1 has the exact solution phi = sin(2 pi x) cos(2 pi t).
// Prints the maximum error at t = 1/8 on rank 0; exit status 1 above 1e-3. Usage:
// evolve_wave [c2 [FILE.h5]]: c2 sets the wave speed squared (a wrong one must fail the check),
// FILE.h5 receives five snapshots with an XDMF index FILE.xmf for ParaView or VisIt.
#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Distributed/EvolutionIO.h"
#include "wave_kernels.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>

namespace {
using namespace tensorium_mlir;
using namespace tensorium_mlir::distributed;
constexpr double kPi = 3.14159265358979323846;

int run(double c2, const char *output) {
  const KernelModuleTables wave{
      {wave_tensorium_host_kernels, WAVE_TENSORIUM_HOST_KERNEL_COUNT, wave_tensorium_host_buffers,
       WAVE_TENSORIUM_HOST_BUFFER_COUNT, wave_tensorium_param_names, WAVE_TENSORIUM_PARAM_COUNT,
       WAVE_TENSORIUM_DIMENSION},
      {wave_tensorium_host_kernel_adapters, WAVE_TENSORIUM_HOST_KERNEL_ADAPTER_COUNT}};
  constexpr int64_t n = 24;
  constexpr double h = 1.0 / n, T = 0.125;
  DistributedEvolution::Options options;
  options.rhsKernel = "wave_tensorium_rhs_grid_parallel";
  options.params = {c2};
  options.grid = {{n, n, n}, {0, 0, 0}, {h, h, h}, 0, Boundary::Periodic};
  DistributedEvolution e(PETSC_COMM_WORLD, wave, options);
  e.initialize([](runtime::UniformGridStorage &storage, const DistributedGrid &grid) {
    const Box &box = grid.ghosted();
    auto phi = storage.buffer("phi"), Pi = storage.buffer("Pi");
    for (int64_t i = box.begin[0]; i < box.begin[0] + box.extent[0]; ++i)
      for (int64_t j = box.begin[1]; j < box.begin[1] + box.extent[1]; ++j)
        for (int64_t k = box.begin[2]; k < box.begin[2] + box.extent[2]; ++k) {
          phi[grid.storageIndex(i, j, k)] = std::sin(2 * kPi * grid.coordinate(i, j, k)[0]);
          Pi[grid.storageIndex(i, j, k)] = 0;
        }
  });
  const long steps = 2 * n;
  std::unique_ptr<SnapshotWriter> snapshots;
  if (output)
    snapshots = std::make_unique<SnapshotWriter>(e, output), snapshots->write(e);
  for (int part = 0; part < 4; ++part) {
    e.advance(steps / 4, T / static_cast<double>(steps));
    if (snapshots)
      snapshots->write(e);
  }
  if (snapshots)
    snapshots->finish(e);
  const std::vector<double> state = e.gatherOnRoot(e.state()); // x fastest, fields interlaced
  if (e.grid().rank() != 0)
    return 0;
  const int dof = e.grid().dof(), offset = e.field("phi").offset;
  double error = 0;
  for (int64_t k = 0; k < n; ++k)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i) {
        const double exact = std::sin(2 * kPi * i * h) * std::cos(2 * kPi * T);
        const double d = std::abs(state[((k * n + j) * n + i) * dof + offset] - exact);
        if (!(d <= error)) // a NaN counts as the largest error
          error = d;
      }
  std::printf("evolved wave on %d ranks: max |phi - exact| at t = %g = %.3e\n", e.grid().size(), T, error);
  return error <= 1e-3 ? 0 : 1; // false for NaN
}
} // namespace

int main(int argc, char **argv) {
  PetscSession session(&argc, &argv);
  try {
    return run(argc > 1 ? std::atof(argv[1]) : 1.0, argc > 2 ? argv[2] : nullptr);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "evolve_wave: error: %s\n", e.what());
    return 1;
  }
}
