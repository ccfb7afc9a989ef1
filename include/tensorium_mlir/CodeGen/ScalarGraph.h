#pragma once
// Hash-consed scalar expression DAG: the form tensor expressions take after scalarization.
// Structurally equal nodes are created once, so common subexpressions are shared for free.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tensorium_mlir::codegen {

using NodeId = int32_t;

enum class NodeOp : uint8_t {
  Const,
  Leaf,
  Add,
  Mul,
  Div,
  Neg,
  Pow,  // base ^ (num/den), exact rational exponent
  Sqrt, Sin, Cos, Exp, Log,
  PowGeneral, // pow(a, b)
  BesselJ0, BesselJ1, // the C library's j0, j1
  Abs,  // |x|
  Sign, // copysign(1, x): +-1, the derivative of |x| (+-1 at +-0 as well)
};

enum class LeafKind : uint8_t {
  Param,     // a = parameter index
  Coord,     // a = axis; offset = stencil shift
  Field,     // a = field index, b = component; offset = stencil shift; deriv = derivative
             // counts per axis (finite differences expand them into stencils at the end)
  Bundle,    // a = field index, b = spectral bundle slot
  Direction, // a = field index, b = spectral bundle slot of the JVP direction
  Spacing,   // a = axis
  Arg,       // a = kernel argument index, b = component; offset = stencil shift
};

struct Leaf {
  LeafKind kind = LeafKind::Param;
  int32_t a = 0;
  int32_t b = 0;
  std::array<int8_t, 3> offset{0, 0, 0};
  std::array<int8_t, 3> deriv{0, 0, 0};
  bool operator==(const Leaf &o) const {
    return kind == o.kind && a == o.a && b == o.b && offset == o.offset && deriv == o.deriv;
  }
};

struct Node {
  NodeOp op = NodeOp::Const;
  double value = 0.0;       // Const
  NodeId lhs = -1, rhs = -1; // operands
  int64_t num = 1, den = 1; // Pow
  Leaf leaf;                // Leaf
};

class ScalarGraph {
public:
  const Node &node(NodeId id) const { return nodes_[static_cast<size_t>(id)]; }
  size_t size() const { return nodes_.size(); }

  NodeId constant(double v);
  NodeId leaf(const Leaf &leaf);
  NodeId add(NodeId a, NodeId b);
  NodeId sub(NodeId a, NodeId b) { return add(a, neg(b)); }
  NodeId mul(NodeId a, NodeId b);
  NodeId div(NodeId a, NodeId b);
  NodeId neg(NodeId a);
  NodeId pow(NodeId base, int64_t num, int64_t den);
  NodeId unary(NodeOp op, NodeId a);
  NodeId powGeneral(NodeId a, NodeId b);
  /// A node of `shape`'s operation (and exponent or constant) over new operands, built through
  /// the simplifying constructors above; leaves are returned as they are.
  NodeId rebuilt(const Node &shape, NodeId lhs, NodeId rhs);

  bool isConstant(NodeId id, double v) const {
    const Node &n = node(id);
    return n.op == NodeOp::Const && n.value == v;
  }

  /// Rebuilds `root` (and what it depends on) into `target`, replacing every leaf through
  /// `mapLeaf`. Results are memoised in `memo`, which callers reuse across roots.
  NodeId rebuild(NodeId root, ScalarGraph &target,
                 const std::function<NodeId(const Leaf &, ScalarGraph &)> &mapLeaf,
                 std::unordered_map<NodeId, NodeId> &memo) const;

  /// d(root): chain rule over the DAG; `leafDerivative` gives the derivative of a leaf in this
  /// graph. Results are memoised in `memo`.
  NodeId differentiate(NodeId root, const std::function<NodeId(const Leaf &)> &leafDerivative,
                       std::unordered_map<NodeId, NodeId> &memo);

  /// Nodes reachable from `roots`, in an order where operands precede their users.
  std::vector<NodeId> topologicalOrder(const std::vector<NodeId> &roots) const;

private:
  NodeId intern(const Node &n);

  struct KeyHash {
    size_t operator()(const Node &n) const;
  };
  struct KeyEq {
    bool operator()(const Node &a, const Node &b) const;
  };
  std::vector<Node> nodes_;
  std::unordered_map<Node, NodeId, KeyHash, KeyEq> index_;
};

} // namespace tensorium_mlir::codegen
