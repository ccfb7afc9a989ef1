#pragma once
// Every input file the tools read goes through these checks first: it must be a regular file
// (after following links) of bounded size. A missing path, a symbolic-link loop, a directory, a
// device or FIFO and an oversized file are each refused with the reason, never an exception
// from <filesystem> or a read that blocks or grows without bound.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tensorium_mlir::support {

/// Upper bound for text inputs (sources, study files, point lists).
inline constexpr std::uint64_t kMaxInputBytes = 16u << 20;

/// Why `path` cannot be read as an input file of at most `maxBytes` bytes, or "" when it can.
std::string inputFileProblem(const std::string &path, std::uint64_t maxBytes = kMaxInputBytes);

/// Reads `path` whole into `text` after the checks above; false with `error` set otherwise.
bool readInputFile(const std::string &path, std::string &text, std::string &error,
                   std::uint64_t maxBytes = kMaxInputBytes);

struct InputFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws InputFileError("cannot read WHAT 'PATH': reason") unless `path` passes the checks.
void requireInputFile(const std::string &what, const std::string &path, std::uint64_t maxBytes = kMaxInputBytes);

} // namespace tensorium_mlir::support
