#pragma once
// Centred finite-difference weights on a uniform grid, the one table the code generator builds
// its stencils from and the runtime uses where it differentiates grid data itself (the BSSN
// initial data's Gammatilde^i, the spacetime check). Orders 2, 4, 6 and 8; any other order is
// an std::invalid_argument. No MLIR.
#include <vector>

namespace tensorium_mlir::support {

/// Whether `order` is one of the supported finite-difference orders (2, 4, 6, 8).
bool isFiniteDifferenceOrder(unsigned order);

/// d/dx at order p: weights of the offsets -p/2 .. p/2, times 1/h.
const std::vector<double> &firstDerivativeWeights(unsigned order);
/// d^2/dx^2 at order p: weights of the offsets -p/2 .. p/2, times 1/h^2.
const std::vector<double> &secondDerivativeWeights(unsigned order);
/// d^count/dx^count at order p (offsets -r..r, r = size / 2): the second-derivative stencil per
/// pair of derivatives, the first-derivative one for an odd remainder, as the stencils compose.
std::vector<double> derivativeWeights(unsigned order, unsigned count);
/// Kreiss-Oliger dissipation of a scheme of order p (radius p/2 + 1), times 1/h.
std::vector<double> dissipationWeights(unsigned order);

/// Weights of consecutive offsets first, first + 1, ... (times 1/h).
struct OffsetWeights {
  int first = 0;
  std::vector<double> weights;
  int last() const { return first + static_cast<int>(weights.size()) - 1; }
};
/// The lopsided ("upwind-biased") d/dx of order p for a positive advection speed beta^x > 0:
/// offsets -(p/2 - 1) .. p/2 + 1, one more point on the side the information comes from (order
/// 4: (-3 u[-1] - 10 u[0] + 18 u[1] - 6 u[2] + u[3]) / 12); for beta^x < 0 the mirror image
/// (offsets negated, weights negated). Reach p/2 + 1, as Kreiss-Oliger dissipation's.
const OffsetWeights &lopsidedFirstDerivativeWeights(unsigned order);

} // namespace tensorium_mlir::support
