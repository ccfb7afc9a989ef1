#include "tensorium_mlir/Support/FiniteDifferenceWeights.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tensorium_mlir::support {

namespace {
void requireOrder(unsigned order) {
  if (!isFiniteDifferenceOrder(order))
    throw std::invalid_argument("no centred finite-difference weights of order " + std::to_string(order) +
                                " (2, 4, 6 or 8)");
}
} // namespace

bool isFiniteDifferenceOrder(unsigned order) { return order == 2 || order == 4 || order == 6 || order == 8; }

const std::vector<double> &firstDerivativeWeights(unsigned order) {
  requireOrder(order);
  static const std::vector<double> w2{-1.0 / 2, 0, 1.0 / 2};
  static const std::vector<double> w4{1.0 / 12, -2.0 / 3, 0, 2.0 / 3, -1.0 / 12};
  static const std::vector<double> w6{-1.0 / 60, 3.0 / 20, -3.0 / 4, 0, 3.0 / 4, -3.0 / 20, 1.0 / 60};
  static const std::vector<double> w8{1.0 / 280, -4.0 / 105, 1.0 / 5, -4.0 / 5, 0,
                                      4.0 / 5,   -1.0 / 5,   4.0 / 105, -1.0 / 280};
  return order == 2 ? w2 : order == 4 ? w4 : order == 6 ? w6 : w8;
}

const std::vector<double> &secondDerivativeWeights(unsigned order) {
  requireOrder(order);
  static const std::vector<double> w2{1, -2, 1};
  static const std::vector<double> w4{-1.0 / 12, 4.0 / 3, -5.0 / 2, 4.0 / 3, -1.0 / 12};
  static const std::vector<double> w6{1.0 / 90, -3.0 / 20, 3.0 / 2, -49.0 / 18, 3.0 / 2, -3.0 / 20, 1.0 / 90};
  static const std::vector<double> w8{-1.0 / 560, 8.0 / 315, -1.0 / 5,  8.0 / 5, -205.0 / 72,
                                      8.0 / 5,    -1.0 / 5,  8.0 / 315, -1.0 / 560};
  return order == 2 ? w2 : order == 4 ? w4 : order == 6 ? w6 : w8;
}

std::vector<double> derivativeWeights(unsigned order, unsigned count) {
  requireOrder(order);
  std::vector<double> w{1.0};
  auto convolve = [&](const std::vector<double> &k) {
    std::vector<double> out(w.size() + k.size() - 1, 0.0);
    for (size_t i = 0; i < w.size(); ++i)
      for (size_t j = 0; j < k.size(); ++j)
        out[i + j] += w[i] * k[j];
    w = std::move(out);
  };
  for (unsigned c = count; c >= 2; c -= 2)
    convolve(secondDerivativeWeights(order));
  if (count % 2)
    convolve(firstDerivativeWeights(order));
  return w;
}

std::vector<double> dissipationWeights(unsigned order) {
  requireOrder(order);
  // Kreiss-Oliger operator of a scheme of order p: r = p/2 + 1 and
  //   Q u = (-1)^(r+1) h^(2r-1) / 2^(2r) (D+ D-)^r u,
  // whose weights (times 1/h) are -(-1)^k C(2r, r+k) / 2^(2r), k = -r..r. Its Fourier symbol is
  // -sin^(2r)(theta/2) <= 0: it damps every mode, the grid-scale one most, and is O(h^(2r-1)),
  // below the scheme's truncation error.
  const int r = static_cast<int>(order) / 2 + 1;
  std::vector<double> w(static_cast<size_t>(2 * r + 1));
  double binomial = 1.0; // C(2r, m) for m = 0..2r
  for (int m = 0; m <= 2 * r; ++m) {
    const int k = m - r;
    w[static_cast<size_t>(m)] = -((k % 2 == 0) ? 1.0 : -1.0) * binomial / std::ldexp(1.0, 2 * r);
    binomial = binomial * (2 * r - m) / (m + 1);
  }
  return w;
}

const OffsetWeights &lopsidedFirstDerivativeWeights(unsigned order) {
  requireOrder(order);
  // The exact rational solutions of sum_j w_j j^m = [m == 1], m = 0..p, on the offsets.
  static const OffsetWeights w2{0, {-3.0 / 2, 2.0, -1.0 / 2}};
  static const OffsetWeights w4{-1, {-1.0 / 4, -5.0 / 6, 3.0 / 2, -1.0 / 2, 1.0 / 12}};
  static const OffsetWeights w6{-2, {1.0 / 30, -2.0 / 5, -7.0 / 12, 4.0 / 3, -1.0 / 2, 2.0 / 15, -1.0 / 60}};
  static const OffsetWeights w8{
      -3, {-1.0 / 168, 1.0 / 14, -1.0 / 2, -9.0 / 20, 5.0 / 4, -1.0 / 2, 1.0 / 6, -1.0 / 28, 1.0 / 280}};
  return order == 2 ? w2 : order == 4 ? w4 : order == 6 ? w6 : w8;
}

} // namespace tensorium_mlir::support
