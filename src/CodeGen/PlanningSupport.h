#pragma once
// What the planner's pieces share (src/CodeGen/KernelPlan.cpp and its Plan*.cpp units, the
// Scalarizer, the stencil expansion): evaluation modes, component tuples, spectral bundle slots,
// the leaves a computation reads and the planners' common base. Private to src/CodeGen.
#include "tensorium_mlir/CodeGen/KernelPlan.h"
#include "tensorium_mlir/Frontend/Diagnostics.h"
#include "tensorium_mlir/Support/FiniteDifferenceWeights.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tensorium_mlir::codegen::planning {

using namespace frontend;
using support::derivativeWeights;
using support::dissipationWeights;
using support::firstDerivativeWeights;
using support::secondDerivativeWeights;

// Point: initial data (no fields, no derivatives). Symbolic: derivatives of field components
// stay symbolic, as leaves with per-axis derivative counts in `offset`.
enum class Mode { Point, FiniteDifference, Spectral, Symbolic };

inline unsigned rangeOf(IndexSpace space, unsigned dim) { return space == IndexSpace::Spatial ? dim : dim + 1; }

/// Row-major flattening of component indices.
inline int flatten(const std::vector<int> &idx, unsigned n) {
  int c = 0;
  for (int v : idx)
    c = c * static_cast<int>(n) + v;
  return c;
}

inline std::vector<std::vector<int>> allTuples(unsigned rank, unsigned n) {
  std::vector<std::vector<int>> out;
  std::vector<int> t(rank, 0);
  for (;;) {
    out.push_back(t);
    int slot = static_cast<int>(rank) - 1;
    while (slot >= 0 && ++t[static_cast<size_t>(slot)] == static_cast<int>(n)) {
      t[static_cast<size_t>(slot)] = 0;
      --slot;
    }
    if (slot < 0)
      break;
  }
  return out;
}

struct CodeGenError {};

/// Spectral bundle leaves: one per (field, component); a field has at most 4 components here.
constexpr int kSpectralComponentStride = 4;
inline int spectralBundleId(int fieldIndex, int component) { return fieldIndex * kSpectralComponentStride + component; }

/// One bundle argument group of a spectral kernel: a scalar field, or one component of a vector
/// field (named `W_0`, `W_1`, ...).
struct SpectralBundle {
  const FieldDecl *field = nullptr;
  int component = 0;
  std::string name;
};

/// Collects the abstract leaves a set of roots reads.
struct LeafUse {
  std::set<int> params, coords, fields;
  std::map<int, std::set<int>> bundleSlots;
  std::array<int, 3> radius{0, 0, 0};
};

/// Terms whose weights agree in magnitude share one multiplication: a centred first
/// derivative is sum_s c_s (u_s - u_-s), a second one sum_s c_s (u_s + u_-s) + c_0 u_0.
/// Magnitude -> (offsets of positive weights, offsets of negative ones).
std::map<double, std::pair<std::vector<std::array<int8_t, 3>>, std::vector<std::array<int8_t, 3>>>>
weightGroups(const std::vector<std::pair<std::array<int8_t, 3>, double>> &terms);
/// sum over weight groups of coefficient * scale * (sum of the group's values).
NodeId weightedSum(ScalarGraph &g, const std::vector<std::pair<std::array<int8_t, 3>, double>> &terms,
                   const std::function<NodeId(const std::array<int8_t, 3> &)> &valueAt, NodeId scale);
/// The parameters, coordinates, fields and bundle slots `roots` read, and their stencil reach.
LeafUse collectLeaves(const ScalarGraph &g, const std::vector<NodeId> &roots, unsigned order);
/// The stencil of a derivative leaf of field argument `arg` (tensor product of 1-D stencils).
NodeId expandDerivativeLeaf(ScalarGraph &g, int arg, const Leaf &leaf, unsigned order);
/// Records a derivative leaf across z and x or y as the z stencil of its transverse derivative.
void recordZFactoring(std::vector<ZFactoredStencil> &factored, ScalarGraph &g, int arg, const Leaf &leaf,
                      unsigned order, NodeId value);

/// The read and written argument lists and the read flags of scalar arguments, from what the
/// plan's stores and result use.
void setCommonAttributes(KernelPlan &plan);
/// A kernel symbol without the ABI prefix.
std::string kindOf(std::string_view symbol);

} // namespace tensorium_mlir::codegen::planning
