#pragma once
// Number parsing for the command-line tools: every value is checked as text before it is
// converted (decimal digits, sign, point and exponent only; no hex, inf or nan), conversions
// report overflow instead of saturating, and ranges are checked on the converted value before
// any narrowing, so that no input reaches undefined behaviour. Every malformed value is a usage
// error naming the option, never a silent default.
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace tensorium_cli {

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

namespace detail {
inline bool decimalText(const std::string &text, bool integer) {
  if (text.empty() || text.size() > 64)
    return false;
  size_t i = (text[0] == '+' || text[0] == '-') ? 1 : 0;
  bool digits = false, point = false, exponent = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (!integer && c == '.' && !point && !exponent) {
      point = true;
    } else if (!integer && (c == 'e' || c == 'E') && digits && !exponent) {
      exponent = true;
      digits = false; // the exponent needs digits of its own
      if (i + 1 < text.size() && (text[i + 1] == '+' || text[i + 1] == '-'))
        ++i;
    } else {
      return false;
    }
  }
  return digits;
}
} // namespace detail

/// A finite decimal number.
inline double parseNumber(const std::string &option, const std::string &text) {
  if (!detail::decimalText(text, false))
    throw UsageError(option + " expects a finite number, got '" + text + "'");
  errno = 0;
  char *end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno == ERANGE || *end || !std::isfinite(v))
    throw UsageError(option + " expects a finite number in double range, got '" + text + "'");
  return v;
}

/// A decimal integer in [lo, hi].
inline long parseInteger(const std::string &option, const std::string &text, long lo, long hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!detail::decimalText(text, true))
    throw UsageError(option + " expects an integer in " + range + ", got '" + text + "'");
  errno = 0;
  char *end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || *end || v < lo || v > hi)
    throw UsageError(option + " expects an integer in " + range + ", got '" + text + "'");
  return static_cast<long>(v);
}

/// Comma-separated items: none empty, no trailing comma, between minCount and maxCount.
inline std::vector<std::string> splitList(const std::string &option, const std::string &text, size_t minCount,
                                          size_t maxCount) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (items.back().empty())
      throw UsageError(option + " expects a comma-separated list without empty items, got '" + text + "'");
    if (comma == std::string::npos)
      break;
    start = comma + 1;
    if (items.size() > maxCount)
      break;
  }
  if (items.size() < minCount || items.size() > maxCount) {
    const std::string count =
        minCount == maxCount ? std::to_string(minCount) : std::to_string(minCount) + " to " + std::to_string(maxCount);
    throw UsageError(option + " expects " + count + " comma-separated values, got '" + text + "'");
  }
  return items;
}

inline std::vector<double> parseNumbers(const std::string &option, const std::string &text, size_t count) {
  std::vector<double> out;
  for (const std::string &item : splitList(option, text, count, count))
    out.push_back(parseNumber(option, item));
  return out;
}

inline std::vector<long> parseIntegers(const std::string &option, const std::string &text, long lo, long hi,
                                       size_t minCount, size_t maxCount) {
  std::vector<long> out;
  for (const std::string &item : splitList(option, text, minCount, maxCount))
    out.push_back(parseInteger(option, item, lo, hi));
  return out;
}

inline std::array<double, 3> vec3(const std::string &option, const std::string &text) {
  std::vector<double> v = parseNumbers(option, text, 3);
  return {v[0], v[1], v[2]};
}

} // namespace tensorium_cli
