#pragma once
// Front door of the back end: analysed module -> MLIR text, lowered MLIR, LLVM IR or an
// object file. No MLIR or LLVM headers here, so tools and tests stay light.
#include "tensorium_mlir/CodeGen/KernelPlan.h"
#include "tensorium_mlir/Target/MLIRGen/MLIRGenHostABI.h"

#include <string>

namespace tensorium_mlir::codegen {

enum class OutputKind { MLIR, LoweredMLIR, LLVMIR, Object };

struct CompileOptions {
  CodeGenOptions codegen;
  unsigned optLevel = 2;        // 0..3 for the LLVM pipeline
  std::string cpu = "x86-64";   // "native" selects the host CPU and its features
};

/// Returns true and fills `output` on success. Diagnostics about the program go to `diags`
/// (located); failures of the tool chain itself are returned in `error`.
bool compileModule(const frontend::Module &module, const CompileOptions &options, OutputKind kind,
                   frontend::DiagnosticEngine &diags, std::string &output, std::string &error);

/// Emits the module in memory and reads its ABI attributes back into a host descriptor.
bool buildHostABI(const frontend::Module &module, const CompileOptions &options,
                  frontend::DiagnosticEngine &diags, abi::HostModuleABI &out);

} // namespace tensorium_mlir::codegen
