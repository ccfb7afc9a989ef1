#pragma once
// Kernel modules of the fixtures a study file names: the project's own verification fixtures
// come prebuilt at orders 2, 4 and 6 (verification/CMakeLists.txt); any other fixture is compiled
// on rank 0 into a scratch folder every rank reads, at the order asked for (Tensorium_cc
// --fd-order). Collective: a compile error reaches every rank.
#include "fixture_module.h"
#include "mpi_text.h"

#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tensorium_verify {

class FixtureModules {
public:
  FixtureModules(MPI_Comm comm, int rank, std::string kernelDir, std::string sourceDir)
      : comm_(comm), rank_(rank), kernelDir_(std::move(kernelDir)), sourceDir_(std::move(sourceDir)) {}
  ~FixtureModules() {
    if (rank_ == 0 && !scratch_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_, ignored);
    }
  }
  FixtureModules(const FixtureModules &) = delete;
  FixtureModules &operator=(const FixtureModules &) = delete;

  /// The module of `fixture` at finite-difference order `order` (0: the fixture as written).
  /// Throws std::runtime_error with the compiler's diagnostics.
  std::string module(const std::string &fixture, int order) {
    if (std::string prebuilt = prebuiltModule(fixture, order); !prebuilt.empty())
      return prebuilt;
    std::string path, error;
    if (rank_ == 0) {
      try {
        path = compile(fixture, order);
      } catch (const std::exception &e) {
        error = e.what();
      }
    }
    broadcast(error);
    if (!error.empty())
      throw std::runtime_error(error);
    broadcast(path);
    return path;
  }

private:
  std::string prebuiltModule(const std::string &fixture, int order) const {
    static const std::map<std::string, std::pair<std::string, bool>> prebuilt{
        {"fixtures/gr/adm_constraints_3d.tn", {"constraints", true}},
        {"fixtures/gr/brill_lindquist_3d.tn", {"brill_lindquist", false}},
        {"fixtures/gr/schwarzschild_isotropic_3d.tn", {"schwarzschild", false}}};
    std::error_code ec;
    const auto canonical = std::filesystem::weakly_canonical(fixture, ec);
    for (const auto &[relative, entry] : prebuilt) {
      if (ec || canonical != std::filesystem::weakly_canonical(std::filesystem::path(sourceDir_) / relative, ec))
        continue;
      if (entry.second != (order != 0) || (order != 0 && order != 2 && order != 4 && order != 6))
        continue;
      const std::string path = kernelDir_ + "/libverify_" + entry.first + "_o" + std::to_string(order) + ".so";
      if (std::filesystem::exists(path))
        return path;
    }
    return "";
  }

  std::string compile(const std::string &fixture, int order) {
    if (scratch_.empty()) {
      std::string pattern = (std::filesystem::temp_directory_path() / "tensorium-verify-XXXXXX").string();
      if (!mkdtemp(pattern.data()))
        throw std::runtime_error("cannot create a scratch folder for compiled fixtures");
      scratch_ = pattern;
    }
    const std::string name = "fixture" + std::to_string(count_++) + "_o" + std::to_string(order);
    return tensorium_cli::compileFixtureModule(fixture, scratch_, name, TENSORIUM_VERIFY_CC, TENSORIUM_VERIFY_C_COMPILER,
                                               TENSORIUM_VERIFY_OPENMP_LIBRARY,
                                               order != 0 ? "--fd-order " + std::to_string(order) : std::string());
  }

  void broadcast(std::string &text) const { tensorium_cli::broadcastText(text, comm_); }

  MPI_Comm comm_;
  int rank_;
  std::string kernelDir_, sourceDir_, scratch_;
  int count_ = 0;
};

} // namespace tensorium_verify
