#pragma once
// The programs this build compiles fixtures with at run time, and the folder of the modules it
// made (CMake: tensorium_use_module_toolchain).
#include "tensorium_mlir/Runtime/ModuleCompiler.h"

#include <string>

namespace tensorium_cli {

inline tensorium_mlir::runtime::ModuleToolchain moduleToolchain() {
  return {TENSORIUM_TOOLCHAIN_CC, TENSORIUM_TOOLCHAIN_C_COMPILER, TENSORIUM_TOOLCHAIN_OPENMP_LIBRARY};
}

/// The build's list of the modules it made, in `directory` (default: this build's).
inline std::string builtModuleList(const std::string &directory = TENSORIUM_BUILT_MODULES_DIR) {
  return directory + "/built_modules.txt";
}

} // namespace tensorium_cli
