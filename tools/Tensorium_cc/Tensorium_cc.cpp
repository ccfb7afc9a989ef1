// Tensorium_cc: the .tn compiler driver.
#include "cli_numbers.h"
#include "command_line.h"
#include "large_stack.h"
#include "tensorium_mlir/Lowering/Compiler.h"
#include "tensorium_mlir/Frontend/ASTDumper.h"
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"
#include "tensorium_mlir/HostABI/HostHeader.h"
#include "tensorium_mlir/Frontend/Frontend.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

using namespace tensorium_mlir::frontend;

namespace {
bool readInput(const std::string &path, std::string &out) {
  std::string error;
  if (!readSourceText(path, out, error)) {
    std::cerr << "Tensorium_cc: error: cannot read '" << path << "': " << error << '\n';
    return false;
  }
  return true;
}
} // namespace

namespace {
bool writeOutput(const std::string &path, const std::string &data) {
  if (path == "-") {
    std::cout.write(data.data(), static_cast<std::streamsize>(data.size()));
    std::cout.flush();
    return static_cast<bool>(std::cout);
  }
  std::ofstream file(path, std::ios::binary);
  if (!file) {
    std::cerr << "Tensorium_cc: error: cannot write '" << path << "': " << std::strerror(errno) << '\n';
    return false;
  }
  file.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!file) {
    std::cerr << "Tensorium_cc: error: writing '" << path << "' failed\n";
    return false;
  }
  return true;
}

bool parseKernels(const std::string &list, unsigned &mask) {
  using tensorium_mlir::codegen::KernelSelection;
  mask = 0;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item == "init") mask |= static_cast<unsigned>(KernelSelection::Init);
    else if (item == "rhs") mask |= static_cast<unsigned>(KernelSelection::Rhs);
    else if (item == "residual") mask |= static_cast<unsigned>(KernelSelection::Residual);
    else if (item == "spectral") mask |= static_cast<unsigned>(KernelSelection::Spectral);
    else if (item == "all") mask |= static_cast<unsigned>(KernelSelection::All);
    else {
      throw tensorium_cli::UsageError("unknown kernel family '" + item + "' in --kernels (expected init, rhs, residual, spectral)");
    }
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return true;
}
} // namespace

int compilerMain(int argc, char **argv) {
  using namespace tensorium_mlir::codegen;
  using tensorium_cli::UsageError;
  enum class Action { Check, DumpAst, Summary };
  Action action = Action::Check;
  bool actionSet = false, showVersion = false;
  std::string input, output = "-";
  bool outputSet = false;
  std::vector<std::pair<OutputKind, std::string>> emissions;
  std::string hostHeaderPath;
  CompileOptions compile;
  std::vector<std::pair<std::string, std::string>> paramFolds;
  unsigned fdOrder = 0; // --fd-order: overrides the program's finite-difference order
  std::string advection; // --advection: overrides the program's spatial { advection = ... }

  auto setAction = [&](Action a, const char *flag) {
    return [&, a, flag] {
      if (actionSet && action != a)
        throw UsageError(std::string("'") + flag + "' conflicts with an earlier action flag");
      action = a;
      actionSet = true;
    };
  };
  auto emit = [&](OutputKind kind) { return [&, kind](const std::string &v) { emissions.push_back({kind, v}); }; };
  auto onOff = [](const char *name, bool &to) {
    return [name, &to](const std::string &v) {
      if (v != "on" && v != "off")
        throw UsageError("invalid value '" + v + "' for '" + name + "' (expected on or off)");
      to = v == "on";
    };
  };
  // auto|on|off into one of the options' Auto/On/Off enumerations.
  auto autoOnOff = [](const char *name, auto &to) {
    return [name, &to](const std::string &v) {
      using Choice = std::remove_reference_t<decltype(to)>;
      if (v != "auto" && v != "on" && v != "off")
        throw UsageError("invalid value '" + v + "' for '" + name + "' (expected auto, on or off)");
      to = v == "auto" ? Choice::Auto : v == "on" ? Choice::On : Choice::Off;
    };
  };
  tensorium_cli::CommandLine cli("Tensorium_cc", "[options] <file.tn>");
  cli.operands("input file", [&](const std::string &w) { input = w; }, 0, 1)
      .group("actions (with none the program is checked only)")
      .flag("--syntax-only", "parse and analyse; report diagnostics only", setAction(Action::Check, "--syntax-only"))
      .flag("--dump-ast", "print the analysed syntax tree", setAction(Action::DumpAst, "--dump-ast"))
      .flag("--print-summary", "print fields, parameters and the kernel families the program lowers to",
            setAction(Action::Summary, "--print-summary"))
      .option("--emit-mlir", "F", "write the generated MLIR module (ABI v3 attributes) to F", emit(OutputKind::MLIR))
      .option("--emit-lowered-mlir", "F", "write the module lowered to the LLVM dialect to F",
              emit(OutputKind::LoweredMLIR))
      .option("--emit-llvm", "F", "write LLVM IR to F", emit(OutputKind::LLVMIR))
      .option("--emit-obj", "F", "write an object file for the host to F", emit(OutputKind::Object))
      .option("--emit-op-counts", "F",
              "write the floating-point operations per function of the optimised LLVM IR\n"
              "(per grid point in grid kernels; an FMA counts 2) to F",
              emit(OutputKind::OpCounts))
      .option("--emit-host-header", "F",
              "write the C host header (prototypes, wrappers, descriptor tables) to F\n"
              "(F may be '-' for standard output; emission flags combine)",
              [&](const std::string &v) { hostHeaderPath = v; })
      .option("-o", "FILE", "write --dump-ast or --print-summary output to FILE ('-': standard output)",
              [&](const std::string &v) {
                output = v;
                outputSet = true;
              })
      .group("program")
      .option("--param", "NAME=V", "fold parameter NAME into the constant V (repeatable)",
              [&](const std::string &v) {
                const size_t eq = v.find('=');
                if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
                  throw UsageError("'--param' expects name=value, got '" + v + "'");
                paramFolds.push_back({v.substr(0, eq), v.substr(eq + 1)});
              })
      .option("--fd-order", "N",
              "compile a finite-difference program at order N (2, 4, 6 or 8) instead of the\n"
              "order its simulation block sets",
              [&](const std::string &v) {
                if (v != "2" && v != "4" && v != "6" && v != "8")
                  throw UsageError("invalid value '" + v + "' for '--fd-order' (expected 2, 4, 6 or 8)");
                fdOrder = static_cast<unsigned>(std::stoul(v));
              })
      .option("--advection", "KIND",
              "compile advect() with lopsided or centered stencils instead of what the program's\n"
              "simulation block sets",
              [&](const std::string &v) {
                if (v != "lopsided" && v != "centered")
                  throw UsageError("invalid value '" + v + "' for '--advection' (expected lopsided or centered)");
                advection = v;
              })
      .option("--kernels", "LIST", "kernel families to emit: init,rhs,residual,spectral (default all)",
              [&](const std::string &v) { parseKernels(v, compile.codegen.kernels); })
      .option("--mode", "M",
              "executable (default): grid, point and spectral kernels; symbolic: pointwise\n"
              "tensorium_init/tensorium_rhs/tensorium_entry taking field derivatives as inputs",
              [&](const std::string &v) {
                if (v != "symbolic" && v != "executable")
                  throw UsageError("'--mode' expects symbolic or executable, got '" + v + "'");
                compile.codegen.symbolic = v == "symbolic";
              })
      .option("--symbol-prefix", "NAME",
              "export every symbol, table and macro of the module under NAME_\n"
              "(NAME_tensorium_rhs_grid_affine, NAME_tensorium_host_kernels,\n"
              "NAME_TENSORIUM_HOST_KERNEL_COUNT) so that several modules link into one\n"
              "program; default: the plain ABI v3 names",
              [&](const std::string &v) {
                if (std::string problem = tensorium_mlir::abi::symbolPrefixProblem(v); !problem.empty())
                  throw UsageError("invalid value '" + v + "' for '--symbol-prefix': " + problem);
                compile.symbolPrefix = v;
              })
      .group("code generation");
  for (int level = 0; level <= 3; ++level)
    cli.flag("-O" + std::to_string(level),
             level == 2 ? "LLVM optimisation level for --emit-llvm/--emit-obj: -O0, -O1, -O2 (default), -O3" : "",
             [&compile, level] { compile.optLevel = static_cast<unsigned>(level); });
  cli.option("--cpu", "NAME",
             "target CPU (default native: this machine's CPU and features; x86-64 for\n"
             "objects that run on any x86-64 machine)",
             [&](const std::string &v) { compile.cpu = v; })
      .option("--vector-width", "N",
              "grid points per SIMD step in grid kernels: 1 (scalar loops), 2, 4, 8 or 16;\n"
              "default: the target's double-precision vector width (8 with AVX-512, 4 with\n"
              "AVX, otherwise 1)",
              [&](const std::string &v) {
                if (v != "1" && v != "2" && v != "4" && v != "8" && v != "16")
                  throw UsageError("invalid value '" + v + "' for '--vector-width' (expected 1, 2, 4, 8 or 16)");
                compile.vectorWidth = static_cast<unsigned>(std::stoul(v));
              })
      .option("--fp-contract", "on|off",
              "on (default): a * b + c may become one fused multiply-add, and divisions by\n"
              "one value may share its reciprocal; off: every operation rounds separately",
              onOff("--fp-contract", compile.fpContract))
      .option("--cache-blocking", "auto|off|YxZ",
              "stencil kernels sweep x inside tiles of Y x Z points in (y, z); auto (default)\n"
              "sizes them so that the x-planes a tile reads fit in 1 MiB; off: plain loops",
              [&](const std::string &v) {
                compile.cacheBlocking = v != "off";
                compile.tileY = compile.tileZ = 0;
                if (v == "auto" || v == "off")
                  return;
                const size_t x = v.find('x');
                auto tileSize = [](const std::string &text, int64_t &out) {
                  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos)
                    return false;
                  out = std::stoll(text);
                  return out >= 1 && out <= 4096;
                };
                if (x == std::string::npos || !tileSize(v.substr(0, x), compile.tileY) ||
                    !tileSize(v.substr(x + 1), compile.tileZ))
                  throw UsageError("invalid value '" + v + "' for '--cache-blocking' (expected auto, off or YxZ "
                                   "with tile sizes from 1 to 4096, e.g. 16x32)");
              })
      .option("--prefetch", "on|off",
              "on (default): stencil kernels prefetch the x-plane they reach next; large ones\n"
              "also prefetch their outputs' next line for writing",
              onOff("--prefetch", compile.prefetch))
      .option("--stencil-pass", "auto|on|off",
              "kernels large enough for a shared row function compute each chunk of a row in\n"
              "two passes: every field component's stencil values into a scratch block, then\n"
              "the equations from it; auto (default): with SIMD steps only",
              autoOnOff("--stencil-pass", compile.stencilPass))
      .option("--lane-shifts", "auto|on|off",
              "in those two-pass rows with 8-wide steps, reads shifted along z are lane shifts\n"
              "of line-aligned vectors (valignq); auto (default): on targets with AVX-512",
              autoOnOff("--lane-shifts", compile.laneShifts))
      .option("--factor-mixed", "auto|on|off",
              "in rows with lane shifts, a mixed derivative across z is the z stencil of the\n"
              "first pass's x or y derivative (rounds differently from its own stencil);\n"
              "auto (default): with --fp-contract=on",
              autoOnOff("--factor-mixed", compile.factorMixed))
      .option("--derivative-sharing", "on|off",
              "on (default): each derivative of each field component is one stencil per point,\n"
              "shared, with equal weights grouped; off: every derivative is the plain stencil\n"
              "of its whole argument (the first code generator, kept for comparisons)",
              onOff("--derivative-sharing", compile.codegen.derivativeSharing))
      .option("--max-kernel-ops", "N",
              "largest kernel, in scalar operations per point after simplification, that is\n"
              "compiled (default 150000: about a minute and under 1 GB in the LLVM back end);\n"
              "a larger one is a located error",
              [&](const std::string &v) {
                if (v.size() > 10 || v.find_first_not_of("0123456789") != std::string::npos || std::stoull(v) < 1)
                  throw UsageError("invalid value '" + v + "' for '--max-kernel-ops' (expected a positive integer)");
                compile.codegen.maxKernelOps = static_cast<size_t>(std::stoull(v));
              })
      .option("--simplify", "on|off",
              "on (default): subexpressions that compute the same value are computed once\n"
              "(semantic value numbering); off: as scalarised",
              onOff("--simplify", compile.codegen.simplify))
      .flag("--version", "show the compiler and ABI version", [&] { showVersion = true; })
      .notes("Diagnostics go to standard error as 'file:line:col: error: message'. Exit status: 0 done,\n"
             "1 the program has errors (or the tool chain failed), 2 bad arguments or an unreadable input.");
  try {
    if (!cli.parse(argc, argv, std::cout))
      return 0;
  } catch (const UsageError &e) {
    return cli.usageError(e.what(), std::cerr);
  }
  if (showVersion) {
    std::cout << "Tensorium_cc " << TENSORIUM_VERSION << " (generated kernel ABI v3)\n";
    return 0;
  }
  auto usageError = [&cli](const std::string &message) { return cli.usageError(message, std::cerr); };
  if (input.empty()) {
    // `--emit-obj file.tn` with the output name forgotten takes the program as the output.
    for (const auto &[kind, path] : emissions)
      if (path.size() > 3 && path.compare(path.size() - 3, 3, ".tn") == 0)
        return usageError("no input file: '" + path +
                          "' was taken as an output file name (an --emit option takes its output file first, "
                          "e.g. --emit-obj k.o " + path + ")");
    if (hostHeaderPath.size() > 3 && hostHeaderPath.compare(hostHeaderPath.size() - 3, 3, ".tn") == 0)
      return usageError("no input file: '" + hostHeaderPath +
                        "' was taken as the header's file name (--emit-host-header k.h " + hostHeaderPath + ")");
    return usageError("no input file");
  }
  if (std::string cpuError; !tensorium_mlir::codegen::checkTargetCpu(compile.cpu, cpuError))
    return usageError(cpuError);
  if (outputSet && action == Action::Check)
    return usageError("'-o' needs an action that produces output, such as --dump-ast");
  if (actionSet && action != Action::Check && (!emissions.empty() || !hostHeaderPath.empty()))
    return usageError("emission flags cannot be combined with --dump-ast or --print-summary");
  int stdoutUsers = (outputSet ? output == "-" : actionSet && action != Action::Check);
  for (auto &e : emissions)
    stdoutUsers += e.second == "-";
  stdoutUsers += hostHeaderPath == "-";
  if (stdoutUsers > 1)
    return usageError("only one output can go to standard output");

  std::string text;
  if (!readInput(input, text))
    return tensorium_cli::kUsageExit;
  SourceManager sources(input == "-" ? "<stdin>" : input, std::move(text));
  DiagnosticEngine diags(sources, &std::cerr);
  Module module;
  bool ok = parseAndAnalyze(sources, diags, module);
  if (ok && fdOrder) {
    if (module.sim.scheme != Scheme::FiniteDifference)
      return usageError("'--fd-order' applies to finite-difference programs; '" + input + "' uses the spectral scheme");
    module.sim.order = fdOrder;
  }
  if (ok && !advection.empty())
    module.sim.lopsidedAdvection = advection == "lopsided";
  if (ok) {
    for (auto &[name, text] : paramFolds) {
      bool declared = std::any_of(module.params.begin(), module.params.end(),
                                  [&](const ParamDecl &p) { return p.name == name; });
      if (!declared)
        return usageError("'--param " + name + "=...' names no parameter of '" + input + "'");
      // Decimal text only (no hex, inf or nan), in double range: the shared strict parser.
      double v = 0;
      try {
        v = tensorium_cli::parseNumber("--param " + name, text);
      } catch (const tensorium_cli::UsageError &) {
        return usageError("'--param " + name + "=" + text + "': the value is not a finite number");
      }
      compile.codegen.foldedParams[name] = v;
    }
  }
  auto failed = [&]() {
    unsigned n = diags.errorCount();
    std::cerr << n << (n == 1 ? " error" : " errors") << " generated.\n";
    return 1;
  };
  if (!ok)
    return failed();

  for (auto &[kind, path] : emissions) {
    std::string data, error;
    if (!compileModule(module, compile, kind, diags, data, error)) {
      if (diags.hasErrors())
        return failed();
      std::cerr << "Tensorium_cc: error: " << error << '\n';
      return 1;
    }
    if (!writeOutput(path, data))
      return 1;
  }
  if (!hostHeaderPath.empty()) {
    tensorium_mlir::abi::HostModuleABI abi;
    if (!buildHostABI(module, compile, diags, abi))
      return failed();
    std::vector<std::string> problems = tensorium_mlir::abi::validateHostModuleABI(abi);
    if (!problems.empty()) {
      for (const std::string &p : problems)
        std::cerr << "Tensorium_cc: error: invalid host ABI: " << p << '\n';
      return 1;
    }
    std::string name = std::filesystem::path(input).filename().string();
    if (!writeOutput(hostHeaderPath, tensorium_mlir::abi::emitHostHeader(abi, name)))
      return 1;
  }
  if (action == Action::Check)
    return 0;

  std::ostringstream rendered;
  if (action == Action::DumpAst)
    dumpModule(module, sources, rendered);
  else
    printModuleSummary(module, rendered);
  return writeOutput(output, rendered.str()) ? 0 : 1;
}

int main(int argc, char **argv) { return tensorium_cli::runWithLargeStack(compilerMain, argc, argv); }
