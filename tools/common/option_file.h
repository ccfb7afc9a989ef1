#pragma once
// Run files: every option of a tool as a key of a TOML file (`resolution = 64` for
// `--resolution 64`), so that a run is one file that can be kept, shared and copied into the
// run's outputs. Values: a string or number as the option's text; true for a flag (false: not
// given); an array of numbers as the comma list of a vector option (`p1 = [0, 0.2, 0]`); an
// array of arrays for an option given several times (`track = [[1, 0, 0], [-1, 0, 0]]`); a table
// for NAME=VALUE options (`[param]` with `amp = 1` for `--param amp=1`). The command line wins
// over the file for every option it gives. Every mistake is one located line,
// "FILE:LINE:COL: error: key 'k': message", as in study files.
#include "command_line.h"
#include "tensorium_mlir/Support/InputFile.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tensorium_cli {

/// A run file that cannot be used: the message is already located.
struct OptionFileError : UsageError {
  using UsageError::UsageError;
};

class OptionFile {
public:
  explicit OptionFile(std::string path) : path_(std::move(path)) {
    std::string problem;
    // At most 48 KiB: the file is copied into the run's HDF5 files as an attribute (64 KiB at most).
    if (!tensorium_mlir::support::readInputFile(path_, text_, problem, 48u << 10))
      throw OptionFileError(path_ + ": error: cannot read the run file: " + problem);
    try {
      table_ = toml::parse(text_, path_);
    } catch (const toml::parse_error &e) {
      throw OptionFileError(where(e.source()) + ": error: " + std::string(e.description()));
    }
  }

  const std::string &path() const { return path_; }
  /// The file as written (for the run's outputs).
  const std::string &text() const { return text_; }

  /// Applies every key the command line did not give (`given`, current option names).
  void apply(const CommandLine &cli, const std::vector<std::string> &given) {
    std::vector<std::string> names;
    for (const std::string &n : cli.optionNames())
      names.push_back(n.substr(2));
    for (const auto &[key, node] : table_) {
      const std::string k(key.str()), option = "--" + k;
      located_[option] = where(key.source());
      const CommandLine::Kind kind = cli.kindOf(option);
      if (kind == CommandLine::Kind::None || k == "help")
        throw OptionFileError(located_[option] + ": error: " + unknownName("key", k, names) +
                              " (the keys are the options without their dashes)");
      if (std::find(given.begin(), given.end(), option) != given.end())
        continue;
      try {
        applyKey(cli, option, kind, node);
      } catch (const OptionFileError &) {
        throw;
      } catch (const UsageError &e) {
        fail(option, e.what());
      }
    }
  }

  /// A UsageError about an option this file set, located at its key (as it is otherwise).
  [[noreturn]] void rethrowLocated(const UsageError &e, const std::vector<std::string> &given) const {
    const std::string message = e.what();
    for (size_t at = message.find("--"); at != std::string::npos; at = message.find("--", at + 2)) {
      size_t end = at + 2;
      while (end < message.size() && (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '-'))
        ++end;
      const std::string option = message.substr(at, end - at);
      if (located_.count(option) && std::find(given.begin(), given.end(), option) == given.end())
        fail(option, message);
    }
    throw e;
  }

private:
  std::string where(const toml::source_region &s) const {
    return (s.path ? *s.path : path_) + ":" + std::to_string(s.begin.line ? s.begin.line : 1) + ":" +
           std::to_string(s.begin.column ? s.begin.column : 1);
  }
  [[noreturn]] void fail(const std::string &option, const std::string &message) const {
    throw OptionFileError(located_.at(option) + ": error: key '" + option.substr(2) + "': " + message);
  }

  /// A string as it is, a finite number as its shortest exact text; nothing otherwise.
  static std::optional<std::string> scalarText(const toml::node &n) {
    if (const auto *s = n.as_string())
      return s->get();
    if (const auto *i = n.as_integer())
      return std::to_string(i->get());
    if (const auto *f = n.as_floating_point()) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", f->get());
      return text;
    }
    return std::nullopt;
  }
  static std::optional<std::string> listText(const toml::array &a) {
    std::string out;
    for (const toml::node &item : a) {
      const std::optional<std::string> t = scalarText(item);
      if (!t)
        return std::nullopt;
      out += (out.empty() ? "" : ",") + *t;
    }
    return out;
  }

  void applyKey(const CommandLine &cli, const std::string &option, CommandLine::Kind kind, const toml::node &node) {
    if (kind == CommandLine::Kind::Flag) {
      if (!node.is_boolean())
        fail(option, "expected true or false (a flag)");
      if (node.as_boolean()->get())
        cli.applyFlag(option);
      return;
    }
    if (const std::optional<std::string> t = scalarText(node)) {
      cli.applyValue(option, *t);
    } else if (const auto *table = node.as_table()) {
      for (const auto &[name, value] : *table) {
        const std::optional<std::string> v = scalarText(value);
        if (!v)
          fail(option, "expected NAME = number entries");
        cli.applyValue(option, std::string(name.str()) + "=" + *v);
      }
    } else if (const auto *array = node.as_array()) {
      if (!array->empty() && std::all_of(array->begin(), array->end(), [](const toml::node &n) { return n.is_array(); })) {
        for (const toml::node &item : *array) {
          const std::optional<std::string> list = listText(*item.as_array());
          if (!list)
            fail(option, "expected arrays of numbers");
          cli.applyValue(option, *list);
        }
      } else {
        const std::optional<std::string> list = listText(*array);
        if (!list || array->empty())
          fail(option, "expected a non-empty array of numbers or strings");
        cli.applyValue(option, *list);
      }
    } else {
      fail(option, "expected a string, a number, an array or a table");
    }
  }

  std::string path_, text_;
  toml::table table_;
  std::map<std::string, std::string> located_; // option -> FILE:LINE:COL of its key
};

} // namespace tensorium_cli
