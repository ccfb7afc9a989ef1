#pragma once
#include "tensorium_mlir/Frontend/AST.h"
#include "tensorium_mlir/Frontend/Diagnostics.h"

namespace tensorium_mlir::frontend {

/// Resolves names, checks index rules and simulation settings, and annotates the AST.
/// Returns true when no error was reported.
bool analyzeModule(Module &module, DiagnosticEngine &diags);

/// Index names the language knows, by space.
bool isSpatialIndexName(std::string_view name);
bool isSpacetimeIndexName(std::string_view name);

} // namespace tensorium_mlir::frontend
