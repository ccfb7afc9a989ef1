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
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
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
  // The OpenMP conversion wraps each parallel body in a memref.alloca_scope, which must stay a
  // single block; kernels allocate nothing there, so canonicalisation inlines the scope before
  // the inner (vector) loops become branches.
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createConvertSCFToCFPass());
  pm.addPass(mlir::createConvertVectorToLLVMPass());
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

/// Lanes of the widest double vector the target handles natively.
unsigned nativeVectorWidth(const llvm::TargetMachine &tm) {
  const llvm::MCSubtargetInfo &subtarget = *tm.getMCSubtargetInfo();
  if (subtarget.checkFeatures("+avx512f"))
    return 8;
  if (subtarget.checkFeatures("+avx"))
    return 4;
  // SSE2 has 2-lane doubles but no masked loads or stores; the scalar loop is as fast.
  return 1;
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

std::string countOperations(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    uint64_t fadd = 0, fsub = 0, fmul = 0, fdiv = 0, fneg = 0, fma = 0, sqrt = 0, calls = 0;
    for (const llvm::BasicBlock &block : f)
      for (const llvm::Instruction &inst : block) {
        switch (inst.getOpcode()) {
        case llvm::Instruction::FAdd: ++fadd; break;
        case llvm::Instruction::FSub: ++fsub; break;
        case llvm::Instruction::FMul: ++fmul; break;
        case llvm::Instruction::FDiv: ++fdiv; break;
        case llvm::Instruction::FNeg: ++fneg; break;
        case llvm::Instruction::Call: {
          const auto &call = llvm::cast<llvm::CallInst>(inst);
          const llvm::Function *callee = call.getCalledFunction();
          if (!callee || !call.getType()->isFPOrFPVectorTy())
            break;
          switch (callee->getIntrinsicID()) {
          case llvm::Intrinsic::fma:
          case llvm::Intrinsic::fmuladd: ++fma; break;
          case llvm::Intrinsic::sqrt: ++sqrt; break;
          case llvm::Intrinsic::masked_load:
          case llvm::Intrinsic::masked_gather: break; // memory, not arithmetic
          default: ++calls; break;
          }
          break;
        }
        default: break;
        }
      }
    os << f.getName() << " fadd=" << fadd << " fsub=" << fsub << " fmul=" << fmul << " fdiv=" << fdiv
       << " fneg=" << fneg << " fma=" << fma << " sqrt=" << sqrt << " calls=" << calls
       << " flops=" << fadd + fsub + fmul + fdiv + sqrt + 2 * fma << '\n';
  }
  return text;
}

} // namespace

unsigned resolveVectorWidth(const CompileOptions &options, std::string &error) {
  if (options.vectorWidth)
    return options.vectorWidth;
  std::unique_ptr<llvm::TargetMachine> tm = makeTargetMachine(options, error);
  return tm ? nativeVectorWidth(*tm) : 0;
}

bool compileModule(const frontend::Module &module, const CompileOptions &options, OutputKind kind,
                   frontend::DiagnosticEngine &diags, std::string &output, std::string &error) {
  std::vector<KernelPlan> kernels = planKernels(module, options.codegen, diags);
  if (diags.hasErrors())
    return false;

  EmitOptions emitOptions;
  emitOptions.fpContract = options.fpContract;
  emitOptions.cacheBlocking = options.cacheBlocking;
  emitOptions.tileY = options.tileY;
  emitOptions.tileZ = options.tileZ;
  emitOptions.prefetch = options.prefetch;
  emitOptions.vectorWidth = resolveVectorWidth(options, error);
  if (!emitOptions.vectorWidth)
    return false;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> mlirModule = emitModule(context, kernels, module, emitOptions);
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
  // The kernels' vectors are sized on purpose: keep them whole even where the CPU's tuning
  // prefers narrower vectors for auto-vectorised code (x86 would otherwise split 512-bit ones).
  const std::string vectorBits = std::to_string(64 * emitOptions.vectorWidth);
  for (llvm::Function &f : *llvmModule) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", tm->getTargetCPU());
    if (!tm->getTargetFeatureString().empty())
      f.addFnAttr("target-features", tm->getTargetFeatureString());
    if (emitOptions.vectorWidth > 1) {
      f.addFnAttr("min-legal-vector-width", vectorBits);
      f.addFnAttr("prefer-vector-width", vectorBits);
    }
  }
  optimize(*llvmModule, *tm, options.optLevel);

  if (kind == OutputKind::LLVMIR) {
    llvm::raw_string_ostream os(output);
    llvmModule->print(os, nullptr);
    return true;
  }
  if (kind == OutputKind::OpCounts) {
    output = countOperations(*llvmModule);
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
