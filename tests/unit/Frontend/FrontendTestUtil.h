#pragma once
#include "tensorium_mlir/Frontend/Frontend.h"

#include <memory>
#include <string>

namespace tensorium_mlir::frontend::testing {

/// Owns everything a parsed module points into.
struct Compiled {
  std::unique_ptr<SourceManager> sources;
  std::unique_ptr<DiagnosticEngine> diags;
  Module module;
  bool ok = false;

  bool hasError(const std::string &fragment) const {
    for (const Diagnostic &d : diags->diagnostics())
      if (d.severity == Severity::Error && d.message.find(fragment) != std::string::npos)
        return true;
    return false;
  }
  bool hasWarning(const std::string &fragment) const {
    for (const Diagnostic &d : diags->diagnostics())
      if (d.severity == Severity::Warning && d.message.find(fragment) != std::string::npos)
        return true;
    return false;
  }
  const Diagnostic *firstError() const {
    for (const Diagnostic &d : diags->diagnostics())
      if (d.severity == Severity::Error)
        return &d;
    return nullptr;
  }
};

inline Compiled compile(const std::string &text) {
  Compiled c;
  c.sources = std::make_unique<SourceManager>("test.tn", text);
  c.diags = std::make_unique<DiagnosticEngine>(*c.sources, nullptr);
  c.ok = parseAndAnalyze(*c.sources, *c.diags, c.module);
  return c;
}

inline const char *kSimulation3D = R"(
simulation {
  coordinates = cartesian
  dimension = 3
  resolution = [8, 8, 8]
  time { dt = 0.1  integrator = rk4 }
  spatial { scheme = fd  derivative = centered  order = 4 }
}
)";

} // namespace tensorium_mlir::frontend::testing
