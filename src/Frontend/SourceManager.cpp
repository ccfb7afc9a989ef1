#include "tensorium_mlir/Frontend/SourceManager.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sys/stat.h>

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
  auto readBounded = [&](std::istream &in) {
    text.clear();
    std::string chunk(1 << 16, '\0');
    while (in) {
      in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      text.append(chunk.data(), static_cast<size_t>(in.gcount()));
      if (text.size() > kMaxSourceBytes) {
        error = "input exceeds the limit of " + std::to_string(kMaxSourceBytes >> 20) + " MiB";
        return false;
      }
    }
    if (in.bad()) {
      error = "read failed";
      return false;
    }
    return true;
  };
  if (path == "-")
    return readBounded(std::cin);
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    error = std::strerror(errno);
    return false;
  }
  if (S_ISDIR(info.st_mode)) {
    error = "Is a directory";
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = "not a regular file";
    return false;
  }
  if (static_cast<unsigned long long>(info.st_size) > kMaxSourceBytes) {
    error = "file of " + std::to_string(info.st_size) + " bytes exceeds the limit of " +
            std::to_string(kMaxSourceBytes >> 20) + " MiB";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno);
    return false;
  }
  return readBounded(in);
}

} // namespace tensorium_mlir::frontend
