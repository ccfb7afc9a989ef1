// Tensorium_abi_probe: prints the host ABI contract of a .tn program: kernels, arguments,
// buffers with roles, access and component counts, stencil radius, and validation results.
#include "tensorium_mlir/CodeGen/Compiler.h"
#include "tensorium_mlir/Frontend/Frontend.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace tensorium_mlir;
using namespace tensorium_mlir::abi;

namespace {

std::string argKindName(const HostArgABI &a) {
  switch (a.kind) {
  case HostArgKind::Index: return "index";
  case HostArgKind::F64: return "f64";
  case HostArgKind::Memref: return "memref<?xf64>";
  case HostArgKind::FixedMemref: return "memref<" + std::to_string(a.fixedSize) + "xf64>";
  }
  return "?";
}

std::string json(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

template <typename T, typename F> std::string jsonList(const std::vector<T> &v, F item) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? ", " : "") + item(v[i]);
  return out + "]";
}

void printText(const HostModuleABI &abi, const std::vector<std::string> &problems, std::ostream &os) {
  os << "ABI version " << abi.version << "\n";
  os << "simulation: " << abi.simulation.coordinates << ", dimension " << abi.simulation.dimension
     << ", scheme " << abi.simulation.scheme << ", order " << abi.simulation.order << ", resolution";
  for (int64_t r : abi.simulation.resolution)
    os << ' ' << r;
  os << "\nfields:\n";
  for (const HostFieldABI &f : abi.fields)
    os << "  " << std::left << std::setw(16) << f.name << ' ' << std::setw(15) << f.type << " rank " << f.rank
       << " variance " << (f.variance.empty() ? "-" : f.variance) << " components " << f.componentCount << "\n";
  for (const HostKernelABI &k : abi.kernels) {
    os << "kernel " << k.symbol << " (kind " << k.kind << ")";
    if (k.stencilRadius)
      os << " stencil_radius " << *k.stencilRadius;
    if (k.residualKernel)
      os << " residual";
    if (k.returnsF64)
      os << " returns f64";
    os << "\n  arguments:";
    for (size_t i = 0; i < k.args.size(); ++i)
      os << (i % 6 == 0 ? "\n    " : " ") << i << ":" << k.args[i].name << ":" << argKindName(k.args[i]);
    os << "\n  buffers:\n";
    for (const HostBufferABI &b : k.buffers)
      os << "    arg " << std::right << std::setw(3) << b.argIndex << "  " << std::left << std::setw(16) << b.name
         << ' ' << std::setw(10) << hostBufferRoleName(b.role) << ' ' << std::setw(9) << hostBufferAccessName(b.access)
         << " rank " << b.rank << " components " << b.componentCount << "\n";
  }
  if (problems.empty()) {
    os << "validation: ok\n";
  } else {
    os << "validation: " << problems.size() << " problem(s)\n";
    for (const std::string &p : problems)
      os << "  " << p << "\n";
  }
}

void printJson(const HostModuleABI &abi, const std::vector<std::string> &problems, std::ostream &os) {
  auto str = [](const std::string &s) { return json(s); };
  os << "{\n  \"abi_version\": " << abi.version << ",\n";
  os << "  \"simulation\": {\"coordinates\": " << json(abi.simulation.coordinates)
     << ", \"dimension\": " << abi.simulation.dimension << ", \"scheme\": " << json(abi.simulation.scheme)
     << ", \"order\": " << abi.simulation.order << ", \"resolution\": "
     << jsonList(abi.simulation.resolution, [](int64_t r) { return std::to_string(r); }) << "},\n";
  os << "  \"fields\": " << jsonList(abi.fields, [&](const HostFieldABI &f) {
    return "{\"name\": " + json(f.name) + ", \"type\": " + json(f.type) + ", \"rank\": " + std::to_string(f.rank) +
           ", \"variance\": " + json(f.variance) + ", \"components\": " + std::to_string(f.componentCount) + "}";
  }) << ",\n";
  os << "  \"kernels\": [";
  for (size_t i = 0; i < abi.kernels.size(); ++i) {
    const HostKernelABI &k = abi.kernels[i];
    os << (i ? ",\n    " : "\n    ") << "{\"symbol\": " << json(k.symbol) << ", \"kind\": " << json(k.kind)
       << ", \"stencil_radius\": " << (k.stencilRadius ? std::to_string(*k.stencilRadius) : "null")
       << ", \"residual_kernel\": " << (k.residualKernel ? "true" : "false")
       << ", \"returns_f64\": " << (k.returnsF64 ? "true" : "false")
       << ", \"param_names\": " << jsonList(k.paramNames, str) << ", \"coord_names\": " << jsonList(k.coordNames, str)
       << ", \"field_names\": " << jsonList(k.fieldNames, str) << ", \"output_names\": " << jsonList(k.outputNames, str)
       << ", \"arguments\": " << jsonList(k.args, [](const HostArgABI &a) {
            return "{\"name\": " + json(a.name) + ", \"type\": " + json(argKindName(a)) + "}";
          })
       << ", \"buffers\": " << jsonList(k.buffers, [](const HostBufferABI &b) {
            return "{\"name\": " + json(b.name) + ", \"c_name\": " + json(b.cName) + ", \"arg_index\": " +
                   std::to_string(b.argIndex) + ", \"role\": " + json(hostBufferRoleName(b.role)) + ", \"access\": " +
                   json(hostBufferAccessName(b.access)) + ", \"rank\": " + std::to_string(b.rank) +
                   ", \"components\": " + std::to_string(b.componentCount) + "}";
          })
       << "}";
  }
  os << "\n  ],\n  \"validation\": " << jsonList(problems, str) << "\n}\n";
}

} // namespace

int main(int argc, char **argv) {
  std::string input;
  bool asJson = false;
  codegen::CompileOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << "usage: Tensorium_abi_probe [--json] [--mode symbolic|executable] <file.tn>\n"
                   "Prints the host ABI contract of every kernel the program lowers to.\n";
      return 0;
    } else if (arg == "--json") {
      asJson = true;
    } else if (arg == "--mode" && i + 1 < argc) {
      std::string m = argv[++i];
      if (m != "symbolic" && m != "executable") {
        std::cerr << "Tensorium_abi_probe: error: '--mode' expects symbolic or executable\n";
        return 1;
      }
      options.codegen.symbolic = m == "symbolic";
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "Tensorium_abi_probe: error: unknown option '" << arg << "'\n";
      return 1;
    } else if (input.empty()) {
      input = arg;
    } else {
      std::cerr << "Tensorium_abi_probe: error: more than one input file\n";
      return 1;
    }
  }
  if (input.empty()) {
    std::cerr << "Tensorium_abi_probe: error: no input file\n";
    return 1;
  }
  std::ifstream in(input, std::ios::binary);
  if (!in) {
    std::cerr << "Tensorium_abi_probe: error: cannot read '" << input << "': " << std::strerror(errno) << "\n";
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  frontend::SourceManager sources(input, ss.str());
  frontend::DiagnosticEngine diags(sources, &std::cerr);
  frontend::Module module;
  HostModuleABI abi;
  if (!frontend::parseAndAnalyze(sources, diags, module) || !codegen::buildHostABI(module, options, diags, abi)) {
    std::cerr << diags.errorCount() << (diags.errorCount() == 1 ? " error" : " errors") << " generated.\n";
    return 1;
  }
  std::vector<std::string> problems = validateHostModuleABI(abi);
  if (asJson)
    printJson(abi, problems, std::cout);
  else
    printText(abi, problems, std::cout);
  return problems.empty() ? 0 : 1;
}
