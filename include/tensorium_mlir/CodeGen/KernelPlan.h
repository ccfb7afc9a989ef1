#pragma once
// Kernel plans: every generated function described as plain data (arguments, ABI metadata,
// a scalar graph of what each output component stores). Built from the analysed AST without
// MLIR; the MLIR emitter turns a plan into ops one-to-one.
#include "tensorium_mlir/CodeGen/ScalarGraph.h"
#include "tensorium_mlir/Frontend/AST.h"
#include "tensorium_mlir/Frontend/Diagnostics.h"

#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tensorium_mlir::codegen {

enum class KernelFamily {
  InitPoint, InitGrid, RhsGrid, ResidualGrid, SpectralPoint, SpectralJvp, SpectralGrid,
  Symbolic, // tensorium_init / tensorium_rhs / tensorium_entry: pointwise, derivatives as inputs
};
enum class LoopStyle { None, Scf, Affine, Parallel };

enum class ArgType { Index, F64, Buffer, FixedBuffer };
enum class ArgRole {
  Extent,     // nx, ny, nz or n_points (index)
  Spacing,    // dx, dy, dz
  Param,
  Coordinate, // coordinate buffer or value
  Field,      // field buffer (or bundle component) read by the kernel
  Direction,  // JVP direction bundle component
  Output,     // written buffer
};

/// Families whose kernels read neighbours through stencils over an nx x ny x nz grid.
inline bool isStencilFamily(KernelFamily f) { return f == KernelFamily::RhsGrid || f == KernelFamily::ResidualGrid; }
/// Families whose kernels loop over grid points (stencil grids and flat point lists).
inline bool isGridFamily(KernelFamily f) {
  return isStencilFamily(f) || f == KernelFamily::InitGrid || f == KernelFamily::SpectralGrid;
}

struct KernelArg {
  std::string name;
  ArgType type = ArgType::F64;
  ArgRole role = ArgRole::Param;
  int64_t fixedSize = 0;   // FixedBuffer: memref<N x f64>
  unsigned components = 1; // buffers: components per grid point
  bool read = false;
  bool written = false;
};

struct KernelStore {
  int arg = 0;       // buffer argument
  int component = 0; // SoA component
  NodeId value = -1;
};

/// A derivative stencil that is a z-derivative stencil applied to another stencil (a mixed
/// derivative such as d_x d_z u, the tensor product of one-dimensional stencils):
/// value = sum over groups of coefficient * (sum_{s in positive} T(z + s) - sum_{s in negative}
/// T(z + s)), T the `transverse` stencil (the derivative without its z part, whose reads all
/// have z offset 0), grouped as the stencils themselves group equal weights (a group of
/// negative weights only lists its shifts as positive, with a negative coefficient). Vector
/// code may form `value` from T's values at the neighbouring points instead of from all of its
/// own reads (docs/codegen.md).
struct ZFactoredStencil {
  struct Group {
    NodeId coefficient = -1; // weight / h_z^k, loop invariant
    std::vector<int> positive, negative;
  };
  NodeId value = -1, transverse = -1;
  std::vector<Group> groups;
};

struct KernelPlan {
  std::string symbol;
  std::string kind;
  KernelFamily family = KernelFamily::RhsGrid;
  LoopStyle loop = LoopStyle::None;
  std::vector<KernelArg> args;
  /// Leaves are LeafKind::Arg: `a` is the argument; for buffers `b` is the component and
  /// `offset` the stencil shift from the current point.
  ScalarGraph graph;
  std::vector<KernelStore> stores;
  NodeId result = -1; // point kernels that return an f64
  std::array<int, 3> radius{0, 0, 0};
  int stencilRadius = 0;
  std::vector<std::string> paramNames, coordNames, fieldNames, outputNames;
  std::vector<int64_t> readArgs, writeArgs;
  bool residualKernel = false;
  std::string constraintBlock; // spectral residual kernels
  /// Buffers read with a stencil and also written: copied once before the loop.
  std::vector<int> snapshotArgs;
  /// The block the kernel comes from (for diagnostics about the kernel as a whole).
  frontend::SourceRange origin;
  /// Mixed derivatives across z of grid kernels, with the stencil each one factors through.
  std::vector<ZFactoredStencil> zFactored;
};

enum class KernelSelection : unsigned {
  Init = 1, Rhs = 2, Residual = 4, Spectral = 8, All = 15,
};

struct CodeGenOptions {
  /// Parameters folded into constants (`--param name=value`).
  std::map<std::string, double> foldedParams;
  unsigned kernels = static_cast<unsigned>(KernelSelection::All);
  /// Symbolic mode: pointwise source functions (tensorium_init, tensorium_rhs,
  /// tensorium_entry) whose field derivatives are inputs instead of stencils.
  bool symbolic = false;
  /// Merge nodes that compute the same function of the leaves (GraphSimplify.h); off keeps
  /// every expression as scalarised (`--simplify=off`).
  bool simplify = true;
  /// Finite differences through per-field derivative leaves expanded once per kernel into
  /// stencils with grouped weights. Off reproduces the first code generator for comparisons:
  /// every d_i is the stencil of its whole argument, a plain weighted sum (`--derivative-sharing=off`).
  bool derivativeSharing = true;
  /// Largest kernel, in scalar operations after simplification, that code generation accepts
  /// (`--max-kernel-ops`): beyond it the compile time and memory of the LLVM back end grow past
  /// the documented bounds (docs/codegen.md), so planning stops with a located error instead.
  size_t maxKernelOps = 150000;
};

/// The nodes a plan stores, in store order, then its result (point kernels that return one).
std::vector<NodeId> outputRoots(const KernelPlan &plan);

/// Whether every node `f` names is one of `computed` (flags by node id, e.g. the nodes the
/// kernel's stores reach): only such factorings can be used, their loop invariants being
/// emitted before the loops.
bool usesComputedNodesOnly(const ZFactoredStencil &f, const std::vector<char> &computed);

/// Builds every kernel the module lowers to. Reports located errors for constructs a kernel
/// family cannot express; returns an empty list when any error was reported.
std::vector<KernelPlan> planKernels(const frontend::Module &module, const CodeGenOptions &options,
                                    frontend::DiagnosticEngine &diags);

} // namespace tensorium_mlir::codegen
