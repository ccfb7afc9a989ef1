#include "tensorium_mlir/HostABI/HostHeader.h"
#include "tensorium_mlir/Target/MLIRGen/GeneratedKernelABI.h"

#include <set>
#include <sstream>

namespace tensorium_mlir::abi {

namespace {

// The text of include/tensorium_mlir/Runtime/HostABITypes.h, embedded at build time.
#include "HostABITypesText.inc"

const std::set<std::string> &cKeywords() {
  static const std::set<std::string> words{
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
      "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
      "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
      "volatile", "while", "bool", "true", "false", "class", "new", "delete", "this", "template",
      "typename", "namespace", "operator", "private", "protected", "public", "try", "catch", "throw",
      "virtual", "friend", "using", "asm", "mutable", "explicit", "export", "and", "or", "not", "xor"};
  return words;
}

/// A C identifier for an argument, unique within one prototype.
std::string argIdentifier(const std::string &name, std::set<std::string> &used) {
  std::string id;
  for (char c : name)
    id.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])))
    id.insert(id.begin(), 'a');
  if (cKeywords().count(id))
    id += '_';
  std::string base = id;
  for (int i = 2; used.count(id); ++i)
    id = base + "_" + std::to_string(i);
  used.insert(id);
  return id;
}

std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

bool isGridKernel(const HostKernelABI &k) {
  return isStencilGridKind(k.kind) || k.kind == kKindInitGridScf || k.kind == kKindInitGridAffine ||
         k.kind == kKindSpectralResidualGrid;
}

struct Prototype {
  std::vector<std::string> names; // per argument
};

Prototype namesFor(const HostKernelABI &k) {
  Prototype p;
  std::set<std::string> used;
  for (const HostArgABI &a : k.args)
    p.names.push_back(argIdentifier(a.name, used));
  return p;
}

const HostBufferABI *bufferAt(const HostKernelABI &k, size_t argIndex) {
  for (const HostBufferABI &b : k.buffers)
    if (b.argIndex == static_cast<int64_t>(argIndex))
      return &b;
  return nullptr;
}

std::string shortName(const std::string &symbol) {
  return symbol.rfind(kSymbolPrefix, 0) == 0 ? symbol.substr(kSymbolPrefix.size()) : symbol;
}

} // namespace

std::string emitHostHeader(const HostModuleABI &abi, const std::string &sourceName) {
  std::ostringstream os;
  os << "/* Host interface of the Tensorium kernels generated from " << sourceName << ".\n"
     << " * Generated kernel ABI v" << abi.version << "; regenerate instead of editing. */\n"
     << "#ifndef TENSORIUM_GENERATED_HOST_H\n#define TENSORIUM_GENERATED_HOST_H\n\n"
     << "#include <stddef.h>\n#include <stdint.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "#if defined(__GNUC__) || defined(__clang__)\n#define TENSORIUM_MAYBE_UNUSED __attribute__((unused))\n"
     << "#else\n#define TENSORIUM_MAYBE_UNUSED\n#endif\n\n"
     << "#define TENSORIUM_ABI_VERSION " << abi.version << "\n"
     << "#define TENSORIUM_DIMENSION " << abi.simulation.dimension << "\n"
     << "#define TENSORIUM_SPATIAL_ORDER " << abi.simulation.order << "\n"
     << "#define TENSORIUM_SCHEME_" << (abi.simulation.scheme == "spectral" ? "SPECTRAL" : "FD") << " 1\n\n";

  os << kHostABITypesText << "\n";

  // Module parameters (every kernel takes the non-folded ones in this order).
  std::vector<std::string> params;
  for (const HostKernelABI &k : abi.kernels)
    if (k.paramNames.size() > params.size())
      params = k.paramNames;
  os << "#define TENSORIUM_PARAM_COUNT " << params.size() << "\n";
  os << "static const char *const tensorium_param_names[" << (params.empty() ? 1 : params.size())
     << "] TENSORIUM_MAYBE_UNUSED = {";
  if (params.empty())
    os << "NULL";
  for (size_t i = 0; i < params.size(); ++i)
    os << (i ? ", " : "") << quoted(params[i]);
  os << "};\n\n";

  // Raw prototypes.
  os << "/* Raw lowered prototypes: each memref is (allocated, aligned, offset, size, stride). */\n";
  for (const HostKernelABI &k : abi.kernels) {
    Prototype p = namesFor(k);
    os << "extern " << (k.returnsF64 ? "double " : "void ") << k.symbol << "(";
    bool first = true;
    for (size_t i = 0; i < k.args.size(); ++i) {
      const HostArgABI &a = k.args[i];
      const std::string &n = p.names[i];
      auto sep = [&]() -> std::ostream & {
        if (!first)
          os << ",";
        first = false;
        return os << "\n    ";
      };
      switch (a.kind) {
      case HostArgKind::Index: sep() << "int64_t " << n; break;
      case HostArgKind::F64: sep() << "double " << n; break;
      default:
        sep() << "double *" << n << "_allocated, double *" << n << "_aligned, int64_t " << n << "_offset, int64_t "
              << n << "_size, int64_t " << n << "_stride";
        break;
      }
    }
    if (first)
      os << "void";
    os << ");\n";
  }
  os << "\n";

  // Convenience wrappers: plain double* buffers sized from ABI metadata.
  os << "/* Convenience wrappers: plain buffers, descriptor sizes from the ABI metadata\n"
     << " * (component_count * n_points per buffer, SoA component-major). */\n";
  for (const HostKernelABI &k : abi.kernels) {
    if (k.returnsF64)
      continue; // point residuals take plain doubles already
    Prototype p = namesFor(k);
    const bool stencil = isStencilGridKind(k.kind);
    const bool flatGrid = k.kind == kKindInitGridScf || k.kind == kKindInitGridAffine;
    os << "static inline void tensorium_call_" << shortName(k.symbol) << "(";
    bool first = true;
    auto param = [&](const std::string &decl) {
      os << (first ? "" : ", ") << decl;
      first = false;
    };
    if (flatGrid)
      param("int64_t tensorium_points");
    for (size_t i = 0; i < k.args.size(); ++i) {
      const HostArgABI &a = k.args[i];
      if (a.kind == HostArgKind::Index)
        param("int64_t " + p.names[i]);
      else if (a.kind == HostArgKind::F64)
        param("double " + p.names[i]);
      else
        param(std::string(bufferAt(k, i) && bufferAt(k, i)->access == HostBufferAccess::Read ? "const double *" : "double *") +
              p.names[i]);
    }
    if (first)
      os << "void";
    os << ") {\n";
    // The local is prefixed so it cannot clash with a parameter or buffer name.
    if (stencil)
      os << "  const int64_t tensorium_points = " << p.names[0] << " * " << p.names[1] << " * " << p.names[2] << ";\n";
    else if (k.kind == kKindSpectralResidualGrid)
      os << "  const int64_t tensorium_points = " << p.names[0] << ";\n";
    os << "  " << k.symbol << "(";
    first = true;
    for (size_t i = 0; i < k.args.size(); ++i) {
      const HostArgABI &a = k.args[i];
      os << (first ? "" : ", ");
      first = false;
      if (a.kind == HostArgKind::Index || a.kind == HostArgKind::F64) {
        os << p.names[i];
        continue;
      }
      const HostBufferABI *b = bufferAt(k, i);
      unsigned comps = b ? b->componentCount : 1;
      std::string ptr = "(double *)" + p.names[i];
      std::string size = a.kind == HostArgKind::FixedMemref ? std::to_string(a.fixedSize)
                                                             : std::to_string(comps) + " * tensorium_points";
      os << ptr << ", " << ptr << ", 0, " << size << ", 1";
    }
    os << ");\n}\n\n";
  }

  // Descriptor tables (types come from the embedded HostABITypes.h block).
  size_t bufferCount = 0;
  for (const HostKernelABI &k : abi.kernels)
    bufferCount += k.buffers.size();
  os << "#define TENSORIUM_HOST_KERNEL_COUNT " << abi.kernels.size() << "\n";
  os << "static const tensorium_host_kernel_desc tensorium_host_kernels[" << std::max<size_t>(1, abi.kernels.size())
     << "] TENSORIUM_MAYBE_UNUSED = {\n";
  size_t firstBuffer = 0;
  for (const HostKernelABI &k : abi.kernels) {
    os << "  {" << quoted(k.symbol) << ", " << quoted(k.kind) << ", " << k.version << ", " << k.args.size() << ", "
       << k.paramNames.size() << ", " << firstBuffer << ", " << k.buffers.size() << ", "
       << (k.stencilRadius ? *k.stencilRadius : -1) << ", " << (k.residualKernel ? 1 : 0) << "},\n";
    firstBuffer += k.buffers.size();
  }
  if (abi.kernels.empty())
    os << "  {NULL, NULL, 0, 0, 0, 0, 0, -1, 0},\n";
  os << "};\n\n";
  os << "#define TENSORIUM_HOST_BUFFER_COUNT " << bufferCount << "\n";
  os << "static const tensorium_host_buffer_desc tensorium_host_buffers[" << std::max<size_t>(1, bufferCount)
     << "] TENSORIUM_MAYBE_UNUSED = {\n";
  for (size_t ki = 0; ki < abi.kernels.size(); ++ki)
    for (const HostBufferABI &b : abi.kernels[ki].buffers)
      os << "  {" << ki << ", " << quoted(b.name) << ", " << quoted(b.cName) << ", " << b.argIndex << ", "
         << static_cast<int>(b.role) << ", " << static_cast<int>(b.access) << ", " << b.rank << ", "
         << quoted(b.variance) << ", " << b.componentCount << "},\n";
  if (bufferCount == 0)
    os << "  {-1, NULL, NULL, -1, 0, 0, 0, NULL, 0},\n";
  os << "};\n\n";

  // Uniform adapters for grid kernels.
  std::vector<std::pair<size_t, std::string>> adapters;
  for (size_t ki = 0; ki < abi.kernels.size(); ++ki) {
    const HostKernelABI &k = abi.kernels[ki];
    if (!isGridKernel(k))
      continue;
    std::string fn = "tensorium_adapter_" + shortName(k.symbol);
    adapters.push_back({ki, fn});
    os << "static inline void " << fn << "(const int64_t *extents, const double *spacing, const double *params,\n"
       << "    double *const *buffers, const int64_t *buffer_sizes) {\n"
       << "  (void)extents;\n  (void)spacing;\n  (void)params;\n  (void)buffers;\n  (void)buffer_sizes;\n"
       << "  " << k.symbol << "(";
    size_t paramIndex = 0, bufferIndex = 0, extentIndex = 0, spacingIndex = 0;
    bool first = true;
    for (size_t i = 0; i < k.args.size(); ++i) {
      const HostArgABI &a = k.args[i];
      os << (first ? "" : ", ");
      first = false;
      if (a.kind == HostArgKind::Index) {
        os << "extents[" << extentIndex++ << "]";
      } else if (a.kind == HostArgKind::F64) {
        if (isStencilGridKind(k.kind) && spacingIndex < 3 && i >= 3 && i < 6)
          os << "spacing[" << spacingIndex++ << "]";
        else
          os << "params[" << paramIndex++ << "]";
      } else {
        os << "buffers[" << bufferIndex << "], buffers[" << bufferIndex << "], 0, buffer_sizes[" << bufferIndex
           << "], 1";
        ++bufferIndex;
      }
    }
    os << ");\n}\n\n";
  }
  os << "#define TENSORIUM_HOST_KERNEL_ADAPTER_COUNT " << adapters.size() << "\n";
  os << "static const tensorium_host_kernel_adapter tensorium_host_kernel_adapters[" << std::max<size_t>(1, adapters.size())
     << "] TENSORIUM_MAYBE_UNUSED = {\n";
  for (auto &[ki, fn] : adapters)
    os << "  {" << quoted(abi.kernels[ki].symbol) << ", " << ki << ", " << fn << "},\n";
  if (adapters.empty())
    os << "  {NULL, -1, NULL},\n";
  os << "};\n\n";
  os << "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* TENSORIUM_GENERATED_HOST_H */\n";
  return os.str();
}

} // namespace tensorium_mlir::abi
