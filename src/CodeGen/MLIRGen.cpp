// Module-level emission: the ABI's module attributes (simulation, fields, declared elliptic
// problems) and one KernelEmitter per kernel plan.
#include "tensorium_mlir/CodeGen/MLIRGen.h"
#include "tensorium_mlir/Frontend/EllipticProblem.h"
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"

#include "KernelEmitter.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include <algorithm>
#include <map>

namespace tensorium_mlir::codegen {

void insertTensoriumDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect, mlir::affine::AffineDialect,
                  mlir::cf::ControlFlowDialect, mlir::LLVM::LLVMDialect, mlir::omp::OpenMPDialect,
                  mlir::vector::VectorDialect>();
}

void loadTensoriumDialects(mlir::MLIRContext &context) {
  mlir::DialectRegistry registry;
  insertTensoriumDialects(registry);
  context.appendDialectRegistry(registry);
  for (llvm::StringRef name : registry.getDialectNames())
    context.getOrLoadDialect(name);
}

/// The boundary conditions of evolved fields; null when no evolution block declares one, so that
/// modules without them keep exactly their attributes.
static mlir::ArrayAttr evolutionBoundaryAttributes(mlir::OpBuilder &builder, const frontend::Module &source) {
  llvm::SmallVector<mlir::Attribute> out;
  for (const frontend::ComputeBlock &block : source.blocks)
    for (const frontend::EvolutionBoundary &bc : block.evolutionBoundaries) {
      using Kind = frontend::EvolutionBoundaryKind;
      const char *kind = bc.kind == Kind::Periodic ? "periodic" : bc.kind == Kind::Exact ? "exact" : "radiative";
      out.push_back(builder.getDictionaryAttr({
          builder.getNamedAttr("field", builder.getStringAttr(bc.field)),
          builder.getNamedAttr("kind", builder.getStringAttr(kind)),
          builder.getNamedAttr("speed", builder.getF64FloatAttr(bc.speed)),
          builder.getNamedAttr("value", builder.getF64FloatAttr(bc.value)),
      }));
    }
  return out.empty() ? mlir::ArrayAttr() : builder.getArrayAttr(out);
}

/// The declared elliptic problems of spectral constraints blocks; null when there are none, so
/// that modules without them keep exactly their attributes.
static mlir::ArrayAttr spectralProblemAttributes(mlir::OpBuilder &builder, const frontend::Module &source) {
  llvm::SmallVector<mlir::Attribute> problems;
  if (source.sim.scheme != frontend::Scheme::Spectral)
    return {};
  for (const frontend::ComputeBlock &block : source.blocks) {
    if (block.kind != frontend::ComputeKind::Constraints || block.unknowns.empty())
      continue;
    const frontend::EllipticProblemInfo info = frontend::describeEllipticProblem(block, source.sim);
    llvm::SmallVector<mlir::Attribute> unknowns, boundaries;
    for (const frontend::UnknownDecl &u : block.unknowns)
      if (u.field)
        for (const std::string &n : frontend::spectralComponentNames(*u.field))
          unknowns.push_back(builder.getStringAttr(n));
    const std::vector<frontend::DomainFace> faces = frontend::domainFaces(info.map);
    for (const frontend::BoundaryCondition &bc : block.boundaries) {
      if (!bc.target || !bc.target->field)
        continue;
      auto face = std::find_if(faces.begin(), faces.end(), [&](const frontend::DomainFace &f) { return f.name == bc.face; });
      if (face == faces.end())
        continue;
      for (const std::string &n : frontend::spectralComponentNames(*bc.target->field))
        boundaries.push_back(builder.getDictionaryAttr({
            builder.getNamedAttr("axis", builder.getI64IntegerAttr(face->axis)),
            builder.getNamedAttr("face", builder.getStringAttr(bc.face)),
            builder.getNamedAttr("kernel", builder.getStringAttr(abi::spectralBoundarySymbol(n, bc.face))),
            builder.getNamedAttr("kind", builder.getStringAttr(bc.kind == frontend::BoundaryKind::Robin ? "robin" : "dirichlet")),
            builder.getNamedAttr("side", builder.getI64IntegerAttr(face->side)),
            builder.getNamedAttr("unknown", builder.getStringAttr(n)),
        }));
    }
    std::vector<int64_t> resolution(info.resolution.begin(), info.resolution.end());
    llvm::SmallVector<mlir::NamedAttribute> defaults;
    for (const frontend::ParamDecl &p : source.params)
      if (p.defaultValue)
        defaults.push_back(builder.getNamedAttr(p.name, builder.getF64FloatAttr(*p.defaultValue)));
    problems.push_back(builder.getDictionaryAttr({
        builder.getNamedAttr("param_defaults", builder.getDictionaryAttr(defaults)),
        builder.getNamedAttr("block", builder.getStringAttr(block.name)),
        builder.getNamedAttr("boundaries", builder.getArrayAttr(boundaries)),
        builder.getNamedAttr("bounds", builder.getDenseF64ArrayAttr(info.bounds)),
        builder.getNamedAttr("forcing", builder.getF64FloatAttr(info.forcing)),
        builder.getNamedAttr("line_search", builder.getBoolAttr(info.lineSearch)),
        builder.getNamedAttr("linear", builder.getStringAttr(info.linear)),
        builder.getNamedAttr("map", builder.getStringAttr(info.map)),
        builder.getNamedAttr("max_iterations", builder.getI64IntegerAttr(info.maxIterations)),
        builder.getNamedAttr("preconditioner", builder.getStringAttr(info.preconditioner)),
        builder.getNamedAttr("resolution", builder.getDenseI64ArrayAttr(resolution)),
        builder.getNamedAttr("restart", builder.getI64IntegerAttr(info.restart)),
        builder.getNamedAttr("tolerance", builder.getF64FloatAttr(info.tolerance)),
        builder.getNamedAttr("unknowns", builder.getArrayAttr(unknowns)),
    }));
  }
  if (problems.empty())
    return {};
  return builder.getArrayAttr(problems);
}

namespace {
constexpr std::string_view kRowFunctionPrefix = "__tensorium_", kRowFunctionSuffix = "_row";
} // namespace

std::string rowFunctionName(KernelFamily family) {
  // Only the stencil families over a grid have a row function (emission::wantsRowFunction).
  const std::string_view stem = family == KernelFamily::RhsGrid        ? "rhs_grid"
                                : family == KernelFamily::ResidualGrid ? "residual_grid"
                                                                       : "";
  if (stem.empty())
    return {};
  return std::string(kRowFunctionPrefix) + std::string(stem) + std::string(kRowFunctionSuffix);
}

void emitKernels(mlir::ModuleOp module, mlir::Location loc, const std::vector<KernelPlan> &kernels,
                 const EmitOptions &options) {
  mlir::OpBuilder builder(module.getContext());
  // Large stencil kernels share one body (a private row function) between their variants; the
  // variants of one family are planned from one graph, so the first one's body serves all.
  std::map<KernelFamily, std::string> rowFunctions;
  for (const KernelPlan &plan : kernels) {
    mlir::Location kernelLoc = mlir::NameLoc::get(builder.getStringAttr(plan.symbol), loc);
    emission::KernelEmitter emitter(builder, kernelLoc, plan, options);
    if (emitter.sharesRowBody()) {
      auto [it, first] = rowFunctions.try_emplace(plan.family, rowFunctionName(plan.family));
      if (first)
        emission::KernelEmitter(builder, kernelLoc, plan, options).emitRowFunction(module, it->second);
      emitter.useRowFunction(it->second);
    }
    emitter.emit(module);
  }
}

mlir::OwningOpRef<mlir::ModuleOp> emitModule(mlir::MLIRContext &context, const std::vector<KernelPlan> &kernels,
                                             const frontend::Module &source, const EmitOptions &options) {
  loadTensoriumDialects(context);
  mlir::OpBuilder builder(&context);
  mlir::Location loc = mlir::FileLineColLoc::get(&context, source.path, 1, 1);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  auto sv = [&](std::string_view s) { return llvm::StringRef(s.data(), s.size()); };
  const frontend::SimulationInfo &sim = source.sim;
  std::vector<int64_t> resolution(sim.resolution.begin(), sim.resolution.end());
  llvm::SmallVector<mlir::NamedAttribute> simAttrs{
      builder.getNamedAttr("coordinates", builder.getStringAttr(sim.coordinates == frontend::CoordinateSystem::Cartesian ? "cartesian" : "spherical")),
      builder.getNamedAttr("dimension", builder.getI64IntegerAttr(sim.dimension)),
      builder.getNamedAttr("order", builder.getI64IntegerAttr(sim.order)),
      builder.getNamedAttr("resolution", builder.getDenseI64ArrayAttr(resolution)),
      builder.getNamedAttr("scheme", builder.getStringAttr(sim.scheme == frontend::Scheme::Spectral ? "spectral" : "fd")),
  };
  llvm::SmallVector<mlir::Attribute> fieldAttrs;
  for (const auto &f : source.fields) {
    std::string variance;
    for (frontend::Variance v : f->variances)
      variance += v == frontend::Variance::Up ? 'u' : 'd';
    fieldAttrs.push_back(builder.getDictionaryAttr({
        builder.getNamedAttr("components", builder.getI64IntegerAttr(f->componentCount)),
        builder.getNamedAttr("name", builder.getStringAttr(f->name)),
        builder.getNamedAttr("rank", builder.getI64IntegerAttr(frontend::tensorTypeRank(f->type))),
        builder.getNamedAttr("spacetime", builder.getBoolAttr(f->space == frontend::IndexSpace::Spacetime)),
        builder.getNamedAttr("type", builder.getStringAttr(frontend::tensorTypeSpelling(f->type))),
        builder.getNamedAttr("variance", builder.getStringAttr(variance)),
    }));
  }
  (*module)->setAttr(sv(abi::kAttrVersion), builder.getI64IntegerAttr(abi::kABIVersion));
  (*module)->setAttr(sv(abi::kAttrModuleSimulation), builder.getDictionaryAttr(simAttrs));
  (*module)->setAttr(sv(abi::kAttrModuleFields), builder.getArrayAttr(fieldAttrs));
  if (mlir::ArrayAttr problems = spectralProblemAttributes(builder, source))
    (*module)->setAttr(sv(abi::kAttrModuleSpectralProblems), problems);
  if (mlir::ArrayAttr boundaries = evolutionBoundaryAttributes(builder, source)) {
    (*module)->setAttr(sv(abi::kAttrModuleEvolutionBoundaries), boundaries);
    llvm::SmallVector<mlir::NamedAttribute> defaults;
    for (const frontend::ParamDecl &p : source.params)
      if (p.defaultValue)
        defaults.push_back(builder.getNamedAttr(p.name, builder.getF64FloatAttr(*p.defaultValue)));
    if (!defaults.empty())
      (*module)->setAttr(sv(abi::kAttrModuleSystemParamDefaults), builder.getDictionaryAttr(defaults));
  }
  emitKernels(*module, loc, kernels, options);
  return module;
}

} // namespace tensorium_mlir::codegen
