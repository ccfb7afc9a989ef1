// Random and extreme strings through the shared number parser, built with AddressSanitizer and
// UndefinedBehaviorSanitizer (-fno-sanitize-recover: any report aborts the test). Every call
// returns a value in range or throws UsageError; nothing else may happen.
#include "cli_numbers.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

using namespace tensorium_cli;

int main() {
  std::mt19937_64 rng(20261203);
  const std::string alphabet = "0123456789+-.eExX,pPnNaAiIfF \t1";
  const std::vector<std::string> seeds = {"-1e300", "1e400", "nan", "inf", "0x10", "", ",", "4,5,", "1e-400",
                                          "99999999999999999999999", "-9223372036854775809", "2147483648", "1e308"};
  long values = 0, errors = 0;
  for (int round = 0; round < 200000; ++round) {
    std::string text;
    if (round < static_cast<int>(seeds.size())) {
      text = seeds[static_cast<size_t>(round)];
    } else {
      const size_t length = rng() % 24;
      for (size_t i = 0; i < length; ++i)
        text += alphabet[rng() % alphabet.size()];
    }
    try {
      const double d = parseNumber("--x", text);
      if (!std::isfinite(d))
        return std::printf("FAIL: parseNumber returned %g for '%s'\n", d, text.c_str()), 1;
      ++values;
    } catch (const UsageError &) {
      ++errors;
    }
    try {
      const long v = parseInteger("--n", text, -1000, 1000000);
      if (v < -1000 || v > 1000000)
        return std::printf("FAIL: parseInteger returned %ld for '%s'\n", v, text.c_str()), 1;
      ++values;
    } catch (const UsageError &) {
      ++errors;
    }
    try {
      for (long v : parseIntegers("--list", text, 1, 2000, 1, 8))
        if (v < 1 || v > 2000)
          return std::printf("FAIL: parseIntegers returned %ld for '%s'\n", v, text.c_str()), 1;
      ++values;
    } catch (const UsageError &) {
      ++errors;
    }
  }
  std::printf("PASS: %ld values, %ld usage errors, no sanitizer report\n", values, errors);
  return 0;
}
