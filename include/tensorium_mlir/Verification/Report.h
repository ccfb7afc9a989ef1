#pragma once
// What a verification run reports: the human table (text), machine-readable rows (CSV, JSON)
// and the named verdicts, which become the test cases of a JUnit XML file so that any CI can
// gate on physics.
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

namespace tensorium_mlir::verification {

struct Verdict {
  std::string name;    ///< e.g. "constraints order 4"
  bool pass = false;
  std::string message; ///< the measured numbers and the requirement
  double seconds = 0;  ///< time spent on what the verdict judges
};

struct Report {
  std::ostringstream text, csv;
  std::vector<std::string> json; ///< one JSON object per row
  std::vector<Verdict> verdicts;
  /// Records a verdict and prints "verdict: PASS|FAIL (message)" to the text. Without
  /// `seconds`, the verdict's time is the wall time since the previous verdict (or since the
  /// report was made): what the run spent on what it judges.
  void verdict(const std::string &name, bool pass, const std::string &message, double seconds = -1);
  bool pass() const;

private:
  std::chrono::steady_clock::time_point lastVerdict_ = std::chrono::steady_clock::now();
};

/// `s` with &, <, >, " and ' escaped, and control characters other than tab and newline
/// (not allowed in XML 1.0) replaced by '?'.
std::string xmlEscape(const std::string &s);

/// A JUnit XML document (the common subset: testsuites > testsuite > testcase > failure, with
/// the counts and times as attributes) with one testsuite named `suite` holding one testcase
/// per verdict; `output` becomes the suite's system-out.
std::string junitXml(const std::string &suite, const std::vector<Verdict> &verdicts, const std::string &output = "");

/// A JSON string literal for `s`.
std::string jsonString(const std::string &s);

} // namespace tensorium_mlir::verification
