// Tensorium_cc: the .tn compiler driver.
#include "cli_numbers.h"
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
#include <vector>

using namespace tensorium_mlir::frontend;

namespace {
constexpr const char *kUsage =
    "usage: Tensorium_cc [options] <file.tn>\n"
    "\n"
    "Compiles a Tensorium tensor program. With no action the program is checked only.\n"
    "\n"
    "actions:\n"
    "  --syntax-only        parse and analyse; report diagnostics only\n"
    "  --dump-ast           print the analysed syntax tree\n"
    "  --print-summary      print fields, parameters and the kernel families the program lowers to\n"
    "  --emit-mlir <F>      write the generated MLIR module (ABI v3 attributes) to F\n"
    "  --emit-lowered-mlir <F>  write the module lowered to the LLVM dialect to F\n"
    "  --emit-llvm <F>      write LLVM IR to F\n"
    "  --emit-obj <F>       write an object file for the host to F\n"
    "  --emit-op-counts <F> write the floating-point operations per function of the optimised\n"
    "                       LLVM IR (per grid point in grid kernels; an FMA counts 2) to F\n"
    "  --emit-host-header <F>  write the C host header (prototypes, wrappers, descriptor tables) to F\n"
    "                       (F may be '-' for standard output; emission flags combine)\n"
    "\n"
    "options:\n"
    "  -o <file>            write the action's output to <file> ('-' is standard output)\n"
    "  --param <name>=<v>   fold parameter <name> into the constant <v> (repeatable)\n"
    "  --fd-order <N>       compile a finite-difference program at order N (2, 4, 6 or 8) instead\n"
    "                       of the order its simulation block sets\n"
    "  --kernels <list>     kernel families to emit: init,rhs,residual,spectral (default all)\n"
    "  --mode <m>           executable (default): grid, point and spectral kernels;\n"
    "                       symbolic: pointwise tensorium_init/tensorium_rhs/tensorium_entry\n"
    "                       source functions taking field derivatives as inputs\n"
    "  -O0 -O1 -O2 -O3      LLVM optimisation level for --emit-llvm/--emit-obj (default -O2)\n"
    "  --cpu <name>         target CPU (default native: this machine's CPU and features;\n"
    "                       x86-64 for objects that run on any x86-64 machine)\n"
    "  --vector-width <N>   grid points per SIMD step in grid kernels: 1 (scalar loops), 2, 4, 8\n"
    "                       or 16; default: the target's double-precision vector width\n"
    "                       (8 with AVX-512, 4 with AVX, otherwise 1)\n"
    "  --fp-contract=<on|off>  on (default): a * b + c may become one fused multiply-add, and\n"
    "                       divisions by one value may share its reciprocal;\n"
    "                       off: every operation rounds separately\n"
    "  --cache-blocking=<auto|off|YxZ>  stencil kernels sweep x inside tiles of Y x Z points\n"
    "                       in (y, z); auto (default) sizes them so that the x-planes a tile\n"
    "                       reads fit in 1 MiB; off: plain i, j, k loops\n"
    "  --prefetch=<on|off>  on (default): stencil kernels prefetch the x-plane they reach next;\n"
    "                       large ones also prefetch their outputs' next line for writing\n"
    "  --stencil-pass=<auto|on|off>  kernels large enough for a shared row function compute\n"
    "                       each chunk of a row in two passes: every field component's stencil\n"
    "                       values (derivatives, dissipation) into a scratch block, then the\n"
    "                       equations from it; auto (default): with SIMD steps only\n"
    "  --lane-shifts=<auto|on|off>  in those two-pass rows with 8-wide steps, the reads\n"
    "                       shifted along z are lane shifts of line-aligned vectors (valignq)\n"
    "                       instead of loads straddling two cache lines; auto (default): on\n"
    "                       targets with AVX-512\n"
    "  --factor-mixed=<auto|on|off>  in rows with lane shifts, a mixed derivative across z\n"
    "                       is the z stencil of the first pass's x or y derivative at the\n"
    "                       neighbouring points (lane shifts of values already computed),\n"
    "                       which rounds differently from its own stencil; auto (default): with\n"
    "                       --fp-contract=on\n"
    "  --derivative-sharing=<on|off>  on (default): each derivative of each field component\n"
    "                       is one stencil per point, shared, with equal weights grouped; off:\n"
    "                       every derivative is the plain stencil of its whole argument (the\n"
    "                       first code generator, kept for comparisons)\n"
    "  --max-kernel-ops=<N> largest kernel, in scalar operations per point after simplification,\n"
    "                       that is compiled (default 150000: about a minute and under 1 GB in the\n"
    "                       LLVM back end); a larger one is a located error\n"
    "  --symbol-prefix <NAME>  export every symbol, table and macro of the module under NAME_\n"
    "                       (NAME_tensorium_rhs_grid_affine, NAME_tensorium_host_kernels,\n"
    "                       NAME_TENSORIUM_HOST_KERNEL_COUNT) so that several modules link into\n"
    "                       one program; default: the plain ABI v3 names\n"
    "  --simplify=<on|off>  on (default): subexpressions that compute the same value are\n"
    "                       computed once (semantic value numbering); off: as scalarised\n"
    "  --help               show this help\n"
    "  --version            show the compiler and ABI version\n"
    "\n"
    "Diagnostics go to standard error as 'file:line:col: error: message'; the exit status is 1\n"
    "when any error was reported.\n";

int usageError(const std::string &message) {
  std::cerr << "Tensorium_cc: error: " << message << "\n(run 'Tensorium_cc --help' for usage)\n";
  return 1;
}

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
      usageError("unknown kernel family '" + item + "' in --kernels (expected init, rhs, residual, spectral)");
      return false;
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
  enum class Action { Check, DumpAst, Summary };
  Action action = Action::Check;
  bool actionSet = false;
  std::string input, output = "-";
  bool outputSet = false;
  std::vector<std::pair<OutputKind, std::string>> emissions;
  std::string hostHeaderPath;
  CompileOptions compile;
  std::vector<std::pair<std::string, std::string>> paramFolds;
  unsigned fdOrder = 0; // --fd-order: overrides the program's finite-difference order

  auto setAction = [&](Action a, const char *flag) {
    if (actionSet && action != a)
      return usageError(std::string("'") + flag + "' conflicts with an earlier action flag");
    action = a;
    actionSet = true;
    return 0;
  };
  auto needValue = [&](int &i, const std::string &flag, std::string &value) {
    if (i + 1 >= argc) {
      usageError("'" + flag + "' needs a value");
      return false;
    }
    value = argv[++i];
    return true;
  };
  // `--flag value` or `--flag=value`.
  auto flagOrInlineValue = [&](int &i, const std::string &arg, const std::string &flag, std::string &value) {
    if (arg == flag)
      return needValue(i, arg, value);
    value = arg.substr(flag.size() + 1);
    return true;
  };

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--version") {
      std::cout << "Tensorium_cc " << TENSORIUM_VERSION << " (generated kernel ABI v3)\n";
      return 0;
    }
    int rc = 0;
    if (arg == "--syntax-only")
      rc = setAction(Action::Check, "--syntax-only");
    else if (arg == "--dump-ast")
      rc = setAction(Action::DumpAst, "--dump-ast");
    else if (arg == "--print-summary")
      rc = setAction(Action::Summary, "--print-summary");
    else if (arg == "--emit-mlir" || arg == "--emit-lowered-mlir" || arg == "--emit-llvm" || arg == "--emit-obj" ||
             arg == "--emit-op-counts") {
      if (!needValue(i, arg, value))
        return 1;
      OutputKind kind = arg == "--emit-mlir"           ? OutputKind::MLIR
                        : arg == "--emit-lowered-mlir" ? OutputKind::LoweredMLIR
                        : arg == "--emit-llvm"         ? OutputKind::LLVMIR
                        : arg == "--emit-op-counts"    ? OutputKind::OpCounts
                                                       : OutputKind::Object;
      emissions.push_back({kind, value});
    } else if (arg == "--emit-host-header") {
      if (!needValue(i, arg, value))
        return 1;
      hostHeaderPath = value;
    } else if (arg == "--fd-order") {
      if (!needValue(i, arg, value))
        return 1;
      if (value != "2" && value != "4" && value != "6" && value != "8")
        return usageError("invalid value '" + value + "' for '--fd-order' (expected 2, 4, 6 or 8)");
      fdOrder = static_cast<unsigned>(std::stoul(value));
    } else if (arg == "--param") {
      if (!needValue(i, arg, value))
        return 1;
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
        return usageError("'--param' expects name=value, got '" + value + "'");
      paramFolds.push_back({value.substr(0, eq), value.substr(eq + 1)});
    } else if (arg == "--mode") {
      if (!needValue(i, arg, value))
        return 1;
      if (value != "symbolic" && value != "executable")
        return usageError("'--mode' expects symbolic or executable, got '" + value + "'");
      compile.codegen.symbolic = value == "symbolic";
    } else if (arg == "--kernels") {
      if (!needValue(i, arg, value) || !parseKernels(value, compile.codegen.kernels))
        return 1;
    } else if (arg == "--symbol-prefix" || arg.rfind("--symbol-prefix=", 0) == 0) {
      if (!flagOrInlineValue(i, arg, "--symbol-prefix", value))
        return 1;
      if (std::string problem = tensorium_mlir::abi::symbolPrefixProblem(value); !problem.empty())
        return usageError("invalid value '" + value + "' for '--symbol-prefix': " + problem);
      compile.symbolPrefix = value;
    } else if (arg == "--cpu") {
      if (!needValue(i, arg, value))
        return 1;
      compile.cpu = value;
    } else if (arg == "--vector-width" || arg.rfind("--vector-width=", 0) == 0) {
      if (!flagOrInlineValue(i, arg, "--vector-width", value))
        return 1;
      if (value != "1" && value != "2" && value != "4" && value != "8" && value != "16")
        return usageError("invalid value '" + value + "' for '--vector-width' (expected 1, 2, 4, 8 or 16)");
      compile.vectorWidth = static_cast<unsigned>(std::stoul(value));
    } else if (arg == "--max-kernel-ops" || arg.rfind("--max-kernel-ops=", 0) == 0) {
      if (!flagOrInlineValue(i, arg, "--max-kernel-ops", value))
        return 1;
      if (value.empty() || value.size() > 10 || value.find_first_not_of("0123456789") != std::string::npos ||
          std::stoull(value) < 1)
        return usageError("invalid value '" + value + "' for '--max-kernel-ops' (expected a positive integer)");
      compile.codegen.maxKernelOps = static_cast<size_t>(std::stoull(value));
    } else if (arg.rfind("--cache-blocking", 0) == 0) {
      if (arg.rfind("--cache-blocking=", 0) != 0)
        return usageError(arg == "--cache-blocking" ? "'--cache-blocking' expects =auto, =off or =YxZ"
                                                    : "unknown option '" + arg + "'");
      value = arg.substr(std::strlen("--cache-blocking="));
      compile.cacheBlocking = value != "off";
      compile.tileY = compile.tileZ = 0;
      if (value != "auto" && value != "off") {
        size_t x = value.find('x');
        auto tileSize = [](const std::string &text, int64_t &out) {
          if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos)
            return false;
          out = std::stoll(text);
          return out >= 1 && out <= 4096;
        };
        if (x == std::string::npos || !tileSize(value.substr(0, x), compile.tileY) ||
            !tileSize(value.substr(x + 1), compile.tileZ))
          return usageError("invalid value '" + value + "' for '--cache-blocking' (expected auto, off or YxZ "
                            "with tile sizes from 1 to 4096, e.g. 16x32)");
      }
    } else if (bool *flag = arg.rfind("--simplify", 0) == 0             ? &compile.codegen.simplify
                            : arg.rfind("--prefetch", 0) == 0           ? &compile.prefetch
                            : arg.rfind("--derivative-sharing", 0) == 0 ? &compile.codegen.derivativeSharing
                                                                        : nullptr) {
      const std::string name = arg.substr(0, arg.find('='));
      if (name != "--simplify" && name != "--prefetch" && name != "--derivative-sharing")
        return usageError("unknown option '" + arg + "'");
      if (arg.find('=') == std::string::npos)
        return usageError("'" + name + "' expects =on or =off");
      value = arg.substr(arg.find('=') + 1);
      if (value != "on" && value != "off")
        return usageError("invalid value '" + value + "' for '" + name + "' (expected on or off)");
      *flag = value == "on";
    } else if (arg.rfind("--fp-contract", 0) == 0) {
      if (arg == "--fp-contract") {
        if (!needValue(i, arg, value))
          return 1;
      } else if (arg.rfind("--fp-contract=", 0) == 0) {
        value = arg.substr(std::strlen("--fp-contract="));
      } else {
        return usageError("unknown option '" + arg + "'");
      }
      if (value != "on" && value != "off")
        return usageError("invalid value '" + value + "' for '--fp-contract' (expected on or off)");
      compile.fpContract = value == "on";
    } else if (arg.rfind("--stencil-pass", 0) == 0 || arg.rfind("--lane-shifts", 0) == 0 ||
               arg.rfind("--factor-mixed", 0) == 0) {
      const std::string name = arg.rfind("--stencil-pass", 0) == 0  ? "--stencil-pass"
                               : arg.rfind("--lane-shifts", 0) == 0 ? "--lane-shifts"
                                                                    : "--factor-mixed";
      if (arg.rfind(name + "=", 0) != 0)
        return usageError(arg == name ? "'" + name + "' expects =auto, =on or =off" : "unknown option '" + arg + "'");
      value = arg.substr(name.size() + 1);
      if (value != "auto" && value != "on" && value != "off")
        return usageError("invalid value '" + value + "' for '" + name + "' (expected auto, on or off)");
      using Options = tensorium_mlir::codegen::CompileOptions;
      if (name == "--stencil-pass")
        compile.stencilPass = value == "auto" ? Options::StencilPass::Auto
                              : value == "on" ? Options::StencilPass::On
                                              : Options::StencilPass::Off;
      else if (name == "--lane-shifts")
        compile.laneShifts = value == "auto" ? Options::LaneShifts::Auto
                             : value == "on" ? Options::LaneShifts::On
                                             : Options::LaneShifts::Off;
      else
        compile.factorMixed = value == "auto" ? Options::FactorMixed::Auto
                              : value == "on" ? Options::FactorMixed::On
                                              : Options::FactorMixed::Off;
    } else if (arg.size() == 3 && arg[0] == '-' && arg[1] == 'O' && arg[2] >= '0' && arg[2] <= '3') {
      compile.optLevel = static_cast<unsigned>(arg[2] - '0');
    } else if (arg == "-o") {
      if (i + 1 >= argc)
        return usageError("'-o' needs a file name");
      output = argv[++i];
      outputSet = true;
    } else if (arg.size() > 2 && arg.rfind("-o", 0) == 0) {
      output = arg.substr(2); // -o<file>, as compilers accept
      outputSet = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else {
      if (!input.empty())
        return usageError("more than one input file ('" + input + "' and '" + arg + "')");
      input = arg;
    }
    if (rc)
      return rc;
  }
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
    return 1;
  SourceManager sources(input == "-" ? "<stdin>" : input, std::move(text));
  DiagnosticEngine diags(sources, &std::cerr);
  Module module;
  bool ok = parseAndAnalyze(sources, diags, module);
  if (ok && fdOrder) {
    if (module.sim.scheme != Scheme::FiniteDifference)
      return usageError("'--fd-order' applies to finite-difference programs; '" + input + "' uses the spectral scheme");
    module.sim.order = fdOrder;
  }
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
