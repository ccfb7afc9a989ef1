#include "FrontendTestUtil.h"

#include <gtest/gtest.h>

using namespace tensorium_mlir::frontend;
using namespace tensorium_mlir::frontend::testing;

TEST(Parser, PrecedenceAndPowers) {
  auto c = compile(std::string(kSimulation3D) + R"(
field scalar u
field scalar H
constraints C {
  residual H = -u^2 + 3 * u / 2 - u^(-1/2)
}
)");
  ASSERT_TRUE(c.ok);
  const Expr &e = *c.module.blocks[0].statements[0].value;
  // ((-(u^2)) + ((3*u)/2)) - u^(-1/2)
  EXPECT_EQ(printExpr(e), "(((-(u)^(2)) + ((3 * u) / 2)) - (u)^(-1/2))");
}

TEST(Parser, DecimalExponentBecomesExactRational) {
  auto c = compile(std::string(kSimulation3D) + "field scalar u\nfield scalar H\n"
                                                "constraints C {\n residual H = u^0.25 + u^-7\n}\n");
  ASSERT_TRUE(c.ok);
  const Expr &e = *c.module.blocks[0].statements[0].value;
  EXPECT_EQ(e.operands[0]->exponent.num, 1);
  EXPECT_EQ(e.operands[0]->exponent.den, 4);
  EXPECT_EQ(e.operands[1]->exponent.num, -7);
}

TEST(Parser, MultiLineExpressionsAndSettingsOnOneLine) {
  auto c = compile(std::string(kSimulation3D) + R"(
field scalar u
field scalar H
constraints C {
  t = u *
      u +
      (u
       - 1)
  residual H = t
}
)");
  ASSERT_TRUE(c.ok) << (c.firstError() ? c.firstError()->message : "");
  EXPECT_EQ(c.module.sim.order, 4u);
  EXPECT_EQ(c.module.sim.integrator, "rk4");
}

TEST(Parser, RecoversAtStatementLevel) {
  auto c = compile(std::string(kSimulation3D) + R"(
field scalar u
field scalar H
constraints C {
  a = u +* u
  b = (u
  residual H = u )
}
)");
  EXPECT_FALSE(c.ok);
  EXPECT_GE(c.diags->errorCount(), 2u);
}

TEST(Parser, StopsAfterTwentyErrors) {
  std::string text;
  for (int i = 0; i < 50; ++i)
    text += "$\n";
  auto c = compile(text);
  EXPECT_EQ(c.diags->errorCount(), 20u);
  EXPECT_TRUE(c.diags->limitReached());
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "field scalar H\nconstraints C {\n residual H = " + std::string(100000, '(') + "1\n}\n";
  auto c = compile(deep);
  EXPECT_TRUE(c.hasError("nests too deeply"));
  std::string unary = "field scalar H\nconstraints C {\n residual H = " + std::string(100000, '-') + "1\n}\n";
  auto d = compile(unary);
  EXPECT_TRUE(d.hasError("nests too deeply"));
}

TEST(Parser, TruncatedInputReportsMissingBrace) {
  auto c = compile(std::string(kSimulation3D) + "field scalar H\nconstraints C {\n residual H = 1");
  EXPECT_TRUE(c.hasError("expected '}'"));
}

TEST(Parser, Metric4AndSplit) {
  auto c = compile(std::string(kSimulation3D) + R"(
field scalar alpha
field metric gamma[i,j]
field inverse_metric gammaU[i,j]
params { M }
initial_data {
  enforce_symmetry = true
  r = sqrt(x^2 + y^2 + z^2)
  psi4 = (1 + M / (2 * r))^4
  metric4 g[mu,nu] = [[-1, 0, 0, 0],
                      [0, psi4, 0, 0],
                      [0, 0, psi4, 0],
                      [0, 0, 0, psi4]]
  split_3p1 { alpha -> alpha; gamma -> gamma[i,j]; gammaU -> gammaU[i,j]; }
}
)");
  ASSERT_TRUE(c.ok) << (c.firstError() ? c.firstError()->message : "");
  ASSERT_EQ(c.module.initialData.size(), 1u);
  const InitialDataBlock &b = c.module.initialData[0];
  ASSERT_TRUE(b.metric4);
  EXPECT_EQ(b.metric4->rows.size(), 4u);
  EXPECT_EQ(b.split.size(), 3u);
  EXPECT_EQ(b.split[1].field->componentCount, 9u);
}
