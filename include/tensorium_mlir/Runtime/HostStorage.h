#pragma once
// Runtime storage for generated kernels on a uniform grid: one contiguous arena holding every
// logical buffer once (deduplicated across kernels by name), stable per-kernel binding plans,
// rank-1 descriptors into the arena, and kernel invocation through the generated adapters.
// No MLIR here: the inputs are the host ABI descriptor or the generated C tables.
#include "tensorium_mlir/Runtime/HostABITypes.h"
#include "tensorium_mlir/Runtime/LargePageAllocator.h"
#include "tensorium_mlir/HostABI/HostModuleABI.h"

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tensorium_mlir::runtime {

struct GridShape {
  int64_t nx = 1, ny = 1, nz = 1;
  int64_t points() const { return nx * ny * nz; }
};

/// Thrown for anything a caller got wrong; nothing has been written when it is thrown.
class StorageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct StorageBuffer {
  std::string name;
  unsigned componentCount = 1;
  abi::HostBufferRole role = abi::HostBufferRole::Field;
  bool written = false; // by any kernel of the module (its plan)
  std::string writtenBy; // the last invoked kernel that wrote it; empty until one has
  size_t offset = 0;    // into the arena, in scalars
  size_t size = 0;      // componentCount * points
};

struct KernelBinding {
  std::string symbol;
  std::string kind;
  int stencilRadius = -1;
  size_t paramCount = 0;
  std::vector<size_t> buffers; // storage buffer ids in the kernel's descriptor order
  std::vector<bool> writes;    // whether the kernel writes each of them
};

/// The generated C tables of one module (from its generated host header).
struct GeneratedHostTables {
  const tensorium_host_kernel_desc *kernels = nullptr;
  size_t kernelCount = 0;
  const tensorium_host_buffer_desc *buffers = nullptr;
  size_t bufferCount = 0;
  const char *const *paramNames = nullptr;
  size_t paramCount = 0;
  unsigned dimension = 3;
};

/// Everything wrong with generated tables (ABI version, symbols, stencil radii, buffer table
/// bounds, argument indices, roles, access modes); empty when a runtime may trust them.
std::vector<std::string> validateGeneratedTables(const GeneratedHostTables &tables);

/// Storage plan and arena shared by both front doors below.
class UniformGridStorage {
public:
  const GridShape &shape() const { return shape_; }
  const std::vector<StorageBuffer> &buffers() const { return buffers_; }
  const std::vector<KernelBinding> &kernels() const { return kernels_; }
  const std::vector<std::string> &paramNames() const { return paramNames_; }

  bool hasBuffer(const std::string &name) const { return index_.count(name) != 0; }
  const StorageBuffer &bufferInfo(const std::string &name) const;
  std::span<double> buffer(const std::string &name);
  std::span<const double> buffer(const std::string &name) const;
  /// A buffer that an invoked kernel has written, for `reader` to read; throws StorageError
  /// naming the buffer, the reader and the kernels invoked so far when none wrote it (its
  /// values would be the arena's zeros).
  std::span<const double> kernelOutput(const std::string &name, const std::string &reader) const;
  /// Rank-1 descriptor of a logical buffer, pointing into the arena.
  tensorium_memref1d_f64 descriptor(const std::string &name);
  /// The kernel exported as `symbol`; a module compiled with --symbol-prefix NAME also finds
  /// its kernels by their v3 names (tensorium_rhs_grid_affine for NAME_tensorium_rhs_grid_affine).
  const KernelBinding &binding(const std::string &symbol) const;
  size_t arenaSize() const { return arena_.size(); }

  /// Calls `symbol` through its generated adapter with buffers bound by descriptor order.
  void invoke(std::span<const tensorium_host_kernel_adapter> adapters, const std::string &symbol,
              std::span<const double> params, std::array<double, 3> spacing);

  /// Pairs (dX, X) for every written buffer dX whose state buffer X exists with the same shape.
  std::vector<std::pair<std::string, std::string>> eulerUpdatePairsFromDerivativePrefix() const;
  /// X += dt * dX for every pair above.
  void applyEulerUpdate(double dt);

protected:
  struct PlannedBuffer {
    std::string name;
    unsigned componentCount;
    abi::HostBufferRole role;
    bool written;
  };
  struct PlannedKernel {
    std::string symbol, kind;
    int stencilRadius;
    size_t paramCount;
    std::vector<PlannedBuffer> buffers;
  };
  void build(const std::vector<PlannedKernel> &kernels, std::vector<std::string> paramNames, GridShape shape,
             unsigned dimension);

private:
  GridShape shape_;
  unsigned dimension_ = 3;
  std::vector<std::string> invoked_; // kernels invoked so far, in order, each once
  std::vector<StorageBuffer> buffers_;
  std::map<std::string, size_t> index_;
  std::vector<KernelBinding> kernels_;
  std::vector<std::string> paramNames_;
  std::vector<double, LargePageAllocator<double>> arena_;
};

/// Storage from the compiler-side descriptor.
class HostFieldStorage : public UniformGridStorage {
public:
  HostFieldStorage(const abi::HostModuleABI &abi, GridShape shape);
};

/// Storage from the generated C tables, for runners that do not link the compiler.
class GeneratedHostStorage : public UniformGridStorage {
public:
  GeneratedHostStorage(const GeneratedHostTables &tables, GridShape shape);
};

} // namespace tensorium_mlir::runtime
