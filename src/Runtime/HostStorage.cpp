#include "tensorium_mlir/Runtime/HostStorage.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"

#include <algorithm>
#include <set>

namespace tensorium_mlir::runtime {

namespace {
bool isFlatGridKind(const std::string &kind) {
  return abi::isFlatPointGridKind(kind) || kind == abi::kKindSpectralResidualGrid;
}
} // namespace

void UniformGridStorage::build(const std::vector<PlannedKernel> &kernels, std::vector<std::string> paramNames,
                               GridShape shape, unsigned dimension) {
  if (shape.nx < 1 || shape.ny < 1 || shape.nz < 1)
    throw StorageError("grid shape must be positive in every direction, got " + std::to_string(shape.nx) + "x" +
                       std::to_string(shape.ny) + "x" + std::to_string(shape.nz));
  shape_ = shape;
  dimension_ = dimension;
  paramNames_ = std::move(paramNames);
  const int64_t points = shape.points();
  for (const PlannedKernel &k : kernels) {
    KernelBinding binding{k.symbol, k.kind, k.stencilRadius, k.paramCount, {}, {}};
    for (const PlannedBuffer &b : k.buffers) {
      auto it = index_.find(b.name);
      if (it == index_.end()) {
        it = index_.emplace(b.name, buffers_.size()).first;
        StorageBuffer sb;
        sb.name = b.name;
        sb.componentCount = b.componentCount;
        sb.role = b.role;
        sb.size = static_cast<size_t>(b.componentCount) * static_cast<size_t>(points);
        buffers_.push_back(sb);
      }
      StorageBuffer &sb = buffers_[it->second];
      if (sb.componentCount != b.componentCount)
        throw StorageError("buffer '" + b.name + "' has " + std::to_string(b.componentCount) + " components in " +
                           k.symbol + " but " + std::to_string(sb.componentCount) + " elsewhere");
      sb.written = sb.written || b.written;
      if (b.role == abi::HostBufferRole::Output)
        sb.role = abi::HostBufferRole::Output;
      binding.buffers.push_back(it->second);
      binding.writes.push_back(b.written);
    }
    kernels_.push_back(std::move(binding));
  }
  // Buffers start 64-byte aligned (relative to the arena) at staggered offsets: with grid sizes
  // of powers of two, unpadded buffers would put every field's value at a point in the same
  // cache set.
  size_t offset = 0, index = 0;
  for (StorageBuffer &b : buffers_) {
    b.offset = offset;
    offset += b.size;
    offset = (offset + 7) / 8 * 8 + 8 * ((++index * 5) % 61);
  }
  requireMemory("kernel storage for " + std::to_string(shape.nx) + "x" + std::to_string(shape.ny) + "x" +
                    std::to_string(shape.nz) + " points (" + std::to_string(buffers_.size()) + " buffers)",
                8.0 * static_cast<double>(offset));
  arena_.assign(offset, 0.0);
}

const StorageBuffer &UniformGridStorage::bufferInfo(const std::string &name) const {
  auto it = index_.find(name);
  if (it == index_.end())
    throw StorageError("no buffer named '" + name + "'");
  return buffers_[it->second];
}

std::span<double> UniformGridStorage::buffer(const std::string &name) {
  const StorageBuffer &b = bufferInfo(name);
  return {arena_.data() + b.offset, b.size};
}

std::span<const double> UniformGridStorage::buffer(const std::string &name) const {
  const StorageBuffer &b = bufferInfo(name);
  return {arena_.data() + b.offset, b.size};
}

std::span<const double> UniformGridStorage::kernelOutput(const std::string &name, const std::string &reader) const {
  const StorageBuffer &b = bufferInfo(name);
  if (b.writtenBy.empty()) {
    std::string invoked;
    for (const std::string &k : invoked_)
      invoked += (invoked.empty() ? "" : ", ") + k;
    throw StorageError("buffer '" + name + "' is read by " + reader + " but no invoked kernel wrote it (invoked: " +
                       (invoked.empty() ? "none" : invoked) + ")");
  }
  return {arena_.data() + b.offset, b.size};
}

tensorium_memref1d_f64 UniformGridStorage::descriptor(const std::string &name) {
  std::span<double> s = buffer(name);
  return {s.data(), s.data(), 0, static_cast<int64_t>(s.size()), 1};
}

const KernelBinding &UniformGridStorage::binding(const std::string &symbol) const {
  for (const KernelBinding &k : kernels_)
    if (k.symbol == symbol)
      return k;
  // A module compiled with --symbol-prefix also answers to the v3 names of its kernels.
  if (symbol == abi::canonicalSymbol(symbol))
    for (const KernelBinding &k : kernels_)
      if (abi::canonicalSymbol(k.symbol) == symbol)
        return k;
  throw StorageError("unknown kernel symbol '" + symbol + "'");
}

void UniformGridStorage::invoke(std::span<const tensorium_host_kernel_adapter> adapters, const std::string &symbol,
                                std::span<const double> params, std::array<double, 3> spacing) {
  const KernelBinding &k = binding(symbol);
  const tensorium_host_kernel_adapter *adapter = nullptr;
  for (const tensorium_host_kernel_adapter &a : adapters)
    if (a.symbol && k.symbol == a.symbol)
      adapter = &a;
  if (!adapter || !adapter->invoke)
    throw StorageError("kernel '" + symbol + "' has no grid adapter (point kernels are called directly)");
  if (params.size() != k.paramCount)
    throw StorageError("kernel '" + symbol + "' takes " + std::to_string(k.paramCount) + " parameters, got " +
                       std::to_string(params.size()));
  const int64_t extent[3] = {shape_.nx, shape_.ny, shape_.nz};
  if (k.stencilRadius >= 0) {
    for (unsigned axis = 0; axis < std::min(dimension_, 3u); ++axis)
      if (extent[axis] < 2 * k.stencilRadius + 1)
        throw StorageError("grid extent " + std::to_string(extent[axis]) + " along axis " + std::to_string(axis) +
                           " leaves no interior for stencil radius " + std::to_string(k.stencilRadius) +
                           " of '" + symbol + "'");
    for (double h : spacing)
      if (!(h > 0))
        throw StorageError("grid spacing must be positive for '" + symbol + "'");
  }
  std::vector<double *> pointers;
  std::vector<int64_t> sizes;
  for (size_t id : k.buffers) {
    pointers.push_back(arena_.data() + buffers_[id].offset);
    sizes.push_back(static_cast<int64_t>(buffers_[id].size));
  }
  int64_t extents[3] = {shape_.nx, shape_.ny, shape_.nz};
  if (isFlatGridKind(k.kind))
    extents[0] = shape_.points();
  adapter->invoke(extents, spacing.data(), params.data(), pointers.data(), sizes.data());
  for (size_t i = 0; i < k.buffers.size(); ++i)
    if (k.writes[i])
      buffers_[k.buffers[i]].writtenBy = symbol;
  if (std::find(invoked_.begin(), invoked_.end(), symbol) == invoked_.end())
    invoked_.push_back(symbol);
}

std::vector<std::pair<std::string, std::string>> UniformGridStorage::eulerUpdatePairsFromDerivativePrefix() const {
  std::vector<std::pair<std::string, std::string>> pairs;
  const std::string prefix(abi::kDerivativeOutputPrefix);
  for (const StorageBuffer &b : buffers_) {
    if (!b.written || b.name.size() <= prefix.size() || b.name.compare(0, prefix.size(), prefix) != 0)
      continue;
    auto it = index_.find(b.name.substr(prefix.size()));
    if (it == index_.end() || buffers_[it->second].size != b.size)
      continue;
    pairs.push_back({b.name, buffers_[it->second].name});
  }
  return pairs;
}

void UniformGridStorage::applyEulerUpdate(double dt) {
  for (auto &[derivative, state] : eulerUpdatePairsFromDerivativePrefix()) {
    std::span<double> x = buffer(state);
    std::span<const double> dx = std::as_const(*this).buffer(derivative);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] += dt * dx[i];
  }
}

HostFieldStorage::HostFieldStorage(const abi::HostModuleABI &abi, GridShape shape) {
  std::vector<std::string> problems = abi::validateHostModuleABI(abi);
  if (!problems.empty())
    throw StorageError("host ABI descriptor failed validation: " + problems.front());
  std::vector<PlannedKernel> kernels;
  std::vector<std::string> params;
  for (const abi::HostKernelABI &k : abi.kernels) {
    if (k.paramNames.size() > params.size())
      params = k.paramNames;
    PlannedKernel pk{k.symbol, k.kind, k.stencilRadius ? static_cast<int>(*k.stencilRadius) : -1,
                     k.paramNames.size(), {}};
    for (const abi::HostBufferABI &b : k.buffers) {
      if (k.args[static_cast<size_t>(b.argIndex)].kind == abi::HostArgKind::FixedMemref)
        continue; // point-kernel outputs are per point, not grid storage
      pk.buffers.push_back({b.name, b.componentCount, b.role,
                            b.access == abi::HostBufferAccess::Write || b.access == abi::HostBufferAccess::ReadWrite});
    }
    kernels.push_back(std::move(pk));
  }
  build(kernels, params, shape, abi.simulation.dimension);
}

std::vector<std::string> validateGeneratedTables(const GeneratedHostTables &t) {
  std::vector<std::string> out;
  if ((t.kernelCount && !t.kernels) || (t.bufferCount && !t.buffers) || (t.paramCount && !t.paramNames)) {
    out.push_back("module: a table is null with a non-zero count");
    return out;
  }
  if (t.dimension < 1 || t.dimension > 3)
    out.push_back("module: dimension " + std::to_string(t.dimension) + " is not 1, 2 or 3");
  std::set<std::string> symbols;
  for (size_t ki = 0; ki < t.kernelCount; ++ki) {
    const tensorium_host_kernel_desc &k = t.kernels[ki];
    if (!k.symbol || !k.kind) {
      out.push_back("kernel " + std::to_string(ki) + ": no symbol or kind");
      continue;
    }
    const std::string where = "kernel '" + std::string(k.symbol) + "'";
    if (!symbols.insert(k.symbol).second)
      out.push_back(where + ": symbol defined twice");
    if (abi::canonicalSymbol(k.symbol).rfind(abi::kSymbolPrefix, 0) != 0)
      out.push_back(where + ": symbol does not start with '" + std::string(abi::kSymbolPrefix) + "'");
    else if (abi::symbolPrefixOf(k.symbol) != abi::symbolPrefixOf(t.kernels[0].symbol ? t.kernels[0].symbol : ""))
      out.push_back(where + ": symbol prefix differs from the first kernel's (tables of two modules mixed)");
    if (k.abi_version != abi::kABIVersion)
      out.push_back(where + ": ABI version " + std::to_string(k.abi_version) + ", this runtime implements " +
                    std::to_string(abi::kABIVersion));
    if (abi::isStencilGridKind(k.kind) && (k.stencil_radius < 0 || k.stencil_radius > abi::kMaxStencilRadius))
      out.push_back(where + ": stencil radius " + std::to_string(k.stencil_radius) + " outside [0, " +
                    std::to_string(abi::kMaxStencilRadius) + "]");
    if (k.param_count < 0 || static_cast<size_t>(k.param_count) > t.paramCount)
      out.push_back(where + ": " + std::to_string(k.param_count) + " parameters, the module names " +
                    std::to_string(t.paramCount));
    if (k.first_buffer < 0 || k.buffer_count < 0 ||
        static_cast<size_t>(k.first_buffer) + static_cast<size_t>(k.buffer_count) > t.bufferCount) {
      out.push_back(where + ": refers to buffers outside the buffer table");
      continue;
    }
    std::set<std::string> names;
    std::set<int32_t> args;
    for (int32_t bi = 0; bi < k.buffer_count; ++bi) {
      const tensorium_host_buffer_desc &b = t.buffers[k.first_buffer + bi];
      const std::string bw = where + " buffer " + std::to_string(bi) + (b.name ? " '" + std::string(b.name) + "'" : "");
      if (b.kernel_index != static_cast<int32_t>(ki))
        out.push_back(bw + ": belongs to kernel " + std::to_string(b.kernel_index));
      if (!b.name || !*b.name)
        out.push_back(bw + ": no name");
      else if (!names.insert(b.name).second)
        out.push_back(bw + ": name used twice");
      if (b.arg_index < 0 || b.arg_index >= k.arg_count)
        out.push_back(bw + ": argument index " + std::to_string(b.arg_index) + " out of range");
      else if (!args.insert(b.arg_index).second)
        out.push_back(bw + ": argument index reused");
      if (b.component_count < 1)
        out.push_back(bw + ": component count " + std::to_string(b.component_count));
      if (b.role < TENSORIUM_BUFFER_ROLE_COORDINATE || b.role > TENSORIUM_BUFFER_ROLE_OUTPUT)
        out.push_back(bw + ": unknown role " + std::to_string(b.role));
      if (b.access < TENSORIUM_BUFFER_ACCESS_NONE || b.access > TENSORIUM_BUFFER_ACCESS_READWRITE)
        out.push_back(bw + ": unknown access " + std::to_string(b.access));
    }
  }
  return out;
}

GeneratedHostStorage::GeneratedHostStorage(const GeneratedHostTables &t, GridShape shape) {
  std::vector<std::string> problems = validateGeneratedTables(t);
  if (!problems.empty()) {
    std::string text = "generated tables failed validation (" + std::to_string(problems.size()) + " problem(s)):";
    for (size_t i = 0; i < problems.size() && i < 8; ++i)
      text += "\n  " + problems[i];
    throw StorageError(text);
  }
  std::vector<PlannedKernel> kernels;
  for (size_t ki = 0; ki < t.kernelCount; ++ki) {
    const tensorium_host_kernel_desc &k = t.kernels[ki];
    if (!k.symbol || !k.kind)
      throw StorageError("kernel descriptor " + std::to_string(ki) + " has no symbol or kind");
    if (k.abi_version != abi::kABIVersion)
      throw StorageError("kernel '" + std::string(k.symbol) + "' has ABI version " + std::to_string(k.abi_version) +
                         ", this runtime implements " + std::to_string(abi::kABIVersion));
    if (k.first_buffer < 0 || k.buffer_count < 0 ||
        static_cast<size_t>(k.first_buffer) + static_cast<size_t>(k.buffer_count) > t.bufferCount)
      throw StorageError("kernel '" + std::string(k.symbol) + "' refers to buffers outside the buffer table");
    PlannedKernel pk{k.symbol, k.kind, k.stencil_radius, static_cast<size_t>(k.param_count), {}};
    for (int32_t bi = 0; bi < k.buffer_count; ++bi) {
      const tensorium_host_buffer_desc &b = t.buffers[k.first_buffer + bi];
      if (b.kernel_index != static_cast<int32_t>(ki) || !b.name || b.component_count <= 0 || b.arg_index < 0 ||
          b.arg_index >= k.arg_count)
        throw StorageError("buffer descriptor " + std::to_string(k.first_buffer + bi) + " of '" + k.symbol +
                           "' is malformed");
      if (abi::isInitPointKind(k.kind))
        continue;
      abi::HostBufferRole role = b.role == TENSORIUM_BUFFER_ROLE_COORDINATE ? abi::HostBufferRole::Coordinate
                                 : b.role == TENSORIUM_BUFFER_ROLE_OUTPUT   ? abi::HostBufferRole::Output
                                                                            : abi::HostBufferRole::Field;
      bool written = b.access == TENSORIUM_BUFFER_ACCESS_WRITE || b.access == TENSORIUM_BUFFER_ACCESS_READWRITE;
      pk.buffers.push_back({b.name, static_cast<unsigned>(b.component_count), role, written});
    }
    kernels.push_back(std::move(pk));
  }
  std::vector<std::string> params;
  for (size_t i = 0; i < t.paramCount; ++i)
    params.push_back(t.paramNames[i] ? t.paramNames[i] : "");
  build(kernels, params, shape, t.dimension);
}

} // namespace tensorium_mlir::runtime
