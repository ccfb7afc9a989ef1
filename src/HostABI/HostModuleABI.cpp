#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"
#include "tensorium_mlir/HostABI/HostModuleABI.h"

#include <algorithm>
#include <set>

namespace tensorium_mlir::abi {

const char *hostBufferRoleName(HostBufferRole role) {
  switch (role) {
  case HostBufferRole::Coordinate: return "coordinate";
  case HostBufferRole::Field: return "field";
  case HostBufferRole::Output: return "output";
  }
  return "field";
}

const char *hostBufferAccessName(HostBufferAccess access) {
  switch (access) {
  case HostBufferAccess::None: return "none";
  case HostBufferAccess::Read: return "read";
  case HostBufferAccess::Write: return "write";
  case HostBufferAccess::ReadWrite: return "readwrite";
  }
  return "none";
}

void applySymbolPrefix(HostModuleABI &abi, const std::string &prefix) {
  abi.symbolPrefix = prefix;
  for (HostKernelABI &k : abi.kernels)
    k.symbol = prefixedSymbol(prefix, canonicalSymbol(k.symbol));
  for (HostSpectralProblemABI &p : abi.spectralProblems)
    for (HostSpectralBoundaryABI &b : p.boundaries)
      b.kernel = prefixedSymbol(prefix, canonicalSymbol(b.kernel));
}

const HostKernelABI *HostModuleABI::findKernel(const std::string &symbol) const {
  for (const HostKernelABI &k : kernels)
    if (k.symbol == symbol)
      return &k;
  return nullptr;
}

const HostFieldABI *HostModuleABI::findField(const std::string &name) const {
  for (const HostFieldABI &f : fields)
    if (f.name == name)
      return &f;
  return nullptr;
}

int64_t requiredBufferScalars(const HostBufferABI &buffer, int64_t nPoints) {
  return static_cast<int64_t>(buffer.componentCount) * nPoints;
}

bool isStencilGridKind(const std::string &kind) {
  return kind == kKindRhsGridScf || kind == kKindRhsGridAffine || kind == kKindRhsGridParallel ||
         kind == kKindResidualGridScf || kind == kKindResidualGridAffine || kind == kKindResidualGridParallel;
}

namespace {
int64_t power(int64_t base, unsigned e) {
  int64_t r = 1;
  for (unsigned i = 0; i < e; ++i)
    r *= base;
  return r;
}
} // namespace

std::vector<std::string> validateHostModuleABI(const HostModuleABI &abi) {
  std::vector<std::string> out;
  auto report = [&](const std::string &where, const std::string &what) { out.push_back(where + ": " + what); };
  if (abi.version != kABIVersion)
    report("module", "ABI version " + std::to_string(abi.version) + ", expected " + std::to_string(kABIVersion));
  const unsigned dim = abi.simulation.dimension;
  if (dim < 1 || dim > 3)
    report("module", "dimension " + std::to_string(dim) + " is not 1, 2 or 3");
  std::set<std::string> fieldNames;
  for (const HostFieldABI &f : abi.fields) {
    if (f.name.empty())
      report("module", "a field has an empty name");
    else if (!fieldNames.insert(f.name).second)
      report("field '" + f.name + "'", "declared twice");
    if (f.variance.size() != f.rank)
      report("field '" + f.name + "'", "variance '" + f.variance + "' does not match rank " + std::to_string(f.rank));
    int64_t expected = power(dim + (f.spacetime ? 1 : 0), f.rank);
    if (f.componentCount != expected)
      report("field '" + f.name + "'", "component count " + std::to_string(f.componentCount) +
                                            " inconsistent with rank " + std::to_string(f.rank) +
                                            " in dimension " + std::to_string(dim) + " (expected " +
                                            std::to_string(expected) + ")");
  }
  std::set<std::string> symbols;
  for (const HostKernelABI &k : abi.kernels) {
    const std::string where = "kernel '" + k.symbol + "'";
    if (k.symbol.empty())
      report("module", "a kernel has an empty symbol");
    else if (!symbols.insert(k.symbol).second)
      report(where, "symbol defined twice");
    if (canonicalSymbol(k.symbol).rfind(kSymbolPrefix, 0) != 0)
      report(where, "symbol does not start with '" + std::string(kSymbolPrefix) + "'");
    else if (symbolPrefixOf(k.symbol) != abi.symbolPrefix)
      report(where, abi.symbolPrefix.empty() ? "symbol has a prefix but the module has none"
                                             : "symbol lacks the module's prefix '" + abi.symbolPrefix + "'");
    if (k.version != kABIVersion)
      report(where, "ABI version " + std::to_string(k.version) + ", expected " + std::to_string(kABIVersion));
    if (k.kind.empty())
      report(where, "missing kind");
    if (k.memoryLayout != kMemoryLayoutSoAComponentMajor)
      report(where, "memory layout '" + k.memoryLayout + "', expected '" + std::string(kMemoryLayoutSoAComponentMajor) + "'");
    if (k.memrefABI != kMemrefABIStridedRank1F64)
      report(where, "memref ABI '" + k.memrefABI + "', expected '" + std::string(kMemrefABIStridedRank1F64) + "'");
    const int64_t argc = static_cast<int64_t>(k.args.size());
    auto checkIndices = [&](const std::vector<int64_t> &list, const char *what) {
      std::set<int64_t> seen;
      for (int64_t i : list) {
        if (i < 0 || i >= argc)
          report(where, std::string(what) + " argument index " + std::to_string(i) + " out of range (" +
                            std::to_string(argc) + " arguments)");
        else if (!seen.insert(i).second)
          report(where, std::string(what) + " argument index " + std::to_string(i) + " listed twice");
      }
    };
    checkIndices(k.readArgIndices, "read");
    checkIndices(k.writeArgIndices, "write");
    if (isStencilGridKind(k.kind)) {
      if (!k.stencilRadius)
        report(where, "missing stencil radius");
      else if (*k.stencilRadius < 0 || *k.stencilRadius > kMaxStencilRadius)
        report(where, "stencil radius " + std::to_string(*k.stencilRadius) + " outside [0, " +
                          std::to_string(kMaxStencilRadius) + "]");
    }
    std::set<int64_t> bufferArgs;
    std::set<std::string> bufferNames;
    for (const HostBufferABI &b : k.buffers) {
      const std::string bw = where + " buffer '" + b.name + "'";
      if (b.name.empty())
        report(where, "a buffer has an empty name");
      else if (!bufferNames.insert(b.name).second)
        report(bw, "name used twice");
      if (b.argIndex < 0 || b.argIndex >= argc) {
        report(bw, "argument index " + std::to_string(b.argIndex) + " out of range");
        continue;
      }
      if (!bufferArgs.insert(b.argIndex).second)
        report(bw, "argument index " + std::to_string(b.argIndex) + " reused by another buffer");
      HostArgKind kind = k.args[static_cast<size_t>(b.argIndex)].kind;
      if (kind != HostArgKind::Memref && kind != HostArgKind::FixedMemref)
        report(bw, "argument " + std::to_string(b.argIndex) + " is not a memref");
      bool read = std::find(k.readArgIndices.begin(), k.readArgIndices.end(), b.argIndex) != k.readArgIndices.end();
      bool written = std::find(k.writeArgIndices.begin(), k.writeArgIndices.end(), b.argIndex) != k.writeArgIndices.end();
      HostBufferAccess expected = read && written ? HostBufferAccess::ReadWrite
                                  : read          ? HostBufferAccess::Read
                                  : written       ? HostBufferAccess::Write
                                                  : HostBufferAccess::None;
      if (b.access != expected)
        report(bw, std::string("access '") + hostBufferAccessName(b.access) + "' contradicts the read/write indices ('" +
                       hostBufferAccessName(expected) + "')");
      if (b.role == HostBufferRole::Output && !written)
        report(bw, "output buffer is not written");
      if (b.componentCount == 0)
        report(bw, "component count is zero");
      else if (b.role != HostBufferRole::Coordinate && kind == HostArgKind::Memref) {
        bool spacetime = false;
        std::string base = b.name;
        const HostFieldABI *f = abi.findField(base);
        if (!f && base.size() > 1 && base.rfind(kDerivativeOutputPrefix, 0) == 0)
          f = abi.findField(base.substr(kDerivativeOutputPrefix.size()));
        if (f)
          spacetime = f->spacetime;
        int64_t expectedCount = power(dim + (spacetime ? 1 : 0), b.rank);
        if (static_cast<int64_t>(b.componentCount) != expectedCount)
          report(bw, "component count " + std::to_string(b.componentCount) + " inconsistent with rank " +
                         std::to_string(b.rank) + " (expected " + std::to_string(expectedCount) + ")");
      }
    }
  }
  return out;
}

} // namespace tensorium_mlir::abi
