// Fourier-mode finite-difference preconditioner: the linearised operator, averaged over the
// periodic axis, discretised by second-order differences on the Chebyshev points of the other
// two axes and solved exactly mode by mode along the periodic one.
#include "tensorium_mlir/Elliptic/Preconditioners.h"

#include <Eigen/Sparse>
#include <Eigen/SparseLU>

#include <cmath>
#include <memory>
#include <numbers>
#include <stdexcept>

namespace tensorium_mlir::elliptic {

namespace {

/// Three-point Lagrange weights of the first and second derivative at points[i], on the three
/// nearest nodes (one-sided at the ends: Gauss axes have no boundary node to centre on).
struct Stencil {
  int first = 0;
  double d1[3] = {}, d2[3] = {};
};

Stencil threePointStencil(const std::vector<double> &points, int i) {
  const int n = static_cast<int>(points.size());
  Stencil s;
  s.first = std::min(std::max(i - 1, 0), n - 3);
  const double z = points[static_cast<size_t>(i)];
  double t[3];
  for (int a = 0; a < 3; ++a)
    t[a] = points[static_cast<size_t>(s.first + a)];
  for (int j = 0; j < 3; ++j) {
    const int m1 = (j + 1) % 3, m2 = (j + 2) % 3;
    const double denominator = (t[j] - t[m1]) * (t[j] - t[m2]);
    s.d1[j] = ((z - t[m1]) + (z - t[m2])) / denominator;
    s.d2[j] = 2.0 / denominator;
  }
  return s;
}

using SparseMatrix = Eigen::SparseMatrix<double>;
using SparseSolver = Eigen::SparseLU<SparseMatrix, Eigen::COLAMDOrdering<int>>;

struct FourierModeFactors {
  int n0 = 0, n1 = 0, n2 = 0, modes = 0;
  std::vector<double> cosTable, sinTable; // [k * modes + m]
  std::vector<std::unique_ptr<SparseSolver>> solvers;
};

} // namespace

LinearOperator makeFourierModeFiniteDifferencePreconditioner(const spectral::SpectralGrid3D &grid,
                                                             const std::vector<std::array<double, 10>> &coefficients) {
  const std::array<int, 3> n = grid.extents();
  if (coefficients.size() != grid.size())
    throw std::invalid_argument("Fourier-mode preconditioner: " + std::to_string(coefficients.size()) +
                                " coefficient rows for " + std::to_string(grid.size()) + " points");
  for (int a = 0; a < 2; ++a)
    if (grid.axis(a).isPeriodic() || n[static_cast<size_t>(a)] < 3)
      throw std::invalid_argument("Fourier-mode preconditioner: axes 0 and 1 must be Chebyshev with at least 3 points");
  if (!grid.axis(2).isPeriodic() && n[2] != 1)
    throw std::invalid_argument("Fourier-mode preconditioner: axis 2 must be Fourier (or a single point)");

  auto f = std::make_shared<FourierModeFactors>();
  f->n0 = n[0];
  f->n1 = n[1];
  f->n2 = n[2];
  f->modes = n[2] / 2 + 1;
  const std::vector<double> &phi = grid.axis(2).points();
  f->cosTable.resize(static_cast<size_t>(f->n2 * f->modes));
  f->sinTable.resize(f->cosTable.size());
  for (int k = 0; k < f->n2; ++k)
    for (int m = 0; m < f->modes; ++m) {
      f->cosTable[static_cast<size_t>(k * f->modes + m)] = std::cos(m * phi[static_cast<size_t>(k)]);
      f->sinTable[static_cast<size_t>(k * f->modes + m)] = std::sin(m * phi[static_cast<size_t>(k)]);
    }

  // Coefficients averaged along the periodic axis: slots value, d0, d1, d00, d01, d11, d22. The
  // d2, d02 and d12 terms (and the phi dependence) couple modes and are left to the Krylov solver.
  const int plane = f->n0 * f->n1;
  std::vector<std::array<double, 7>> mean(static_cast<size_t>(plane), std::array<double, 7>{});
  constexpr int used[7] = {0, 1, 2, 4, 5, 7, 9};
  for (int i = 0; i < f->n0; ++i)
    for (int j = 0; j < f->n1; ++j)
      for (int k = 0; k < f->n2; ++k)
        for (int s = 0; s < 7; ++s)
          mean[static_cast<size_t>(i * f->n1 + j)][static_cast<size_t>(s)] +=
              coefficients[grid.index(i, j, k)][static_cast<size_t>(used[s])] / f->n2;

  std::vector<Stencil> s0, s1;
  for (int i = 0; i < f->n0; ++i)
    s0.push_back(threePointStencil(grid.axis(0).points(), i));
  for (int j = 0; j < f->n1; ++j)
    s1.push_back(threePointStencil(grid.axis(1).points(), j));

  for (int m = 0; m < f->modes; ++m) {
    std::vector<Eigen::Triplet<double>> entries;
    entries.reserve(static_cast<size_t>(plane) * 15);
    for (int i = 0; i < f->n0; ++i)
      for (int j = 0; j < f->n1; ++j) {
        const int row = i * f->n1 + j;
        const std::array<double, 7> &c = mean[static_cast<size_t>(row)];
        entries.emplace_back(row, row, c[0] - static_cast<double>(m) * m * c[6]);
        const Stencil &a = s0[static_cast<size_t>(i)], &b = s1[static_cast<size_t>(j)];
        for (int t = 0; t < 3; ++t) {
          entries.emplace_back(row, (a.first + t) * f->n1 + j, c[1] * a.d1[t] + c[3] * a.d2[t]);
          entries.emplace_back(row, i * f->n1 + b.first + t, c[2] * b.d1[t] + c[5] * b.d2[t]);
          for (int u = 0; u < 3; ++u)
            entries.emplace_back(row, (a.first + t) * f->n1 + b.first + u, c[4] * a.d1[t] * b.d1[u]);
        }
      }
    SparseMatrix A(plane, plane);
    A.setFromTriplets(entries.begin(), entries.end());
    A.makeCompressed();
    auto solver = std::make_unique<SparseSolver>();
    solver->compute(A);
    if (solver->info() != Eigen::Success)
      throw std::invalid_argument("Fourier-mode preconditioner: the finite-difference operator of mode " +
                                  std::to_string(m) + " is singular (" + solver->lastErrorMessage() + ")");
    f->solvers.push_back(std::move(solver));
  }

  return [f](const Vector &x, Vector &y) {
    const int plane = f->n0 * f->n1, n2 = f->n2, modes = f->modes;
    y.resize(x.size());
    Vector rc(plane), rs(plane);
    std::vector<Vector> xc(static_cast<size_t>(modes)), xs(static_cast<size_t>(modes));
    for (int m = 0; m < modes; ++m) {
      // Real DFT weights: 1/n for the mean (and the Nyquist cosine), 2/n otherwise.
      const double w = (m == 0 || 2 * m == n2) ? 1.0 / n2 : 2.0 / n2;
      for (int p = 0; p < plane; ++p) {
        double c = 0.0, s = 0.0;
        const double *line = x.data() + static_cast<Eigen::Index>(p) * n2;
        for (int k = 0; k < n2; ++k) {
          c += line[k] * f->cosTable[static_cast<size_t>(k * modes + m)];
          s += line[k] * f->sinTable[static_cast<size_t>(k * modes + m)];
        }
        rc(p) = w * c;
        rs(p) = w * s;
      }
      xc[static_cast<size_t>(m)] = f->solvers[static_cast<size_t>(m)]->solve(rc);
      xs[static_cast<size_t>(m)] = (m == 0 || 2 * m == n2) ? Vector::Zero(plane) : Vector(f->solvers[static_cast<size_t>(m)]->solve(rs));
    }
    for (int p = 0; p < plane; ++p)
      for (int k = 0; k < n2; ++k) {
        double v = 0.0;
        for (int m = 0; m < modes; ++m)
          v += xc[static_cast<size_t>(m)](p) * f->cosTable[static_cast<size_t>(k * modes + m)] +
               xs[static_cast<size_t>(m)](p) * f->sinTable[static_cast<size_t>(k * modes + m)];
        y(static_cast<Eigen::Index>(p) * n2 + k) = v;
      }
  };
}

} // namespace tensorium_mlir::elliptic
