#include "tensorium_mlir/HostABI/HostHeader.h"
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <set>
#include <sstream>

namespace tensorium_mlir::abi {

namespace {

// The text of include/tensorium_mlir/Runtime/HostABITypes.h, embedded at build time.
#include "HostABITypesText.inc"
// The text of include/tensorium_mlir/Runtime/SpectralProblemTypes.h (modules with problems only).
#include "SpectralProblemTypesText.inc"
// The text of include/tensorium_mlir/Runtime/EvolutionBoundaryTypes.h (modules declaring
// evolution boundaries only).
#include "EvolutionBoundaryTypesText.inc"

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

std::string quoted(const std::string &s) { return quotedLiteral(s); }

bool isGridKernel(const HostKernelABI &k) {
  return isStencilGridKind(k.kind) || isFlatPointGridKind(k.kind) ||
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

/// The kernel's v3 symbol without "tensorium_" (rhs_grid_affine), for the names of its wrappers.
std::string shortName(const std::string &symbol) {
  const std::string canonical(canonicalSymbol(symbol));
  return canonical.rfind(kSymbolPrefix, 0) == 0 ? canonical.substr(kSymbolPrefix.size()) : canonical;
}

std::string argIdentifierPlain(const std::string &name) {
  std::set<std::string> used;
  return argIdentifier(name, used);
}

void emitNameArray(std::ostream &os, const std::string &name, const std::vector<std::string> &items) {
  os << "static const char *const " << name << "[" << std::max<size_t>(1, items.size()) << "] TENSORIUM_MAYBE_UNUSED = {";
  if (items.empty())
    os << "NULL";
  for (size_t i = 0; i < items.size(); ++i)
    os << (i ? ", " : "") << quoted(items[i]);
  os << "};\n";
}

void emitIntArray(std::ostream &os, const std::string &name, const std::vector<int> &items) {
  os << "static const int32_t " << name << "[" << std::max<size_t>(1, items.size()) << "] TENSORIUM_MAYBE_UNUSED = {";
  if (items.empty())
    os << "0";
  for (size_t i = 0; i < items.size(); ++i)
    os << (i ? ", " : "") << items[i];
  os << "};\n";
}

/// The residual systems in table order: constraint blocks by their first spectral point kernel.
std::vector<std::string> spectralSystemBlocks(const HostModuleABI &abi) {
  std::vector<std::string> blocks;
  for (const HostKernelABI &k : abi.kernels)
    if (k.kind == kKindSpectralResidual && std::find(blocks.begin(), blocks.end(), k.constraintBlock) == blocks.end())
      blocks.push_back(k.constraintBlock);
  return blocks;
}

/// Point, JVP and grid adapters from the callback ABI to the generated spectral kernels, and
/// the kernel, grid-kernel and system tables.
void emitSpectralTables(const HostModuleABI &abi, std::ostream &os) {
  std::vector<const HostKernelABI *> points, grids;
  std::map<std::string, const HostKernelABI *> jvps;
  for (const HostKernelABI &k : abi.kernels) {
    if (k.kind == kKindSpectralResidual)
      points.push_back(&k);
    else if (k.kind == kKindSpectralResidualGrid)
      grids.push_back(&k);
    else if (k.kind == kKindSpectralResidualJvp)
      jvps[std::string(canonicalSymbol(k.symbol).substr(kSymbolSpectralResidualJvpPrefix.size()))] = &k;
  }
  auto residualOf = [](const HostKernelABI &k, std::string_view prefix) {
    return std::string(canonicalSymbol(k.symbol).substr(prefix.size()));
  };
  auto bundleArgs = [&](const std::string &point, size_t auxCount) {
    std::string a = point + "->value, " + point + "->d[0], " + point + "->d[1], " + point + "->d[2]";
    for (int s = 0; s < 6; ++s)
      a += ", " + point + "->dd[" + std::to_string(s) + "]";
    for (size_t k = 0; k < auxCount; ++k)
      for (int s = 0; s < kSpectralBundleSize; ++s)
        a += ", " + point + "->aux_derivatives[" + std::to_string(k * kSpectralBundleSize + s) + "]";
    return a;
  };
  auto paramArgs = [](size_t count) {
    std::string a;
    for (size_t i = 0; i < count; ++i)
      a += ", params[" + std::to_string(i) + "]";
    return a;
  };

  os << "/* Spectral residual callbacks: tensorium_spectral_residual_point -> generated point kernels. */\n";
  for (const HostKernelABI *k : points) {
    std::string r = residualOf(*k, kSymbolSpectralResidualPrefix);
    std::string id = argIdentifierPlain(r);
    emitNameArray(os, "tensorium_spectral_fields_" + id, k->fieldNames);
    size_t aux = k->fieldNames.empty() ? 0 : k->fieldNames.size() - 1;
    os << "static inline double tensorium_spectral_point_" << id
       << "(const tensorium_spectral_residual_point *point, const double *params, void *user_data) {\n"
       << "  (void)params;\n  (void)user_data;\n  return " << k->symbol << "(" << bundleArgs("point", aux)
       << ", point->physical[0], point->physical[1], point->physical[2]" << paramArgs(k->paramNames.size())
       << ");\n}\n";
    if (jvps.count(r))
      os << "static inline double tensorium_spectral_jvp_" << id
         << "(const tensorium_spectral_residual_point *point, const tensorium_spectral_residual_point *direction,\n"
         << "    const double *params, void *user_data) {\n  (void)params;\n  (void)user_data;\n  return "
         << jvps[r]->symbol << "(" << bundleArgs("point", aux) << ", " << bundleArgs("direction", aux)
         << ", point->physical[0], point->physical[1], point->physical[2]" << paramArgs(k->paramNames.size())
         << ");\n}\n";
  }
  os << "#define TENSORIUM_SPECTRAL_RESIDUAL_KERNEL_COUNT " << points.size() << "\n";
  os << "static const tensorium_spectral_residual_kernel_desc tensorium_spectral_residual_kernels["
     << std::max<size_t>(1, points.size()) << "] TENSORIUM_MAYBE_UNUSED = {\n";
  for (const HostKernelABI *k : points) {
    std::string r = residualOf(*k, kSymbolSpectralResidualPrefix);
    std::string id = argIdentifierPlain(r);
    bool jvp = jvps.count(r) != 0;
    os << "  {" << quoted(r) << ", " << quoted(k->symbol) << ", " << (jvp ? quoted(jvps[r]->symbol) : "NULL") << ", "
       << k->fieldNames.size() << ", tensorium_spectral_fields_" << id << ", " << k->paramNames.size()
       << ", tensorium_param_names, tensorium_spectral_point_" << id << ", "
       << (jvp ? "tensorium_spectral_jvp_" + id : std::string("NULL")) << "},\n";
  }
  if (points.empty())
    os << "  {NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, NULL},\n";
  os << "};\n\n";

  for (const HostKernelABI *k : grids) {
    std::string id = argIdentifierPlain(residualOf(*k, kSymbolSpectralResidualGridPrefix));
    os << "static inline void tensorium_spectral_grid_" << id
       << "(int64_t n_points, const double *params,\n    const tensorium_spectral_residual_derivative_fields *fields, "
          "const double *const *coordinates, double *residual_out) {\n  (void)params;\n  "
       << k->symbol << "(n_points" << paramArgs(k->paramNames.size());
    auto memref = [](const std::string &ptr) {
      return ", (double *)" + ptr + ", (double *)" + ptr + ", 0, n_points, 1";
    };
    for (size_t f = 0; f < k->fieldNames.size(); ++f)
      for (int sl = 0; sl < kSpectralBundleSize; ++sl)
        os << memref("fields[" + std::to_string(f) + "].slot[" + std::to_string(sl) + "]");
    for (int c = 0; c < 3; ++c)
      os << memref("coordinates[" + std::to_string(c) + "]");
    os << memref("residual_out") << ");\n}\n";
  }
  os << "#define TENSORIUM_SPECTRAL_RESIDUAL_GRID_KERNEL_COUNT " << grids.size() << "\n";
  os << "static const tensorium_spectral_residual_grid_kernel_desc tensorium_spectral_residual_grid_kernels["
     << std::max<size_t>(1, grids.size()) << "] TENSORIUM_MAYBE_UNUSED = {\n";
  for (const HostKernelABI *k : grids) {
    std::string r = residualOf(*k, kSymbolSpectralResidualGridPrefix);
    std::string id = argIdentifierPlain(r);
    os << "  {" << quoted(r) << ", " << quoted(k->symbol) << ", " << k->fieldNames.size()
       << ", tensorium_spectral_fields_" << id << ", " << k->paramNames.size() << ", tensorium_spectral_grid_" << id
       << "},\n";
  }
  if (grids.empty())
    os << "  {NULL, NULL, 0, NULL, 0, NULL},\n";
  os << "};\n\n";

  // Systems: one per constraints block, unknowns = primary unknowns in equation order.
  const std::vector<std::string> blocks = spectralSystemBlocks(abi);
  for (size_t b = 0; b < blocks.size(); ++b) {
    std::vector<std::string> unknowns, residuals, auxNames;
    std::vector<int> equationUnknown, pointIndex, gridIndex, auxOffset{0}, auxUnknown;
    for (size_t pi = 0; pi < points.size(); ++pi) {
      const HostKernelABI &k = *points[pi];
      if (k.constraintBlock != blocks[b] || k.fieldNames.empty())
        continue;
      if (std::find(unknowns.begin(), unknowns.end(), k.fieldNames[0]) == unknowns.end())
        unknowns.push_back(k.fieldNames[0]);
    }
    for (size_t pi = 0; pi < points.size(); ++pi) {
      const HostKernelABI &k = *points[pi];
      if (k.constraintBlock != blocks[b] || k.fieldNames.empty())
        continue;
      std::string r = residualOf(k, kSymbolSpectralResidualPrefix);
      residuals.push_back(r);
      equationUnknown.push_back(static_cast<int>(std::find(unknowns.begin(), unknowns.end(), k.fieldNames[0]) - unknowns.begin()));
      pointIndex.push_back(static_cast<int>(pi));
      int g = -1;
      for (size_t gi = 0; gi < grids.size(); ++gi)
        if (residualOf(*grids[gi], kSymbolSpectralResidualGridPrefix) == r)
          g = static_cast<int>(gi);
      gridIndex.push_back(g);
      for (size_t f = 1; f < k.fieldNames.size(); ++f) {
        auxNames.push_back(k.fieldNames[f]);
        auto it = std::find(unknowns.begin(), unknowns.end(), k.fieldNames[f]);
        auxUnknown.push_back(it == unknowns.end() ? -1 : static_cast<int>(it - unknowns.begin()));
      }
      auxOffset.push_back(static_cast<int>(auxNames.size()));
    }
    std::string id = std::to_string(b);
    emitNameArray(os, "tensorium_spectral_system" + id + "_unknowns", unknowns);
    emitNameArray(os, "tensorium_spectral_system" + id + "_residuals", residuals);
    emitIntArray(os, "tensorium_spectral_system" + id + "_equation_unknown", equationUnknown);
    emitIntArray(os, "tensorium_spectral_system" + id + "_point_kernel", pointIndex);
    emitIntArray(os, "tensorium_spectral_system" + id + "_grid_kernel", gridIndex);
    emitIntArray(os, "tensorium_spectral_system" + id + "_aux_offset", auxOffset);
    emitNameArray(os, "tensorium_spectral_system" + id + "_aux_fields", auxNames);
    emitIntArray(os, "tensorium_spectral_system" + id + "_aux_unknown", auxUnknown);
  }
  os << "#define TENSORIUM_SPECTRAL_RESIDUAL_SYSTEM_COUNT " << blocks.size() << "\n";
  os << "static const tensorium_spectral_residual_system_desc tensorium_spectral_residual_systems["
     << std::max<size_t>(1, blocks.size()) << "] TENSORIUM_MAYBE_UNUSED = {\n";
  for (size_t b = 0; b < blocks.size(); ++b) {
    std::string p = "tensorium_spectral_system" + std::to_string(b);
    size_t unknownCount = 0, equationCount = 0;
    for (const HostKernelABI *k : points)
      if (k->constraintBlock == blocks[b])
        ++equationCount;
    std::vector<std::string> seen;
    for (const HostKernelABI *k : points)
      if (k->constraintBlock == blocks[b] && !k->fieldNames.empty() &&
          std::find(seen.begin(), seen.end(), k->fieldNames[0]) == seen.end())
        seen.push_back(k->fieldNames[0]);
    unknownCount = seen.size();
    os << "  {" << quoted(blocks[b]) << ", " << unknownCount << ", " << p << "_unknowns, " << equationCount << ", " << p
       << "_residuals, " << p << "_equation_unknown, " << p << "_point_kernel, " << p << "_grid_kernel, "
       << (points.empty() ? 0 : points[0]->paramNames.size()) << ", tensorium_param_names, " << p << "_aux_offset, " << p
       << "_aux_fields, " << p << "_aux_unknown},\n";
  }
  if (blocks.empty())
    os << "  {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL},\n";
  os << "};\n\n";
}

/// A double as a C literal that reads back exactly (shortest round trip, always with a point or
/// an exponent).
std::string number(double v) {
  char buf[64];
  auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  std::string t(buf, end);
  if (t.find_first_of(".eEn") == std::string::npos)
    t += ".0";
  return t;
}

/// Boundary conditions of evolved fields: the embedded type block and one descriptor per
/// condition. Nothing at all when the module declares none (its header stays as it was).
void emitEvolutionBoundaries(const HostModuleABI &abi, std::ostream &os) {
  if (abi.evolutionBoundaries.empty())
    return;
  os << kEvolutionBoundaryTypesText << "\n";
  os << "#define TENSORIUM_EVOLUTION_BOUNDARY_COUNT " << abi.evolutionBoundaries.size() << "\n";
  os << "static const tensorium_evolution_boundary_desc tensorium_evolution_boundaries["
     << abi.evolutionBoundaries.size() << "] TENSORIUM_MAYBE_UNUSED = {\n";
  for (const HostEvolutionBoundaryABI &b : abi.evolutionBoundaries)
    os << "  {(int32_t)sizeof(tensorium_evolution_boundary_desc), " << quoted(b.field) << ", " << quoted(b.kind) << ", "
       << number(b.value) << ", " << number(b.speed) << "},\n";
  os << "};\n\n";
  if (abi.systemParamDefaults.empty())
    return;
  const size_t n = abi.systemParamDefaults.size();
  os << "#define TENSORIUM_SYSTEM_PARAM_DEFAULT_COUNT " << n << "\n";
  os << "static const char *const tensorium_system_param_default_names[" << n << "] TENSORIUM_MAYBE_UNUSED = {";
  for (size_t i = 0; i < n; ++i)
    os << (i ? ", " : "") << quoted(abi.systemParamDefaults[i].first);
  os << "};\n";
  os << "static const double tensorium_system_param_default_values[" << n << "] TENSORIUM_MAYBE_UNUSED = {";
  for (size_t i = 0; i < n; ++i)
    os << (i ? ", " : "") << number(abi.systemParamDefaults[i].second);
  os << "};\n\n";
}

/// Declared elliptic problems: the embedded type block and one descriptor per problem. Nothing
/// at all when the module declares none (its header stays as it was).
void emitSpectralProblems(const HostModuleABI &abi, std::ostream &os) {
  if (abi.spectralProblems.empty())
    return;
  os << kSpectralProblemTypesText << "\n";
  const std::vector<std::string> blocks = spectralSystemBlocks(abi);
  auto kernelIndex = [&](const std::string &symbol) {
    for (size_t i = 0; i < abi.kernels.size(); ++i)
      if (abi.kernels[i].symbol == symbol)
        return static_cast<int>(i);
    return -1;
  };
  for (size_t pi = 0; pi < abi.spectralProblems.size(); ++pi) {
    const HostSpectralProblemABI &p = abi.spectralProblems[pi];
    const std::string id = "tensorium_spectral_problem" + std::to_string(pi);
    emitNameArray(os, id + "_unknowns", p.unknowns);
    std::vector<std::string> defaultNames;
    for (const auto &[name, value] : p.paramDefaults)
      defaultNames.push_back(name);
    emitNameArray(os, id + "_default_names", defaultNames);
    os << "static const double " << id << "_default_values[" << std::max<size_t>(1, p.paramDefaults.size())
       << "] TENSORIUM_MAYBE_UNUSED = {";
    for (size_t i = 0; i < p.paramDefaults.size(); ++i)
      os << (i ? ", " : "") << number(p.paramDefaults[i].second);
    os << (p.paramDefaults.empty() ? "0.0" : "") << "};\n";
    os << "static const tensorium_spectral_boundary_desc " << id << "_boundaries[" << std::max<size_t>(1, p.boundaries.size())
       << "] TENSORIUM_MAYBE_UNUSED = {\n";
    for (const HostSpectralBoundaryABI &b : p.boundaries) {
      auto u = std::find(p.unknowns.begin(), p.unknowns.end(), b.unknown);
      os << "  {" << quoted(b.unknown) << ", " << (u == p.unknowns.end() ? -1 : static_cast<int>(u - p.unknowns.begin()))
         << ", " << quoted(b.face) << ", " << b.axis << ", " << b.side << ", " << quoted(b.kind) << ", "
         << quoted(b.kernel) << ", " << kernelIndex(b.kernel) << "},\n";
    }
    if (p.boundaries.empty())
      os << "  {NULL, -1, NULL, 0, 0, NULL, NULL, -1},\n";
    os << "};\n";
  }
  os << "#define TENSORIUM_SPECTRAL_PROBLEM_COUNT " << abi.spectralProblems.size() << "\n";
  os << "static const tensorium_spectral_problem_desc tensorium_spectral_problems[" << abi.spectralProblems.size()
     << "] TENSORIUM_MAYBE_UNUSED = {\n";
  for (size_t pi = 0; pi < abi.spectralProblems.size(); ++pi) {
    const HostSpectralProblemABI &p = abi.spectralProblems[pi];
    const std::string id = "tensorium_spectral_problem" + std::to_string(pi);
    auto sys = std::find(blocks.begin(), blocks.end(), p.block);
    os << "  {(int32_t)sizeof(tensorium_spectral_problem_desc), " << quoted(p.block) << ", "
       << (sys == blocks.end() ? -1 : static_cast<int>(sys - blocks.begin())) << ", " << quoted(p.map) << ", {";
    for (size_t a = 0; a < 3; ++a)
      os << (a ? ", " : "") << (a < p.resolution.size() ? p.resolution[a] : 0);
    os << "}, {";
    for (size_t a = 0; a < 6; ++a)
      os << (a ? ", " : "") << number(a < p.bounds.size() ? p.bounds[a] : 0.0);
    os << "}, " << p.unknowns.size() << ", " << id << "_unknowns, " << p.boundaries.size() << ", " << id << "_boundaries, "
       << number(p.tolerance) << ", " << p.maxIterations << ", " << quoted(p.linear) << ", " << p.restart << ", "
       << quoted(p.preconditioner) << ", " << (p.lineSearch ? 1 : 0) << ", " << number(p.forcing) << ", "
       << p.paramDefaults.size() << ", " << id << "_default_names, " << id << "_default_values},\n";
  }
  os << "};\n\n";
}

} // namespace

std::string quotedLiteral(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

namespace {

bool identifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// Calls `visit(begin, end)` for each identifier of C text outside comments and string or
/// character literals.
template <typename Visit> void forEachCodeIdentifier(std::string_view text, Visit visit) {
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 2;
    } else if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      i = i == std::string_view::npos ? text.size() : i;
    } else if (c == '"' || c == '\'') {
      for (++i; i < text.size() && text[i] != c; ++i)
        if (text[i] == '\\')
          ++i;
      ++i;
    } else if (identifierStart(c)) {
      size_t end = i;
      while (end < text.size() && identifierChar(text[end]))
        ++end;
      visit(i, end);
      i = end;
    } else {
      ++i;
    }
  }
}

/// The names the shared ABI type blocks declare: every module header repeats those blocks under
/// one include guard, so they keep their v3 names in a prefixed module.
const std::set<std::string, std::less<>> &sharedTypeNames() {
  static const std::set<std::string, std::less<>> names = [] {
    std::set<std::string, std::less<>> out{"TENSORIUM_MAYBE_UNUSED"};
    for (std::string_view text : {std::string_view(kHostABITypesText), std::string_view(kSpectralProblemTypesText),
                                  std::string_view(kEvolutionBoundaryTypesText)})
      forEachCodeIdentifier(text, [&](size_t b, size_t e) { out.insert(std::string(text.substr(b, e - b))); });
    return out;
  }();
  return names;
}

std::string upperCase(const std::string &s) {
  std::string upper;
  for (char c : s)
    upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  return upper;
}

/// `header` with every name the module declares (tensorium_* and TENSORIUM_* outside the
/// shared type blocks: tables, wrappers, macros, the include guard) moved under `prefix`.
/// String literals are left as they are: the symbol names in the tables already carry it.
std::string prefixModuleNames(const std::string &header, const std::string &prefix) {
  const std::string upper = upperCase(prefix);
  std::string out;
  size_t copied = 0;
  forEachCodeIdentifier(header, [&](size_t b, size_t e) {
    const std::string_view id = std::string_view(header).substr(b, e - b);
    const bool lower = id.rfind("tensorium_", 0) == 0, macro = id.rfind("TENSORIUM_", 0) == 0;
    if ((!lower && !macro) || sharedTypeNames().count(id))
      return;
    out.append(header, copied, b - copied);
    out += (lower ? prefix : upper) + "_";
    copied = b;
  });
  out.append(header, copied, std::string::npos);
  return out;
}

} // namespace

std::string emitHostHeader(const HostModuleABI &abi, const std::string &sourceName) {
  std::ostringstream os;
  os << "/* Host interface of the Tensorium kernels generated from " << sourceName << ".\n"
     << " * Generated kernel ABI v" << abi.version << "; regenerate instead of editing."
     << (abi.symbolPrefix.empty() ? std::string()
                                  : "\n * Every name of this module is under the symbol prefix " + abi.symbolPrefix + "_ (" +
                                        upperCase(abi.symbolPrefix) + "_ for macros); the shared ABI types are not.")
     << " */\n"
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
    const bool flatGrid = isFlatPointGridKind(k.kind);
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
  emitSpectralTables(abi, os);
  emitSpectralProblems(abi, os);
  emitEvolutionBoundaries(abi, os);
  // The guard's closing comment is not code: name it here.
  const std::string guard = (abi.symbolPrefix.empty() ? "" : upperCase(abi.symbolPrefix) + "_") + "TENSORIUM_GENERATED_HOST_H";
  os << "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* " << guard << " */\n";
  return abi.symbolPrefix.empty() ? os.str() : prefixModuleNames(os.str(), abi.symbolPrefix);
}

} // namespace tensorium_mlir::abi
