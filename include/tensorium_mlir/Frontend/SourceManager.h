#pragma once
// A single .tn source buffer with line lookup for diagnostics.
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
