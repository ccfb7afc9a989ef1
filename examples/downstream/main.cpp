// Two kernel modules in one program, each under its own symbol prefix (tensorium_add_kernel
// PREFIX): fills phi = x^2 + y^2 + z^2 on a grid and evaluates both right-hand sides through the
// runtime. The wave module gives c2 laplacian(phi) = 6 c2 at the centre (its 4th-order stencil
// is exact on quadratics), the decay module -c2 phi there.
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "decay_kernels.h"
#include "wave_kernels.h"

#include <cstdio>

namespace {
using namespace tensorium_mlir::runtime;
constexpr int64_t n = 12;
constexpr double h = 0.1, c2 = 2.0;

double centreRate(const GeneratedHostTables &tables, std::span<const tensorium_host_kernel_adapter> adapters,
                  const char *kernel) {
  GeneratedHostStorage storage(tables, {n, n, n});
  auto phi = storage.buffer("phi");
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k = 0; k < n; ++k)
        phi[(i * n + j) * n + k] = (i * h) * (i * h) + (j * h) * (j * h) + (k * h) * (k * h);
  const double params[1] = {c2};
  storage.invoke(adapters, kernel, params, {h, h, h});
  return storage.buffer("dPi")[(6 * n + 6) * n + 6];
}
} // namespace

int main() {
  // The runtime binds each module through its own tables; a kernel is named by its exported
  // symbol or by its ABI v3 name.
  const double wave = centreRate({wave_tensorium_host_kernels, WAVE_TENSORIUM_HOST_KERNEL_COUNT,
                                  wave_tensorium_host_buffers, WAVE_TENSORIUM_HOST_BUFFER_COUNT,
                                  wave_tensorium_param_names, WAVE_TENSORIUM_PARAM_COUNT, WAVE_TENSORIUM_DIMENSION},
                                 {wave_tensorium_host_kernel_adapters, WAVE_TENSORIUM_HOST_KERNEL_ADAPTER_COUNT},
                                 "wave_tensorium_rhs_grid_parallel");
  const double decay = centreRate({decay_tensorium_host_kernels, DECAY_TENSORIUM_HOST_KERNEL_COUNT,
                                   decay_tensorium_host_buffers, DECAY_TENSORIUM_HOST_BUFFER_COUNT,
                                   decay_tensorium_param_names, DECAY_TENSORIUM_PARAM_COUNT, DECAY_TENSORIUM_DIMENSION},
                                  {decay_tensorium_host_kernel_adapters, DECAY_TENSORIUM_HOST_KERNEL_ADAPTER_COUNT},
                                  "tensorium_rhs_grid_affine");
  std::printf("wave dPi at centre = %.12f\n", wave);
  std::printf("decay dPi at centre = %.12f\n", decay);
  return 0;
}
