#pragma once
// Peak-memory estimates checked before allocating: every entry point that allocates in
// proportion to a resolution states its estimate (a documented, measured model; see
// docs/memory.md) and refuses to start when the machine cannot hold it.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace tensorium_mlir::runtime {

/// The estimate does not fit; what() states the estimate and the memory available. Tools map it
/// to exit status 2.
class InsufficientMemory : public std::runtime_error {
public:
  InsufficientMemory(const std::string &what, double estimateBytes, double availableBytes);
  double estimate() const { return estimate_; }
  double available() const { return available_; }

private:
  double estimate_, available_;
};

/// Bytes this machine can still allocate: MemAvailable from /proc/meminfo (what the kernel can
/// hand out without swapping), bounded by a cgroup memory limit when one is set.
/// TENSORIUM_MEMORY_LIMIT (bytes, or with a K/M/G suffix) overrides it, for tests and for users
/// who share a machine.
double availableMemoryBytes();

/// Throws InsufficientMemory when `estimateBytes` exceeds the available memory.
void requireMemory(const std::string &what, double estimateBytes);

/// "1.23 GB" style.
std::string formatBytes(double bytes);

} // namespace tensorium_mlir::runtime
