#pragma once
#include "tensorium_mlir/Frontend/AST.h"

#include <ostream>

namespace tensorium_mlir::frontend {

/// Stable, line-oriented rendering of the analysed AST, meant for FileCheck.
void dumpModule(const Module &module, const SourceManager &sources, std::ostream &os);

/// Human-readable summary of what a module declares and the kernel families it lowers to.
void printModuleSummary(const Module &module, std::ostream &os);

} // namespace tensorium_mlir::frontend
