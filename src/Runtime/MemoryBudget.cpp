#include "tensorium_mlir/Runtime/MemoryBudget.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

namespace tensorium_mlir::runtime {

namespace {

/// "4096", "512M", "2G" -> bytes; negative when malformed.
double parseBytes(const std::string &text) {
  if (text.empty())
    return -1;
  char *end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(v) || v < 0)
    return -1;
  const std::string suffix(end);
  const double scale = suffix.empty() ? 1 : suffix == "K" ? 1024.0 : suffix == "M" ? 1024.0 * 1024 : suffix == "G" ? 1024.0 * 1024 * 1024 : -1;
  return scale < 0 ? -1 : v * scale;
}

double cgroupLimit() {
  for (const char *path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string text;
    if (in >> text && text != "max") {
      const double v = parseBytes(text);
      if (v > 0 && v < 1e18)
        return v;
    }
  }
  return std::numeric_limits<double>::infinity();
}

} // namespace

InsufficientMemory::InsufficientMemory(const std::string &what, double estimateBytes, double availableBytes)
    : std::runtime_error(what + " needs an estimated " + formatBytes(estimateBytes) + " of memory; " +
                         formatBytes(availableBytes) + " is available"),
      estimate_(estimateBytes), available_(availableBytes) {}

double availableMemoryBytes() {
  if (const char *limit = std::getenv("TENSORIUM_MEMORY_LIMIT")) {
    const double v = parseBytes(limit);
    if (v >= 0)
      return v;
  }
  double available = -1;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);)
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream s(line.substr(13));
      double kb;
      if (s >> kb)
        available = kb * 1024;
    }
  if (available < 0) {
    const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    available = pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 1e18;
  }
  return std::min(available, cgroupLimit());
}

void requireMemory(const std::string &what, double estimateBytes) {
  const double available = availableMemoryBytes();
  if (!(estimateBytes <= available))
    throw InsufficientMemory(what, estimateBytes, available);
}

std::string formatBytes(double bytes) {
  char text[32];
  if (!std::isfinite(bytes))
    return "an unbounded amount";
  if (bytes >= 1e9)
    std::snprintf(text, sizeof text, "%.2f GB", bytes / 1e9);
  else if (bytes >= 1e6)
    std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
  else
    std::snprintf(text, sizeof text, "%.0f kB", bytes / 1e3);
  return text;
}

} // namespace tensorium_mlir::runtime
