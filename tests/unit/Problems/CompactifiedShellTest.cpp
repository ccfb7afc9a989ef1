// The compactified_shell map (logical radius s = -1/r): its chain rule on harmonic multipoles
// (polynomials in s, so exact in the radial direction), and the declared Poisson problem of
// fixtures/elliptic/poisson_compactified_shell_3d.tn out to r = 10^6 against its manufactured
// solution, beside the same problem on the linear-radius spherical_shell.
#include "TensoriumCompactifiedShellTests_kernels.h"
#include "GeneratedTables.h"

#include "tensorium_mlir/Problems/DeclaredProblem.h"
#include "tensorium_mlir/Problems/DomainMaps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace tensorium_mlir;
using namespace tensorium_mlir::elliptic;

namespace {

const tensorium_module_tables &tables() { return generatedModuleTables(); }

double exactSolution(const std::array<double, 3> &p) {
  const double x = p[0], y = p[1], z = p[2], r = std::sqrt(x * x + y * y + z * z);
  return 1 + 1 / r + std::sin(2 / r) * z / r + std::exp(-1 / r) * (x * x - y * y) / (r * r * r);
}

/// Largest error of the solution at 300 random points spread evenly in log r over the shell
/// (away from the axis, where the Gauss theta points thin out).
double maxError(const DeclaredProblemSolution &s) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> logR(0.0, 6.0), cosTheta(-0.95, 0.95), phi(0.0, 2 * M_PI);
  double err = 0;
  for (int q = 0; q < 300; ++q) {
    const double r = std::pow(10.0, logR(random)), c = cosTheta(random), sn = std::sqrt(1 - c * c), f = phi(random);
    const std::array<double, 3> x{r * sn * std::cos(f), r * sn * std::sin(f), r * c};
    err = std::max(err, std::abs(s.interpolate("u", x) - exactSolution(x)));
  }
  return err;
}

} // namespace

TEST(CompactifiedShellMap, ChainRuleIsExactForMultipolesInTheRadius) {
  // f = 1/r + z/r^3 + (x^2 - y^2)/r^5 is harmonic and cubic in s = -1/r: the bundle's gradient
  // must match the analytic one and its Laplacian vanish, relative to their scales 1/r^2 and
  // 1/r^3, from r = 1 to r = 10^6.
  const SphericalShellMap shell(1.0, 1e6, SphericalShellMap::Radial::Inverse);
  EXPECT_EQ(shell.logicalRadius(4.0), -0.25);
  EXPECT_EQ(shell.radius(-0.25), 4.0);
  spectral::SpectralGrid3D grid(spectral::SpectralAxis::chebyshevGaussLobatto(8, -1.0, -1e-6),
                                spectral::SpectralAxis::chebyshevGauss(28, 0.0, M_PI), spectral::SpectralAxis::fourier(8));
  grid.setCoordinateMap([shell](const std::array<double, 3> &q) { return shell.toCartesian(q); });
  grid.setDerivativeMap([shell](const std::array<double, 3> &q, std::array<double, 10> &b) { shell.toCartesianBundle(q, b); });
  std::vector<double> f(grid.size());
  for (size_t p = 0; p < grid.size(); ++p) {
    const auto x = grid.physicalPoint(p);
    const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    f[p] = 1 / r + x[2] / std::pow(r, 3) + (x[0] * x[0] - x[1] * x[1]) / std::pow(r, 5);
  }
  const spectral::DerivativeBundle b = grid.physicalBundle(f);
  double gradErr = 0, lapErr = 0;
  for (size_t p = 0; p < grid.size(); ++p) {
    if (std::sin(grid.logicalPoint(p)[1]) < 0.3)
      continue;
    const auto x = grid.physicalPoint(p);
    const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), q = x[0] * x[0] - x[1] * x[1];
    for (int i = 0; i < 3; ++i) {
      const double expected = -x[i] / std::pow(r, 3) + (i == 2) / std::pow(r, 3) - 3 * x[2] * x[i] / std::pow(r, 5) +
                              (i == 0 ? 2 * x[0] : i == 1 ? -2 * x[1] : 0.0) / std::pow(r, 5) -
                              5 * q * x[i] / std::pow(r, 7);
      gradErr = std::max(gradErr, std::abs(b.slot[static_cast<size_t>(1 + i)][p] - expected) * r * r);
    }
    lapErr = std::max(lapErr, std::abs(b.slot[4][p] + b.slot[7][p] + b.slot[9][p]) * r * r * r);
  }
  std::printf("relative gradient error %.3e, relative Laplacian %.3e\n", gradErr, lapErr);
  EXPECT_LT(gradErr, 1e-8);
  EXPECT_LT(lapErr, 1e-7);
}

TEST(CompactifiedShell, ConvergesExponentiallyOutToAMillion) {
  const tensorium_spectral_problem_desc &p =
      findDeclaredProblem(tensorium_spectral_problems, TENSORIUM_SPECTRAL_PROBLEM_COUNT, "");
  ASSERT_STREQ(p.map, "compactified_shell");
  EXPECT_EQ(p.bounds[1], 1e6);
  std::vector<double> errors;
  for (int n : {6, 8, 10}) {
    DeclaredProblemOptions options;
    options.resolution = std::array<int, 3>{n, 2 * n, 8};
    DeclaredProblemSolution s = solveDeclaredProblem(tables(), p, options);
    ASSERT_TRUE(s.result.converged()) << s.result.message;
    errors.push_back(maxError(s));
    std::printf("n = %2d: max |u - u_exact| = %.3e (%.2f s)\n", n, errors.back(), s.seconds);
  }
  EXPECT_LT(errors[1], errors[0] / 20);
  EXPECT_LT(errors[2], errors[1] / 20);
  EXPECT_LT(errors[2], 1e-8);

  // The same problem, grid and point count on the linear-radius shell: its Chebyshev points
  // crowd at the two ends of [1, 10^6] and leave the region where the solution varies
  // (r ~ 1 to 100) unresolved.
  tensorium_spectral_problem_desc linear = p;
  linear.map = "spherical_shell";
  DeclaredProblemOptions options;
  options.resolution = std::array<int, 3>{10, 20, 8};
  DeclaredProblemSolution s = solveDeclaredProblem(tables(), linear, options);
  const double linearError = maxError(s);
  std::printf("linear radius, n = 10: max |u - u_exact| = %.3e\n", linearError);
  EXPECT_GT(linearError, 1e4 * errors[2]);
}

TEST(CompactifiedShellMap, SingularPointsOnTheGridAreRefusedByName) {
  // Lobatto points in theta put grid points on the axis, where the shell map's Jacobian is
  // singular: tabulating its chain rule must refuse, naming the point, not fill rows with nan.
  const SphericalShellMap shell(1.0, 1e6, SphericalShellMap::Radial::Inverse);
  spectral::SpectralGrid3D grid(spectral::SpectralAxis::chebyshevGaussLobatto(4, -1.0, -1e-6),
                                spectral::SpectralAxis::chebyshevGaussLobatto(5, 0.0, M_PI),
                                spectral::SpectralAxis::fourier(4));
  grid.setDerivativeMap([shell](const std::array<double, 3> &q, std::array<double, 10> &b) { shell.toCartesianBundle(q, b); });
  try {
    grid.tabulateDerivativeMap();
    FAIL() << "a singular map was tabulated";
  } catch (const std::domain_error &e) {
    EXPECT_NE(std::string(e.what()).find("the coordinate map is singular at grid point 0"), std::string::npos) << e.what();
  }
  // Outer radii whose chain rule (r^2, r^3, a Jacobian determinant r^4) would overflow are
  // refused when the map is built; at the largest one allowed it is still exact: f = 1/r = -s
  // has gradient -e/r^2 and Hessian (3 e e - 1)/r^3.
  EXPECT_THROW(SphericalShellMap(1.0, 1e200, SphericalShellMap::Radial::Inverse), std::invalid_argument);
  EXPECT_THROW(SphericalShellMap(1.0, 2 * kMaxCompactifiedRadius, SphericalShellMap::Radial::Inverse),
               std::invalid_argument);
  const SphericalShellMap far(1.0, kMaxCompactifiedRadius, SphericalShellMap::Radial::Inverse);
  const double r = kMaxCompactifiedRadius, theta = 1.0, phi = 0.5;
  const double e[3] = {std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)};
  std::array<double, 10> bundle{1 / r, -1.0, 0, 0, 0, 0, 0, 0, 0, 0};
  far.toCartesianBundle({far.logicalRadius(r), theta, phi}, bundle);
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(bundle[static_cast<size_t>(1 + i)] * r * r, -e[i], 1e-12) << i;
  const int slot[3][3] = {{4, 5, 6}, {5, 7, 8}, {6, 8, 9}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(bundle[static_cast<size_t>(slot[i][j])] * r * r * r, 3 * e[i] * e[j] - (i == j), 1e-11) << i << j;
  EXPECT_NO_THROW(SphericalShellMap(1.0, 1e200, SphericalShellMap::Radial::Linear));
}
