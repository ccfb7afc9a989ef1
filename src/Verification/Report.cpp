#include "tensorium_mlir/Verification/Report.h"

#include <cstdio>

namespace tensorium_mlir::verification {

void Report::verdict(const std::string &name, bool pass, const std::string &message, double seconds) {
  const auto now = std::chrono::steady_clock::now();
  if (seconds < 0)
    seconds = std::chrono::duration<double>(now - lastVerdict_).count();
  lastVerdict_ = now;
  verdicts.push_back({name, pass, message, seconds});
  text << "verdict: " << (pass ? "PASS" : "FAIL") << " (" << message << ")\n";
}

bool Report::pass() const {
  for (const Verdict &v : verdicts)
    if (!v.pass)
      return false;
  return true;
}

std::string xmlEscape(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default:
      out += static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' ? '?' : c;
    }
  }
  return out;
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string junitXml(const std::string &suite, const std::vector<Verdict> &verdicts, const std::string &output) {
  size_t failures = 0;
  double seconds = 0;
  for (const Verdict &v : verdicts) {
    failures += v.pass ? 0 : 1;
    seconds += v.seconds;
  }
  char number[64];
  auto time = [&](double t) {
    std::snprintf(number, sizeof number, "%.3f", t);
    return std::string(number);
  };
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string counts = " tests=\"" + std::to_string(verdicts.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"0\" time=\"" + time(seconds) + "\"";
  xml += "<testsuites name=\"" + xmlEscape(suite) + "\"" + counts + ">\n";
  xml += "  <testsuite name=\"" + xmlEscape(suite) + "\"" + counts + " skipped=\"0\">\n";
  for (const Verdict &v : verdicts) {
    xml += "    <testcase classname=\"" + xmlEscape(suite) + "\" name=\"" + xmlEscape(v.name) + "\" time=\"" +
           time(v.seconds) + "\"";
    if (v.pass) {
      xml += "/>\n";
      continue;
    }
    xml += ">\n      <failure message=\"" + xmlEscape(v.message) + "\" type=\"verdict\">" + xmlEscape(v.message) +
           "</failure>\n    </testcase>\n";
  }
  if (!output.empty())
    xml += "    <system-out>" + xmlEscape(output) + "</system-out>\n";
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

} // namespace tensorium_mlir::verification
