#pragma once
// Number parsing for the command-line tools: every malformed value is a usage error naming
// the option, never a silent default.
#include <array>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tensorium_cli {

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

inline double parseNumber(const std::string &option, const std::string &text) {
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !std::isfinite(v))
    throw UsageError(option + " expects a finite number, got '" + text + "'");
  return v;
}

inline long parseInteger(const std::string &option, const std::string &text, long lo, long hi) {
  char *end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || v < lo || v > hi)
    throw UsageError(option + " expects an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" +
                     text + "'");
  return v;
}

inline std::vector<double> parseNumbers(const std::string &option, const std::string &text, size_t count) {
  std::vector<double> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    out.push_back(parseNumber(option, item));
  if (out.size() != count || (!text.empty() && text.back() == ','))
    throw UsageError(option + " expects " + std::to_string(count) + " comma-separated numbers, got '" + text + "'");
  return out;
}

inline std::array<double, 3> vec3(const std::string &option, const std::string &text) {
  std::vector<double> v = parseNumbers(option, text, 3);
  return {v[0], v[1], v[2]};
}

} // namespace tensorium_cli
