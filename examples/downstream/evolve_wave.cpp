// The installed evolution engine (Tensorium::evolution) running a system declared entirely in a
// .tn file (standing_wave.tn, compiled at build time under the symbol prefix "standing"): its
// initial data, exact solution, periodic boundaries and parameter come from the module's
// tables. Evolves on the MPI ranks it is started on, prints the largest error against the exact
// solution at t = 1/8 on rank 0, and exits with status 1 above 1e-3. Usage:
// evolve_wave [c2 [FILE.h5]]: c2 sets the wave speed squared (a wrong one must fail the check),
// FILE.h5 receives five snapshots with an XDMF index FILE.xmf for ParaView or VisIt.
#include "standing_kernels.h"
#include "tensorium_mlir/Distributed/SystemRun.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace {
using namespace tensorium_mlir;
using namespace tensorium_mlir::distributed;

int run(double c2, const char *output) {
  const SystemModule standing{
      {{standing_tensorium_host_kernels, STANDING_TENSORIUM_HOST_KERNEL_COUNT, standing_tensorium_host_buffers,
        STANDING_TENSORIUM_HOST_BUFFER_COUNT, standing_tensorium_param_names, STANDING_TENSORIUM_PARAM_COUNT,
        STANDING_TENSORIUM_DIMENSION},
       {standing_tensorium_host_kernel_adapters, STANDING_TENSORIUM_HOST_KERNEL_ADAPTER_COUNT}},
      {standing_tensorium_evolution_boundaries, STANDING_TENSORIUM_EVOLUTION_BOUNDARY_COUNT}};
  const SystemDescription system = describeSystem(standing);
  SystemEvolution s(PETSC_COMM_WORLD, standing, {24, 0.5, 0}, systemParameters(system, {{"c2", c2}}));
  s.initialize(0);
  SystemRunSettings settings;
  settings.finalTime = 0.125;
  settings.cfl = 0.25; // 12 steps of h / 4 on h = 1/24
  settings.monitorEvery = 3;
  settings.output = output ? output : "";
  settings.outputEvery = 3;
  const SystemRunResult result = runSystemEvolution(s, settings);
  double error = 0;
  for (double e : result.errors.max)
    if (!(e <= error)) // a NaN counts as the largest error
      error = e;
  if (s.engine().grid().rank() == 0)
    std::printf("evolved wave on %d ranks: max |u - exact| over phi, Pi at t = 0.125 = %.3e\n", s.engine().grid().size(), error);
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
