#include "FrontendTestUtil.h"

#include <gtest/gtest.h>

using namespace tensorium_mlir::frontend;
using namespace tensorium_mlir::frontend::testing;

namespace {
Compiled evolution(const std::string &decls, const std::string &body) {
  return compile(std::string(kSimulation3D) + decls + "\nevolution E {\n" + body + "\n}\n");
}
const char *kBssnDecls = R"(
field scalar alpha
field vector beta[i]
field covector v[i]
field metric gamma[i,j]
field inverse_metric gammaU[i,j]
field cov_tensor2 A[i,j]
field mixed_tensor2 Mx[i,j]
params { eta }
)";
} // namespace

TEST(Sema, ContractionOfUpperWithLowerIsAccepted) {
  auto c = evolution(kBssnDecls, "dt v[i] = contract(gamma[i,k] * beta[k])");
  ASSERT_TRUE(c.ok) << c.firstError()->message;
  const Expr &contract = *c.module.blocks[0].statements[0].value;
  ASSERT_EQ(contract.summedIndices.size(), 1u);
  EXPECT_EQ(contract.summedIndices[0], "k");
  ASSERT_EQ(contract.freeIndices.size(), 1u);
  EXPECT_EQ(contract.freeIndices[0].variance, Variance::Down);
}

TEST(Sema, ContractionOfTwoLowerIsRejected) {
  auto c = evolution(kBssnDecls, "dt v[i] = contract(gamma[i,k] * v[k])");
  EXPECT_TRUE(c.hasError("contraction of two lower indices 'k'"));
}

TEST(Sema, RepeatedIndexOutsideContract) {
  auto c = evolution(kBssnDecls, "dt v[i] = gamma[i,k] * beta[k]");
  EXPECT_TRUE(c.hasError("repeated index 'k' outside contract()"));
}

TEST(Sema, TraceOfMixedTensorAndDivergence) {
  auto c = evolution(kBssnDecls, "dt alpha = contract(Mx[k,k]) + contract(d_k(beta[k]))");
  EXPECT_TRUE(c.ok) << c.firstError()->message;
}

TEST(Sema, IndexAppearingThreeTimes) {
  auto c = evolution(kBssnDecls, "dt v[i] = contract(gamma[i,k] * beta[k] * beta[k])");
  EXPECT_TRUE(c.hasError("appears more than twice"));
}

TEST(Sema, VarianceMismatchInSumAndAssignment) {
  auto sum = evolution(kBssnDecls, "dt v[i] = v[i] + beta[i]");
  EXPECT_TRUE(sum.hasError("variance mismatch in '+'"));
  auto assign = evolution(kBssnDecls, "dt v[i] = beta[i]");
  EXPECT_TRUE(assign.hasError("variance mismatch: index 'i' is lower on the left-hand side"));
}

TEST(Sema, FreeIndexMismatchBetweenSides) {
  auto c = evolution(kBssnDecls, "dt A[i,j] = d_i(v[k])");
  EXPECT_TRUE(c.hasError("index 'j' on the left-hand side does not appear"));
  EXPECT_TRUE(c.hasError("free index 'k' on the right-hand side"));
}

TEST(Sema, SecondDerivativesAndSymmetricRhs) {
  auto c = evolution(kBssnDecls, R"(
  ddalpha[i,j] = d_i(d_j(alpha))
  dt A[i,j] = -2 * alpha * A[i,j] + ddalpha[i,j] - ddalpha[j,i]
  dt alpha = -2 * alpha * eta)");
  EXPECT_TRUE(c.ok) << c.firstError()->message;
  const Stmt &t = c.module.blocks[0].statements[0];
  ASSERT_TRUE(t.temporary);
  EXPECT_EQ(t.temporary->indices.size(), 2u);
}

TEST(Sema, TemporaryUsedBeforeDefinition) {
  auto c = evolution(kBssnDecls, "dt alpha = t\nt = 1");
  EXPECT_TRUE(c.hasError("temporary 't' is used before its definition"));
}

TEST(Sema, DtOnNonField) {
  auto c = evolution(kBssnDecls, "t = 1\ndt t = 2");
  EXPECT_TRUE(c.hasError("'dt' applies to fields; 't' is a temporary"));
  auto p = evolution(kBssnDecls, "dt eta = 2");
  EXPECT_TRUE(p.hasError("'dt' applies to fields; 'eta' is a parameter"));
}

TEST(Sema, ExternArityAndRank) {
  const std::string decls = std::string(kBssnDecls) + "extern scalar f(scalar, vector)\n";
  EXPECT_TRUE(evolution(decls, "dt alpha = f(alpha, beta[i])").ok);
  EXPECT_TRUE(evolution(decls, "dt alpha = f(alpha)").hasError("'f' takes 2 arguments but 1 was given"));
  EXPECT_TRUE(evolution(decls, "dt alpha = f(alpha, alpha)").hasError("argument 2 of 'f' must have rank 1"));
  EXPECT_TRUE(evolution(decls, "dt alpha = f(alpha, v[i])").hasError("expects an upper index"));
}

TEST(Sema, UnknownFunctionAndUndeclaredName) {
  EXPECT_TRUE(evolution(kBssnDecls, "dt alpha = tanh(alpha)").hasError("unknown function 'tanh'"));
  EXPECT_TRUE(evolution(kBssnDecls, "dt alpha = kappa2").hasError("use of undeclared name 'kappa2'"));
}

TEST(Sema, CovariantDerivativeNeedsMetric) {
  auto ok = evolution(kBssnDecls, "dt A[i,j] = nabla_i(v[j])");
  EXPECT_TRUE(ok.ok) << ok.firstError()->message;
  auto bad = compile(std::string(kSimulation3D) + "field covector v[i]\nfield cov_tensor2 A[i,j]\n"
                                                  "evolution E {\n dt A[i,j] = nabla_i(v[j])\n}\n");
  EXPECT_TRUE(bad.hasError("needs a declared spatial metric"));
}

TEST(Sema, ResidualMustBeScalar) {
  auto c = compile(std::string(kSimulation3D) + kBssnDecls +
                   "constraints C {\n residual A = alpha\n}\n");
  EXPECT_TRUE(c.hasError("residual 'A' must be a scalar field"));
  auto d = compile(std::string(kSimulation3D) + kBssnDecls + "field scalar H\n"
                   "constraints C {\n residual H = v[i]\n}\n");
  EXPECT_TRUE(d.hasError("a residual expression must be a scalar"));
}

TEST(Sema, SimulationValues) {
  auto c = compile("simulation {\n dimension = 4\n}\n");
  EXPECT_TRUE(c.hasError("dimension must be 1, 2 or 3"));
  auto r = compile("simulation {\n dimension = 2\n resolution = [8,8,8]\n}\n");
  EXPECT_TRUE(r.hasError("resolution has 3 entries but dimension is 2"));
  auto o = compile("simulation {\n resolution = [8,8,8]\n spatial { scheme = spectral order = 4 }\n}\n");
  EXPECT_TRUE(o.hasError("the spectral scheme takes order = 0"));
  auto f = compile("simulation {\n resolution = [8,8,8]\n spatial { scheme = fd order = 3 }\n}\n");
  EXPECT_TRUE(f.hasError("derivative order must be 2, 4, 6 or 8"));
}

TEST(Sema, ComponentCountsFollowDimension) {
  auto c = compile("simulation {\n dimension = 2\n resolution = [8,8]\n}\n"
                   "field metric gamma[i,j]\nfield metric g[mu,nu]\nfield cov_tensor3 T[i,j,k]\n");
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.module.fields[0]->componentCount, 4u);
  EXPECT_EQ(c.module.fields[1]->componentCount, 9u);
  EXPECT_EQ(c.module.fields[2]->componentCount, 8u);
}

TEST(Sema, CoordinatesDependOnSystem) {
  auto c = compile("simulation {\n coordinates = spherical\n dimension = 3\n resolution = [8,8,8]\n}\n"
                   "field scalar u\nfield scalar H\nconstraints C {\n residual H = r * sin(theta) + phi + u\n}\n");
  EXPECT_TRUE(c.ok) << c.firstError()->message;
  auto x = compile("simulation {\n coordinates = spherical\n dimension = 3\n resolution = [8,8,8]\n}\n"
                   "field scalar H\nconstraints C {\n residual H = x\n}\n");
  EXPECT_TRUE(x.hasError("use of undeclared name 'x'"));
}

TEST(Sema, WarningsForSuspiciousButLegalInput) {
  auto c = evolution(kBssnDecls, "unused = 1\ndt alpha = contract(alpha) / 0");
  EXPECT_TRUE(c.ok);
  EXPECT_TRUE(c.hasWarning("temporary 'unused' is never used"));
  EXPECT_TRUE(c.hasWarning("contract() has no repeated index"));
  EXPECT_TRUE(c.hasWarning("division by zero"));
}
