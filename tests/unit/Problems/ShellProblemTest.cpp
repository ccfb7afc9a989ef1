// The spherical_shell map: its chain rule against analytic Cartesian derivatives, and the
// declared vector Poisson problem on a shell (fixtures/elliptic/vector_poisson_shell_3d.tn:
// Dirichlet inside, Robin W + r dW/dr = g outside) against its manufactured solution.
#include "TensoriumShellProblemTests_kernels.h"
#include "GeneratedTables.h"

#include "tensorium_mlir/Problems/DeclaredProblem.h"
#include "tensorium_mlir/Problems/DomainMaps.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tensorium_mlir;
using namespace tensorium_mlir::elliptic;

namespace {

const tensorium_module_tables &tables() { return generatedModuleTables(); }

} // namespace

TEST(SphericalShellMap, ChainRuleGivesCartesianDerivatives) {
  // f = sin(x) cos(y) + x y z + z^2 sampled on the shell; the map's bundle against the
  // analytic gradient and Hessian, away from the axis, converging exponentially in theta.
  const SphericalShellMap shell(0.5, 1.0);
  std::vector<double> worst;
  for (int nTheta : {12, 18, 24}) {
    spectral::SpectralGrid3D grid(spectral::SpectralAxis::chebyshevGaussLobatto(12, 0.5, 1.0),
                                  spectral::SpectralAxis::chebyshevGauss(nTheta, 0.0, M_PI),
                                  spectral::SpectralAxis::fourier(24));
    grid.setCoordinateMap([shell](const std::array<double, 3> &q) { return shell.toCartesian(q); });
    grid.setDerivativeMap(
        [shell](const std::array<double, 3> &q, std::array<double, 10> &b) { shell.toCartesianBundle(q, b); });
    std::vector<double> f(grid.size());
    for (size_t p = 0; p < grid.size(); ++p) {
      const auto r = grid.physicalPoint(p);
      f[p] = std::sin(r[0]) * std::cos(r[1]) + r[0] * r[1] * r[2] + r[2] * r[2];
    }
    const spectral::DerivativeBundle b = grid.physicalBundle(f);
    double err = 0.0;
    for (size_t p = 0; p < grid.size(); ++p) {
      if (std::sin(grid.logicalPoint(p)[1]) < 0.3)
        continue;
      const auto r = grid.physicalPoint(p);
      const double x = r[0], y = r[1], z = r[2];
      const double expected[10] = {0.0,
                                   std::cos(x) * std::cos(y) + y * z,
                                   -std::sin(x) * std::sin(y) + x * z,
                                   x * y + 2 * z,
                                   -std::sin(x) * std::cos(y),
                                   -std::cos(x) * std::sin(y) + z,
                                   y,
                                   -std::sin(x) * std::cos(y),
                                   x,
                                   2.0};
      for (int s = 1; s < 10; ++s)
        err = std::max(err, std::abs(b.slot[static_cast<size_t>(s)][p] - expected[s]));
    }
    worst.push_back(err);
  }
  EXPECT_LT(worst[1], worst[0] / 100);
  EXPECT_LT(worst[2], worst[1] / 100);
  EXPECT_LT(worst[2], 1e-8);
}

TEST(ShellProblem, ConvergesExponentiallyToTheManufacturedSolution) {
  const tensorium_spectral_problem_desc &p =
      findDeclaredProblem(tensorium_spectral_problems, TENSORIUM_SPECTRAL_PROBLEM_COUNT, "");
  EXPECT_STREQ(p.map, "spherical_shell");
  EXPECT_EQ(p.bounds[0], 0.5);
  EXPECT_EQ(p.bounds[1], 2.0);
  std::vector<double> errors;
  for (int n : {6, 8, 10}) {
    DeclaredProblemOptions options;
    options.resolution = std::array<int, 3>{n, 2 * n, 2 * n};
    DeclaredProblemSolution s = solveDeclaredProblem(tables(), p, options);
    ASSERT_TRUE(s.result.converged()) << s.result.message;
    double err = 0.0, innerErr = 0.0;
    for (size_t c = 0; c < 3; ++c) {
      const std::vector<double> v = s.values("W_" + std::to_string(c));
      for (size_t q = 0; q < s.grid->size(); ++q) {
        const auto r = s.grid->physicalPoint(q);
        const double x = r[0], y = r[1], z = r[2];
        const double exact[3] = {std::sin(x) * std::cos(y), std::cos(x) * std::exp(z), std::sin(y * z)};
        err = std::max(err, std::abs(v[q] - exact[c]));
        if (s.grid->logicalPoint(q)[0] == 0.5) // Dirichlet rows on the inner sphere
          innerErr = std::max(innerErr, std::abs(v[q] - exact[c]));
      }
    }
    EXPECT_LT(innerErr, 1e-9);
    errors.push_back(err);
    std::printf("n = %2d: max |W - W_exact| = %.3e (%d Krylov, %.2f s)\n", n, err, s.result.krylovIterations, s.seconds);
  }
  // Measured 1.1e-2, 1.1e-3, 8.8e-5 (and 7.5e-6 at n = 12).
  EXPECT_LT(errors[1], errors[0] / 5);
  EXPECT_LT(errors[2], errors[1] / 5);
  EXPECT_LT(errors[2], 3e-4);
}
