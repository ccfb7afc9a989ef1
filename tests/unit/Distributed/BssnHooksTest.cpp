// The BSSN algebraic constraints at a point, in the full and the deviation form of the
// conformal metric: closed forms for a diagonal metric, agreement of the two forms, and the
// precision the deviation form keeps for a deviation of 1e-8.
#include "tensorium_mlir/Distributed/BssnHooks.h"

#include <gtest/gtest.h>

#include <cmath>

using tensorium_mlir::distributed::ConformalMetricForm;
using tensorium_mlir::distributed::imposeBssnAlgebraicConstraints;

namespace {

/// tr(inverse(g) A) of symmetric 3x3 matrices through the cofactors of g.
double traceWithInverse(const double g[9], const double a[9]) {
  const double c[9] = {g[4] * g[8] - g[5] * g[7], g[2] * g[7] - g[1] * g[8], g[1] * g[5] - g[2] * g[4],
                       g[5] * g[6] - g[3] * g[8], g[0] * g[8] - g[2] * g[6], g[2] * g[3] - g[0] * g[5],
                       g[3] * g[7] - g[4] * g[6], g[1] * g[6] - g[0] * g[7], g[0] * g[4] - g[1] * g[3]};
  const double det = g[0] * c[0] + g[1] * c[3] + g[2] * c[6];
  double t = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      t += c[i * 3 + j] * a[j * 3 + i];
  return t / det;
}

} // namespace

// The linear wave's metric diag(1, 1 + b, 1 - b): det = 1 - b^2, so the rescaled deviation is
// (1 + s) h + s delta with s = (1 - b^2)^(-1/3) - 1 = b^2 / 3 + 2 b^4 / 9 + O(b^6).
TEST(BssnAlgebraicConstraints, DeviationFormKeepsTheDigitsOfASmallWave) {
  const double b = 1e-8, s = b * b / 3 + 2 * b * b * b * b / 9;
  double h[9] = {0, 0, 0, 0, b, 0, 0, 0, -b}, at[9] = {0, 0, 0, 0, 3e-8, 0, 0, 0, -3e-8};
  imposeBssnAlgebraicConstraints(h, at, ConformalMetricForm::Deviation);
  EXPECT_NEAR(h[0], s, 1e-32);
  EXPECT_NEAR(h[4], (1 + s) * b + s, 1e-30);
  EXPECT_NEAR(h[8], -(1 + s) * b + s, 1e-30);
  EXPECT_EQ(h[1], 0.0);
  // The same metric stored in full keeps the deviation only to the rounding of 1 + b.
  double g[9] = {1, 0, 0, 0, 1 + b, 0, 0, 0, 1 - b}, at2[9] = {0, 0, 0, 0, 3e-8, 0, 0, 0, -3e-8};
  imposeBssnAlgebraicConstraints(g, at2, ConformalMetricForm::Full);
  EXPECT_NEAR(g[4] - 1, h[4], 4e-16);
  // Atilde is trace-free with respect to the rescaled metric (it was not: tr = -6e-16).
  const double full[9] = {1 + h[0], 0, 0, 0, 1 + h[4], 0, 0, 0, 1 + h[8]};
  EXPECT_NEAR(traceWithInverse(full, at), 0.0, 1e-22);
}

// A general symmetric metric of order-one deviation: both forms give the same rescaled metric
// and trace-free Atilde, with det = 1 and tr(gammatilde^-1 Atilde) = 0.
TEST(BssnAlgebraicConstraints, FullAndDeviationFormsAgree) {
  const double h[9] = {0.12, -0.05, 0.03, -0.05, -0.08, 0.07, 0.03, 0.07, 0.21};
  const double a[9] = {0.4, 0.1, -0.2, 0.1, -0.3, 0.05, -0.2, 0.05, 0.25};
  double dev[9], g[9], atDev[9], atFull[9];
  for (int c = 0; c < 9; ++c) {
    dev[c] = h[c];
    g[c] = h[c] + (c % 4 == 0 ? 1.0 : 0.0);
    atDev[c] = atFull[c] = a[c];
  }
  imposeBssnAlgebraicConstraints(dev, atDev, ConformalMetricForm::Deviation);
  imposeBssnAlgebraicConstraints(g, atFull, ConformalMetricForm::Full);
  for (int c = 0; c < 9; ++c) {
    EXPECT_NEAR(dev[c] + (c % 4 == 0 ? 1.0 : 0.0), g[c], 1e-15) << c;
    EXPECT_NEAR(atDev[c], atFull[c], 1e-15) << c;
  }
  const double det = g[0] * (g[4] * g[8] - g[5] * g[7]) - g[1] * (g[3] * g[8] - g[5] * g[6]) +
                     g[2] * (g[3] * g[7] - g[4] * g[6]);
  EXPECT_NEAR(det, 1.0, 1e-15);
  EXPECT_NEAR(traceWithInverse(g, atFull), 0.0, 1e-15);
}
