// The declared vector Poisson problem (fixtures/elliptic/vector_poisson_box_3d.tn) through its
// generated problem descriptor and boundary kernels, against the analytic solution
//   W = (sin x cos y, cos x e^z, sin(y z)) on [-1, 1]^3.
#include "TensoriumDeclaredProblemTests_kernels.h"
#include "GeneratedTables.h"

#include "tensorium_mlir/Problems/DeclaredProblem.h"
#include "tensorium_mlir/Problems/SolutionFile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

using namespace tensorium_mlir;
using namespace tensorium_mlir::elliptic;

namespace {

const tensorium_module_tables &tables() { return generatedModuleTables(); }

const tensorium_spectral_problem_desc &problem() {
  return findDeclaredProblem(tensorium_spectral_problems, TENSORIUM_SPECTRAL_PROBLEM_COUNT, "");
}

std::array<double, 3> exact(const std::array<double, 3> &r) {
  const double x = r[0], y = r[1], z = r[2];
  return {std::sin(x) * std::cos(y), std::cos(x) * std::exp(z), std::sin(y * z)};
}

/// d/dx of the exact solution (the Robin face xmax has outward normal +x).
std::array<double, 3> exactDx(const std::array<double, 3> &r) {
  const double x = r[0], y = r[1], z = r[2];
  return {std::cos(x) * std::cos(y), -std::sin(x) * std::exp(z), 0.0};
}

double maxError(const DeclaredProblemSolution &s) {
  double err = 0.0;
  for (size_t c = 0; c < 3; ++c) {
    const std::vector<double> v = s.values("W_" + std::to_string(c));
    for (size_t p = 0; p < s.grid->size(); ++p)
      err = std::max(err, std::abs(v[p] - exact(s.grid->physicalPoint(p))[c]));
  }
  return err;
}

} // namespace

TEST(DeclaredProblem, DescriptorCarriesTheDeclaration) {
  const tensorium_spectral_problem_desc &p = problem();
  EXPECT_EQ(p.struct_size, static_cast<int32_t>(sizeof(tensorium_spectral_problem_desc)));
  EXPECT_STREQ(p.block_name, "VectorPoisson");
  EXPECT_STREQ(p.map, "box");
  EXPECT_EQ(p.resolution[0], 9);
  EXPECT_EQ(p.bounds[0], -1.0);
  EXPECT_EQ(p.bounds[5], 1.0);
  ASSERT_EQ(p.unknown_count, 3);
  EXPECT_STREQ(p.unknown_names[2], "W_2");
  ASSERT_EQ(p.boundary_count, 18); // 3 components x 6 faces
  EXPECT_DOUBLE_EQ(p.tolerance, 1e-11);
  EXPECT_EQ(p.max_iterations, 5);
  EXPECT_STREQ(p.linear, "dense");
  EXPECT_STREQ(tables().spectral_systems[p.system_index].block_name, "VectorPoisson");
  for (int32_t i = 0; i < p.boundary_count; ++i) {
    const tensorium_spectral_boundary_desc &b = p.boundaries[i];
    EXPECT_STREQ(b.kind, std::string(b.face) == "xmax" ? "robin" : "dirichlet");
    EXPECT_STREQ(tables().kernels[b.kernel_index].symbol, b.kernel_symbol);
    EXPECT_STREQ(tables().kernels[b.kernel_index].kind, "spectral_boundary_grid");
  }
}

TEST(DeclaredProblem, BoundaryKernelsWriteTheDeclaredCoefficients) {
  // Dirichlet rows: a = 1, b = 0, value = W; the Robin face: a = b = 1, value = W + dW/dx.
  const tensorium_spectral_problem_desc &p = problem();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int32_t i = 0; i < p.boundary_count; ++i) {
    const tensorium_spectral_boundary_desc &b = p.boundaries[i];
    const tensorium_host_kernel_adapter *adapter = nullptr;
    for (int32_t k = 0; k < tables().adapter_count; ++k)
      if (tables().adapters[k].kernel_index == b.kernel_index)
        adapter = &tables().adapters[k];
    ASSERT_NE(adapter, nullptr);
    const size_t m = 5;
    std::vector<double> x(m), y(m), z(m), a(m), bb(m), value(m);
    for (size_t q = 0; q < m; ++q) {
      x[q] = u(rng);
      y[q] = u(rng);
      z[q] = u(rng);
    }
    double *buffers[6] = {x.data(), y.data(), z.data(), a.data(), bb.data(), value.data()};
    const int64_t sizes[6] = {5, 5, 5, 5, 5, 5}, extents[3] = {5, 1, 1};
    const double spacing[3] = {0, 0, 0};
    adapter->invoke(extents, spacing, nullptr, buffers, sizes);
    const bool robin = std::string(b.face) == "xmax";
    for (size_t q = 0; q < m; ++q) {
      const std::array<double, 3> r{x[q], y[q], z[q]};
      const double w = exact(r)[static_cast<size_t>(b.unknown_index)];
      EXPECT_DOUBLE_EQ(a[q], 1.0);
      EXPECT_DOUBLE_EQ(bb[q], robin ? 1.0 : 0.0);
      EXPECT_NEAR(value[q], robin ? w + exactDx(r)[static_cast<size_t>(b.unknown_index)] : w, 1e-14) << b.kernel_symbol;
    }
  }
}

TEST(DeclaredProblem, VectorResidualJacobianMatchesFiniteDifferences) {
  // The system's JVP (generated vector-residual JVP kernels plus the Robin and Dirichlet rows)
  // against central differences of the assembled residual, at a random state and direction.
  const tensorium_spectral_problem_desc &p = problem();
  const tensorium_spectral_residual_system_desc &system = tables().spectral_systems[p.system_index];
  spectral::SpectralGrid3D grid(spectral::SpectralAxis::chebyshevGaussLobatto(6, -1, 1),
                                spectral::SpectralAxis::chebyshevGaussLobatto(5, -1, 1),
                                spectral::SpectralAxis::chebyshevGaussLobatto(7, -1, 1));
  SpectralResidualSystemProblem sys;
  sys.grid = &grid;
  sys.system = &system;
  sys.kernels = tables().spectral_kernels;
  const size_t n = grid.size();
  sys.boundaryMask.assign(n, 0);
  sys.boundaryRows.assign(3, std::vector<SpectralResidualSystemProblem::BoundaryRow>(n));
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (size_t q = 0; q < n; q += 4) {
    sys.boundaryMask[q] = 1;
    for (auto &rows : sys.boundaryRows)
      rows[q] = {u(rng), {u(rng), u(rng), u(rng)}, u(rng)};
  }
  Vector U(static_cast<Eigen::Index>(3 * n)), dU(static_cast<Eigen::Index>(3 * n));
  for (Eigen::Index i = 0; i < U.size(); ++i) {
    U(i) = u(rng);
    dU(i) = u(rng);
  }
  const Vector jv = evaluateSpectralResidualSystemJacobianVectorProduct(sys, U, dU);
  const double h = 1e-6;
  const Vector fd = (assembleSpectralResidualSystem(sys, U + h * dU).F - assembleSpectralResidualSystem(sys, U - h * dU).F) / (2 * h);
  EXPECT_LT((jv - fd).cwiseAbs().maxCoeff(), 1e-6 * std::max(1.0, fd.cwiseAbs().maxCoeff()));
  EXPECT_GT(jv.cwiseAbs().maxCoeff(), 1.0); // a real operator, not zero
}

TEST(DeclaredProblem, ConvergesExponentiallyToTheManufacturedSolution) {
  std::vector<double> errors;
  for (int n : {5, 7, 9}) {
    DeclaredProblemOptions options;
    options.resolution = std::array<int, 3>{n, n, n};
    DeclaredProblemSolution s = solveDeclaredProblem(tables(), problem(), options);
    ASSERT_TRUE(s.result.converged()) << s.result.message;
    errors.push_back(maxError(s));
    std::printf("n = %2d: max |W - W_exact| = %.3e (%d Newton, %.2f s)\n", n, errors.back(), s.result.iterations, s.seconds);
  }
  // Exponential convergence: the error falls by more than 50x per two points (measured: 2.3e-3,
  // 1.7e-5, 7.7e-8, and 2.1e-10 at n = 11, 7 s with the dense solver).
  for (size_t i = 1; i < errors.size(); ++i)
    EXPECT_LT(errors[i], errors[i - 1] / 50) << "at step " << i;
  EXPECT_LT(errors.back(), 1e-6);
}

TEST(DeclaredProblem, SetUpErrorsAreReported) {
  DeclaredProblemOptions options;
  options.resolution = std::array<int, 3>{2, 9, 9};
  EXPECT_THROW(solveDeclaredProblem(tables(), problem(), options), ProblemError);
  options.resolution.reset();
  options.params["kappa"] = 1.0;
  try {
    solveDeclaredProblem(tables(), problem(), options);
    FAIL() << "an unknown parameter was accepted";
  } catch (const ProblemError &e) {
    EXPECT_NE(std::string(e.what()).find("has no parameter 'kappa'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(findDeclaredProblem(tensorium_spectral_problems, TENSORIUM_SPECTRAL_PROBLEM_COUNT, "Other"), ProblemError);
  EXPECT_THROW(findDeclaredProblem(nullptr, 0, ""), ProblemError);
}

TEST(DeclaredProblem, InterpolationAndSolutionFilesReproduceTheSolution) {
  DeclaredProblemOptions options;
  options.resolution = std::array<int, 3>{9, 9, 9};
  const DeclaredProblemSolution s = solveDeclaredProblem(tables(), problem(), options);
  ASSERT_TRUE(s.result.converged());
  // Off the collocation points the spectral interpolant is as accurate as the solution.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int i = 0; i < 50; ++i) {
    const std::array<double, 3> x{u(rng), u(rng), u(rng)};
    for (size_t c = 0; c < 3; ++c)
      EXPECT_NEAR(s.interpolate("W_" + std::to_string(c), x), exact(x)[c], 1e-6);
  }
  EXPECT_TRUE(std::isnan(s.interpolate("W_0", {1.5, 0.0, 0.0}))); // outside the box

  std::string dir = (std::filesystem::temp_directory_path() / "tensorium-solution-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const Lattice lattice = makeLattice({5, 6, 7}, {-1, 1, -1, 1, -1, 1.5});
  const LatticeValues values = sampleOnLattice(s, lattice);
  EXPECT_EQ(values.outside, 2u * 5u * 6u); // the planes z = 1.083 and z = 1.5 lie outside
  writeSolutionFile(dir + "/w.h5", "VectorPoisson", s, &values);
  EXPECT_TRUE(std::filesystem::exists(dir + "/w.xmf"));
  const StoredSolution stored = readSolutionFile(dir + "/w.h5");
  EXPECT_EQ(stored.block, "VectorPoisson");
  ASSERT_TRUE(stored.lattice.has_value());
  EXPECT_EQ(stored.solution.unknownNames, s.unknownNames);
  EXPECT_EQ(stored.solution.U, s.U); // bitwise
  const LatticeValues again = sampleOnLattice(stored.solution, stored.lattice->lattice);
  for (size_t c = 0; c < 3; ++c)
    for (size_t q = 0; q < again.values[c].size(); ++q) {
      const double a = again.values[c][q], b = values.values[c][q];
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << q;
    }
  EXPECT_EQ(latticeValueBytes(lattice, 3), 8.0 * 3 * 5 * 6 * 7);
  EXPECT_THROW(makeLattice({5, 6, 1}, {-1, 1, -1, 1, -1, 1}), ProblemError);
  EXPECT_THROW(makeLattice({5, 6, kMaxLatticeAxisPoints + 1}, {-1, 1, -1, 1, -1, 1}), ProblemError);
  EXPECT_THROW(makeLattice({5, 6, 7}, {-1, 1, 1, -1, -1, 1}), ProblemError);
  EXPECT_THROW(makeLattice({5, 6, 7}, {-1, 1, -1, 1, -1, INFINITY}), ProblemError);
  EXPECT_THROW(readSolutionFile(dir + "/w.xmf"), ProblemError);
  EXPECT_THROW(readSolutionFile(dir + "/missing.h5"), ProblemError);
  std::filesystem::remove_all(dir);
}
