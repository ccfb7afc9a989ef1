// Kernel plans from the analysed AST: which kernels a module lowers to (initial data, grid,
// symbolic and spectral planners in the Plan*.cpp units), simplified and bounded in size.
#include "Planner.h"

#include "tensorium_mlir/CodeGen/GraphSimplify.h"

namespace tensorium_mlir::codegen {

std::vector<NodeId> outputRoots(const KernelPlan &plan) {
  std::vector<NodeId> roots;
  for (const KernelStore &s : plan.stores)
    roots.push_back(s.value);
  if (plan.result >= 0)
    roots.push_back(plan.result);
  return roots;
}

namespace planning {

void setCommonAttributes(KernelPlan &plan) {
  // Scalar arguments count as read only when the computation uses them; buffers keep the flag
  // the planner gave them (a coordinate buffer may be read for its length alone).
  std::vector<char> used(plan.args.size(), 0);
  for (NodeId id : plan.graph.topologicalOrder(outputRoots(plan))) {
    const Node &n = plan.graph.node(id);
    if (n.op == NodeOp::Leaf && n.leaf.kind == LeafKind::Arg)
      used[static_cast<size_t>(n.leaf.a)] = 1;
  }
  for (size_t i = 0; i < plan.args.size(); ++i)
    if (plan.args[i].type == ArgType::F64)
      plan.args[i].read = used[i] != 0;
  plan.readArgs.clear();
  plan.writeArgs.clear();
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const KernelArg &a = plan.args[i];
    if (a.read)
      plan.readArgs.push_back(static_cast<int64_t>(i));
    if (a.written)
      plan.writeArgs.push_back(static_cast<int64_t>(i));
  }
}

std::string kindOf(std::string_view symbol) {
  return std::string(symbol.substr(abi::kSymbolPrefix.size()));
}

} // namespace planning

std::vector<KernelPlan> planKernels(const frontend::Module &module, const CodeGenOptions &options,
                                    frontend::DiagnosticEngine &diags) {
  using namespace planning;
  const Module &m_ = module;
  const CodeGenOptions &o_ = options;
  DiagnosticEngine &d_ = diags;
  std::vector<KernelPlan> out;
  try {
    if (!o_.symbolic && m_.sim.scheme == Scheme::Spectral)
      for (const ComputeBlock &block : m_.blocks)
        if (block.kind == ComputeKind::Evolution) {
          d_.error(block.nameRange, "evolution blocks need 'scheme = fd'; spectral grids only "
                                    "provide residual kernels");
          throw CodeGenError{};
        }
    if (o_.symbolic) {
      if (o_.kernels & static_cast<unsigned>(KernelSelection::Init))
        planInitialData(m_, o_, d_, out, true);
      if (o_.kernels & static_cast<unsigned>(KernelSelection::Rhs))
        planSymbolicKernels(m_, o_, d_, out, ComputeKind::Evolution);
      if (o_.kernels & (static_cast<unsigned>(KernelSelection::Residual) | static_cast<unsigned>(KernelSelection::Spectral)))
        planSymbolicKernels(m_, o_, d_, out, ComputeKind::Constraints);
      if (d_.hasErrors())
        out.clear();
      return out;
    }
    if (o_.kernels & static_cast<unsigned>(KernelSelection::Init))
      planInitialData(m_, o_, d_, out, false);
    if (o_.kernels & static_cast<unsigned>(KernelSelection::Rhs))
      planGridKernels(m_, o_, d_, out, ComputeKind::Evolution);
    if (m_.sim.scheme == Scheme::FiniteDifference) {
      if (o_.kernels & static_cast<unsigned>(KernelSelection::Residual))
        planGridKernels(m_, o_, d_, out, ComputeKind::Constraints);
    } else if (o_.kernels & static_cast<unsigned>(KernelSelection::Spectral)) {
      planSpectralKernels(m_, o_, d_, out);
    }
  } catch (CodeGenError &) {
  }
  if (d_.hasErrors())
    out.clear();
  // After the ABI attributes are fixed (setCommonAttributes): what a kernel declares it reads
  // does not depend on how its arithmetic is simplified.
  if (o_.simplify)
    for (KernelPlan &plan : out)
      mergeEquivalentNodes(plan);
  // Bounded compilation: the size of every kernel is known before any MLIR or LLVM exists.
  for (const KernelPlan &plan : out) {
    std::vector<NodeId> roots;
    for (const KernelStore &st : plan.stores)
      roots.push_back(st.value);
    if (plan.result >= 0)
      roots.push_back(plan.result);
    const size_t ops = plan.graph.topologicalOrder(roots).size();
    if (ops > o_.maxKernelOps) {
      SourceRange where = plan.origin;
      if (!where.begin.isValid() && !m_.blocks.empty())
        where = m_.blocks.front().nameRange;
      d_.error(where, "kernel '" + plan.symbol + "' would have " + std::to_string(ops) +
                          " scalar operations per point after simplification, more than the limit of " +
                          std::to_string(o_.maxKernelOps) + " (--max-kernel-ops): split the block into smaller ones "
                          "or raise the limit");
      out.clear();
      return out;
    }
  }
  return out;
}

} // namespace tensorium_mlir::codegen
