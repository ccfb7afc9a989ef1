// Spectral residual assembly, JVP and Newton solve on the generated nonlinear toy residual
// (fixtures/elliptic/nonlinear_toy_3d.tn: laplacian(psi) + mass psi + alpha psi^5 + source),
// with a manufactured periodic solution.
#include "tensorium_mlir/Elliptic/SpectralResidual.h"
#include "TensoriumSpectralResidualTests_kernels.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tensorium_mlir;
using namespace tensorium_mlir::elliptic;

namespace {
const double kMass = -1.5, kAlpha = 0.1;

double exact(const std::array<double, 3> &x) { return 1.0 + 0.2 * std::sin(x[0]) * std::cos(x[1]) + 0.1 * std::cos(x[2]); }
double exactLaplacian(const std::array<double, 3> &x) {
  return -0.4 * std::sin(x[0]) * std::cos(x[1]) - 0.1 * std::cos(x[2]);
}

struct ToyProblem {
  spectral::SpectralGrid3D grid;
  SpectralResidualProblem problem;
  Vector solution;
  explicit ToyProblem(int n)
      : grid(spectral::SpectralAxis::fourier(n), spectral::SpectralAxis::fourier(n), spectral::SpectralAxis::fourier(n)) {
    problem.grid = &grid;
    problem.kernel = &tensorium_spectral_residual_kernels[0];
    problem.setParameter("alpha", kAlpha);
    problem.setParameter("mass", kMass);
    std::vector<double> source(grid.size());
    solution.resize(static_cast<Eigen::Index>(grid.size()));
    for (size_t p = 0; p < grid.size(); ++p) {
      auto x = grid.physicalPoint(p);
      double u = exact(x);
      solution(static_cast<Eigen::Index>(p)) = u;
      source[p] = -(exactLaplacian(x) + kMass * u + kAlpha * std::pow(u, 5));
    }
    problem.auxiliaryFields["source"] = source;
  }
};
} // namespace

TEST(SpectralResidual, ManufacturedSolutionIsARootToRoundOff) {
  ToyProblem toy(8);
  ASSERT_STREQ(toy.problem.kernel->field_names[0], "psi");
  ResidualAssembly a = assembleSpectralResidual(toy.problem, toy.solution);
  EXPECT_LT(a.max, 1e-12);
  // Away from the root the residual is not small: the check can fail.
  Vector off = toy.solution.array() + 0.01;
  EXPECT_GT(assembleSpectralResidual(toy.problem, off).max, 1e-3);
}

TEST(SpectralResidual, GridKernelPathAgreesWithPointPath) {
  ToyProblem toy(6);
  Vector v = toy.solution;
  for (Eigen::Index i = 0; i < v.size(); ++i)
    v(i) += 0.05 * std::sin(0.7 * static_cast<double>(i));
  Vector pointPath = assembleSpectralResidual(toy.problem, v).F;
  toy.problem.gridKernel = &tensorium_spectral_residual_grid_kernels[0];
  Vector gridPath = assembleSpectralResidual(toy.problem, v).F;
  EXPECT_LT((pointPath - gridPath).cwiseAbs().maxCoeff(), 1e-14 * std::max(1.0, pointPath.cwiseAbs().maxCoeff()));
}

TEST(SpectralResidual, GeneratedJvpMatchesFiniteDifference) {
  ToyProblem toy(6);
  Vector v = toy.solution, dv(v.size());
  for (Eigen::Index i = 0; i < v.size(); ++i)
    dv(i) = std::cos(1.3 * static_cast<double>(i));
  Vector jvp = evaluateSpectralJacobianVectorProduct(toy.problem, v, dv);
  const double eps = 1e-6;
  Vector fd = (assembleSpectralResidual(toy.problem, v + eps * dv).F - assembleSpectralResidual(toy.problem, v - eps * dv).F) /
              (2 * eps);
  EXPECT_LT((jvp - fd).norm() / fd.norm(), 1e-7);
}

TEST(SpectralResidual, NewtonRecoversTheManufacturedSolution) {
  for (LinearSolveKind kind : {LinearSolveKind::Dense, LinearSolveKind::Gmres}) {
    ToyProblem toy(8);
    Vector v(toy.solution.size());
    for (size_t p = 0; p < toy.grid.size(); ++p) {
      auto x = toy.grid.physicalPoint(p);
      v(static_cast<Eigen::Index>(p)) = toy.solution(static_cast<Eigen::Index>(p)) + 0.1 * std::cos(x[0] + x[1]);
    }
    NonlinearProblem nl;
    nl.residual = [&](const Vector &u, Vector &F) { F = assembleSpectralResidual(toy.problem, u).F; };
    nl.jacobianVector = [&](const Vector &u, const Vector &d, Vector &Jv) {
      Jv = evaluateSpectralJacobianVectorProduct(toy.problem, u, d);
    };
    NewtonOptions options;
    options.linearSolve = kind;
    options.absoluteTolerance = 1e-12;
    options.gmresForcing = 1e-10;
    options.gmres.maxIterations = 300;
    NewtonResult r = solveNewton(nl, v, options);
    ASSERT_TRUE(r.converged()) << r.message;
    EXPECT_LT((v - toy.solution).cwiseAbs().maxCoeff(), 1e-10);
  }
}

TEST(SpectralResidual, BadSetUpIsReported) {
  ToyProblem toy(4);
  EXPECT_THROW(toy.problem.setParameter("omega", 1.0), ProblemError);
  Vector wrong = Vector::Zero(3);
  EXPECT_THROW(assembleSpectralResidual(toy.problem, wrong), ProblemError);
  toy.problem.auxiliaryFields.erase("source");
  EXPECT_THROW(assembleSpectralResidual(toy.problem, toy.solution), ProblemError);
  toy.problem.auxiliaryFields["source"] = std::vector<double>(5, 0.0);
  EXPECT_THROW(assembleSpectralResidual(toy.problem, toy.solution), ProblemError);
}

TEST(SpectralUnknownMap, BoundaryFactorBundleIsTheProductRule) {
  // u = 2 (q_1 - 0.5) v with v = q0^2 q1 + q2: compare every slot with the analytic product.
  SpectralUnknownMap map = makeLinearBoundaryFactorUnknownMap(1, 0.5, 2.0);
  std::array<double, 3> q{0.3, -0.2, 0.7};
  auto v = [](double a, double b, double c) { return a * a * b + c; };
  std::array<double, 10> bundle{v(q[0], q[1], q[2]), 2 * q[0] * q[1], q[0] * q[0], 1.0, 2 * q[1], 2 * q[0], 0, 0, 0, 0};
  map.apply(q, bundle);
  const double s = 2 * (q[1] - 0.5), V = v(q[0], q[1], q[2]);
  EXPECT_DOUBLE_EQ(bundle[0], s * V);
  EXPECT_DOUBLE_EQ(bundle[1], s * 2 * q[0] * q[1]);            // d/dq0
  EXPECT_DOUBLE_EQ(bundle[2], s * q[0] * q[0] + 2 * V);        // d/dq1
  EXPECT_DOUBLE_EQ(bundle[3], s * 1.0);                        // d/dq2
  EXPECT_DOUBLE_EQ(bundle[4], s * 2 * q[1]);                   // d00
  EXPECT_DOUBLE_EQ(bundle[5], s * 2 * q[0] + 2 * 2 * q[0] * q[1]); // d01
  EXPECT_DOUBLE_EQ(bundle[7], 2 * 2 * q[0] * q[0]);            // d11 = 2 s' v_1
  EXPECT_DOUBLE_EQ(bundle[8], 2 * 1.0);                        // d12 = s' v_2
}

#include "tensorium_mlir/Elliptic/Preconditioners.h"

TEST(Preconditioners, ModalLaplacianEqualsTheDenseOracle) {
  spectral::SpectralGrid3D grid(spectral::SpectralAxis::chebyshevGaussLobatto(7), spectral::SpectralAxis::chebyshevGaussLobatto(6),
                                spectral::SpectralAxis::fourier(8));
  std::vector<char> mask(grid.size(), 0);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 8; ++k)
        mask[grid.index(i, j, k)] = i == 0 || i == 6 || j == 0 || j == 5;
  LinearOperator dense = makeDenseLaplacianShiftPreconditioner(grid, -0.7, mask, 2);
  LinearOperator modal = makeModalLaplacianShiftPreconditioner(grid, -0.7, mask, 2);
  Vector x(2 * static_cast<Eigen::Index>(grid.size())), a, b;
  for (Eigen::Index i = 0; i < x.size(); ++i)
    x(i) = std::sin(0.37 * static_cast<double>(i)) + 0.1;
  dense(x, a);
  modal(x, b);
  EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-10 * a.cwiseAbs().maxCoeff());
  // A grid without a Fourier third axis is rejected.
  EXPECT_THROW(makeModalLaplacianShiftPreconditioner(
                   spectral::SpectralGrid3D(spectral::SpectralAxis::chebyshevGaussLobatto(4), spectral::SpectralAxis::chebyshevGaussLobatto(4),
                                            spectral::SpectralAxis::chebyshevGaussLobatto(4)),
                   0.0, {}),
               std::invalid_argument);
}

#include "tensorium_mlir/Elliptic/SpectralNewton.h"

#include <sstream>

TEST(SpectralNewton, KrylovPathWithAutomaticPreconditionerAndProgress) {
  ToyProblem toy(8);
  Vector v = toy.solution.array() + 0.05;
  SpectralNewtonOptions options;
  options.linearSolve = SpectralLinearSolveKind::Gmres;
  options.tolerance = 1e-12;
  options.gmresForcing = 1e-10;
  std::ostringstream log;
  options.progress = &log;
  SpectralNewtonResult r = solveSpectralNewton(toy.problem, v, options);
  ASSERT_TRUE(r.converged()) << r.message;
  EXPECT_TRUE(r.usedKrylov);
  EXPECT_EQ(r.preconditioner, SpectralPreconditionerKind::ModalLaplacianShift); // Fourier third axis
  EXPECT_LT((v - toy.solution).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_NE(log.str().find("newton   1"), std::string::npos);
  EXPECT_NE(log.str().find("krylov"), std::string::npos);
}

TEST(SpectralNewton, FailuresAreStatusesWithMessages) {
  ToyProblem toy(4);
  SpectralNewtonOptions options;
  Vector nan = toy.solution;
  nan(3) = std::nan("");
  EXPECT_EQ(solveSpectralNewton(toy.problem, nan, options).status, NewtonStatus::NonFiniteResidual);
  Vector wrong = Vector::Zero(5);
  SpectralNewtonResult bad = solveSpectralNewton(toy.problem, wrong, options);
  EXPECT_EQ(bad.status, NewtonStatus::InvalidProblem);
  EXPECT_NE(bad.message.find("initial guess has 5 entries"), std::string::npos);
  // A pure periodic Laplacian (mass = alpha = 0) has constants in its null space.
  ToyProblem singular(4);
  singular.problem.setParameter("mass", 0.0);
  singular.problem.setParameter("alpha", 0.0);
  Vector v = singular.solution;
  EXPECT_EQ(solveSpectralNewton(singular.problem, v, options).status, NewtonStatus::SingularJacobian);
  // Too few iterations to converge from far away: a status, not a wrong answer.
  options.maxNewtonIterations = 1;
  options.tolerance = 1e-14;
  Vector far = toy.solution.array() + 0.5;
  SpectralNewtonResult r = solveSpectralNewton(toy.problem, far, options);
  EXPECT_FALSE(r.converged());
  EXPECT_FALSE(r.message.empty());
}

TEST(Preconditioners, MappedFiniteDifferenceOperatorIsSecondOrderExactAndRelaxes) {
  spectral::SpectralGrid3D grid(spectral::SpectralAxis::chebyshevGaussLobatto(9), spectral::SpectralAxis::chebyshevGaussLobatto(8),
                                spectral::SpectralAxis::fourier(6));
  std::vector<char> mask(grid.size(), 0);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 6; ++k)
        mask[grid.index(i, j, k)] = i == 0 || i == 8 || j == 0 || j == 7;
  MappedFiniteDifferenceOperator A(grid, -0.5, mask);
  // Three-point non-uniform stencils are exact on quadratics: laplacian(x^2 + 3 y^2) - 0.5 u = 8 - 0.5 u.
  Vector u(static_cast<Eigen::Index>(grid.size())), Au;
  for (size_t p = 0; p < grid.size(); ++p) {
    auto x = grid.logicalPoint(p);
    u(static_cast<Eigen::Index>(p)) = x[0] * x[0] + 3 * x[1] * x[1];
  }
  A.apply(u, Au);
  for (size_t p = 0; p < grid.size(); ++p) {
    double expected = mask[p] ? u(static_cast<Eigen::Index>(p)) : 8.0 - 0.5 * u(static_cast<Eigen::Index>(p));
    EXPECT_NEAR(Au(static_cast<Eigen::Index>(p)), expected, 1e-10) << p;
  }
  // Symmetric Gauss-Seidel converges on this diagonally weighted operator.
  Vector x, r;
  A.relax(Au, x, 400);
  A.apply(x, r);
  EXPECT_LT((r - Au).norm() / Au.norm(), 1e-6);
  // The derivative map enters through the metric: x_phys = 2 q0 halves d/dx, quarters d2/dx2.
  spectral::SpectralGrid3D mapped = grid;
  mapped.setDerivativeMap([](const std::array<double, 3> &, std::array<double, 10> &b) {
    b[1] *= 0.5;
    b[4] *= 0.25;
    b[5] *= 0.5;
    b[6] *= 0.5;
  });
  MappedFiniteDifferenceOperator B(mapped, 0.0, mask);
  Vector q0sq(u.size()), Bq;
  for (size_t p = 0; p < grid.size(); ++p)
    q0sq(static_cast<Eigen::Index>(p)) = grid.logicalPoint(p)[0] * grid.logicalPoint(p)[0];
  B.apply(q0sq, Bq);
  size_t interior = grid.index(4, 4, 2);
  EXPECT_NEAR(Bq(static_cast<Eigen::Index>(interior)), 0.5, 1e-10);
}

TEST(Preconditioners, MultigridVCycleReducesTheFiniteDifferenceResidual) {
  spectral::SpectralGrid3D grid(spectral::SpectralAxis::chebyshevGaussLobatto(17), spectral::SpectralAxis::chebyshevGaussLobatto(17),
                                spectral::SpectralAxis::fourier(8));
  std::vector<char> mask(grid.size(), 0);
  for (int i = 0; i < 17; ++i)
    for (int j = 0; j < 17; ++j)
      for (int k = 0; k < 8; ++k)
        mask[grid.index(i, j, k)] = i == 0 || i == 16 || j == 0 || j == 16;
  EXPECT_EQ(multigridLevelCount(grid), 2); // 17x17x8 -> 9x9x4 (324 unknowns, dense LU)
  MappedFiniteDifferenceOperator A(grid, -0.3, mask);
  LinearOperator M = makeMappedFiniteDifferenceMultigridPreconditioner(grid, -0.3, mask);
  Vector b(static_cast<Eigen::Index>(grid.size()));
  for (size_t p = 0; p < grid.size(); ++p) {
    auto x = grid.logicalPoint(p);
    b(static_cast<Eigen::Index>(p)) = mask[p] ? 0.0 : std::exp(x[0]) * std::cos(3 * x[1]) * (1 + std::sin(x[2]));
  }
  // Stationary iteration x <- x + M (b - A x): each V-cycle must cut the residual markedly.
  Vector x = Vector::Zero(b.size()), Ax, correction;
  double previous = b.norm();
  for (int cycle = 0; cycle < 4; ++cycle) {
    A.apply(x, Ax);
    M(b - Ax, correction);
    x += correction;
    A.apply(x, Ax);
    double now = (b - Ax).norm();
    EXPECT_LT(now, 0.5 * previous) << "cycle " << cycle;
    previous = now;
  }
}

TEST(SpectralNewton, ChebyshevCubedWithDirichletRowsAndMultigrid) {
  // psi* = 1 + 0.2 exp(0.3 x) sin(y) cos(z) on [-1,1]^3, Dirichlet rows on all six faces.
  auto f = [](const std::array<double, 3> &x) { return std::exp(0.3 * x[0]) * std::sin(x[1]) * std::cos(x[2]); };
  const double lapF = 0.09 - 2.0;
  for (SpectralPreconditionerKind kind : {SpectralPreconditionerKind::MappedFiniteDifferenceMultigrid,
                                          SpectralPreconditionerKind::DenseLaplacianShift}) {
    const int n = 11;
    spectral::SpectralGrid3D grid(spectral::SpectralAxis::chebyshevGaussLobatto(n), spectral::SpectralAxis::chebyshevGaussLobatto(n),
                                  spectral::SpectralAxis::chebyshevGaussLobatto(n));
    SpectralResidualProblem problem;
    problem.grid = &grid;
    problem.kernel = &tensorium_spectral_residual_kernels[0];
    problem.setParameter("alpha", kAlpha);
    problem.setParameter("mass", kMass);
    std::vector<double> source(grid.size());
    problem.boundaryMask.assign(grid.size(), 0);
    problem.boundaryValues.assign(grid.size(), 0.0);
    Vector exactV(static_cast<Eigen::Index>(grid.size())), v(exactV.size());
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < n; ++k) {
          size_t p = grid.index(i, j, k);
          auto x = grid.physicalPoint(p);
          double psi = 1.0 + 0.2 * f(x);
          source[p] = -(0.2 * lapF * f(x) + kMass * psi + kAlpha * std::pow(psi, 5));
          exactV(static_cast<Eigen::Index>(p)) = psi;
          bool face = i == 0 || i == n - 1 || j == 0 || j == n - 1 || k == 0 || k == n - 1;
          problem.boundaryMask[p] = face;
          problem.boundaryValues[p] = psi;
          v(static_cast<Eigen::Index>(p)) = psi + (face ? 0.0 : 0.05);
        }
    problem.auxiliaryFields["source"] = source;
    SpectralNewtonOptions options;
    options.linearSolve = SpectralLinearSolveKind::Gmres;
    options.autoPreconditioner = false;
    options.preconditioner = kind;
    options.tolerance = 1e-12;
    options.gmresForcing = 1e-10;
    SpectralNewtonResult r = solveSpectralNewton(problem, v, options);
    ASSERT_TRUE(r.converged()) << preconditionerName(kind) << ": " << r.message;
    EXPECT_LT((v - exactV).cwiseAbs().maxCoeff(), 1e-8) << preconditionerName(kind);
  }
}

TEST(SpectralResidual, LinearisedCoefficientsReproduceTheJvpAndRowScaleWeightsRows) {
  // Chebyshev x Chebyshev x Fourier with a non-trivial derivative map and the boundary-factor
  // unknown map: the probed coefficients contracted with the logical bundle of dv are the JVP.
  spectral::SpectralGrid3D grid(spectral::SpectralAxis::chebyshevGauss(7, 0.0, 1.0),
                                spectral::SpectralAxis::chebyshevGauss(6, -1.0, 1.0), spectral::SpectralAxis::fourier(6));
  grid.setDerivativeMap([](const std::array<double, 3> &q, std::array<double, 10> &b) {
    const double s = 1.0 + 0.5 * q[0] + 0.1 * q[1] * q[1]; // x0 stretched by s, others unchanged
    b[1] *= s;
    b[4] = s * s * b[4] + 0.3 * b[1];
    b[5] *= s;
    b[6] *= s;
  });
  SpectralResidualProblem problem;
  problem.grid = &grid;
  problem.kernel = &tensorium_spectral_residual_kernels[0];
  problem.setParameter("alpha", kAlpha);
  problem.setParameter("mass", kMass);
  problem.unknownMap = makeLinearBoundaryFactorUnknownMap(0, 1.0, 1.0);
  std::vector<double> source(grid.size());
  Vector v(static_cast<Eigen::Index>(grid.size())), dv(v.size());
  for (size_t p = 0; p < grid.size(); ++p) {
    auto q = grid.logicalPoint(p);
    source[p] = std::cos(q[0] + q[2]);
    v(static_cast<Eigen::Index>(p)) = 0.3 + 0.2 * q[1] * std::sin(q[2]);
    dv(static_cast<Eigen::Index>(p)) = std::cos(1.7 * static_cast<double>(p));
  }
  problem.auxiliaryFields["source"] = source;
  std::vector<std::array<double, 10>> a = linearisedLogicalCoefficients(problem, v);
  spectral::DerivativeBundle b = grid.bundle(std::span<const double>(dv.data(), grid.size()));
  Vector jvp = evaluateSpectralJacobianVectorProduct(problem, v, dv), contracted(v.size());
  for (size_t p = 0; p < grid.size(); ++p) {
    double sum = 0.0;
    for (size_t s = 0; s < 10; ++s)
      sum += a[p][s] * b.slot[s][p];
    contracted(static_cast<Eigen::Index>(p)) = sum;
  }
  EXPECT_LT((contracted - jvp).cwiseAbs().maxCoeff(), 1e-11 * jvp.cwiseAbs().maxCoeff());

  // Row weights multiply residual and JVP rows alike.
  Vector F = assembleSpectralResidual(problem, v).F;
  problem.rowScale.resize(grid.size());
  for (size_t p = 0; p < grid.size(); ++p)
    problem.rowScale[p] = 1.0 + static_cast<double>(p % 5);
  Vector Fw = assembleSpectralResidual(problem, v).F, jvpW = evaluateSpectralJacobianVectorProduct(problem, v, dv);
  for (size_t p = 0; p < grid.size(); ++p) {
    EXPECT_DOUBLE_EQ(Fw(static_cast<Eigen::Index>(p)), problem.rowScale[p] * F(static_cast<Eigen::Index>(p)));
    EXPECT_NEAR(jvpW(static_cast<Eigen::Index>(p)), problem.rowScale[p] * jvp(static_cast<Eigen::Index>(p)),
                1e-13 * jvp.cwiseAbs().maxCoeff() * 5);
  }
  problem.rowScale[3] = -1.0;
  EXPECT_THROW(assembleSpectralResidual(problem, v), ProblemError);
  problem.rowScale.resize(4);
  EXPECT_THROW(assembleSpectralResidual(problem, v), ProblemError);
}

TEST(Preconditioners, FourierModeFiniteDifferenceInvertsOperatorsItRepresentsExactly) {
  // Three-point differences are exact on quadratics in (q0, q1) and the Fourier treatment is
  // exact for modes below Nyquist, so for phi-independent coefficients and
  // x = (1 + q0 - q0 q1 + 0.5 q1^2) (cos 2 phi + 0.3 sin phi + 0.2) the preconditioner applied
  // to the analytic L x returns x.
  spectral::SpectralGrid3D grid(spectral::SpectralAxis::chebyshevGauss(9, 0.0, 1.0),
                                spectral::SpectralAxis::chebyshevGaussLobatto(8, -1.0, 1.0),
                                spectral::SpectralAxis::fourier(8));
  std::vector<std::array<double, 10>> a(grid.size());
  Vector x(static_cast<Eigen::Index>(grid.size())), Lx(x.size());
  for (size_t p = 0; p < grid.size(); ++p) {
    auto q = grid.logicalPoint(p);
    const double s = q[0], t = q[1], phi = q[2];
    std::array<double, 10> &c = a[p];
    c = {-2.0 - s, 0.4 * t, -0.3, 0.0, 1.0 + s * s, 0.2, 0.0, 1.5 - 0.5 * t, 0.0, 0.7 + s};
    const double P = 1 + s - s * t + 0.5 * t * t, Ps = 1 - t, Pt = -s + t, Pss = 0, Pst = -1, Ptt = 1;
    const double Phi = std::cos(2 * phi) + 0.3 * std::sin(phi) + 0.2, Phipp = -4 * std::cos(2 * phi) - 0.3 * std::sin(phi);
    x(static_cast<Eigen::Index>(p)) = P * Phi;
    Lx(static_cast<Eigen::Index>(p)) = c[0] * P * Phi + c[1] * Ps * Phi + c[2] * Pt * Phi + c[4] * Pss * Phi +
                                       c[5] * Pst * Phi + c[7] * Ptt * Phi + c[9] * P * Phipp;
  }
  LinearOperator M = makeFourierModeFiniteDifferencePreconditioner(grid, a);
  Vector y;
  M(Lx, y);
  // Round-off is amplified by the difference operator's condition (clustered Chebyshev points).
  EXPECT_LT((y - x).cwiseAbs().maxCoeff(), 1e-9 * x.cwiseAbs().maxCoeff());
  // Wrong shapes are reported.
  EXPECT_THROW(makeFourierModeFiniteDifferencePreconditioner(grid, std::vector<std::array<double, 10>>(3)),
               std::invalid_argument);
  spectral::SpectralGrid3D periodic(spectral::SpectralAxis::fourier(6), spectral::SpectralAxis::chebyshevGauss(5),
                                    spectral::SpectralAxis::fourier(4));
  EXPECT_THROW(makeFourierModeFiniteDifferencePreconditioner(periodic, std::vector<std::array<double, 10>>(periodic.size())),
               std::invalid_argument);
  std::vector<std::array<double, 10>> zero(grid.size(), std::array<double, 10>{});
  EXPECT_THROW(makeFourierModeFiniteDifferencePreconditioner(grid, zero), std::invalid_argument);
}
