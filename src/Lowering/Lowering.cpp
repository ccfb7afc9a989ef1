#include "tensorium_mlir/CodeGen/Compiler.h"
#include "tensorium_mlir/CodeGen/MLIRGen.h"
#include "tensorium_mlir/HostABI/HostABIFromMLIR.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

namespace tensorium_mlir::codegen {

namespace {

std::string printOp(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

bool lowerToLLVMDialect(mlir::ModuleOp module, std::string &error) {
  mlir::PassManager pm(module.getContext());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(mlir::createLowerAffinePass());
  pm.addPass(mlir::createConvertSCFToOpenMPPass());
  pm.addPass(mlir::createConvertSCFToCFPass());
  pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createConvertOpenMPToLLVMPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
  if (mlir::failed(pm.run(module))) {
    error = "lowering to the LLVM dialect failed";
    return false;
  }
  return true;
}

std::unique_ptr<llvm::TargetMachine> makeTargetMachine(const CompileOptions &options, std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string cpu = options.cpu, features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
    for (auto &f : hostFeatures)
      features += (features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") + f.first().str();
  }
  llvm::CodeGenOptLevel level = options.optLevel == 0   ? llvm::CodeGenOptLevel::None
                                : options.optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                : options.optLevel == 2 ? llvm::CodeGenOptLevel::Default
                                                        : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    error = "cannot create a target machine for " + triple + " (cpu '" + cpu + "')";
  return tm;
}

void optimize(llvm::Module &module, llvm::TargetMachine &tm, unsigned level) {
  if (level == 0)
    return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel opt = level == 1   ? llvm::OptimizationLevel::O1
                                : level == 2 ? llvm::OptimizationLevel::O2
                                             : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(opt);
  mpm.run(module, mam);
}

} // namespace

bool compileModule(const frontend::Module &module, const CompileOptions &options, OutputKind kind,
                   frontend::DiagnosticEngine &diags, std::string &output, std::string &error) {
  std::vector<KernelPlan> kernels = planKernels(module, options.codegen, diags);
  if (diags.hasErrors())
    return false;

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> mlirModule = emitModule(context, kernels, module);
  if (mlir::failed(mlir::verify(*mlirModule))) {
    error = "internal error: the emitted MLIR module does not verify";
    return false;
  }
  if (kind == OutputKind::MLIR) {
    output = printOp(*mlirModule);
    return true;
  }
  if (!lowerToLLVMDialect(*mlirModule, error))
    return false;
  if (kind == OutputKind::LoweredMLIR) {
    output = printOp(*mlirModule);
    return true;
  }

  mlir::registerBuiltinDialectTranslation(context);
  mlir::registerLLVMDialectTranslation(context);
  mlir::registerOpenMPDialectTranslation(context);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = mlir::translateModuleToLLVMIR(*mlirModule, llvmContext, module.path);
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return false;
  }
  std::unique_ptr<llvm::TargetMachine> tm = makeTargetMachine(options, error);
  if (!tm)
    return false;
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(tm->getTargetTriple().str());
  optimize(*llvmModule, *tm, options.optLevel);

  if (kind == OutputKind::LLVMIR) {
    llvm::raw_string_ostream os(output);
    llvmModule->print(os, nullptr);
    return true;
  }
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return false;
  }
  pm.run(*llvmModule);
  output.assign(buffer.begin(), buffer.end());
  return true;
}

bool buildHostABI(const frontend::Module &module, const CompileOptions &options,
                  frontend::DiagnosticEngine &diags, abi::HostModuleABI &out) {
  std::vector<KernelPlan> kernels = planKernels(module, options.codegen, diags);
  if (diags.hasErrors())
    return false;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> mlirModule = emitModule(context, kernels, module);
  out = abi::buildHostModuleABI(*mlirModule);
  return true;
}

} // namespace tensorium_mlir::codegen
