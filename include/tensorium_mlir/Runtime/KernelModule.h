#pragma once
// A generated kernel module loaded at run time through its exported module tables.
#include "tensorium_mlir/Runtime/HostABITypes.h"
#include "tensorium_mlir/Runtime/EvolutionBoundaryTypes.h"
#include "tensorium_mlir/Runtime/SpectralProblemTypes.h"

#include <dlfcn.h>
#include <stdexcept>
#include <string>

namespace tensorium_mlir::runtime {

/// The host adapter of kernel `kernelIndex` in a module's tables, or null when it has none.
inline const tensorium_host_kernel_adapter *adapterOf(const tensorium_module_tables &tables, int32_t kernelIndex) {
  for (int32_t i = 0; i < tables.adapter_count; ++i)
    if (tables.adapters[i].kernel_index == kernelIndex)
      return &tables.adapters[i];
  return nullptr;
}

class KernelModule {
public:
  explicit KernelModule(const std::string &path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_)
      throw std::runtime_error("cannot load kernel module " + path + ": " + dlerror());
    auto get = reinterpret_cast<tensorium_get_module_tables_fn>(dlsym(handle_, "tensorium_get_module_tables"));
    if (!get)
      throw std::runtime_error(path + " does not export tensorium_get_module_tables");
    tables_ = get();
  }
  ~KernelModule() {
    if (handle_)
      dlclose(handle_);
  }
  const tensorium_module_tables &tables() const { return *tables_; }
  /// Declared elliptic problems (additive export; none in modules that declare no problem).
  const tensorium_spectral_problem_desc *spectralProblems(int32_t &count) const {
    count = 0;
    auto get = reinterpret_cast<tensorium_get_spectral_problems_fn>(dlsym(handle_, "tensorium_get_spectral_problems"));
    return get ? get(&count) : nullptr;
  }
  /// Boundary conditions of evolved fields (additive export; none in modules that declare none).
  const tensorium_evolution_boundary_desc *evolutionBoundaries(int32_t &count) const {
    count = 0;
    auto get = reinterpret_cast<tensorium_get_evolution_boundaries_fn>(
        dlsym(handle_, "tensorium_get_evolution_boundaries"));
    return get ? get(&count) : nullptr;
  }
  /// Declared parameter defaults of a module with evolution boundaries (none otherwise).
  const double *systemParamDefaults(int32_t &count, const char *const *&names) const {
    count = 0;
    names = nullptr;
    auto get = reinterpret_cast<tensorium_get_system_param_defaults_fn>(
        dlsym(handle_, "tensorium_get_system_param_defaults"));
    return get ? get(&count, &names) : nullptr;
  }

private:
  void *handle_ = nullptr;
  const tensorium_module_tables *tables_ = nullptr;
};

} // namespace tensorium_mlir::runtime
