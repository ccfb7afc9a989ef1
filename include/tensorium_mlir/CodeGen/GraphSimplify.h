#pragma once
// Semantic value numbering of a scalar graph: nodes that compute the same function of the
// leaves become one node, whatever the shape of the expressions that built them.
//
// Hash-consing shares structurally equal nodes only: (a + b) + c and a + (b + c), T[i,j] and
// T[j,i] of a tensor that is symmetric by construction, or d_x d_y u and d_y d_x u written
// through different temporaries stay separate. Here every node is evaluated exactly, in the
// field of integers modulo the prime 2^61 - 1, at two independent pseudo-random points (every
// leaf gets a random value); rational operations (+, -, *, /, integer powers) are exact there,
// other functions (sqrt, exp, ...) are uninterpreted, and constants are exact when they are
// small dyadic rationals (integers, halves, ...) and independent symbols otherwise. Two rational
// functions that differ agree at a random point with probability below degree / 2^61
// (Schwartz-Zippel), so merging nodes whose two values agree is exact with overwhelming
// probability; the choice of points is fixed, so compilation stays deterministic.
//
// Merging replaces a node by an equal one computed in another order: results change by
// rounding only. Nodes equal to zero become the constant 0, nodes equal to minus another node
// become its negation.
#include "tensorium_mlir/CodeGen/ScalarGraph.h"

#include <vector>

namespace tensorium_mlir::codegen {

struct KernelPlan;

struct SimplifyStats {
  size_t nodesBefore = 0; // reachable from the roots
  size_t nodesAfter = 0;
  size_t merged = 0;      // nodes replaced by an equal (or opposite) earlier node
};

/// Rebuilds `graph` restricted to `roots` with equal nodes merged; rewrites `roots` in place.
ScalarGraph mergeEquivalentNodes(const ScalarGraph &graph, std::vector<NodeId> &roots, SimplifyStats *stats = nullptr);

/// The same for a kernel plan's stores and result.
void mergeEquivalentNodes(KernelPlan &plan, SimplifyStats *stats = nullptr);

} // namespace tensorium_mlir::codegen
