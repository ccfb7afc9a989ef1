#pragma once
// Where a run finds the kernel module of a fixture at a finite-difference order: the modules the
// build made (listed in a catalog file the build writes: order, fixture, module per line) or,
// for any other fixture or order, one compiled now on rank 0 into this catalog's own scratch
// folder, which every rank reads (the ranks share a file system). Collective: a compile error
// reaches every rank as the same exception.
#include "tensorium_mlir/Distributed/DistributedEvolution.h"
#include "tensorium_mlir/Runtime/KernelModule.h"
#include "tensorium_mlir/Runtime/ModuleCompiler.h"

#include <mpi.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

namespace tensorium_mlir::distributed {

/// The tables and adapters of a loaded module as the engine takes them.
KernelModuleTables moduleTables(const runtime::KernelModule &m);

struct ModuleCatalogSettings {
  runtime::ModuleToolchain toolchain;
  std::string builtList;     // the build's catalog file ("" or missing: nothing prebuilt)
  std::string scratchPrefix; // name prefix of the scratch folder, e.g. the tool's name
};

class ModuleCatalog {
public:
  ModuleCatalog(MPI_Comm comm, ModuleCatalogSettings settings);

  /// The module of a `.tn` fixture at `order` (0: the derivatives as the fixture writes them)
  /// with the advection stencils `advection` names ("lopsided", "centered"; "": as written);
  /// a path that is not a `.tn` file is taken as a module as it is.
  std::string modulePath(const std::string &source, int order, const std::string &advection = "");
  std::unique_ptr<runtime::KernelModule> load(const std::string &source, int order, const std::string &advection = "") {
    return std::make_unique<runtime::KernelModule>(modulePath(source, order, advection));
  }
  /// The module the build made for `fixture` at `order`, or "" when it made none.
  std::string builtModule(const std::string &fixture, int order) const;

private:
  MPI_Comm comm_;
  ModuleCatalogSettings settings_;
  std::map<std::pair<std::string, int>, std::string> built_;    // (canonical fixture, order) -> module
  std::map<std::tuple<std::string, int, std::string>, std::string> compiled_; // (fixture, order, advection), compiled here
  runtime::ScratchFolder scratch_;
};

} // namespace tensorium_mlir::distributed
