// Two kernel modules in one test program: the unprefixed one of the runtime tests
// (variants_mix_3d.tn) and decay_3d.tn compiled with PREFIX decay. The runtime binds the
// prefixed module through its tables, by exported or v3 kernel name, and gets that module's
// answer, dt u = -k u + s.
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "TensoriumRuntimeTests_kernels.h"
#include "runtime_decay_kernels.h"

#include <gtest/gtest.h>

namespace tabi = tensorium_mlir::abi;
using namespace tensorium_mlir::runtime;

namespace {

GeneratedHostTables decayTables() {
  return {decay_tensorium_host_kernels, DECAY_TENSORIUM_HOST_KERNEL_COUNT, decay_tensorium_host_buffers,
          DECAY_TENSORIUM_HOST_BUFFER_COUNT, decay_tensorium_param_names, DECAY_TENSORIUM_PARAM_COUNT,
          DECAY_TENSORIUM_DIMENSION};
}

std::span<const tensorium_host_kernel_adapter> decayAdapters() {
  return {decay_tensorium_host_kernel_adapters, DECAY_TENSORIUM_HOST_KERNEL_ADAPTER_COUNT};
}

} // namespace

TEST(SymbolPrefix, NamesSplitIntoPrefixAndV3Name) {
  EXPECT_EQ(tabi::canonicalSymbol("decay_tensorium_rhs_grid_affine"), "tensorium_rhs_grid_affine");
  EXPECT_EQ(tabi::symbolPrefixOf("decay_tensorium_rhs_grid_affine"), "decay");
  EXPECT_EQ(tabi::canonicalSymbol("tensorium_rhs_grid_affine"), "tensorium_rhs_grid_affine");
  EXPECT_EQ(tabi::symbolPrefixOf("tensorium_rhs_grid_affine"), "");
  // A residual target may itself contain "_tensorium_": the prefix ends at the first one.
  EXPECT_EQ(tabi::canonicalSymbol("m_tensorium_spectral_residual_a_tensorium_b"), "tensorium_spectral_residual_a_tensorium_b");
  EXPECT_EQ(tabi::prefixedSymbol("m", "tensorium_x"), "m_tensorium_x");
  EXPECT_EQ(tabi::prefixedSymbol("", "tensorium_x"), "tensorium_x");
  EXPECT_EQ(tabi::symbolPrefixProblem("matter2"), "");
  for (const char *bad : {"", "2x", "a-b", "a_", "myTensorium", "_a"})
    EXPECT_NE(tabi::symbolPrefixProblem(bad), "") << bad;
}

TEST(SymbolPrefix, TablesCarryTheExportedNames) {
  ASSERT_GE(DECAY_TENSORIUM_HOST_KERNEL_COUNT, 1);
  for (int k = 0; k < DECAY_TENSORIUM_HOST_KERNEL_COUNT; ++k)
    EXPECT_EQ(tabi::symbolPrefixOf(decay_tensorium_host_kernels[k].symbol), "decay");
  EXPECT_TRUE(validateGeneratedTables(decayTables()).empty());
  // The unprefixed module linked into the same program keeps the v3 names.
  EXPECT_EQ(tabi::symbolPrefixOf(tensorium_host_kernels[0].symbol), "");
  // Tables of two modules mixed into one are refused.
  std::vector<tensorium_host_kernel_desc> mixed(decay_tensorium_host_kernels,
                                                decay_tensorium_host_kernels + DECAY_TENSORIUM_HOST_KERNEL_COUNT);
  mixed.back().symbol = tensorium_host_kernels[0].symbol;
  GeneratedHostTables t = decayTables();
  t.kernels = mixed.data();
  bool reported = false;
  for (const std::string &p : validateGeneratedTables(t))
    reported |= p.find("prefix differs") != std::string::npos;
  EXPECT_TRUE(reported);
}

TEST(SymbolPrefix, RuntimeBindsByExportedOrV3NameAndGetsThisModulesAnswer) {
  const GridShape g{6, 6, 6};
  for (const std::string kernel : {"decay_tensorium_rhs_grid_affine", "tensorium_rhs_grid_scf",
                                   "tensorium_rhs_grid_parallel"}) {
    GeneratedHostStorage s(decayTables(), g);
    EXPECT_EQ(tabi::canonicalSymbol(s.binding(kernel).symbol), tabi::canonicalSymbol(kernel));
    auto u = s.buffer("u");
    for (size_t p = 0; p < u.size(); ++p)
      u[p] = 1.0 + 0.01 * static_cast<double>(p);
    const double k = 0.5, src = 0.25;
    s.invoke(decayAdapters(), kernel, std::vector<double>{k, src}, {0.1, 0.1, 0.1});
    const auto du = s.buffer("du");
    // The interior (radius of this order-2 module) holds -k u + s.
    const int64_t p = (3 * g.ny + 3) * g.nz + 3;
    EXPECT_DOUBLE_EQ(du[p], -k * u[p] + src) << kernel;
  }
  GeneratedHostStorage s(decayTables(), g);
  EXPECT_THROW(s.binding("other_tensorium_rhs_grid_affine"), StorageError);
}
