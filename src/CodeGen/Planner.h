#pragma once
// The planners' common base (the module, options, diagnostics; parameter arguments; targets
// scalarised per block) and the entry points of the planner units: initial data
// (PlanInitialData.cpp), grid and symbolic kernels (PlanGridKernels.cpp), spectral residuals
// with their exact-solution and boundary kernels (PlanSpectralKernels.cpp). Private to src/CodeGen.
#include "PlanningSupport.h"
#include "Scalarizer.h"

#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"

namespace tensorium_mlir::codegen::planning {

class PlannerBase {
public:
  PlannerBase(const Module &m, const CodeGenOptions &o, DiagnosticEngine &d) : m_(m), o_(o), d_(d) {}

protected:
  std::vector<std::string> paramNamesUsed(const LeafUse &use) const {
    std::vector<std::string> names;
    for (size_t i = 0; i < m_.params.size(); ++i)
      if (!o_.foldedParams.count(m_.params[i].name))
        names.push_back(m_.params[i].name);
    (void)use;
    return names;
  }

  /// Every component of a `dt` or `residual` target, in row-major order. A declared symmetric
  /// field gets its upper triangle computed and mirrored.
  std::vector<NodeId> evaluateTarget(Scalarizer &s, const Stmt &st, const FieldDecl &f) const {
    const unsigned n = rangeOf(f.space, m_.sim.dimension);
    std::vector<NodeId> values;
    for (const auto &tuple : allTuples(static_cast<unsigned>(st.targetIndices.size()), n)) {
      if (fieldIsSymmetric(f) && tuple[0] > tuple[1])
        values.push_back(values[static_cast<size_t>(tuple[1]) * n + static_cast<size_t>(tuple[0])]);
      else
        values.push_back(s.evalAssignment(st, tuple));
    }
    return values;
  }

  /// Non-folded parameters in declaration order, with their kernel argument slots.
  void addParamArgs(KernelPlan &plan, std::map<int, int> &paramArg) {
    for (size_t i = 0; i < m_.params.size(); ++i) {
      if (o_.foldedParams.count(m_.params[i].name))
        continue;
      paramArg[static_cast<int>(i)] = static_cast<int>(plan.args.size());
      plan.args.push_back({m_.params[i].name, ArgType::F64, ArgRole::Param, 0, 1, true, false});
      plan.paramNames.push_back(m_.params[i].name);
    }
  }

  // ------------------------------------------------------------ fd grid kernels

  /// Every `dt` (evolution) or `residual` (constraints) target of the module, scalarized in
  /// `mode`; temporaries are per block. Outputs of `dt X` are the buffers `dX`.
  struct Target {
    std::string bufferName;
    const FieldDecl *field;
    std::vector<NodeId> values;
    SourceRange range; // the statement, for diagnostics
  };
  std::vector<Target> scalarizeTargets(ScalarGraph &g, ComputeKind kind, Mode mode) {
    std::vector<Target> targets;
    for (const ComputeBlock &block : m_.blocks) {
      if (block.kind != kind)
        continue;
      Scalarizer s(m_, o_, d_, g, mode);
      for (const Stmt &st : block.statements) {
        if (st.kind == StmtKind::Temporary) {
          s.defineTemporary(st);
          continue;
        }
        const FieldDecl &f = *st.field;
        targets.push_back({kind == ComputeKind::Evolution ? std::string(abi::kDerivativeOutputPrefix) + f.name : f.name,
                           &f, evaluateTarget(s, st, f), st.range});
      }
    }
    return targets;
  }

  static std::vector<NodeId> allValues(const std::vector<Target> &targets) {
    std::vector<NodeId> roots;
    for (const Target &t : targets)
      roots.insert(roots.end(), t.values.begin(), t.values.end());
    return roots;
  }

  const Module &m_;
  const CodeGenOptions &o_;
  DiagnosticEngine &d_;
};

/// Initial-data kernels (point, scf, affine, symbolic; the slice kernels of a metric4).
void planInitialData(const Module &m, const CodeGenOptions &o, DiagnosticEngine &d, std::vector<KernelPlan> &out,
                     bool symbolic);
/// Finite-difference grid kernels of the evolution (rhs) or constraint (residual) blocks.
void planGridKernels(const Module &m, const CodeGenOptions &o, DiagnosticEngine &d, std::vector<KernelPlan> &out,
                     ComputeKind kind);
/// Symbolic source functions (tensorium_rhs / tensorium_entry) of those blocks.
void planSymbolicKernels(const Module &m, const CodeGenOptions &o, DiagnosticEngine &d, std::vector<KernelPlan> &out,
                         ComputeKind kind);
/// Spectral residual, JVP and grid kernels of declared problems, with their exact-solution and
/// boundary kernels.
void planSpectralKernels(const Module &m, const CodeGenOptions &o, DiagnosticEngine &d, std::vector<KernelPlan> &out);

} // namespace tensorium_mlir::codegen::planning
