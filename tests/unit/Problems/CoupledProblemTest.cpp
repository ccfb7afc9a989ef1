// The coupled Hamiltonian + momentum (conformal transverse-traceless) problem declared in
// fixtures/elliptic/ctt_coupled_box_3d.tn, against its manufactured solution
//   u = 0.2 sin(x) cos(y) exp(z/2),  W = (0.2 sin(y), 0.1 cos(x z), 0.15 exp(x) sin(y)).
#include "TensoriumCoupledProblemTests_kernels.h"
#include "GeneratedTables.h"

#include "tensorium_mlir/Problems/DeclaredProblem.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tensorium_mlir;
using namespace tensorium_mlir::elliptic;

namespace {

const tensorium_module_tables &tables() { return generatedModuleTables(); }

const tensorium_spectral_problem_desc &problem() {
  return findDeclaredProblem(tensorium_spectral_problems, TENSORIUM_SPECTRAL_PROBLEM_COUNT, "ConformalTT");
}

/// u, W^x, W^y, W^z of the manufactured solution times the amplitude parameter.
std::array<double, 4> exact(const std::array<double, 3> &r, double amplitude) {
  const double x = r[0], y = r[1], z = r[2];
  return {amplitude * 0.2 * std::sin(x) * std::cos(y) * std::exp(z / 2), amplitude * 0.2 * std::sin(y),
          amplitude * 0.1 * std::cos(x * z), amplitude * 0.15 * std::exp(x) * std::sin(y)};
}

double maxError(const DeclaredProblemSolution &s, double amplitude) {
  double err = 0.0;
  const char *names[4] = {"u", "W_0", "W_1", "W_2"};
  for (size_t c = 0; c < 4; ++c) {
    const std::vector<double> v = s.values(names[c]);
    for (size_t p = 0; p < s.grid->size(); ++p)
      err = std::max(err, std::abs(v[p] - exact(s.grid->physicalPoint(p), amplitude)[c]));
  }
  return err;
}

} // namespace

TEST(CoupledProblem, UnknownsAndEquationsInDeclarationOrder) {
  const tensorium_spectral_problem_desc &p = problem();
  ASSERT_EQ(p.unknown_count, 4);
  EXPECT_STREQ(p.unknown_names[0], "u");
  EXPECT_STREQ(p.unknown_names[3], "W_2");
  EXPECT_EQ(p.boundary_count, 24); // 4 unknowns x 6 faces
  ASSERT_EQ(p.param_default_count, 1);
  EXPECT_STREQ(p.param_default_names[0], "amplitude");
  EXPECT_EQ(p.param_default_values[0], 1.0);
  const tensorium_spectral_residual_system_desc &system = tables().spectral_systems[p.system_index];
  ASSERT_EQ(system.equation_count, 4);
  EXPECT_STREQ(system.residual_names[0], "H");
  EXPECT_STREQ(system.residual_names[1], "M_0");
  for (int32_t e = 0; e < 4; ++e)
    EXPECT_EQ(system.equation_unknown[e], e);
}

TEST(CoupledProblem, ConvergesExponentiallyWithQuadraticNewton) {
  std::vector<double> errors;
  for (int n : {5, 7, 9, 11}) {
    DeclaredProblemOptions options;
    options.resolution = std::array<int, 3>{n, n, n};
    DeclaredProblemSolution s = solveDeclaredProblem(tables(), problem(), options);
    ASSERT_TRUE(s.result.converged()) << s.result.message;
    errors.push_back(maxError(s, 1.0));
    std::printf("n = %2d: max error %.3e, %d Newton, %d Krylov, %.2f s\n", n, errors.back(), s.result.iterations,
                s.result.krylovIterations, s.seconds);
    // Quadratic convergence while far above the floor: |F_k+1| <= C |F_k|^2 with a modest C.
    const std::vector<double> &h = s.result.residualHistory;
    for (size_t k = 1; k < h.size(); ++k) {
      if (h[k] > 1e-9) {
        EXPECT_LT(h[k], 100 * h[k - 1] * h[k - 1]) << "Newton step " << k << " at n = " << n;
      }
    }
  }
  for (size_t i = 1; i < errors.size(); ++i)
    EXPECT_LT(errors[i], errors[i - 1] / 20) << "at step " << i;
  EXPECT_LT(errors.back(), 1e-7);
}

TEST(CoupledProblem, ParametersComeFromDefaultsOrTheCaller) {
  // The amplitude scales the manufactured solution (sources and boundary values follow it).
  DeclaredProblemOptions options;
  options.resolution = std::array<int, 3>{9, 9, 9};
  options.params["amplitude"] = 0.5;
  DeclaredProblemSolution s = solveDeclaredProblem(tables(), problem(), options);
  ASSERT_TRUE(s.result.converged()) << s.result.message;
  EXPECT_EQ(s.parameters.at("amplitude"), 0.5);
  EXPECT_LT(maxError(s, 0.5), 1e-5);
  EXPECT_GT(maxError(s, 1.0), 1e-2); // it is not the amplitude-1 solution
}
