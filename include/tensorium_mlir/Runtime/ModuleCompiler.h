#pragma once
// A .tn fixture compiled at run time into a loadable kernel module: Tensorium_cc emits the object
// and host header (at a chosen finite-difference order through --fd-order), a small C file
// exports the module tables, the C compiler links them with the OpenMP runtime; the same steps as
// tensorium_add_kernel(... MODULE) in CMake. The compiler runs as a separate process, so this
// library stays free of MLIR.
#include <stdexcept>
#include <string>

namespace tensorium_mlir::runtime {

/// The programs that turn a fixture into a module.
struct ModuleToolchain {
  std::string tensoriumCc;   // Tensorium_cc
  std::string cCompiler;     // links the exports with the object
  std::string openmpLibrary; // the OpenMP runtime the generated code calls
};

struct ModuleCompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Compiles `fixture` into `directory`/lib<name>.so and returns that path. `fdOrder` 0 keeps the
/// fixture's own derivative order, `advection` "" its advection stencils ("lopsided" or
/// "centered" replace them). Throws ModuleCompileError with the compiler's diagnostics.
std::string compileFixtureModule(const std::string &fixture, const std::string &directory, const std::string &name,
                                 const ModuleToolchain &toolchain, int fdOrder = 0, const std::string &advection = "");

/// A private folder under the system's temporary directory, made on first use and removed with
/// its contents when the object dies (each run its own: two runs never share compiled modules).
class ScratchFolder {
public:
  explicit ScratchFolder(std::string prefix) : prefix_(std::move(prefix)) {}
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder &) = delete;
  ScratchFolder &operator=(const ScratchFolder &) = delete;
  /// The folder's path; throws ModuleCompileError when it cannot be made.
  const std::string &path();

private:
  std::string prefix_, path_;
};

/// Quotes `s` for a POSIX shell.
std::string shellQuote(const std::string &s);

/// Runs a shell command; returns its exit status (-1 when it did not exit) and its output.
int runCommand(const std::string &command, std::string &output);

} // namespace tensorium_mlir::runtime
