// The verification library against independently known answers: orders of known error laws and
// of the trapezoidal rule, Richardson extrapolation towards a closed-form integral, norms of
// hand-computable fields, and the JUnit XML structure.
#include "tensorium_mlir/Verification/Convergence.h"
#include "tensorium_mlir/Verification/Norms.h"
#include "tensorium_mlir/Verification/Report.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <random>

#include <cmath>
#include <numbers>

using namespace tensorium_mlir::verification;

namespace {

class MpiEnvironment : public ::testing::Environment {
public:
  void SetUp() override { MPI_Init(nullptr, nullptr); }
  void TearDown() override { MPI_Finalize(); }
};
const auto *const kMpi = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

/// The composite trapezoidal rule for the integral of exp over [0, 1] with n cells: error
/// (h^2 / 12)(e - 1) + O(h^4).
double trapezoid(int n) {
  const double h = 1.0 / n;
  double sum = 0.5 * (1 + std::exp(1.0));
  for (int i = 1; i < n; ++i)
    sum += std::exp(i * h);
  return h * sum;
}

} // namespace

TEST(Convergence, ObservedOrderOfAKnownErrorLaw) {
  EXPECT_NEAR(observedOrder(3.0 * std::pow(0.1, 4), 3.0 * std::pow(0.05, 4), 0.1, 0.05), 4.0, 1e-12);
  EXPECT_TRUE(std::isnan(observedOrder(0.0, 1e-3, 0.1, 0.05))); // exact data: nothing to measure
  EXPECT_TRUE(std::isnan(observedOrder(1e-3, 1e-4, 0.05, 0.1))); // spacings not decreasing
  OrderSeries s;
  EXPECT_TRUE(std::isnan(s.add(2.0 * std::pow(0.2, 6), 0.2)));
  EXPECT_NEAR(s.add(2.0 * std::pow(0.15, 6), 0.15), 6.0, 1e-12);
  EXPECT_TRUE(s.within(6.2, 0.3));
  EXPECT_FALSE(s.within(5.5, 0.3));
}

TEST(Convergence, PreAsymptoticHintOnlyWhereTheOrdersHaveNotSettled) {
  const double nan = std::nan("");
  // Orders still jumping around the expected 4: the grids are too coarse, say so.
  const std::string jumping = preAsymptoticHint({nan, 3.05, 5.05}, 4);
  EXPECT_NE(jumping.find("3.05, then 5.05"), std::string::npos) << jumping;
  EXPECT_EQ(jumping.rfind("hint: ", 0), 0u);
  // One pair only: ask for another resolution.
  EXPECT_NE(preAsymptoticHint({nan, 5.0}, 4).find("one pair"), std::string::npos);
  // ... unless that one order is far from the expected one (a clean 4 against 6: a real error).
  EXPECT_EQ(preAsymptoticHint({nan, 4.0}, 6), "");
  // A passing order, or orders settled at the wrong value (a real error), get no hint.
  EXPECT_EQ(preAsymptoticHint({nan, 3.95, 4.02}, 4), "");
  EXPECT_EQ(preAsymptoticHint({nan, 2.01, 1.99}, 4), "");
  EXPECT_EQ(preAsymptoticHint({nan, nan}, 4), "");
  // Orders falling to 0 (a wrong coefficient's constant error): never "add a finer grid".
  const std::string falling = preAsymptoticHint({1.77, 0.50}, 4);
  EXPECT_NE(falling.find("falls to 0.50 (from 1.77)"), std::string::npos) << falling;
  EXPECT_EQ(falling.find("finer resolution"), std::string::npos);
  // Moving away from the expected order while far from it: no hint.
  EXPECT_EQ(preAsymptoticHint({3.0, 1.5}, 6), "");
  // Approaching it from below: the classic pre-asymptotic case.
  EXPECT_NE(preAsymptoticHint({2.1, 3.2}, 4).find("not yet in the asymptotic regime"), std::string::npos);
}

TEST(Convergence, SelfConvergenceHintNamesMissingAndNearOrders) {
  const double nan = std::nan("");
  // No order: the differences grew, the run does not converge there.
  const std::string diverging = selfConvergenceHint({{"chi", 3.2, 1e-3, 2e-4}, {"alpha", nan, 1e-3, 2e-3}}, 4);
  EXPECT_EQ(diverging.rfind("hint: no order for alpha:", 0), 0u) << diverging;
  // No order although the differences fall (an order beyond the search range): no diagnosis.
  EXPECT_EQ(selfConvergenceHint({{"alpha", nan, 1e-3, 1e-12}}, 4), "");
  // Every failing order near the expected one: grids too coarse, say so and name them.
  const std::string coarse = selfConvergenceHint({{"chi", 3.2, 1e-3, 3e-4}, {"K", 4.6, 1e-3, 2e-4}}, 4);
  EXPECT_EQ(coarse.rfind("hint: the orders of chi, K lie within 1 of 4:", 0), 0u) << coarse;
  // An order far off (a clean 2 against 4) is likelier a real error: no hint.
  EXPECT_EQ(selfConvergenceHint({{"chi", 3.2, 1e-3, 3e-4}, {"K", 2.0, 1e-3, 4e-4}}, 4), "");
  EXPECT_EQ(selfConvergenceHint({}, 4), "");
}

TEST(Convergence, SelfConvergenceRecoversTheOrderAtAnyRefinementRatios) {
  const double u = 1.7, C = -0.3, p = 4;
  const double hc = 0.1, hm = 0.07, hf = 0.045;
  auto uh = [&](double h) { return u + C * std::pow(h, p); };
  SelfConvergence s = selfConvergence(std::abs(uh(hc) - uh(hm)), std::abs(uh(hm) - uh(hf)), hc, hm, hf);
  EXPECT_NEAR(s.order, p, 1e-9);
  // A constant ratio r: p = log(ratio) / log(r).
  s = selfConvergence(std::abs(uh(0.2) - uh(0.1)), std::abs(uh(0.1) - uh(0.05)), 0.2, 0.1, 0.05);
  EXPECT_NEAR(s.order, std::log(s.ratio) / std::log(2.0), 1e-9);
  // Identical solutions determine no order.
  EXPECT_TRUE(std::isnan(selfConvergence(0.0, 0.0, 0.2, 0.1, 0.05).order));
}

TEST(Convergence, TrapezoidalRuleSelfConvergesAtSecondOrderAndExtrapolates) {
  const double exact = std::numbers::e - 1;
  const double a = trapezoid(10), b = trapezoid(20), c = trapezoid(40);
  SelfConvergence s = selfConvergence(std::abs(a - b), std::abs(b - c), 0.1, 0.05, 0.025);
  EXPECT_NEAR(s.order, 2.0, 0.01);
  const double extrapolated = richardsonExtrapolate(b, c, 0.05, 0.025, 2.0);
  EXPECT_LT(std::abs(extrapolated - exact), 1e-3 * std::abs(c - exact));
}

TEST(Norms, WeightedRmsAndMaxOfAHandComputableField) {
  const std::vector<double> values{3, -4, 100, 1};
  const std::vector<double> mask{1, 1, 0, 0.5};
  Norms n = weightedNorms(values, mask, MPI_COMM_WORLD);
  EXPECT_EQ(n.count, 3u);
  EXPECT_NEAR(n.l2, std::sqrt((9 + 16 + 0.5) / 2.5), 1e-15);
  EXPECT_EQ(n.max, 4.0);
  // Squares: the norm of sqrt(value).
  Norms r = weightedNorms(std::vector<double>{9, 16}, std::vector<double>{1, 1}, MPI_COMM_WORLD, true);
  EXPECT_NEAR(r.l2, std::sqrt(12.5), 1e-15);
  EXPECT_EQ(r.max, 4.0);
  // A NaN at a weighted point survives both norms; sizes must agree.
  Norms bad = weightedNorms(std::vector<double>{1, std::nan("")}, std::vector<double>{1, 1}, MPI_COMM_WORLD);
  EXPECT_TRUE(std::isnan(bad.l2));
  EXPECT_TRUE(std::isnan(bad.max));
  EXPECT_THROW(weightedNorms(values, std::vector<double>{1, 1}, MPI_COMM_WORLD), std::invalid_argument);
}

TEST(Norms, SmoothRegionExcludesBallsAndTapersAtTheBox) {
  for (double t : {0.1, 0.3, 0.5, 0.8})
    EXPECT_NEAR(smoothStep(t) + smoothStep(1 - t), 1.0, 1e-15);
  NormRegion region;
  region.box = 1.8;
  region.excisionCentres = {{1, 0, 0}};
  region.excision = 0.5;
  EXPECT_EQ(region.weight({1.2, 0, 0}), 0.0);    // inside the ball
  EXPECT_EQ(region.weight({-0.5, 0.2, 0.1}), 1.0); // well inside the box, far from the ball
  EXPECT_EQ(region.weight({0, 1.9, 0}), 0.0);    // outside the box
  const double taper = region.weight({0, 1.6, 0});
  EXPECT_GT(taper, 0.0);
  EXPECT_LT(taper, 1.0);
  Grid g = cube(5, 2.0);
  Mask m = region.mask(g);
  ASSERT_EQ(m.size(), 125u);
  EXPECT_EQ(m[g.index(2, 2, 2)], 1.0); // the origin
  EXPECT_EQ(m[g.index(3, 2, 2)], 0.0); // (1, 0, 0): a puncture
}

TEST(Norms, HoldsPointOfAgreesWithAScanOfEveryPoint) {
  // The O(n^2) test against the definition, on regions from empty to nearly full, with balls
  // that cover the whole box, cut it, or miss it, and sharp or tapered edges.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  int empty = 0, held = 0;
  for (int trial = 0; trial < 400; ++trial) {
    NormRegion region;
    region.box = 0.05 + 2.5 * u(rng);
    region.taper = u(rng) < 0.3 ? 0 : 0.6 * u(rng) * region.box;
    region.centre = {0.5 * (u(rng) - 0.5), 0.5 * (u(rng) - 0.5), 0.5 * (u(rng) - 0.5)};
    region.excision = 4 * u(rng);
    region.rise = u(rng) < 0.3 ? 0 : 0.5 * u(rng);
    for (int c = 0, count = static_cast<int>(3 * u(rng)); c < count; ++c)
      region.excisionCentres.push_back({2 * (u(rng) - 0.5), 2 * (u(rng) - 0.5), 2 * (u(rng) - 0.5)});
    const int n = 5 + static_cast<int>(20 * u(rng));
    const Grid g = cube(n, 2.5);
    bool any = false;
    for (int i = 0; i < n && !any; ++i)
      for (int j = 0; j < n && !any; ++j)
        for (int k = 0; k < n && !any; ++k)
          any = region.weight(g.at(i, j, k)) > 0;
    EXPECT_EQ(region.holdsPointOf(g), any) << "trial " << trial;
    (any ? held : empty)++;
  }
  EXPECT_GT(empty, 20); // both outcomes were exercised
  EXPECT_GT(held, 20);
}

TEST(Report, VerdictsWithoutATimeGetTheWallTimeSinceThePreviousOne) {
  Report r;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  r.verdict("first", true, "after 300 ms of work");
  r.verdict("second", true, "right after");
  ASSERT_EQ(r.verdicts.size(), 2u);
  EXPECT_GE(r.verdicts[0].seconds, 0.29);
  EXPECT_LT(r.verdicts[0].seconds, 5.0);
  EXPECT_GE(r.verdicts[1].seconds, 0.0);
  EXPECT_LT(r.verdicts[1].seconds, 0.25); // not counted from the start
}

TEST(Report, JUnitXmlCountsFailuresAndEscapes) {
  Report r;
  r.verdict("constraints order 4", true, "p(H) = 4.02 within 0.3 of 4", 1.5);
  r.verdict("gauge <wave> & \"A\"", false, "p = 1.2, required 4 +- 0.3", 2.25);
  EXPECT_FALSE(r.pass());
  const std::string xml = junitXml("suite's name", r.verdicts, "table\x01");
  EXPECT_NE(xml.find("<testsuite name=\"suite&apos;s name\" tests=\"2\" failures=\"1\" errors=\"0\" time=\"3.750\""),
            std::string::npos);
  EXPECT_NE(xml.find("name=\"constraints order 4\" time=\"1.500\"/>"), std::string::npos);
  EXPECT_NE(xml.find("name=\"gauge &lt;wave&gt; &amp; &quot;A&quot;\""), std::string::npos);
  EXPECT_NE(xml.find("<failure message=\"p = 1.2, required 4 +- 0.3\" type=\"verdict\">"), std::string::npos);
  EXPECT_NE(xml.find("<system-out>table?</system-out>"), std::string::npos);
  EXPECT_EQ(jsonString("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
}
