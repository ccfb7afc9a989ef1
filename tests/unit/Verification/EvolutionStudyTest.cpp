// The self-convergence order of three unequally spaced resolutions, against differences built
// from u_k = u + C h_k^p for known p.
#include "tensorium_mlir/Verification/EvolutionStudy.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tensorium_mlir::verification;

TEST(EvolutionStudy, SelfConvergenceOrderRecoversKnownOrders) {
  const double h1 = 0.4, h2 = 0.4 * 40 / 60, h3 = 0.2;
  for (double p : {1.0, 2.0, 3.7, 4.0, 6.0}) {
    const double C = 3.1;
    const double d12 = C * (std::pow(h1, p) - std::pow(h2, p)), d23 = C * (std::pow(h2, p) - std::pow(h3, p));
    EXPECT_NEAR(selfConvergenceOrder(d12, d23, h1, h2, h3), p, 1e-9) << "p = " << p;
  }
  // A naive two-grid estimate log(d12 / d23) / log(h1 / h2) would be wrong for these ratios.
  const double d12 = std::pow(h1, 4) - std::pow(h2, 4), d23 = std::pow(h2, 4) - std::pow(h3, 4);
  EXPECT_GT(std::abs(std::log(d12 / d23) / std::log(h1 / h2) - 4), 0.3);
}

TEST(EvolutionStudy, SelfConvergenceOrderRefusesWhatNoOrderExplains) {
  EXPECT_TRUE(std::isnan(selfConvergenceOrder(0, 1e-6, 0.4, 0.3, 0.2)));
  EXPECT_TRUE(std::isnan(selfConvergenceOrder(1e-6, 0, 0.4, 0.3, 0.2)));
  EXPECT_TRUE(std::isnan(selfConvergenceOrder(1e-6, 2e-6, 0.4, 0.3, 0.2))); // growing differences
  EXPECT_TRUE(std::isnan(selfConvergenceOrder(NAN, 1e-6, 0.4, 0.3, 0.2)));
}
