#pragma once
// Output files of the command-line tools: checked before any work starts, written under a
// temporary name and renamed into place, so that a failed run never leaves a file that looks
// complete.
#include "cli_numbers.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace tensorium_cli {

/// The folder `path` would be created in ("." for a bare name).
inline std::string parentFolder(const std::string &path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

/// Throws UsageError naming the option unless `path` can be created or replaced.
inline void requireWritableOutput(const std::string &option, const std::string &path) {
  if (path.empty())
    throw UsageError(option + " needs a file name");
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
    throw UsageError(option + " '" + path + "' is a directory");
  const std::string folder = parentFolder(path);
  if (stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    throw UsageError(option + " '" + path + "': folder '" + folder + "' does not exist");
  if (access(folder.c_str(), W_OK | X_OK) != 0)
    throw UsageError(option + " '" + path + "': folder '" + folder + "' is not writable");
}

/// A report's output files (each may be empty: not asked for) must be writable before any work;
/// --plot implies a CSV beside it, named into `csv` when none was given.
inline void requireWritableReportOutputs(std::string &csv, const std::string &plot, const std::string &junit) {
  if (!plot.empty())
    requireWritableOutput("--plot", plot);
  if (!plot.empty() && csv.empty())
    csv = plot + ".csv";
  if (!csv.empty())
    requireWritableOutput("--csv", csv);
  if (!junit.empty())
    requireWritableOutput("--junit", junit);
}

/// A temporary name next to `path` that keeps its extension (plotting picks the format by it).
inline std::string partialName(const std::string &path) {
  const std::string folder = parentFolder(path), name = path.substr(path.find_last_of('/') + 1);
  return (path.find('/') == std::string::npos ? std::string() : folder + "/") + ".partial-" + name;
}

/// Writes `content` to `path` through a temporary file; false when writing or renaming failed.
inline bool writeFileAtomically(const std::string &path, const std::string &content) {
  const std::string tmp = partialName(path);
  {
    std::ofstream out(tmp, std::ios::binary);
    out << content;
    if (!out.flush()) {
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

} // namespace tensorium_cli
