// Fills phi = x^2 + y^2 + z^2 on a grid, evaluates the wave RHS through the runtime, and
// prints laplacian(phi) at the centre, which is exactly 6 c2 for this quadratic.
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "wave_kernels.h"

#include <cstdio>

int main() {
  using namespace tensorium_mlir::runtime;
  const int64_t n = 12;
  const double h = 0.1, c2 = 2.0;
  GeneratedHostStorage storage({tensorium_host_kernels, TENSORIUM_HOST_KERNEL_COUNT, tensorium_host_buffers,
                                TENSORIUM_HOST_BUFFER_COUNT, tensorium_param_names, TENSORIUM_PARAM_COUNT,
                                TENSORIUM_DIMENSION},
                               {n, n, n});
  auto phi = storage.buffer("phi");
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k = 0; k < n; ++k)
        phi[(i * n + j) * n + k] = (i * h) * (i * h) + (j * h) * (j * h) + (k * h) * (k * h);
  const double params[1] = {c2};
  storage.invoke({tensorium_host_kernel_adapters, TENSORIUM_HOST_KERNEL_ADAPTER_COUNT}, "tensorium_rhs_grid_parallel",
                 params, {h, h, h});
  const int64_t centre = (6 * n + 6) * n + 6;
  std::printf("dPi at centre = %.12f\n", storage.buffer("dPi")[centre]);
  return 0;
}
