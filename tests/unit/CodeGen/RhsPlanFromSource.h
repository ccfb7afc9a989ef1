#pragma once
// The grid right-hand-side plan of a `.tn` program given as text (CodeGen unit tests).
#include "tensorium_mlir/CodeGen/KernelPlan.h"
#include "tensorium_mlir/Frontend/Frontend.h"

#include <gtest/gtest.h>

#include <string>

inline tensorium_mlir::codegen::KernelPlan rhsPlanFromSource(const std::string &text,
                                                            tensorium_mlir::codegen::CodeGenOptions options) {
  using namespace tensorium_mlir;
  frontend::SourceManager sources("test.tn", text);
  frontend::DiagnosticEngine diags(sources, nullptr);
  frontend::Module module;
  EXPECT_TRUE(frontend::parseAndAnalyze(sources, diags, module));
  options.kernels = static_cast<unsigned>(codegen::KernelSelection::Rhs);
  std::vector<codegen::KernelPlan> plans = codegen::planKernels(module, options, diags);
  EXPECT_FALSE(diags.hasErrors());
  for (codegen::KernelPlan &plan : plans)
    if (plan.family == codegen::KernelFamily::RhsGrid)
      return std::move(plan);
  ADD_FAILURE() << "no grid right-hand side planned";
  return {};
}
