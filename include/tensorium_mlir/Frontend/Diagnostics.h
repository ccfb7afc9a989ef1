#pragma once
// Located diagnostics in the form `path:line:col: error: message`, followed by the
// source line and a caret under the offending range.
#include "tensorium_mlir/Frontend/SourceManager.h"

#include <ostream>
#include <string>
#include <vector>

namespace tensorium_mlir::frontend {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity;
  SourceRange range;
  std::string message;
  LineColumn position;
};

class DiagnosticEngine {
public:
  /// `out` may be null: diagnostics are then only recorded.
  DiagnosticEngine(const SourceManager &sources, std::ostream *out, unsigned errorLimit = 20);

  void error(SourceRange range, std::string message);
  void warning(SourceRange range, std::string message);
  void note(SourceRange range, std::string message);

  unsigned errorCount() const { return errorCount_; }
  unsigned warningCount() const { return warningCount_; }
  bool hasErrors() const { return errorCount_ != 0; }
  /// True once the error limit was reached; callers stop work as soon as they see it.
  bool limitReached() const { return limitReached_; }
  const std::vector<Diagnostic> &diagnostics() const { return diagnostics_; }
  const SourceManager &sources() const { return sources_; }

private:
  void report(Severity severity, SourceRange range, std::string message);

  const SourceManager &sources_;
  std::ostream *out_;
  unsigned errorLimit_;
  unsigned errorCount_ = 0;
  unsigned warningCount_ = 0;
  bool limitReached_ = false;
  bool lastWasSuppressed_ = false;
  std::vector<Diagnostic> diagnostics_;
};

} // namespace tensorium_mlir::frontend
