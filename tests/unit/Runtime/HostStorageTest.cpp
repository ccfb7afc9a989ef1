// Runtime storage against a kernel compiled at build time from fixtures/codegen/variants_mix_3d.tn
// and linked through its generated host header.
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "TensoriumRuntimeTests_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <random>

using namespace tensorium_mlir::runtime;

namespace {

GeneratedHostTables tables() {
  return {tensorium_host_kernels, TENSORIUM_HOST_KERNEL_COUNT, tensorium_host_buffers, TENSORIUM_HOST_BUFFER_COUNT,
          tensorium_param_names, TENSORIUM_PARAM_COUNT, TENSORIUM_DIMENSION};
}

std::span<const tensorium_host_kernel_adapter> adapters() {
  return {tensorium_host_kernel_adapters, TENSORIUM_HOST_KERNEL_ADAPTER_COUNT};
}

void fillInputs(UniformGridStorage &s, double h) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(0.5, 1.5);
  for (const StorageBuffer &b : s.buffers()) {
    if (b.written)
      continue;
    std::span<double> data = s.buffer(b.name);
    for (double &v : data)
      v = dist(rng);
  }
  const GridShape &g = s.shape();
  for (int64_t i = 0; i < g.nx; ++i)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t k = 0; k < g.nz; ++k) {
        int64_t p = (i * g.ny + j) * g.nz + k;
        s.buffer("x")[p] = i * h;
        s.buffer("y")[p] = j * h;
        s.buffer("z")[p] = k * h;
      }
}

} // namespace

TEST(GeneratedHostStorage, OneArenaWithDeduplicatedBuffersSizedBySoALayout) {
  GridShape g{7, 8, 9};
  GeneratedHostStorage s(tables(), g);
  // 3 coordinates + 5 fields + 4 outputs, shared by the scf, affine and parallel kernels.
  EXPECT_EQ(s.buffers().size(), 12u);
  size_t total = 0;
  std::vector<std::pair<size_t, size_t>> extents; // [offset, offset + size)
  for (const StorageBuffer &b : s.buffers()) {
    EXPECT_EQ(b.size, b.componentCount * static_cast<size_t>(g.points())) << b.name;
    EXPECT_EQ(b.offset % 8, 0u) << b.name << " starts on a 64-byte boundary of the arena";
    extents.push_back({b.offset, b.offset + b.size});
    total += b.size;
  }
  // Disjoint, in the arena, with bounded padding between buffers (staggered cache sets).
  std::sort(extents.begin(), extents.end());
  for (size_t i = 1; i < extents.size(); ++i)
    EXPECT_LE(extents[i - 1].second, extents[i].first);
  EXPECT_LE(extents.back().second, s.arenaSize());
  EXPECT_GE(s.arenaSize(), total);
  EXPECT_LE(s.arenaSize(), total + extents.size() * (8 + 8 * 61));
  EXPECT_EQ(s.bufferInfo("gamma").componentCount, 9u);
  EXPECT_EQ(s.bufferInfo("beta").componentCount, 3u);
  EXPECT_EQ(s.bufferInfo("dgamma").role, tensorium_mlir::abi::HostBufferRole::Output);
  // Every kernel binds the same storage buffers in descriptor order.
  EXPECT_EQ(s.binding("tensorium_rhs_grid_scf").buffers, s.binding("tensorium_rhs_grid_parallel").buffers);
  auto d = s.descriptor("beta");
  EXPECT_EQ(d.size, 3 * g.points());
  EXPECT_EQ(d.stride, 1);
  EXPECT_EQ(d.allocated, s.buffer("beta").data());
}

TEST(GeneratedHostStorage, InvokeMatchesConvenienceWrapperAndDirectCall) {
  GridShape g{10, 9, 11};
  const double h = 0.1, eta = 0.75, kappa = 0.3;
  GeneratedHostStorage s(tables(), g);
  fillInputs(s, h);
  const double params[2] = {eta, kappa};
  s.invoke(adapters(), "tensorium_rhs_grid_affine", params, {h, h, h});
  std::vector<double> viaInvoke(s.buffer("dgamma").begin(), s.buffer("dgamma").end());

  // Convenience wrapper on copies of the same inputs.
  auto copy = [&](const char *name) { return std::vector<double>(s.buffer(name).begin(), s.buffer(name).end()); };
  std::vector<double> x = copy("x"), y = copy("y"), z = copy("z"), alpha = copy("alpha"), K = copy("K"),
                      beta = copy("beta"), gamma = copy("gamma"), gammaU = copy("gammaU");
  const int64_t N = g.points();
  std::vector<double> dalpha(N), dK(N), dbeta(3 * N), dgamma(9 * N);
  tensorium_call_rhs_grid_affine(g.nx, g.ny, g.nz, h, h, h, eta, kappa, x.data(), y.data(), z.data(), alpha.data(),
                                 K.data(), beta.data(), gamma.data(), gammaU.data(), dalpha.data(), dK.data(),
                                 dbeta.data(), dgamma.data());
  EXPECT_EQ(dgamma, viaInvoke);

  // Direct call of the raw prototype with hand-built descriptors.
  std::vector<double> direct(9 * N);
  auto d = [](std::vector<double> &v) { return tensorium_memref1d_f64{v.data(), v.data(), 0, (int64_t)v.size(), 1}; };
  tensorium_memref1d_f64 m[12] = {d(x), d(y), d(z), d(alpha), d(K), d(beta), d(gamma), d(gammaU), d(dalpha), d(dK), d(dbeta), d(direct)};
#define TENSORIUM_EXPAND(i) m[i].allocated, m[i].aligned, m[i].offset, m[i].size, m[i].stride
  tensorium_rhs_grid_affine(g.nx, g.ny, g.nz, h, h, h, eta, kappa, TENSORIUM_EXPAND(0), TENSORIUM_EXPAND(1),
                            TENSORIUM_EXPAND(2), TENSORIUM_EXPAND(3), TENSORIUM_EXPAND(4), TENSORIUM_EXPAND(5),
                            TENSORIUM_EXPAND(6), TENSORIUM_EXPAND(7), TENSORIUM_EXPAND(8), TENSORIUM_EXPAND(9),
                            TENSORIUM_EXPAND(10), TENSORIUM_EXPAND(11));
#undef TENSORIUM_EXPAND
  EXPECT_EQ(direct, viaInvoke);
  // The interior was written: not all zeros.
  EXPECT_NE(*std::max_element(viaInvoke.begin(), viaInvoke.end()), 0.0);
}

TEST(GeneratedHostStorage, RejectsBadCallsWithoutWritingAnything) {
  GeneratedHostStorage s(tables(), {8, 8, 8});
  fillInputs(s, 0.1);
  std::vector<double> before(s.buffer("dalpha").begin(), s.buffer("dalpha").end());
  const double one[1] = {1.0}, two[2] = {1.0, 2.0};
  EXPECT_THROW(s.invoke(adapters(), "tensorium_rhs_grid_scf", one, {0.1, 0.1, 0.1}), StorageError);
  EXPECT_THROW(s.invoke(adapters(), "tensorium_rhs_grid_nope", two, {0.1, 0.1, 0.1}), StorageError);
  EXPECT_THROW(s.invoke(adapters(), "tensorium_rhs_grid_scf", two, {0.1, -0.1, 0.1}), StorageError);
  GeneratedHostStorage tiny(tables(), {4, 8, 8}); // radius 2 needs at least 5 points
  try {
    tiny.invoke(adapters(), "tensorium_rhs_grid_scf", two, {0.1, 0.1, 0.1});
    FAIL() << "a grid without interior was accepted";
  } catch (const StorageError &e) {
    EXPECT_NE(std::string(e.what()).find("leaves no interior for stencil radius 2"), std::string::npos);
  }
  EXPECT_EQ(std::vector<double>(s.buffer("dalpha").begin(), s.buffer("dalpha").end()), before);
  EXPECT_THROW(s.buffer("nope"), StorageError);
}

TEST(GeneratedHostStorage, RejectsMalformedTables) {
  tensorium_host_kernel_desc k = tensorium_host_kernels[0];
  k.abi_version = 2;
  GeneratedHostTables t = tables();
  t.kernels = &k;
  t.kernelCount = 1;
  EXPECT_THROW(GeneratedHostStorage(t, {8, 8, 8}), StorageError);
  k = tensorium_host_kernels[0];
  k.buffer_count = 1000;
  EXPECT_THROW(GeneratedHostStorage(t, {8, 8, 8}), StorageError);
  EXPECT_THROW(GeneratedHostStorage(tables(), {0, 8, 8}), StorageError);
}

TEST(GeneratedHostStorage, ReadingABufferNoInvokedKernelWroteIsAnErrorNotZeros) {
  GridShape g{8, 8, 8};
  const double h = 0.1;
  GeneratedHostStorage s(tables(), g);
  fillInputs(s, h);
  // Before any kernel ran, an output holds the arena's zeros: reading it as a result is refused,
  // naming the buffer, the reader and what was invoked.
  try {
    s.kernelOutput("dgamma", "the test");
    FAIL() << "an unwritten output was readable";
  } catch (const StorageError &e) {
    EXPECT_NE(std::string(e.what()).find("buffer 'dgamma' is read by the test but no invoked kernel wrote it "
                                         "(invoked: none)"),
              std::string::npos)
        << e.what();
  }
  // An input that the host filled is not a kernel's output either.
  EXPECT_THROW(s.kernelOutput("gamma", "the test"), StorageError);
  const double params[2] = {0.75, 0.3};
  s.invoke(adapters(), "tensorium_rhs_grid_affine", params, {h, h, h});
  const std::span<const double> d = s.kernelOutput("dgamma", "the test");
  EXPECT_EQ(d.data(), s.buffer("dgamma").data());
  EXPECT_EQ(s.bufferInfo("dgamma").writtenBy, "tensorium_rhs_grid_affine");
  try {
    s.kernelOutput("gamma", "the test");
    FAIL() << "an input was taken for a kernel's output";
  } catch (const StorageError &e) {
    EXPECT_NE(std::string(e.what()).find("(invoked: tensorium_rhs_grid_affine)"), std::string::npos) << e.what();
  }
}
