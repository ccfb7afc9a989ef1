// Tensorium_abi_probe: prints the host ABI contract of a .tn program: kernels, arguments,
// buffers with roles, access and component counts, stencil radius, and validation results.
#include "command_line.h"
#include "large_stack.h"
#include "ManifestCompare.h"
#include "tensorium_mlir/Lowering/Compiler.h"
#include "tensorium_mlir/Frontend/Frontend.h"
#include "tensorium_mlir/HostABI/HostHeader.h"
#include "tensorium_mlir/Runtime/HostABITypes.h"
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"

#include <cstddef>

#include <cerrno>
#include <cstring>
#include <filesystem>
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

std::string json(const std::string &s) { return quotedLiteral(s); }

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

std::string joinInts(const std::vector<int64_t> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s.empty() ? "-" : s;
}

std::string joinNames(const std::vector<std::string> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + v[i];
  return s.empty() ? "-" : s;
}

/// Layout of the C table types as this compiler lays them out.
void printTableLayouts(std::ostream &os) {
#define TENSORIUM_FIELD(type, member) << " " #member "@" << offsetof(type, member)
  os << "struct tensorium_memref1d_f64 size " << sizeof(tensorium_memref1d_f64)
     TENSORIUM_FIELD(tensorium_memref1d_f64, allocated) TENSORIUM_FIELD(tensorium_memref1d_f64, aligned)
     TENSORIUM_FIELD(tensorium_memref1d_f64, offset) TENSORIUM_FIELD(tensorium_memref1d_f64, size)
     TENSORIUM_FIELD(tensorium_memref1d_f64, stride) << "\n";
  os << "struct tensorium_host_kernel_desc size " << sizeof(tensorium_host_kernel_desc)
     TENSORIUM_FIELD(tensorium_host_kernel_desc, symbol) TENSORIUM_FIELD(tensorium_host_kernel_desc, kind)
     TENSORIUM_FIELD(tensorium_host_kernel_desc, abi_version) TENSORIUM_FIELD(tensorium_host_kernel_desc, arg_count)
     TENSORIUM_FIELD(tensorium_host_kernel_desc, param_count) TENSORIUM_FIELD(tensorium_host_kernel_desc, first_buffer)
     TENSORIUM_FIELD(tensorium_host_kernel_desc, buffer_count)
     TENSORIUM_FIELD(tensorium_host_kernel_desc, stencil_radius)
     TENSORIUM_FIELD(tensorium_host_kernel_desc, residual_kernel) << "\n";
  os << "struct tensorium_host_buffer_desc size " << sizeof(tensorium_host_buffer_desc)
     TENSORIUM_FIELD(tensorium_host_buffer_desc, kernel_index) TENSORIUM_FIELD(tensorium_host_buffer_desc, name)
     TENSORIUM_FIELD(tensorium_host_buffer_desc, c_name) TENSORIUM_FIELD(tensorium_host_buffer_desc, arg_index)
     TENSORIUM_FIELD(tensorium_host_buffer_desc, role) TENSORIUM_FIELD(tensorium_host_buffer_desc, access)
     TENSORIUM_FIELD(tensorium_host_buffer_desc, rank) TENSORIUM_FIELD(tensorium_host_buffer_desc, variance)
     TENSORIUM_FIELD(tensorium_host_buffer_desc, component_count) << "\n";
  os << "struct tensorium_host_kernel_adapter size " << sizeof(tensorium_host_kernel_adapter)
     TENSORIUM_FIELD(tensorium_host_kernel_adapter, symbol)
     TENSORIUM_FIELD(tensorium_host_kernel_adapter, kernel_index)
     TENSORIUM_FIELD(tensorium_host_kernel_adapter, invoke) << "\n";
  os << "struct tensorium_spectral_residual_point size " << sizeof(tensorium_spectral_residual_point)
     TENSORIUM_FIELD(tensorium_spectral_residual_point, value) TENSORIUM_FIELD(tensorium_spectral_residual_point, d)
     TENSORIUM_FIELD(tensorium_spectral_residual_point, dd) TENSORIUM_FIELD(tensorium_spectral_residual_point, physical)
     TENSORIUM_FIELD(tensorium_spectral_residual_point, aux_count)
     TENSORIUM_FIELD(tensorium_spectral_residual_point, aux_values)
     TENSORIUM_FIELD(tensorium_spectral_residual_point, aux_derivatives) << "\n";
  os << "struct tensorium_spectral_residual_kernel_desc size " << sizeof(tensorium_spectral_residual_kernel_desc)
     TENSORIUM_FIELD(tensorium_spectral_residual_kernel_desc, residual_name)
     TENSORIUM_FIELD(tensorium_spectral_residual_kernel_desc, symbol_name)
     TENSORIUM_FIELD(tensorium_spectral_residual_kernel_desc, jvp_symbol_name)
     TENSORIUM_FIELD(tensorium_spectral_residual_kernel_desc, field_count)
     TENSORIUM_FIELD(tensorium_spectral_residual_kernel_desc, field_names)
     TENSORIUM_FIELD(tensorium_spectral_residual_kernel_desc, param_count)
     TENSORIUM_FIELD(tensorium_spectral_residual_kernel_desc, param_names)
     TENSORIUM_FIELD(tensorium_spectral_residual_kernel_desc, evaluate)
     TENSORIUM_FIELD(tensorium_spectral_residual_kernel_desc, evaluate_jvp) << "\n";
  os << "struct tensorium_spectral_residual_derivative_fields size "
     << sizeof(tensorium_spectral_residual_derivative_fields)
     TENSORIUM_FIELD(tensorium_spectral_residual_derivative_fields, slot) << "\n";
  os << "struct tensorium_spectral_residual_grid_kernel_desc size " << sizeof(tensorium_spectral_residual_grid_kernel_desc)
     TENSORIUM_FIELD(tensorium_spectral_residual_grid_kernel_desc, residual_name)
     TENSORIUM_FIELD(tensorium_spectral_residual_grid_kernel_desc, symbol_name)
     TENSORIUM_FIELD(tensorium_spectral_residual_grid_kernel_desc, field_count)
     TENSORIUM_FIELD(tensorium_spectral_residual_grid_kernel_desc, field_names)
     TENSORIUM_FIELD(tensorium_spectral_residual_grid_kernel_desc, param_count)
     TENSORIUM_FIELD(tensorium_spectral_residual_grid_kernel_desc, evaluate) << "\n";
  os << "struct tensorium_spectral_residual_system_desc size " << sizeof(tensorium_spectral_residual_system_desc)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, block_name)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, unknown_count)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, unknown_names)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, equation_count)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, residual_names)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, equation_unknown)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, point_kernel_index)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, grid_kernel_index)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, param_count)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, param_names)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, aux_offset)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, aux_field_names)
     TENSORIUM_FIELD(tensorium_spectral_residual_system_desc, aux_unknown_index) << "\n";
  os << "struct tensorium_module_tables size " << sizeof(tensorium_module_tables)
     TENSORIUM_FIELD(tensorium_module_tables, abi_version) TENSORIUM_FIELD(tensorium_module_tables, dimension)
     TENSORIUM_FIELD(tensorium_module_tables, param_names) TENSORIUM_FIELD(tensorium_module_tables, param_count)
     TENSORIUM_FIELD(tensorium_module_tables, kernels) TENSORIUM_FIELD(tensorium_module_tables, kernel_count)
     TENSORIUM_FIELD(tensorium_module_tables, buffers) TENSORIUM_FIELD(tensorium_module_tables, buffer_count)
     TENSORIUM_FIELD(tensorium_module_tables, adapters) TENSORIUM_FIELD(tensorium_module_tables, adapter_count)
     TENSORIUM_FIELD(tensorium_module_tables, spectral_kernels)
     TENSORIUM_FIELD(tensorium_module_tables, spectral_kernel_count)
     TENSORIUM_FIELD(tensorium_module_tables, spectral_grid_kernels)
     TENSORIUM_FIELD(tensorium_module_tables, spectral_grid_kernel_count)
     TENSORIUM_FIELD(tensorium_module_tables, spectral_systems)
     TENSORIUM_FIELD(tensorium_module_tables, spectral_system_count) << "\n";
  os << "enum buffer_role coordinate=" << TENSORIUM_BUFFER_ROLE_COORDINATE << " field=" << TENSORIUM_BUFFER_ROLE_FIELD
     << " output=" << TENSORIUM_BUFFER_ROLE_OUTPUT << "\n";
  os << "enum buffer_access none=" << TENSORIUM_BUFFER_ACCESS_NONE << " read=" << TENSORIUM_BUFFER_ACCESS_READ
     << " write=" << TENSORIUM_BUFFER_ACCESS_WRITE << " readwrite=" << TENSORIUM_BUFFER_ACCESS_READWRITE << "\n";
#undef TENSORIUM_FIELD
}

void printManifestModule(const std::string &label, const HostModuleABI &abi, std::ostream &os) {
  os << "module " << label << "\n";
  for (const HostKernelABI &k : abi.kernels) {
    os << "kernel " << k.symbol << " kind=" << k.kind << " version=" << k.version
       << " returns=" << (k.returnsF64 ? "f64" : "void") << " layout=" << k.memoryLayout << " memref=" << k.memrefABI
       << " stencil_radius=" << (k.stencilRadius ? std::to_string(*k.stencilRadius) : "-")
       << " residual_kernel=" << (k.residualKernel ? 1 : 0)
       << " constraint_block=" << (k.constraintBlock.empty() ? "-" : k.constraintBlock) << "\n";
    for (size_t i = 0; i < k.args.size(); ++i)
      os << "  arg " << i << " " << k.args[i].name << " " << argKindName(k.args[i]) << "\n";
    os << "  param_names " << joinNames(k.paramNames) << "\n  coord_names " << joinNames(k.coordNames)
       << "\n  field_names " << joinNames(k.fieldNames) << "\n  output_names " << joinNames(k.outputNames)
       << "\n  read_arg_indices " << joinInts(k.readArgIndices) << "\n  write_arg_indices "
       << joinInts(k.writeArgIndices) << "\n";
    for (const HostBufferABI &b : k.buffers)
      os << "  buffer " << b.name << " arg=" << b.argIndex << " role=" << hostBufferRoleName(b.role)
         << " access=" << hostBufferAccessName(b.access) << " rank=" << b.rank << " components=" << b.componentCount
         << "\n";
  }
}

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);)
    lines.push_back(line);
  return lines;
}

/// Prints the differing lines (with a little context) between the committed and generated
/// manifests; returns the number of differing lines.
size_t printDifference(const std::vector<std::string> &expected, const std::vector<std::string> &actual, std::ostream &os) {
  // Longest common subsequence on lines: manifests are a few thousand lines, so O(n m) is fine.
  const size_t n = expected.size(), m = actual.size();
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = expected[i] == actual[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  size_t i = 0, j = 0, differences = 0;
  std::string lastModule;
  while (i < n || j < m) {
    if (i < n && j < m && expected[i] == actual[j]) {
      if (expected[i].rfind("module ", 0) == 0 || expected[i].rfind("kernel ", 0) == 0)
        lastModule = expected[i];
      ++i, ++j;
      continue;
    }
    if (!lastModule.empty()) {
      os << "  in: " << lastModule << "\n";
      lastModule.clear();
    }
    if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      os << "- " << expected[i++] << "\n";
    } else {
      os << "+ " << actual[j++] << "\n";
    }
    ++differences;
  }
  return differences;
}

bool compileToABI(const std::string &input, const codegen::CompileOptions &options, HostModuleABI &abi) {
  std::string text, error;
  if (!frontend::readSourceText(input, text, error)) {
    std::cerr << "Tensorium_abi_probe: error: cannot read '" << input << "': " << error << "\n";
    return false;
  }
  frontend::SourceManager sources(input, text);
  frontend::DiagnosticEngine diags(sources, &std::cerr);
  frontend::Module module;
  if (!frontend::parseAndAnalyze(sources, diags, module) || !codegen::buildHostABI(module, options, diags, abi)) {
    std::cerr << diags.errorCount() << (diags.errorCount() == 1 ? " error" : " errors") << " generated.\n";
    return false;
  }
  return true;
}

/// --compare OLD NEW: 0 same, 1 additive, 2 breaking, 3 bad input.
int compareMain(const std::string &oldPath, const std::string &newPath) {
  std::string oldText, newText, error;
  if (!frontend::readSourceText(oldPath, oldText, error) || !frontend::readSourceText(newPath, newText, error)) {
    std::cerr << "Tensorium_abi_probe: error: cannot read manifest: " << error << "\n";
    return 3;
  }
  tensorium_abi_probe::ManifestComparison comparison;
  try {
    comparison = tensorium_abi_probe::compareManifests(oldText, newText);
  } catch (const std::invalid_argument &e) {
    std::cerr << "Tensorium_abi_probe: error: " << e.what() << "\n";
    return 3;
  }
  for (const tensorium_abi_probe::ManifestChange &c : comparison.changes)
    std::cout << tensorium_abi_probe::changeClassName(c.kind) << ": " << c.where << ": " << c.what << "\n";
  std::cout << "ABI comparison: " << tensorium_abi_probe::changeClassName(comparison.overall) << " ("
            << comparison.changes.size() << " difference" << (comparison.changes.size() == 1 ? "" : "s") << ")\n";
  return static_cast<int>(comparison.overall);
}

/// Whether `dir` is the root of a project: it holds .git, or a CMakeLists.txt that declares a
/// project().
bool isProjectRoot(const std::filesystem::path &dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir / ".git", ec))
    return true;
  std::ifstream cmake(dir / "CMakeLists.txt");
  std::string line;
  while (std::getline(cmake, line))
    if (line.find("project(") != std::string::npos && line.find('#') == std::string::npos)
      return true;
  return false;
}

/// The name a manifest records for a program: its path relative to the project it lies in (the
/// nearest folder above it that isProjectRoot), else to the current folder, so that manifests
/// made from different folders name the same program alike.
std::string manifestName(const std::string &path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path absolute = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec)
    return path;
  for (fs::path dir = absolute.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (isProjectRoot(dir))
      return absolute.lexically_relative(dir).generic_string();
    if (dir == dir.root_path())
      break;
  }
  const fs::path relative = absolute.lexically_relative(fs::current_path(ec));
  return ec || relative.empty() ? path : relative.generic_string();
}

int manifestMain(const std::vector<std::string> &inputs, const std::string &checkAgainst, const std::string &symbolPrefix) {
  std::ostringstream manifest;
  manifest << "# Tensorium generated-kernel ABI manifest. Regenerate with tools/update-abi-manifest.sh\n"
           << "# only together with a change of kABIVersion; CI compares it with the compiler's output.\n"
           << "abi_version " << kABIVersion << "\n";
  printTableLayouts(manifest);
  for (const std::string &entry : inputs) {
    // "symbolic:path" selects symbolic mode for that fixture.
    codegen::CompileOptions options;
    options.symbolPrefix = symbolPrefix;
    std::string path = entry;
    if (entry.rfind("symbolic:", 0) == 0) {
      options.codegen.symbolic = true;
      path = entry.substr(9);
    }
    HostModuleABI abi;
    if (!compileToABI(path, options, abi))
      return 1;
    printManifestModule((options.codegen.symbolic ? "symbolic:" : "") + manifestName(path), abi, manifest);
  }
  if (checkAgainst.empty()) {
    std::cout << manifest.str();
    return 0;
  }
  // The committed manifest must be a readable regular file holding exactly one well-formed
  // "abi_version N" line; anything else fails the gate (status 2) with the reason.
  std::string committedText, error;
  if (!frontend::readSourceText(checkAgainst, committedText, error)) {
    std::cerr << "ABI gate: error: cannot read manifest '" << checkAgainst << "': " << error << "\n";
    return 2;
  }
  if (committedText == manifest.str()) {
    std::cout << "ABI gate: generated ABI matches " << checkAgainst << " (version " << kABIVersion << ")\n";
    return 0;
  }
  std::vector<std::string> expected = splitLines(committedText), actual = splitLines(manifest.str());
  long committedVersion = -1;
  try {
    committedVersion = tensorium_abi_probe::manifestVersion(committedText, "manifest '" + checkAgainst + "'");
  } catch (const std::invalid_argument &e) {
    std::cerr << "ABI gate: error: " << e.what() << "\n";
    return 2;
  }
  if (committedVersion != kABIVersion) {
    std::cerr << "ABI gate: the manifest records ABI version " << committedVersion << " but the compiler implements "
              << kABIVersion << ": regenerate it with tools/update-abi-manifest.sh and commit it together with the "
              << "version change\n";
    return 1;
  }
  // The line-by-line difference is quadratic: only for manifests of a sane length.
  if (expected.size() > 20000) {
    std::cerr << "ABI gate: the generated ABI differs from " << checkAgainst << " (" << expected.size()
              << " committed lines: too many to show the difference)\n";
    return 1;
  }
  std::ostringstream diff;
  size_t differences = printDifference(expected, actual, diff);
  tensorium_abi_probe::ManifestComparison comparison;
  try {
    comparison = tensorium_abi_probe::compareManifests(committedText, manifest.str());
  } catch (const std::invalid_argument &e) {
    std::cerr << "ABI gate: error: " << e.what() << "\n";
    return 2;
  }
  for (const tensorium_abi_probe::ManifestChange &c : comparison.changes)
    std::cerr << "ABI gate: " << tensorium_abi_probe::changeClassName(c.kind) << ": " << c.where << ": " << c.what
              << "\n";
  if (comparison.overall == tensorium_abi_probe::ChangeClass::Additive) {
    std::cerr << "ABI gate: every difference from " << checkAgainst << " is additive (existing callers keep working): "
              << "regenerate the manifest with tools/update-abi-manifest.sh and commit it; kABIVersion stays "
              << kABIVersion << ".\n"
              << differences << " differing lines (- committed, + generated):\n"
              << diff.str();
    return 1;
  }
  std::cerr << "ABI gate: the generated ABI differs from " << checkAgainst << " but the ABI version is still "
            << kABIVersion << ".\n"
            << "Either restore the ABI or bump kABIVersion in GeneratedKernelABI.h and run "
               "tools/update-abi-manifest.sh.\n"
            << differences << " differing lines (- committed, + generated):\n"
            << diff.str();
  return 1;
}

} // namespace

int probeMain(int argc, char **argv) {
  std::string input;
  bool asJson = false, manifest = false, compare = false;
  std::string checkManifest;
  std::vector<std::string> inputs;
  codegen::CompileOptions options;
  tensorium_cli::CommandLine cli("Tensorium_abi_probe",
                                 "[options] <file.tn>  |  --manifest [symbolic:]<file.tn>...  |  --compare OLD NEW");
  cli.operands("input", [&](const std::string &w) { inputs.push_back(w); }, 0, 4096)
      .group("one program: the host ABI contract of every kernel it lowers to")
      .flag("--json", "as JSON", [&] { asJson = true; })
      .option("--mode", "M", "executable (default) or symbolic",
              [&](const std::string &m) {
                if (m != "symbolic" && m != "executable")
                  throw tensorium_cli::UsageError("'--mode' expects symbolic or executable");
                options.codegen.symbolic = m == "symbolic";
              })
      .option("--symbol-prefix", "NAME", "describe the module as Tensorium_cc --symbol-prefix NAME exports it",
              [&](const std::string &v) {
                if (std::string problem = symbolPrefixProblem(v); !problem.empty())
                  throw tensorium_cli::UsageError("invalid value '" + v + "' for '--symbol-prefix': " + problem);
                options.symbolPrefix = v;
              })
      .group("the ABI manifest of several programs")
      .flag("--manifest", "print it ([symbolic:]<file.tn>... select the mode per program)", [&] { manifest = true; })
      .option("--check-manifest", "FILE", "compare it with a committed manifest (the ABI gate)",
              [&](const std::string &v) {
                manifest = true;
                checkManifest = v;
              })
      .flag("--compare", "classify every difference of two manifests OLD NEW as additive or breaking",
            [&] { compare = true; })
      .notes("Exit status: 0 valid (--compare: same), 1 invalid or a failed gate (--compare: additive),\n"
             "2 bad arguments (--compare: breaking), 3 --compare given bad input.");
  try {
    if (!cli.parse(argc, argv, std::cout))
      return 0;
    if (compare && inputs.size() != 2)
      throw tensorium_cli::UsageError("--compare needs OLD.manifest NEW.manifest");
    if (compare && manifest)
      throw tensorium_cli::UsageError("--compare and --manifest are separate uses");
    if (!manifest && !compare && inputs.size() > 1)
      throw tensorium_cli::UsageError("more than one input file (several go with --manifest)");
  } catch (const tensorium_cli::UsageError &e) {
    // Under --compare, 2 means "breaking": a usage mistake there is bad input (3).
    const int status = cli.usageError(e.what(), std::cerr);
    return compare ? 3 : status;
  }
  if (compare)
    return compareMain(inputs[0], inputs[1]);
  if (!inputs.empty() && !manifest)
    input = inputs[0];
  std::vector<std::string> manifestInputs = manifest ? inputs : std::vector<std::string>();
  if (manifest) {
    if (manifestInputs.empty())
      return cli.usageError("no input file", std::cerr);
    return manifestMain(manifestInputs, checkManifest, options.symbolPrefix);
  }
  if (input.empty())
    return cli.usageError("no input file", std::cerr);
  std::string text, error;
  if (!frontend::readSourceText(input, text, error)) {
    std::cerr << "Tensorium_abi_probe: error: cannot read '" << input << "': " << error << "\n";
    return tensorium_cli::kUsageExit;
  }
  frontend::SourceManager sources(input, text);
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

int main(int argc, char **argv) { return tensorium_cli::runWithLargeStack(probeMain, argc, argv); }
