// Kreiss-Oliger dissipation generated from fixtures/codegen/dissipation_3d.tn (order 4, r = 3):
// on u = cos(k x + q y) the operator is diagonal with the exact discrete symbol
//   Q u = -sigma (sin^6(k h / 2) + sin^6(q h / 2)) / h  u,
// so every interior point can be checked against a closed form (no truncation error).
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "TensoriumDissipationTests_kernels.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tensorium_mlir::runtime;

TEST(Dissipation, GeneratedOperatorHasTheExactDiscreteSymbol) {
  GeneratedHostTables t{tensorium_host_kernels, TENSORIUM_HOST_KERNEL_COUNT, tensorium_host_buffers,
                        TENSORIUM_HOST_BUFFER_COUNT, tensorium_param_names, TENSORIUM_PARAM_COUNT, TENSORIUM_DIMENSION};
  const int n = 14;
  GeneratedHostStorage s(t, {n, n, n});
  ASSERT_EQ(s.binding("tensorium_rhs_grid_parallel").stencilRadius, 3);
  const double h = 0.1, k = 2.3, q = 7.9, sigma = 0.35;
  auto at = [&](int i, int j, int l) { return (static_cast<size_t>(i) * n + static_cast<size_t>(j)) * n + static_cast<size_t>(l); };
  const size_t N = static_cast<size_t>(n) * n * n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int l = 0; l < n; ++l) {
        const double v = std::cos(k * i * h + q * j * h);
        s.buffer("u")[at(i, j, l)] = v;
        for (size_t c = 0; c < 3; ++c)
          s.buffer("w")[c * N + at(i, j, l)] = (1.0 + static_cast<double>(c)) * v;
      }
  const double params[1] = {sigma};
  s.invoke({tensorium_host_kernel_adapters, TENSORIUM_HOST_KERNEL_ADAPTER_COUNT}, "tensorium_rhs_grid_parallel", params,
           {h, h, h});
  const double symbol = -(std::pow(std::sin(k * h / 2), 6) + std::pow(std::sin(q * h / 2), 6)) / h;
  // The grid-scale mode is damped most strongly: the symbol is negative and bounded by 2/h.
  ASSERT_LT(symbol, 0.0);
  for (int i = 3; i < n - 3; ++i)
    for (int j = 3; j < n - 3; ++j)
      for (int l = 3; l < n - 3; ++l) {
        const double v = std::cos(k * i * h + q * j * h);
        EXPECT_NEAR(s.buffer("du")[at(i, j, l)], sigma * symbol * v, 1e-12);
        for (size_t c = 0; c < 3; ++c)
          EXPECT_NEAR(s.buffer("dw")[c * N + at(i, j, l)], 2 * sigma * symbol * (1.0 + static_cast<double>(c)) * v, 1e-12);
      }
}
