#include "tensorium_mlir/Support/InputFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tensorium_mlir::support {

namespace {

std::string megabytes(std::uint64_t bytes) {
  return bytes >= (1u << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

std::string statProblem(const struct stat &info, std::uint64_t maxBytes) {
  if (S_ISDIR(info.st_mode))
    return "Is a directory";
  if (!S_ISREG(info.st_mode))
    return "not a regular file";
  if (static_cast<std::uint64_t>(info.st_size) > maxBytes)
    return "file of " + std::to_string(info.st_size) + " bytes exceeds the limit of " + megabytes(maxBytes);
  return "";
}

std::string openProblem(int code) {
  return code == ELOOP ? std::string(std::strerror(code)) + " (a loop of symbolic links)" : std::strerror(code);
}

} // namespace

std::string inputFileProblem(const std::string &path, std::uint64_t maxBytes) {
  if (path.empty())
    return "empty path";
  struct stat info;
  if (stat(path.c_str(), &info) != 0)
    return openProblem(errno);
  if (std::string problem = statProblem(info, maxBytes); !problem.empty())
    return problem;
  if (access(path.c_str(), R_OK) != 0)
    return std::strerror(errno);
  return "";
}

bool readInputFile(const std::string &path, std::string &text, std::string &error, std::uint64_t maxBytes) {
  text.clear();
  error = inputFileProblem(path, maxBytes);
  if (!error.empty())
    return false;
  // O_NONBLOCK: a path swapped for a FIFO after the check cannot block the open; fstat of the
  // opened file decides.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = openProblem(errno);
    return false;
  }
  struct stat info;
  if (fstat(fd, &info) != 0 || !(error = statProblem(info, maxBytes)).empty()) {
    if (error.empty())
      error = std::strerror(errno);
    close(fd);
    return false;
  }
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = std::strerror(errno);
      break;
    }
    if (n == 0)
      break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > maxBytes) { // the file grew after the check
      error = "input exceeds the limit of " + megabytes(maxBytes);
      break;
    }
  }
  close(fd);
  if (!error.empty())
    text.clear();
  return error.empty();
}

void requireInputFile(const std::string &what, const std::string &path, std::uint64_t maxBytes) {
  const std::string problem = inputFileProblem(path, maxBytes);
  if (!problem.empty())
    throw InputFileError("cannot read " + what + " '" + path + "': " + problem);
}

} // namespace tensorium_mlir::support
