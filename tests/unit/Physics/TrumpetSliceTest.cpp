// The stationary 1+log trumpet against published values (Hannam et al. 2008: critical point
// R_c = 1.5406 M with alpha_c = 0.16228, throat R_0 = 1.3124 M), against the ODE and the
// definition of K it must satisfy, and against its far field alpha -> sqrt(1 - 2M/R).
#include "tensorium_mlir/Physics/TrumpetSlice.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace tensorium_mlir::physics;

TEST(TrumpetSlice, CriticalPointAndThroatMatchPublishedValues) {
  const TrumpetSlice t;
  EXPECT_NEAR(t.criticalRadius(), 1.5406, 1e-4);
  EXPECT_NEAR(t.criticalLapse(), 0.16228, 1e-5);
  EXPECT_NEAR(t.throatRadius(), 1.3124, 1e-4);
  EXPECT_NEAR(t.lapse(t.throatRadius()), 0.0, 1e-12);
  EXPECT_NEAR(t.lapse(t.criticalRadius()), t.criticalLapse(), 1e-10);
}

TEST(TrumpetSlice, TableSatisfiesTheStationaryOde) {
  const TrumpetSlice t;
  const double d = 1e-4;
  for (double R = 1.4; R <= 19; R += 0.37) {
    const double numeric = (t.lapse(R + d) - t.lapse(R - d)) / (2 * d);
    EXPECT_NEAR(numeric, t.lapseSlope(R, t.lapse(R)), 1e-7) << "R = " << R;
  }
}

TEST(TrumpetSlice, MeanCurvatureIsMinusTheDivergenceOfTheNormal) {
  // K = -(R^2 u)' / R^2 with u = -sqrt(alpha^2 - f), by differences of the tabulated lapse.
  const TrumpetSlice t;
  auto radialNormal = [&](double R) {
    const double a = t.lapse(R), f = 1 - 2 / R;
    return -std::sqrt(a * a - f);
  };
  const double d = 1e-4;
  for (double R = 1.6; R <= 12; R += 0.53) {
    const double divergence =
        ((R + d) * (R + d) * radialNormal(R + d) - (R - d) * (R - d) * radialNormal(R - d)) / (2 * d) / (R * R);
    EXPECT_NEAR(t.meanCurvature(R), -divergence, 1e-7) << "R = " << R;
  }
}

TEST(TrumpetSlice, FarFieldApproachesTheStaticLapse) {
  const TrumpetSlice t(1, 40);
  const double e10 = t.lapse(10) - std::sqrt(1 - 2 / 10.0), e20 = t.lapse(20) - std::sqrt(1 - 2 / 20.0);
  EXPECT_GT(e10, 0);
  EXPECT_LT(e10, 1e-3);
  // u^2 ~ 1 / R^4 far out: the excess falls about 16x from R = 10 to 20.
  EXPECT_NEAR(std::log2(e10 / e20), 4.0, 0.3);
}

TEST(TrumpetSlice, ScalesWithTheMass) {
  const TrumpetSlice one(1), two(2, 40);
  for (double R : {1.5, 2.0, 3.7, 8.0})
    EXPECT_NEAR(two.lapse(2 * R), one.lapse(R), 1e-10) << "R = " << R;
  EXPECT_NEAR(two.throatRadius(), 2 * one.throatRadius(), 1e-8);
}

TEST(TrumpetSlice, MaximalTrumpetIsRejected) {
  // The broken twin: the maximal-slicing trumpet, alpha^2 = 1 - 2M/R + 27 M^4 / (16 R^4), is
  // another stationary slice; a comparison over 2 M <= R <= 8 M must tell them apart.
  const TrumpetSlice t;
  double largest = 0;
  for (double R = 2; R <= 8; R += 0.1)
    largest = std::max(largest, std::abs(t.lapse(R) - std::sqrt(1 - 2 / R + 27 / (16 * std::pow(R, 4)))));
  EXPECT_GT(largest, 0.02);
}

TEST(TrumpetSlice, RefusesBadInput) {
  EXPECT_THROW(TrumpetSlice(0), TrumpetError);
  EXPECT_THROW(TrumpetSlice(1, 1.0), TrumpetError);
  EXPECT_THROW(TrumpetSlice(1, 20, 10), TrumpetError);
  const TrumpetSlice t;
  EXPECT_THROW(t.lapse(1.0), TrumpetError);
  EXPECT_THROW(t.lapse(25), TrumpetError);
}

TEST(TrumpetSlice, ComparisonMeasuresTheDifference) {
  const TrumpetSlice t;
  std::vector<SliceSample> exact, shifted;
  for (double R = 1.0; R <= 10; R += 0.25) {
    if (R < t.throatRadius())
      continue;
    exact.push_back({R, t.lapse(R), t.meanCurvature(R)});
    shifted.push_back({R, t.lapse(R) + 1e-3 * R, t.meanCurvature(R) - 2e-4});
  }
  const TrumpetDifference same = compareWithTrumpet(t, exact, 2, 8);
  EXPECT_EQ(same.samples, 25);
  EXPECT_LT(same.maxLapse, 1e-14);
  const TrumpetDifference off = compareWithTrumpet(t, shifted, 2, 8);
  EXPECT_NEAR(off.maxLapse, 8e-3, 1e-12);
  EXPECT_NEAR(off.worstLapseRadius, 8, 0);
  EXPECT_NEAR(off.maxMeanCurvature, 2e-4, 1e-12);
  EXPECT_THROW(compareWithTrumpet(t, exact, 12, 14), TrumpetError);
}
