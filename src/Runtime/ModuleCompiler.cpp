#include "tensorium_mlir/Runtime/ModuleCompiler.h"

#include "tensorium_mlir/Support/InputFile.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

namespace tensorium_mlir::runtime {

std::string shellQuote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int runCommand(const std::string &command, std::string &output) {
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

namespace {
/// The C source that exports a generated header's tables as the module entry points.
std::string moduleExports(const std::string &header) {
  return "#include \"" + header +
         "\"\n"
         "const tensorium_module_tables *tensorium_get_module_tables(void);\n"
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
         "#endif\n"
         "#ifdef TENSORIUM_EVOLUTION_BOUNDARY_COUNT\n"
         "const tensorium_evolution_boundary_desc *tensorium_get_evolution_boundaries(int32_t *count);\n"
         "const tensorium_evolution_boundary_desc *tensorium_get_evolution_boundaries(int32_t *count) {\n"
         "  *count = TENSORIUM_EVOLUTION_BOUNDARY_COUNT;\n  return tensorium_evolution_boundaries;\n}\n"
         "#endif\n"
         "#ifdef TENSORIUM_SYSTEM_PARAM_DEFAULT_COUNT\n"
         "const double *tensorium_get_system_param_defaults(int32_t *count, const char *const **names);\n"
         "const double *tensorium_get_system_param_defaults(int32_t *count, const char *const **names) {\n"
         "  *count = TENSORIUM_SYSTEM_PARAM_DEFAULT_COUNT;\n  *names = tensorium_system_param_default_names;\n"
         "  return tensorium_system_param_default_values;\n}\n"
         "#endif\n";
}
} // namespace

std::string compileFixtureModule(const std::string &fixture, const std::string &directory, const std::string &name,
                                 const ModuleToolchain &toolchain, int fdOrder, const std::string &advection) {
  if (const std::string problem = support::inputFileProblem(fixture); !problem.empty())
    throw ModuleCompileError("cannot read fixture '" + fixture + "': " + problem);
  const std::string object = directory + "/" + name + ".o", header = directory + "/" + name + ".h",
                    exports = directory + "/" + name + "_exports.c", module = directory + "/lib" + name + ".so";
  std::string output;
  if (!advection.empty() && advection != "lopsided" && advection != "centered")
    throw ModuleCompileError("unknown advection '" + advection + "' (expected lopsided or centered)");
  const std::string order = (fdOrder != 0 ? " --fd-order " + std::to_string(fdOrder) : "") +
                            (advection.empty() ? "" : " --advection " + advection);
  if (runCommand(shellQuote(toolchain.tensoriumCc) + order + " --emit-obj " + shellQuote(object) +
                     " --emit-host-header " + shellQuote(header) + " " + shellQuote(fixture),
                 output) != 0)
    throw ModuleCompileError("compiling " + fixture + " failed:\n" + output);
  std::ofstream file(exports);
  file << moduleExports(name + ".h");
  file.close();
  if (!file)
    throw ModuleCompileError("cannot write " + exports);
  output.clear();
  const std::string &omp = toolchain.openmpLibrary;
  if (runCommand(shellQuote(toolchain.cCompiler) + " -shared -fPIC -O2 -std=c99 -I " + shellQuote(directory) + " " +
                     shellQuote(exports) + " " + shellQuote(object) + " -o " + shellQuote(module) + " " +
                     shellQuote(omp) + " -Wl,-rpath," + shellQuote(omp.substr(0, omp.find_last_of('/'))) + " -lm",
                 output) != 0)
    throw ModuleCompileError("linking the module of " + fixture + " failed:\n" + output);
  return module;
}

ScratchFolder::~ScratchFolder() {
  if (!path_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
}

const std::string &ScratchFolder::path() {
  if (path_.empty()) {
    std::error_code ec;
    const std::filesystem::path temp = std::filesystem::temp_directory_path(ec);
    std::string pattern = ((ec ? std::filesystem::path("/tmp") : temp) / (prefix_ + "-XXXXXX")).string();
    if (!mkdtemp(pattern.data()))
      throw ModuleCompileError("cannot create a scratch folder for compiled fixtures under " + pattern);
    path_ = pattern;
  }
  return path_;
}

} // namespace tensorium_mlir::runtime
