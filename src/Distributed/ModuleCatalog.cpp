#include "tensorium_mlir/Distributed/ModuleCatalog.h"

#include "tensorium_mlir/Distributed/DistributedGrid.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tensorium_mlir::distributed {

namespace {
std::string canonicalPath(const std::string &path) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

bool isFixture(const std::string &path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".tn") == 0; }
} // namespace

KernelModuleTables moduleTables(const runtime::KernelModule &m) {
  const tensorium_module_tables &t = m.tables();
  return {{t.kernels, static_cast<size_t>(t.kernel_count), t.buffers, static_cast<size_t>(t.buffer_count), t.param_names,
           static_cast<size_t>(t.param_count), static_cast<unsigned>(t.dimension)},
          {t.adapters, static_cast<size_t>(t.adapter_count)}};
}

ModuleCatalog::ModuleCatalog(MPI_Comm comm, ModuleCatalogSettings settings)
    : comm_(comm), settings_(std::move(settings)), scratch_(settings_.scratchPrefix) {
  std::ifstream list(settings_.builtList);
  std::string line;
  while (std::getline(list, line)) {
    std::istringstream fields(line);
    int order = -1;
    std::string fixture, module;
    if (fields >> order && std::getline(fields >> std::ws, fixture, '\t') && std::getline(fields, module) &&
        std::filesystem::exists(module))
      built_[{canonicalPath(fixture), order}] = module;
  }
}

std::string ModuleCatalog::builtModule(const std::string &fixture, int order) const {
  const auto found = built_.find({canonicalPath(fixture), order});
  return found == built_.end() ? std::string() : found->second;
}

std::string ModuleCatalog::modulePath(const std::string &source, int order, const std::string &advection) {
  if (!isFixture(source))
    return source;
  // The build's modules are compiled as the fixtures are written.
  if (advection.empty())
    if (const auto built = built_.find({canonicalPath(source), order}); built != built_.end())
      return built->second;
  const std::tuple<std::string, int, std::string> key{canonicalPath(source), order, advection};
  if (const auto found = compiled_.find(key); found != compiled_.end())
    return found->second;
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  std::string path, error;
  if (rank == 0) {
    try {
      const std::string name = "fixture" + std::to_string(compiled_.size()) + "_o" + std::to_string(order);
      path = runtime::compileFixtureModule(source, scratch_.path(), name, settings_.toolchain, order, advection);
    } catch (const std::exception &e) {
      error = e.what();
    }
  }
  broadcastText(error, comm_);
  if (!error.empty())
    throw runtime::ModuleCompileError(error);
  broadcastText(path, comm_);
  compiled_[key] = path;
  return path;
}

} // namespace tensorium_mlir::distributed
