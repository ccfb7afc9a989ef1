#include "tensorium_mlir/Lowering/Compiler.h"
#include "tensorium_mlir/CodeGen/MLIRGen.h"
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"
#include "tensorium_mlir/HostABI/HostABIFromMLIR.h"
#include "tensorium_mlir/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
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

#include <functional>
#include <map>

namespace tensorium_mlir::codegen {

namespace {

std::string printOp(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

bool lowerToLLVMDialect(mlir::ModuleOp module, std::string &error) {
  mlir::PassManager loops(module.getContext());
  addKernelLoopLowering(loops);
  if (mlir::failed(loops.run(module))) {
    error = "lowering the kernel loops failed";
    return false;
  }
  mlir::PassManager pm(module.getContext());
  addLLVMDialectLowering(pm);
  if (mlir::failed(pm.run(module))) {
    error = "lowering to the LLVM dialect failed";
    return false;
  }
  return true;
}

std::unique_ptr<llvm::TargetMachine> makeTargetMachine(const CompileOptions &options, std::string &error) {
  if (!checkTargetCpu(options.cpu, error))
    return nullptr;
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
bool hasAvx512(const llvm::TargetMachine &tm) { return tm.getMCSubtargetInfo()->checkFeatures("+avx512f"); }

unsigned nativeVectorWidth(const llvm::TargetMachine &tm) {
  if (hasAvx512(tm))
    return 8;
  if (tm.getMCSubtargetInfo()->checkFeatures("+avx"))
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

struct OperationCounts {
  uint64_t fadd = 0, fsub = 0, fmul = 0, fdiv = 0, fneg = 0, fma = 0, sqrt = 0, calls = 0, instructions = 0;
  void operator+=(const OperationCounts &o) {
    fadd += o.fadd, fsub += o.fsub, fmul += o.fmul, fdiv += o.fdiv, fneg += o.fneg, fma += o.fma, sqrt += o.sqrt,
        calls += o.calls, instructions += o.instructions;
  }
};

/// Floating-point operations of `f` itself, and the module-local functions it calls.
OperationCounts ownOperations(const llvm::Function &f, std::vector<const llvm::Function *> &localCallees) {
  OperationCounts c;
  for (const llvm::BasicBlock &block : f)
    for (const llvm::Instruction &inst : block) {
      ++c.instructions;
      switch (inst.getOpcode()) {
      case llvm::Instruction::FAdd: ++c.fadd; break;
      case llvm::Instruction::FSub: ++c.fsub; break;
      case llvm::Instruction::FMul: ++c.fmul; break;
      case llvm::Instruction::FDiv: ++c.fdiv; break;
      case llvm::Instruction::FNeg: ++c.fneg; break;
      case llvm::Instruction::Call: {
        const auto &call = llvm::cast<llvm::CallInst>(inst);
        // An outlined OpenMP body is passed to the runtime's fork call, not called directly.
        for (const llvm::Value *operand : call.args())
          if (const auto *outlined = llvm::dyn_cast<llvm::Function>(operand->stripPointerCasts()))
            if (!outlined->isDeclaration() && outlined->hasLocalLinkage())
              localCallees.push_back(outlined);
        const llvm::Function *callee = call.getCalledFunction();
        if (callee && !callee->isDeclaration() && callee->hasLocalLinkage()) {
          localCallees.push_back(callee);
          break;
        }
        if (!callee || !call.getType()->isFPOrFPVectorTy())
          break;
        switch (callee->getIntrinsicID()) {
        case llvm::Intrinsic::fma:
        case llvm::Intrinsic::fmuladd: ++c.fma; break;
        case llvm::Intrinsic::sqrt: ++c.sqrt; break;
        case llvm::Intrinsic::masked_load:
        case llvm::Intrinsic::masked_gather: break; // memory, not arithmetic
        default: ++c.calls; break;
        }
        break;
      }
      default: break;
      }
    }
  return c;
}

/// Per function: its own operations plus those of the module-local functions it calls
/// (outlined OpenMP bodies, the shared row function of large kernels), each counted once,
/// so that a kernel's line is its cost per grid point.
std::string countOperations(const llvm::Module &module) {
  std::map<const llvm::Function *, OperationCounts> totals;
  std::function<OperationCounts(const llvm::Function &)> total = [&](const llvm::Function &f) {
    if (auto it = totals.find(&f); it != totals.end())
      return it->second;
    totals[&f] = {}; // guards against recursion, which kernels never have
    std::vector<const llvm::Function *> callees;
    OperationCounts c = ownOperations(f, callees);
    std::sort(callees.begin(), callees.end());
    callees.erase(std::unique(callees.begin(), callees.end()), callees.end());
    for (const llvm::Function *callee : callees)
      c += total(*callee);
    totals[&f] = c;
    return c;
  };
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    const OperationCounts c = total(f);
    os << f.getName() << " fadd=" << c.fadd << " fsub=" << c.fsub << " fmul=" << c.fmul << " fdiv=" << c.fdiv
       << " fneg=" << c.fneg << " fma=" << c.fma << " sqrt=" << c.sqrt << " calls=" << c.calls
       << " instructions=" << c.instructions << " flops=" << c.fadd + c.fsub + c.fmul + c.fdiv + c.sqrt + 2 * c.fma << '\n';
  }
  return text;
}

/// Renames the module's public Tensorium functions to `prefix`_name, and every reference to
/// them (a spectral grid kernel calls its point kernel).
bool prefixExportedFunctions(mlir::ModuleOp module, const std::string &prefix, std::string &error) {
  if (prefix.empty())
    return true;
  std::vector<mlir::func::FuncOp> exported;
  for (mlir::func::FuncOp f : module.getOps<mlir::func::FuncOp>())
    if (f.isPublic() && f.getSymName().starts_with(abi::kSymbolPrefix))
      exported.push_back(f);
  for (mlir::func::FuncOp f : exported) {
    const mlir::StringAttr renamed =
        mlir::StringAttr::get(module.getContext(), abi::prefixedSymbol(prefix, f.getSymName().str()));
    if (mlir::failed(mlir::SymbolTable::replaceAllSymbolUses(f, renamed, module))) {
      error = "internal error: cannot rename the uses of " + f.getSymName().str();
      return false;
    }
    mlir::SymbolTable::setSymbolName(f, renamed);
  }
  return true;
}

} // namespace

bool checkTargetCpu(const std::string &cpu, std::string &error) {
  if (cpu == "native")
    return true;
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  const std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return false;
  // LLVM warns about an unknown CPU and later aborts on it: refuse it here, naming the nearest
  // known one.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(target->createMCSubtargetInfo(triple, "", ""));
  if (!subtarget) {
    error = "cannot describe the CPUs of target " + triple;
    return false;
  }
  if (subtarget->isCPUStringValid(cpu))
    return true;
  std::string nearest;
  unsigned best = ~0u;
  for (const llvm::SubtargetSubTypeKV &known : subtarget->getAllProcessorDescriptions()) {
    const unsigned distance = llvm::StringRef(known.Key).edit_distance(cpu, true, best);
    if (distance < best)
      best = distance, nearest = known.Key;
  }
  error = "unknown CPU '" + cpu + "' for target " + triple + " (use native, x86-64 or an LLVM CPU name";
  error += nearest.empty() || best > std::max<size_t>(2, cpu.size() / 3) ? ")" : "; did you mean '" + nearest + "'?)";
  return false;
}

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
  // One target machine serves the vector-width choice and the LLVM pipeline below.
  std::unique_ptr<llvm::TargetMachine> tm = makeTargetMachine(options, error);
  if (!tm)
    return false;
  emitOptions.vectorWidth = options.vectorWidth ? options.vectorWidth : nativeVectorWidth(*tm);
  emitOptions.laneShifts = options.laneShifts == CompileOptions::LaneShifts::On ||
                           (options.laneShifts == CompileOptions::LaneShifts::Auto && hasAvx512(*tm));
  emitOptions.factorMixed = options.factorMixed == CompileOptions::FactorMixed::On ||
                            (options.factorMixed == CompileOptions::FactorMixed::Auto && options.fpContract);
  emitOptions.stencilPass = options.stencilPass == CompileOptions::StencilPass::On ||
                            (options.stencilPass == CompileOptions::StencilPass::Auto && emitOptions.vectorWidth > 1);
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> mlirModule = emitModule(context, kernels, module, emitOptions);
  if (mlir::failed(mlir::verify(*mlirModule))) {
    error = "internal error: the emitted MLIR module does not verify";
    return false;
  }
  if (!prefixExportedFunctions(*mlirModule, options.symbolPrefix, error))
    return false;
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
  if (!options.symbolPrefix.empty())
    abi::applySymbolPrefix(out, options.symbolPrefix);
  return true;
}

} // namespace tensorium_mlir::codegen
