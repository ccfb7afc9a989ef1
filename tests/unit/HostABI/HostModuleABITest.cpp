#include "tensorium_mlir/Lowering/Compiler.h"
#include "tensorium_mlir/Frontend/Frontend.h"
#include "tensorium_mlir/HostABI/HostModuleABI.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

using namespace tensorium_mlir;
using namespace tensorium_mlir::abi;

namespace {

HostModuleABI compileFixture(const std::string &relative) {
  std::string path = std::string(TENSORIUM_SOURCE_DIR) + "/" + relative;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  frontend::SourceManager sources(path, ss.str());
  frontend::DiagnosticEngine diags(sources, nullptr);
  frontend::Module module;
  HostModuleABI abi;
  EXPECT_TRUE(frontend::parseAndAnalyze(sources, diags, module));
  const codegen::CompileOptions options;
  EXPECT_TRUE(codegen::buildHostABI(module, options, diags, abi));
  return abi;
}

bool mentions(const std::vector<std::string> &problems, const std::string &fragment) {
  for (const std::string &p : problems)
    if (p.find(fragment) != std::string::npos)
      return true;
  return false;
}

class Malformed : public ::testing::Test {
protected:
  void SetUp() override { abi = compileFixture("fixtures/codegen/variants_mix_3d.tn"); }
  HostKernelABI &rhs() { return abi.kernels.at(0); }
  HostModuleABI abi;
};

} // namespace

TEST(HostModuleABI, ShippedFixturesValidateAndDescribeTheirBuffers) {
  HostModuleABI abi = compileFixture("fixtures/codegen/variants_mix_3d.tn");
  EXPECT_TRUE(validateHostModuleABI(abi).empty());
  const HostKernelABI *k = abi.findKernel("tensorium_rhs_grid_parallel");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->stencilRadius.value_or(-1), 2);
  // nx ny nz dx dy dz eta kappa, then 12 buffers.
  ASSERT_EQ(k->args.size(), 20u);
  ASSERT_EQ(k->buffers.size(), 12u);
  EXPECT_EQ(k->buffers[0].name, "x");
  EXPECT_EQ(k->buffers[0].role, HostBufferRole::Coordinate);
  EXPECT_EQ(k->buffers[6].name, "gamma");
  EXPECT_EQ(k->buffers[6].componentCount, 9u);
  EXPECT_EQ(k->buffers[6].access, HostBufferAccess::Read);
  EXPECT_EQ(k->buffers[11].name, "dgamma");
  EXPECT_EQ(k->buffers[11].role, HostBufferRole::Output);
  EXPECT_EQ(k->buffers[11].access, HostBufferAccess::Write);
  EXPECT_EQ(requiredBufferScalars(k->buffers[11], 1000), 9000);
  EXPECT_EQ(requiredBufferScalars(k->buffers[5], 1000), 3000); // beta: vector
}

TEST(HostModuleABI, SpectralFixtureValidates) {
  HostModuleABI abi = compileFixture("fixtures/codegen/spectral_nonlinear_3d.tn");
  EXPECT_TRUE(validateHostModuleABI(abi).empty());
  const HostKernelABI *grid = abi.findKernel("tensorium_spectral_residual_grid_F");
  ASSERT_NE(grid, nullptr);
  ASSERT_EQ(grid->buffers.size(), 24u); // 2 bundles x 10, 3 coordinates, 1 output
  EXPECT_EQ(grid->buffers[0].name, "u_value");
  EXPECT_EQ(grid->buffers[19].name, "w_d33");
  EXPECT_EQ(grid->buffers[23].role, HostBufferRole::Output);
}

TEST_F(Malformed, WrongVersion) {
  abi.version = 2;
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "ABI version 2, expected 3"));
  rhs().version = 4;
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "ABI version 4"));
}

TEST_F(Malformed, DuplicateAndEmptyNames) {
  abi.kernels.push_back(rhs());
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "symbol defined twice"));
  abi.kernels.pop_back();
  rhs().buffers[1].name = rhs().buffers[0].name;
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "name used twice"));
  rhs().buffers[1].name = "";
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "empty name"));
}

TEST_F(Malformed, ArgumentIndexOutOfRangeOrReused) {
  rhs().buffers[0].argIndex = 99;
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "out of range"));
  rhs().buffers[0].argIndex = rhs().buffers[1].argIndex;
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "reused by another buffer"));
  SetUp();
  rhs().readArgIndices.push_back(1000);
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "read argument index 1000 out of range"));
}

TEST_F(Malformed, BufferOnScalarArgument) {
  rhs().buffers[0].argIndex = 3; // dx
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "is not a memref"));
}

TEST_F(Malformed, AccessContradictsIndices) {
  rhs().buffers[0].access = HostBufferAccess::Write;
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "contradicts the read/write indices"));
}

TEST_F(Malformed, ComponentCountInconsistentWithRank) {
  rhs().buffers[6].componentCount = 6; // gamma stored packed: not the SoA contract
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "component count 6 inconsistent with rank 2"));
  SetUp();
  abi.fields[2].componentCount = 4;
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "field 'beta'"));
}

TEST_F(Malformed, MissingStencilRadius) {
  rhs().stencilRadius.reset();
  EXPECT_TRUE(mentions(validateHostModuleABI(abi), "missing stencil radius"));
}

TEST_F(Malformed, WrongLayoutStrings) {
  rhs().memoryLayout = "aos";
  rhs().memrefABI = "descriptor";
  auto problems = validateHostModuleABI(abi);
  EXPECT_TRUE(mentions(problems, "memory layout 'aos'"));
  EXPECT_TRUE(mentions(problems, "memref ABI 'descriptor'"));
}

#include "tensorium_mlir/Runtime/HostStorage.h"

TEST(HostFieldStorage, PlanFromTheCompilerDescriptor) {
  HostModuleABI abi = compileFixture("fixtures/codegen/variants_mix_3d.tn");
  runtime::HostFieldStorage storage(abi, {6, 7, 8});
  EXPECT_EQ(storage.buffers().size(), 12u); // deduplicated across the three rhs kernels
  for (const runtime::StorageBuffer &b : storage.buffers())
    EXPECT_EQ(b.size, b.componentCount * 6u * 7u * 8u) << b.name;
  const runtime::KernelBinding &k = storage.binding("tensorium_rhs_grid_scf");
  ASSERT_EQ(k.buffers.size(), 12u);
  EXPECT_EQ(storage.buffers()[k.buffers[6]].name, "gamma");
  EXPECT_EQ(k.stencilRadius, 2);
  EXPECT_EQ(k.paramCount, 2u);
  HostModuleABI broken = abi;
  broken.version = 2;
  EXPECT_THROW(runtime::HostFieldStorage(broken, {6, 7, 8}), runtime::StorageError);
}
