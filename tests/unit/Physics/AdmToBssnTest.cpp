// The ADM -> BSSN change of variables against values worked out by hand for diagonal data and
// against the identities it must satisfy for a general metric.
#include "tensorium_mlir/Physics/AdmToBssn.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tensorium_mlir::physics;

TEST(AdmToBssn, DiagonalDataMatchHandValues) {
  const double a = 2.0, b = 3.0, c = 5.0, k1 = 0.7, k2 = -0.4, k3 = 1.1;
  const Matrix3 gamma{a, 0, 0, 0, b, 0, 0, 0, c}, K{k1, 0, 0, 0, k2, 0, 0, 0, k3};
  const BssnPointValues v = bssnFromAdm(gamma, &K);
  const double chi = std::pow(a * b * c, -1.0 / 3), trace = k1 / a + k2 / b + k3 / c;
  EXPECT_NEAR(v.chi, chi, 1e-15);
  EXPECT_NEAR(v.K, trace, 1e-15);
  EXPECT_NEAR(v.gammatilde[4], chi * b, 1e-15);
  EXPECT_NEAR(v.Atilde[0], chi * (k1 - a * trace / 3), 1e-15);
  EXPECT_NEAR(v.Atilde[8], chi * (k3 - c * trace / 3), 1e-15);
  EXPECT_NEAR(v.gammatildeInverse[0], 1 / (chi * a), 1e-15);
  EXPECT_EQ(v.Atilde[1], 0.0);
}

TEST(AdmToBssn, GeneralMetricGivesUnitDeterminantAndTraceFreeAtilde) {
  const Matrix3 gamma{1.3, 0.2, -0.1, 0.2, 0.9, 0.05, -0.1, 0.05, 1.7};
  const Matrix3 K{0.3, -0.2, 0.1, -0.2, 0.5, 0.4, 0.1, 0.4, -0.6};
  const BssnPointValues v = bssnFromAdm(gamma, &K);
  Matrix3 inverse;
  EXPECT_NEAR(invert3x3(v.gammatilde, inverse), 1.0, 1e-14);
  double traceFree = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double product = 0;
      for (int k = 0; k < 3; ++k)
        product += v.gammatilde[3 * i + k] * v.gammatildeInverse[3 * k + j];
      EXPECT_NEAR(product, i == j ? 1.0 : 0.0, 1e-14);
      traceFree += v.gammatildeInverse[3 * i + j] * v.Atilde[3 * i + j];
    }
  EXPECT_NEAR(traceFree, 0.0, 1e-14);
  // Without K_ij the curvature variables vanish.
  const BssnPointValues flat = bssnFromAdm(gamma, nullptr);
  EXPECT_EQ(flat.K, 0.0);
  EXPECT_EQ(flat.Atilde[4], 0.0);
  EXPECT_EQ(flat.chi, v.chi);
}
