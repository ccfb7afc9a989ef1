#pragma once
// Convenience entry point: source text -> analysed module.
#include "tensorium_mlir/Frontend/AST.h"
#include "tensorium_mlir/Frontend/Diagnostics.h"
#include "tensorium_mlir/Frontend/Parser.h"
#include "tensorium_mlir/Frontend/Sema.h"

namespace tensorium_mlir::frontend {

/// Parses and, when parsing succeeded, analyses. Returns true when no error was reported.
inline bool parseAndAnalyze(const SourceManager &sources, DiagnosticEngine &diags, Module &out) {
  out = parseModule(sources, diags);
  if (diags.hasErrors())
    return false;
  return analyzeModule(out, diags);
}

} // namespace tensorium_mlir::frontend
