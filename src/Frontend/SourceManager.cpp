#include "tensorium_mlir/Frontend/SourceManager.h"

#include "tensorium_mlir/Support/InputFile.h"

#include <algorithm>
#include <iostream>

namespace tensorium_mlir::frontend {

SourceManager::SourceManager(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n')
      lineStarts_.push_back(i + 1);
}

LineColumn SourceManager::lineColumn(SourceLocation loc) const {
  if (!loc.isValid())
    return {};
  uint32_t offset = std::min<uint32_t>(loc.offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  unsigned line = static_cast<unsigned>(it - lineStarts_.begin());
  return {line, offset - lineStarts_[line - 1] + 1};
}

std::string_view SourceManager::lineText(unsigned line) const {
  if (line == 0 || line > lineStarts_.size())
    return {};
  uint32_t begin = lineStarts_[line - 1];
  uint32_t end = line < lineStarts_.size() ? lineStarts_[line] - 1 : text_.size();
  if (end > begin && text_[end - 1] == '\r')
    --end;
  return std::string_view(text_).substr(begin, end - begin);
}

std::string_view SourceManager::slice(SourceRange range) const {
  if (!range.begin.isValid() || !range.end.isValid() || range.end.offset < range.begin.offset ||
      range.end.offset > text_.size())
    return {};
  return std::string_view(text_).substr(range.begin.offset, range.end.offset - range.begin.offset);
}

bool readSourceText(const std::string &path, std::string &text, std::string &error) {
  if (path != "-")
    return support::readInputFile(path, text, error, kMaxSourceBytes);
  text.clear();
  std::string chunk(1 << 16, '\0');
  while (std::cin) {
    std::cin.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<size_t>(std::cin.gcount()));
    if (text.size() > kMaxSourceBytes) {
      error = "input exceeds the limit of " + std::to_string(kMaxSourceBytes >> 20) + " MiB";
      return false;
    }
  }
  if (std::cin.bad()) {
    error = "read failed";
    return false;
  }
  return true;
}

} // namespace tensorium_mlir::frontend
