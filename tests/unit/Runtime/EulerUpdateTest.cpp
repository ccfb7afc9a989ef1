// Euler update through the runtime on fixtures/codegen/decay_3d.tn: dt u = -k u + s and
// dt v = -k v, so one step is exact: u + dt (-k u + s).
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "TensoriumEulerTests_kernels.h"

#include <gtest/gtest.h>

using namespace tensorium_mlir::runtime;

TEST(EulerUpdate, DerivativePrefixPairsAndOneExactStep) {
  GeneratedHostTables t{tensorium_host_kernels, TENSORIUM_HOST_KERNEL_COUNT, tensorium_host_buffers,
                        TENSORIUM_HOST_BUFFER_COUNT, tensorium_param_names, TENSORIUM_PARAM_COUNT, TENSORIUM_DIMENSION};
  GeneratedHostStorage s(t, {6, 7, 8});
  auto pairs = s.eulerUpdatePairsFromDerivativePrefix();
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0], (std::pair<std::string, std::string>{"du", "u"}));
  EXPECT_EQ(pairs[1], (std::pair<std::string, std::string>{"dv", "v"}));
  for (size_t i = 0; i < s.buffer("u").size(); ++i)
    s.buffer("u")[i] = 1.0 + 0.01 * static_cast<double>(i);
  for (size_t i = 0; i < s.buffer("v").size(); ++i)
    s.buffer("v")[i] = -0.5 + 0.002 * static_cast<double>(i);
  std::vector<double> u0(s.buffer("u").begin(), s.buffer("u").end()), v0(s.buffer("v").begin(), s.buffer("v").end());
  const double k = 0.7, src = 0.2, dt = 0.05, params[2] = {k, src};
  s.invoke({tensorium_host_kernel_adapters, TENSORIUM_HOST_KERNEL_ADAPTER_COUNT}, "tensorium_rhs_grid_scf", params,
           {0.1, 0.1, 0.1});
  s.applyEulerUpdate(dt);
  // Radius 0 (no derivatives): every point is interior.
  for (size_t i = 0; i < u0.size(); ++i)
    EXPECT_DOUBLE_EQ(s.buffer("u")[i], u0[i] + dt * (-k * u0[i] + src));
  for (size_t i = 0; i < v0.size(); ++i)
    EXPECT_DOUBLE_EQ(s.buffer("v")[i], v0[i] + dt * (-k * v0[i]));
}
