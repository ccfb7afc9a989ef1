#pragma once
// One command-line convention for the Tensorium tools: an option table that both parses and
// prints the help. `--name value` and `--name=value` both work; a misspelled option gets the
// nearest known name ("did you mean"); every mistake is one line, "tool: error: message", then a
// one-line hint, and exit status 2. Values are checked by the callbacks with cli_numbers.h, whose
// UsageError names the option.
#include "cli_numbers.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

namespace tensorium_cli {

/// Exit status of every tool for a usage mistake.
inline constexpr int kUsageExit = 2;

/// Edit distance (insertions, deletions, substitutions, adjacent swaps) of two short words.
inline size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// The name among `names` closest to `word`, or "" when none is close (a third of its length,
/// at least 2 edits; none for one- and two-letter words), so that a hint is only given where it
/// is likely right.
inline std::string nearestName(const std::string &word, const std::vector<std::string> &names) {
  std::string best;
  size_t bestDistance = word.size() <= 2 ? 0 : std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string &n : names) {
    const size_t d = editDistance(word, n);
    if (d < bestDistance)
      bestDistance = d, best = n;
  }
  return best;
}

/// "unknown KIND 'word'" with the nearest of `names` as a hint.
inline std::string unknownName(const std::string &kind, const std::string &word, const std::vector<std::string> &names) {
  const std::string near = nearestName(word, names);
  return "unknown " + kind + " '" + word + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?");
}

/// A byte count for people: 512 B, 3.2 KiB, 1.5 GiB.
inline std::string humanBytes(double bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5)
    bytes /= 1024, ++u;
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
}

class CommandLine {
public:
  CommandLine(std::string tool, std::string synopsis) : tool_(std::move(tool)), synopsis_(std::move(synopsis)) {}

  /// Starts a titled group of options in the help.
  CommandLine &group(std::string title) {
    entries_.push_back({Entry::Group, std::move(title), "", "", {}, {}});
    return *this;
  }
  /// An option with a value: `--name V` or `--name=V`. `apply` checks and stores it.
  CommandLine &option(std::string name, std::string metavar, std::string help,
                      std::function<void(const std::string &)> apply) {
    entries_.push_back({Entry::Value, std::move(name), std::move(metavar), std::move(help), std::move(apply), {}});
    return *this;
  }
  /// An option without a value.
  CommandLine &flag(std::string name, std::string help, std::function<void()> apply) {
    entries_.push_back({Entry::Flag, std::move(name), "", std::move(help), {}, std::move(apply)});
    return *this;
  }
  /// An old name of `current` (declared before or after it): still accepted, with a warning on
  /// standard error naming the new one, and listed at the end of the help.
  CommandLine &renamed(std::string oldName, std::string current) {
    entries_.push_back({Entry::Renamed, std::move(oldName), std::move(current), "", {}, {}});
    return *this;
  }
  /// Words that are not options (input files, a study name), between `min` and `max` of them.
  CommandLine &operands(std::string metavar, std::function<void(const std::string &)> apply, size_t min, size_t max) {
    operandName_ = std::move(metavar), operandApply_ = std::move(apply), operandMin_ = min, operandMax_ = max;
    return *this;
  }
  /// Text after the option list: units, conventions, exit statuses.
  CommandLine &notes(std::string text) {
    notes_ = std::move(text);
    return *this;
  }
  /// Single-dash words, and a plain word after one, belong to another parser (PETSc's).
  CommandLine &passSingleDashOptions() {
    passSingleDash_ = true;
    return *this;
  }

  /// Warnings (old option names) off, as on every MPI rank but the first.
  CommandLine &quietWarnings(bool quiet = true) {
    quietWarnings_ = quiet;
    return *this;
  }

  const std::string &tool() const { return tool_; }

  /// Parses argv. Returns false when --help was asked for (the help is then on `out`); throws
  /// UsageError for every mistake.
  bool parse(int argc, const char *const *argv, std::ostream &out) const {
    size_t operandCount = 0;
    bool afterSingleDash = false;
    // The value of option `e` given as `name`: inline (after '=' or a short option's letter)
    // or the next word.
    auto apply = [&](const Entry &e, const std::string &name, const std::string *inlineValue, int &i) {
      given_.push_back(e.name);
      if (e.kind == Entry::Flag) {
        if (inlineValue)
          throw UsageError("'" + name + "' takes no value");
        e.flagApply();
        return;
      }
      std::string value;
      if (inlineValue) {
        value = *inlineValue;
      } else {
        // A following option (long, or a short one of this table such as -o) is a forgotten
        // value, not the value; negative numbers are values.
        if (i + 1 >= argc || isOptionWord(argv[i + 1]))
          throw UsageError("'" + name + "' needs a value (" + e.metavar + ")");
        value = argv[++i];
      }
      if (value.empty())
        throw UsageError("'" + name + "' needs a value (" + e.metavar + ")");
      e.valueApply(value);
    };
    // A renamed option stands for its current one, with a warning that names it.
    auto resolve = [&](const Entry *e, const std::string &typed) -> const Entry * {
      if (!e || e->kind != Entry::Renamed)
        return e;
      if (!quietWarnings_)
        std::cerr << tool_ << ": warning: '" << typed << "' is now '" << e->metavar << "' (the old name still works)\n";
      return find(e->metavar);
    };
    for (int i = 1; i < argc; ++i) {
      const std::string word = argv[i];
      if (word == "--help" || word == "-h") {
        out << help();
        return false;
      }
      if (word.rfind("--", 0) != 0 || word == "--") {
        const bool singleDash = word.size() > 1 && word[0] == '-' && word != "--";
        if (singleDash) {
          // Short options of the table: -o FILE, -oFILE, -O2.
          if (const Entry *e = resolve(find(word), word)) {
            afterSingleDash = false;
            apply(*e, word, nullptr, i);
            continue;
          }
          if (const Entry *e = find(word.substr(0, 2)); e && e->kind == Entry::Value) {
            afterSingleDash = false;
            const std::string attached = word.substr(2);
            apply(*e, word.substr(0, 2), &attached, i);
            continue;
          }
        }
        if (passSingleDash_ && (singleDash || afterSingleDash)) {
          afterSingleDash = singleDash;
          continue;
        }
        if (singleDash)
          throw UsageError(unknownOption(word));
        if (!operandApply_ || operandCount == operandMax_)
          throw UsageError(!operandApply_ ? "unexpected argument '" + word + "' (options start with --)"
                           : operandMax_ == 1
                               ? "unexpected argument '" + word + "' (one " + operandName_ + " only)"
                               : "unexpected argument '" + word + "' (more than " + std::to_string(operandMax_) +
                                     " " + operandName_ + ")");
        operandApply_(word);
        ++operandCount;
        continue;
      }
      afterSingleDash = false;
      const size_t eq = word.find('=');
      const std::string name = word.substr(0, eq);
      const Entry *e = resolve(find(name), name);
      if (!e)
        throw UsageError(unknownOption(name));
      const std::string inlineValue = eq == std::string::npos ? std::string() : word.substr(eq + 1);
      apply(*e, name, eq == std::string::npos ? nullptr : &inlineValue, i);
    }
    if (operandApply_ && operandCount < operandMin_)
      throw UsageError(operandCount == 0 ? "no " + operandName_ + " given" : "too few " + operandName_);
    return true;
  }

  /// The help text, from the same table the parser uses.
  std::string help() const {
    std::string text = "usage: " + tool_ + " " + synopsis_ + "\n";
    for (const Entry &e : entries_) {
      if (e.kind == Entry::Group) {
        text += "\n" + e.name + ":\n";
        continue;
      }
      if (e.help.empty()) // an alias documented by a neighbouring entry
        continue;
      std::string head = "  " + e.name + (e.metavar.empty() ? "" : " " + e.metavar);
      std::string body = e.help;
      size_t start = 0;
      bool first = true;
      do {
        const size_t end = body.find('\n', start);
        const std::string line = body.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (first && head.size() < kHelpColumn - 1)
          text += head + std::string(kHelpColumn - head.size(), ' ') + line + "\n";
        else if (first)
          text += head + "\n" + std::string(kHelpColumn, ' ') + line + "\n";
        else
          text += std::string(kHelpColumn, ' ') + line + "\n";
        first = false;
        start = end == std::string::npos ? std::string::npos : end + 1;
      } while (start != std::string::npos);
    }
    text += "  --help" + std::string(kHelpColumn - 8, ' ') + "show this help\n";
    std::string oldNames;
    for (const Entry &e : entries_)
      if (e.kind == Entry::Renamed)
        oldNames += (oldNames.empty() ? "" : ", ") + e.name + " (now " + e.metavar + ")";
    if (!oldNames.empty())
      text += "\nOld names, still accepted with a warning: " + oldNames + ".\n";
    if (!notes_.empty())
      text += "\n" + notes_ + (notes_.back() == '\n' ? "" : "\n");
    return text;
  }

  /// "tool: error: message" and a one-line hint on `err`; returns kUsageExit.
  int usageError(const std::string &message, std::ostream &err) const {
    err << tool_ << ": error: " << message << "\n(run '" << tool_ << " --help' for usage)\n";
    return kUsageExit;
  }

  /// The options the last parse() applied (current names, in order, repeats included).
  const std::vector<std::string> &given() const { return given_; }

  /// Whether `name` (e.g. "--resolution", no old name) is an option with a value, a flag, or
  /// neither.
  enum class Kind { None, Value, Flag };
  Kind kindOf(const std::string &name) const {
    const Entry *e = find(name);
    return !e || e->kind == Entry::Renamed ? Kind::None : e->kind == Entry::Flag ? Kind::Flag : Kind::Value;
  }
  /// Applies an option from elsewhere than argv (a run file): as `--name value` would be.
  void applyValue(const std::string &name, const std::string &value) const {
    const Entry *e = find(name);
    if (!e || e->kind != Entry::Value)
      throw UsageError("'" + name + "' is not an option with a value");
    if (value.empty())
      throw UsageError("'" + name + "' needs a value (" + e->metavar + ")");
    e->valueApply(value);
  }
  void applyFlag(const std::string &name) const {
    const Entry *e = find(name);
    if (!e || e->kind != Entry::Flag)
      throw UsageError("'" + name + "' is not a flag");
    e->flagApply();
  }

  /// Names of every option, for checks of the documentation.
  std::vector<std::string> optionNames() const {
    std::vector<std::string> names;
    for (const Entry &e : entries_)
      if (e.kind != Entry::Group && e.kind != Entry::Renamed)
        names.push_back(e.name);
    return names;
  }

private:
  static constexpr size_t kHelpColumn = 26;
  mutable std::vector<std::string> given_;
  struct Entry {
    enum Kind { Group, Value, Flag, Renamed } kind;
    std::string name, metavar, help;
    std::function<void(const std::string &)> valueApply;
    std::function<void()> flagApply;
  };

  bool isOptionWord(const std::string &word) const {
    if (word.rfind("--", 0) == 0)
      return true;
    if (word == "-h")
      return true;
    if (word.size() < 2 || word[0] != '-')
      return false;
    if (find(word))
      return true;
    const Entry *attached = find(word.substr(0, 2)); // -oFILE: a short option with its value
    return attached && attached->kind == Entry::Value;
  }

  const Entry *find(const std::string &name) const {
    for (const Entry &e : entries_)
      if (e.kind != Entry::Group && e.name == name)
        return &e;
    return nullptr;
  }

  std::string unknownOption(const std::string &name) const {
    std::vector<std::string> names = optionNames();
    names.push_back("--help");
    // A single-dash spelling of a long option (-grid) is the likeliest mistake of all.
    const std::string candidate = name.size() > 2 && name[0] == '-' && name[1] != '-' ? "-" + name : name;
    if (std::find(names.begin(), names.end(), candidate) != names.end())
      return "unknown option '" + name + "'; did you mean '" + candidate + "'?";
    return unknownName("option", name, names);
  }

  std::string tool_, synopsis_, notes_;
  std::vector<Entry> entries_;
  std::string operandName_;
  std::function<void(const std::string &)> operandApply_;
  size_t operandMin_ = 0, operandMax_ = 0;
  bool passSingleDash_ = false;
  bool quietWarnings_ = false;
};

} // namespace tensorium_cli
