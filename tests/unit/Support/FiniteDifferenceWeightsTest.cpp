// The finite-difference tables against their defining moment conditions: a centred stencil of
// order p for d^n/dx^n takes sum_k w_k k^m = n! delta_mn for every m below n + p, and misses at
// m = n + p (so the order is exactly p); Kreiss-Oliger dissipation annihilates every polynomial
// below degree 2r and damps the grid-scale mode with symbol -sin^(2r)(pi/2) = -1.
#include "tensorium_mlir/Support/FiniteDifferenceWeights.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using namespace tensorium_mlir::support;

namespace {

/// sum_k w_k k^m over offsets -r..r.
double moment(const std::vector<double> &w, int m) {
  const int r = static_cast<int>(w.size()) / 2;
  double sum = 0;
  for (int k = -r; k <= r; ++k)
    sum += w[static_cast<size_t>(k + r)] * std::pow(static_cast<double>(k), m);
  return sum;
}

double factorial(int n) { return n <= 1 ? 1.0 : n * factorial(n - 1); }

void expectOrder(const std::vector<double> &w, int derivative, int order) {
  for (int m = 0; m < derivative + order; ++m)
    EXPECT_NEAR(moment(w, m), m == derivative ? factorial(derivative) : 0.0, 1e-11)
        << "d^" << derivative << " order " << order << " moment " << m;
  EXPECT_GT(std::abs(moment(w, derivative + order)), 1e-6) << "d^" << derivative << " is of higher order than " << order;
}

} // namespace

TEST(FiniteDifferenceWeights, FirstAndSecondDerivativesHaveTheirOrder) {
  for (unsigned p : {2u, 4u, 6u, 8u}) {
    EXPECT_EQ(firstDerivativeWeights(p).size(), p + 1);
    expectOrder(firstDerivativeWeights(p), 1, static_cast<int>(p));
    expectOrder(secondDerivativeWeights(p), 2, static_cast<int>(p));
  }
}

TEST(FiniteDifferenceWeights, HigherDerivativesComposeTheStencils) {
  for (unsigned p : {2u, 4u, 6u}) {
    expectOrder(derivativeWeights(p, 3), 3, static_cast<int>(p));
    expectOrder(derivativeWeights(p, 4), 4, static_cast<int>(p));
    EXPECT_EQ(derivativeWeights(p, 1), firstDerivativeWeights(p));
  }
}

TEST(FiniteDifferenceWeights, DissipationAnnihilatesPolynomialsAndDampsTheGridMode) {
  for (unsigned p : {2u, 4u, 6u, 8u}) {
    const std::vector<double> w = dissipationWeights(p);
    const int r = static_cast<int>(p) / 2 + 1;
    ASSERT_EQ(w.size(), static_cast<size_t>(2 * r + 1));
    for (int m = 0; m < 2 * r; ++m)
      EXPECT_NEAR(moment(w, m), 0.0, 1e-11) << "order " << p << " moment " << m;
    double gridMode = 0; // the symbol at theta = pi: sum_k w_k (-1)^k
    for (int k = -r; k <= r; ++k)
      gridMode += w[static_cast<size_t>(k + r)] * (k % 2 ? -1.0 : 1.0);
    EXPECT_NEAR(gridMode, -1.0, 1e-14);
  }
}

TEST(FiniteDifferenceWeights, UnsupportedOrdersAreRefused) {
  EXPECT_FALSE(isFiniteDifferenceOrder(3));
  EXPECT_THROW(firstDerivativeWeights(0), std::invalid_argument);
  EXPECT_THROW(secondDerivativeWeights(10), std::invalid_argument);
  EXPECT_THROW(dissipationWeights(5), std::invalid_argument);
}

TEST(FiniteDifferenceWeights, LopsidedFirstDerivativesHaveTheirOrderAndTheirBias) {
  for (unsigned p : {2u, 4u, 6u, 8u}) {
    const OffsetWeights &w = lopsidedFirstDerivativeWeights(p);
    const int half = static_cast<int>(p) / 2;
    EXPECT_EQ(w.first, -(half - 1)) << p;
    EXPECT_EQ(w.last(), half + 1) << p; // one more point ahead: the reach of Kreiss-Oliger's
    // sum_j w_j j^m = [m == 1] for m = 0..p (p + 1 points: exact on polynomials of degree p).
    for (int m = 0; m <= static_cast<int>(p); ++m) {
      double sum = 0;
      for (size_t j = 0; j < w.weights.size(); ++j)
        sum += w.weights[j] * std::pow(static_cast<double>(w.first + static_cast<int>(j)), m);
      EXPECT_NEAR(sum, m == 1 ? 1.0 : 0.0, 1e-12) << "order " << p << " moment " << m;
    }
  }
  // The published fourth-order form: (-3 f[i-1] - 10 f[i] + 18 f[i+1] - 6 f[i+2] + f[i+3]) / (12 h).
  const std::vector<double> published{-3.0 / 12, -10.0 / 12, 18.0 / 12, -6.0 / 12, 1.0 / 12};
  for (size_t j = 0; j < published.size(); ++j)
    EXPECT_DOUBLE_EQ(lopsidedFirstDerivativeWeights(4).weights[j], published[j]);
  EXPECT_THROW(lopsidedFirstDerivativeWeights(3), std::invalid_argument);
}
