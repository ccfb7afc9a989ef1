#include "tensorium_mlir/Frontend/Diagnostics.h"

#include <algorithm>

namespace tensorium_mlir::frontend {

namespace {
const char *severitySpelling(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "error";
}

// Echo a source line safely: control and non-ASCII bytes become '?', tabs stay tabs so the
// caret line below lines up.
std::string printableLine(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (char c : line) {
    unsigned char u = static_cast<unsigned char>(c);
    out.push_back(c == '\t' || (u >= 0x20 && u < 0x7f) ? c : '?');
  }
  return out;
}
} // namespace

DiagnosticEngine::DiagnosticEngine(const SourceManager &sources, std::ostream *out,
                                   unsigned errorLimit)
    : sources_(sources), out_(out), errorLimit_(errorLimit) {}

void DiagnosticEngine::error(SourceRange range, std::string message) {
  report(Severity::Error, range, std::move(message));
}
void DiagnosticEngine::warning(SourceRange range, std::string message) {
  report(Severity::Warning, range, std::move(message));
}
void DiagnosticEngine::note(SourceRange range, std::string message) {
  report(Severity::Note, range, std::move(message));
}

void DiagnosticEngine::report(Severity severity, SourceRange range, std::string message) {
  if (limitReached_)
    return;
  // Notes belong to the diagnostic before them; drop them when that one was dropped.
  if (severity == Severity::Note && lastWasSuppressed_)
    return;
  lastWasSuppressed_ = false;
  if (severity == Severity::Error) {
    if (errorCount_ == errorLimit_) {
      limitReached_ = true;
      lastWasSuppressed_ = true;
      if (out_)
        *out_ << sources_.path() << ": error: too many errors emitted (limit " << errorLimit_
              << "), stopping now\n";
      return;
    }
    ++errorCount_;
  } else if (severity == Severity::Warning) {
    ++warningCount_;
  }

  LineColumn lc = sources_.lineColumn(range.begin);
  diagnostics_.push_back({severity, range, message, lc});
  if (!out_)
    return;
  std::ostream &os = *out_;
  os << sources_.path();
  if (lc.line)
    os << ':' << lc.line << ':' << lc.column;
  os << ": " << severitySpelling(severity) << ": " << message << '\n';
  if (!lc.line)
    return;
  std::string_view line = sources_.lineText(lc.line);
  os << printableLine(line) << '\n';
  // Caret under the start, tildes under the rest of the range on this line.
  std::string caret;
  unsigned start = lc.column - 1;
  for (unsigned i = 0; i < start && i < line.size(); ++i)
    caret.push_back(line[i] == '\t' ? '\t' : ' ');
  while (caret.size() < start)
    caret.push_back(' ');
  caret.push_back('^');
  if (range.end.isValid() && range.end.offset > range.begin.offset) {
    LineColumn endLc = sources_.lineColumn(range.end);
    unsigned endColumn = endLc.line == lc.line ? endLc.column - 1
                                               : static_cast<unsigned>(line.size());
    for (unsigned i = start + 1; i < endColumn; ++i)
      caret.push_back('~');
  }
  os << caret << '\n';
}

} // namespace tensorium_mlir::frontend
