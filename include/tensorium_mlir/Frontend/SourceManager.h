#pragma once
// A single .tn source buffer with line lookup for diagnostics.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tensorium_mlir::frontend {

/// Byte offset into the buffer; the invalid location is ~0.
struct SourceLocation {
  uint32_t offset = ~0u;
  bool isValid() const { return offset != ~0u; }
};

/// Half-open byte range [begin, end).
struct SourceRange {
  SourceLocation begin;
  SourceLocation end;
  SourceRange() = default;
  SourceRange(SourceLocation b, SourceLocation e) : begin(b), end(e) {}
  static SourceRange join(SourceRange a, SourceRange b) { return {a.begin, b.end}; }
};

struct LineColumn {
  unsigned line = 0;   // 1-based
  unsigned column = 0; // 1-based, in bytes
};

/// Largest program (or manifest) the tools read: 16 MiB, far above any real .tn file, so that
/// /dev/zero, a device or a huge file is refused instead of read until memory runs out.
inline constexpr size_t kMaxSourceBytes = 16u << 20;

/// Reads a whole program from `path` ("-" for standard input). Only regular files (and standard
/// input) up to kMaxSourceBytes are read; otherwise `error` says why ("Is a directory", "not a
/// regular file", the size) and false is returned.
bool readSourceText(const std::string &path, std::string &text, std::string &error);

class SourceManager {
public:
  SourceManager(std::string path, std::string text);

  const std::string &path() const { return path_; }
  std::string_view text() const { return text_; }
  LineColumn lineColumn(SourceLocation loc) const;
  /// The text of a 1-based line, without its line terminator.
  std::string_view lineText(unsigned line) const;
  std::string_view slice(SourceRange range) const;

private:
  std::string path_;
  std::string text_;
  std::vector<uint32_t> lineStarts_;
};

} // namespace tensorium_mlir::frontend
