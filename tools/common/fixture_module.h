#pragma once
// A .tn fixture compiled at run time into a loadable kernel module: Tensorium_cc emits the
// object and host header, a small C file exports the module tables, the C compiler links them
// with the OpenMP runtime. The same steps as tensorium_add_kernel(... MODULE) in CMake.
#include "tensorium_mlir/Support/InputFile.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <sys/wait.h>

namespace tensorium_cli {

inline std::string shellQuote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs a shell command; returns its exit status and its combined output.
inline int runCommand(const std::string &command, std::string &output) {
  FILE *pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    return -1;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    output.append(buffer.data(), n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Compiles `fixture` into `directory`/lib<name>.so and returns that path; throws
/// std::runtime_error with the compiler's diagnostics when it fails.
inline std::string compileFixtureModule(const std::string &fixture, const std::string &directory, const std::string &name,
                                        const std::string &tensoriumCc, const std::string &cCompiler,
                                        const std::string &openmpLibrary, const std::string &compilerFlags = "") {
  if (const std::string problem = tensorium_mlir::support::inputFileProblem(fixture); !problem.empty())
    throw std::runtime_error("cannot read fixture '" + fixture + "': " + problem);
  const std::string object = directory + "/" + name + ".o", header = directory + "/" + name + ".h",
                    exports = directory + "/" + name + "_exports.c", module = directory + "/lib" + name + ".so";
  std::string output;
  if (runCommand(shellQuote(tensoriumCc) + (compilerFlags.empty() ? "" : " " + compilerFlags) + " --emit-obj " + shellQuote(object) + " --emit-host-header " + shellQuote(header) +
                     " " + shellQuote(fixture),
                 output) != 0)
    throw std::runtime_error("compiling " + fixture + " failed:\n" + output);
  std::ofstream(exports) << "#include \"" << name << ".h\"\n"
                         << "const tensorium_module_tables *tensorium_get_module_tables(void);\n"
                            "const tensorium_module_tables *tensorium_get_module_tables(void) {\n"
                            "  static const tensorium_module_tables tables = {\n"
                            "      TENSORIUM_ABI_VERSION, TENSORIUM_DIMENSION, tensorium_param_names, TENSORIUM_PARAM_COUNT,\n"
                            "      tensorium_host_kernels, TENSORIUM_HOST_KERNEL_COUNT, tensorium_host_buffers,\n"
                            "      TENSORIUM_HOST_BUFFER_COUNT, tensorium_host_kernel_adapters, TENSORIUM_HOST_KERNEL_ADAPTER_COUNT,\n"
                            "      tensorium_spectral_residual_kernels, TENSORIUM_SPECTRAL_RESIDUAL_KERNEL_COUNT,\n"
                            "      tensorium_spectral_residual_grid_kernels, TENSORIUM_SPECTRAL_RESIDUAL_GRID_KERNEL_COUNT,\n"
                            "      tensorium_spectral_residual_systems, TENSORIUM_SPECTRAL_RESIDUAL_SYSTEM_COUNT};\n"
                            "  return &tables;\n}\n"
                            "#ifdef TENSORIUM_SPECTRAL_PROBLEM_COUNT\n"
                            "const tensorium_spectral_problem_desc *tensorium_get_spectral_problems(int32_t *count);\n"
                            "const tensorium_spectral_problem_desc *tensorium_get_spectral_problems(int32_t *count) {\n"
                            "  *count = TENSORIUM_SPECTRAL_PROBLEM_COUNT;\n  return tensorium_spectral_problems;\n}\n"
                            "#endif\n";
  output.clear();
  if (runCommand(shellQuote(cCompiler) + " -shared -fPIC -O2 -std=c99 -I " + shellQuote(directory) + " " +
                     shellQuote(exports) + " " + shellQuote(object) + " -o " + shellQuote(module) + " " +
                     shellQuote(openmpLibrary) + " -Wl,-rpath," +
                     shellQuote(openmpLibrary.substr(0, openmpLibrary.find_last_of('/'))) + " -lm",
                 output) != 0)
    throw std::runtime_error("linking the module of " + fixture + " failed:\n" + output);
  return module;
}

} // namespace tensorium_cli
