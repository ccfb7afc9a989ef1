// The module catalog: a fixture and order the build lists comes from the list; any other is
// compiled at that finite-difference order (the stencil radius of the result shows which),
// once, into a scratch folder that disappears with the catalog; a compile error is an exception
// carrying the compiler's diagnostic.
#include "module_toolchain.h"
#include "tensorium_mlir/Distributed/ModuleCatalog.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace tensorium_mlir;

namespace {

class MpiEnvironment : public ::testing::Environment {
public:
  void SetUp() override { MPI_Init(nullptr, nullptr); }
  void TearDown() override { MPI_Finalize(); }
};
[[maybe_unused]] ::testing::Environment *const gMpi = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

const std::string kFixture = std::string(TENSORIUM_SOURCE_DIR) + "/fixtures/codegen/fd_derivatives_o4.tn";

distributed::ModuleCatalogSettings settings(const std::string &list) {
  return {tensorium_cli::moduleToolchain(), list, "tensorium-catalog-test"};
}

int stencilRadius(const runtime::KernelModule &m, const std::string &symbol) {
  const tensorium_module_tables &t = m.tables();
  for (int k = 0; k < t.kernel_count; ++k)
    if (symbol == t.kernels[k].symbol)
      return t.kernels[k].stencil_radius;
  return -1;
}

} // namespace

TEST(ModuleCatalog, CompilesAtTheAskedOrderOnceAndRemovesItsScratchFolder) {
  std::string folder;
  {
    distributed::ModuleCatalog catalog(MPI_COMM_SELF, settings(""));
    const std::string second = catalog.modulePath(kFixture, 2), sixth = catalog.modulePath(kFixture, 6);
    EXPECT_NE(second, sixth);
    EXPECT_EQ(catalog.modulePath(kFixture, 2), second); // compiled once
    EXPECT_EQ(stencilRadius(runtime::KernelModule(second), "tensorium_rhs_grid_scf"), 1);
    EXPECT_EQ(stencilRadius(runtime::KernelModule(sixth), "tensorium_rhs_grid_scf"), 3);
    EXPECT_EQ(stencilRadius(*catalog.load(kFixture, 0), "tensorium_rhs_grid_scf"), 2); // as written
    // Another advection is another module (this fixture has no advect(): the same kernels).
    const std::string lopsided = catalog.modulePath(kFixture, 2, "lopsided");
    EXPECT_NE(lopsided, second);
    EXPECT_EQ(catalog.modulePath(kFixture, 2, "lopsided"), lopsided);
    EXPECT_THROW(catalog.modulePath(kFixture, 2, "upwind"), runtime::ModuleCompileError);
    folder = std::filesystem::path(second).parent_path().string();
    EXPECT_TRUE(std::filesystem::is_directory(folder));
  }
  EXPECT_FALSE(std::filesystem::exists(folder));
}

TEST(ModuleCatalog, TakesWhatTheBuildListsAndModulesAsGiven) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tensorium-catalog-list";
  std::filesystem::create_directories(dir);
  const std::string module = (dir / "libprebuilt.so").string(), list = (dir / "built_modules.txt").string();
  std::ofstream(module) << "not a module";
  std::ofstream(list) << "4\t" << kFixture << "\t" << module << "\n"
                      << "2\t" << kFixture << "\t" << (dir / "missing.so").string() << "\n";
  distributed::ModuleCatalog catalog(MPI_COMM_SELF, settings(list));
  EXPECT_EQ(catalog.builtModule(kFixture, 4), module);
  EXPECT_EQ(catalog.modulePath(kFixture, 4), module);
  EXPECT_EQ(catalog.builtModule(kFixture, 2), ""); // a listed module that does not exist is ignored
  EXPECT_EQ(catalog.modulePath("/any/where/libx.so", 4), "/any/where/libx.so");
  std::filesystem::remove_all(dir);
}

TEST(ModuleCatalog, ACompileErrorCarriesTheDiagnostic) {
  distributed::ModuleCatalog catalog(MPI_COMM_SELF, settings(""));
  const std::string broken = std::string(TENSORIUM_SOURCE_DIR) + "/fixtures/errors/bad_dimension.tn";
  try {
    catalog.modulePath(broken, 4);
    FAIL() << "a broken fixture compiled";
  } catch (const runtime::ModuleCompileError &e) {
    EXPECT_NE(std::string(e.what()).find("bad_dimension.tn:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("error:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(catalog.modulePath("/no/such/fixture.tn", 4), runtime::ModuleCompileError);
}
