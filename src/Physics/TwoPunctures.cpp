#include "tensorium_mlir/Physics/TwoPunctures.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"

#include <cmath>
#include <stdexcept>

namespace tensorium_mlir::physics {

elliptic::SpectralNewtonOptions TwoPunctureOptions::defaultNewtonOptions() {
  elliptic::SpectralNewtonOptions o;
  o.linearSolve = elliptic::SpectralLinearSolveKind::Gmres;
  o.autoPreconditioner = false;
  o.preconditioner = elliptic::SpectralPreconditionerKind::FourierModeFiniteDifference;
  o.gmres.restart = 30;
  o.gmres.maxIterations = 300;
  o.gmresForcing = 1e-4;
  o.tolerance = 1e-12; // the weighted residual's round-off floor is near 1e-14
  return o;
}

namespace {

std::span<const double> view(const elliptic::Vector &v) { return {v.data(), static_cast<size_t>(v.size())}; }

void validate(const TwoPunctureParameters &p, const TwoPunctureOptions &o) {
  auto finite = [](const std::array<double, 3> &a) {
    return std::isfinite(a[0]) && std::isfinite(a[1]) && std::isfinite(a[2]);
  };
  if (!(p.m1 > 0) || !(p.m2 > 0) || !std::isfinite(p.m1) || !std::isfinite(p.m2))
    throw std::invalid_argument("bare masses must be positive and finite");
  if (!finite(p.P1) || !finite(p.P2) || !finite(p.S1) || !finite(p.S2))
    throw std::invalid_argument("momenta and spins must be finite");
  if (o.nA < 4 || o.nB < 4 || o.nPhi < 1)
    throw std::invalid_argument("two-puncture resolution needs nA, nB >= 4 and nPhi >= 1 (got " +
                                std::to_string(o.nA) + ", " + std::to_string(o.nB) + ", " + std::to_string(o.nPhi) + ")");
  runtime::requireMemory("a two-puncture solve at " + std::to_string(o.nA) + " x " + std::to_string(o.nB) + " x " +
                             std::to_string(o.nPhi),
                         twoPunctureMemoryEstimate(o));
}

elliptic::SpectralResidualProblem makeProblem(const spectral::SpectralGrid3D &grid,
                                              const tensorium_spectral_residual_kernel_desc *kernel,
                                              const TwoPunctureParameters &p, const TwoPunctureGeometry &geometry,
                                              bool scaled) {
  elliptic::SpectralResidualProblem problem;
  problem.grid = &grid;
  problem.kernel = kernel;
  problem.unknownMap = elliptic::makeLinearBoundaryFactorUnknownMap(0, 1.0, 1.0); // U = (A - 1) v
  problem.setParameter("m1", p.m1);
  problem.setParameter("m2", p.m2);
  problem.setParameter("x1", p.b);
  problem.setParameter("x2", -p.b);
  for (const char *c : {"y1", "z1", "y2", "z2"})
    problem.setParameter(c, 0.0);
  const char *axes = "xyz";
  for (size_t i = 0; i < 3; ++i) {
    std::string a(1, axes[i]);
    problem.setParameter("P1" + a, p.P1[i]);
    problem.setParameter("P2" + a, p.P2[i]);
    problem.setParameter("S1" + a, p.S1[i]);
    problem.setParameter("S2" + a, p.S2[i]);
  }
  if (scaled) {
    problem.rowScale.resize(grid.size());
    for (size_t q = 0; q < grid.size(); ++q)
      problem.rowScale[q] = geometry.residualScale(grid.logicalPoint(q));
  }
  return problem;
}

} // namespace

double twoPunctureMemoryEstimate(const TwoPunctureOptions &o) {
  // Measured peak (docs/memory.md): about 2.0 kB per collocation unknown (Newton-Krylov vectors,
  // the tabulated derivative map, the Fourier-mode preconditioner) over a 12 MB process.
  const double unknowns = static_cast<double>(o.nA) * static_cast<double>(o.nB) * static_cast<double>(o.nPhi);
  return 12e6 + 2000.0 * unknowns;
}

double TwoPunctureSolution::vAtInfinity() const { return grid_->interpolate(view(v_), {1.0, 0.0, 0.0}); }

double TwoPunctureSolution::admMass() const { return params_.m1 + params_.m2 - 2.0 * params_.b * vAtInfinity(); }

std::array<double, 2> TwoPunctureSolution::punctureAdmMasses() const {
  const double D = 2.0 * params_.b;
  return {params_.m1 * (1.0 + U({params_.b, 0.0, 0.0}) + params_.m2 / (2.0 * D)),
          params_.m2 * (1.0 + U({-params_.b, 0.0, 0.0}) + params_.m1 / (2.0 * D))};
}

double TwoPunctureSolution::U(const std::array<double, 3> &x) const {
  std::array<double, 3> q = geometry_.toCompact(x);
  return (q[0] - 1.0) * grid_->interpolate(view(v_), q);
}

double TwoPunctureSolution::psi(const std::array<double, 3> &x) const {
  auto r = [&](double cx) { return std::sqrt((x[0] - cx) * (x[0] - cx) + x[1] * x[1] + x[2] * x[2]); };
  return 1.0 + params_.m1 / (2 * r(params_.b)) + params_.m2 / (2 * r(-params_.b)) + U(x);
}

std::array<double, 2> TwoPunctureSolution::rawResidualNorms() const {
  elliptic::SpectralResidualProblem problem = makeProblem(*grid_, kernel_, params_, geometry_, false);
  elliptic::ResidualAssembly a = elliptic::assembleSpectralResidual(problem, v_);
  return {a.l2, a.max};
}

TwoPunctureSolution prepareSolution(const tensorium_spectral_residual_kernel_desc *kernel, const TwoPunctureParameters &p,
                                    const TwoPunctureOptions &options) {
  validate(p, options);
  TwoPunctureSolution solution(p);
  solution.kernel_ = kernel;
  solution.grid_ = std::make_shared<spectral::SpectralGrid3D>(spectral::SpectralAxis::chebyshevGauss(options.nA, 0.0, 1.0),
                                                              spectral::SpectralAxis::chebyshevGauss(options.nB, -1.0, 1.0),
                                                              spectral::SpectralAxis::fourier(options.nPhi));
  const TwoPunctureGeometry geometry = solution.geometry_;
  solution.grid_->setCoordinateMap([geometry](const std::array<double, 3> &q) { return geometry.toCartesian(q); });
  solution.grid_->setDerivativeMap(
      [geometry](const std::array<double, 3> &q, std::array<double, 10> &b) { geometry.toCartesianBundle(q, b); });
  solution.grid_->tabulateDerivativeMap();
  solution.v_ = elliptic::Vector::Zero(static_cast<Eigen::Index>(solution.grid_->size()));
  return solution;
}

TwoPunctureSolution restoreTwoPunctures(const tensorium_spectral_residual_kernel_desc *kernel,
                                        const TwoPunctureParameters &params, const TwoPunctureOptions &options,
                                        const elliptic::Vector &v, const elliptic::SpectralNewtonResult &result) {
  TwoPunctureSolution solution = prepareSolution(kernel, params, options);
  if (v.size() != solution.v_.size())
    throw std::invalid_argument("two-puncture solution has " + std::to_string(v.size()) + " values, the grid " +
                                std::to_string(solution.v_.size()));
  solution.v_ = v;
  solution.result_ = result;
  return solution;
}

TwoPunctureSolution solveTwoPunctures(const tensorium_spectral_residual_kernel_desc *kernel,
                                      const TwoPunctureParameters &p, const TwoPunctureOptions &options,
                                      const elliptic::Vector *initialV) {
  TwoPunctureSolution solution = prepareSolution(kernel, p, options);
  const TwoPunctureGeometry geometry = solution.geometry_;
  if (initialV && initialV->size() == solution.v_.size())
    solution.v_ = *initialV;
  try {
    elliptic::SpectralResidualProblem problem = makeProblem(*solution.grid_, kernel, p, geometry, options.scaleResidual);
    solution.result_ = elliptic::solveSpectralNewton(problem, solution.v_, options.newton);
  } catch (const std::invalid_argument &e) {
    solution.result_.status = elliptic::NewtonStatus::InvalidProblem;
    solution.result_.message = e.what();
  }
  return solution;
}

BareMassSearch findBareMasses(const tensorium_spectral_residual_kernel_desc *kernel, const TwoPunctureParameters &params,
                              const std::array<double, 2> &targets, const TwoPunctureOptions &options, double tolerance,
                              int maxIterations) {
  if (!(targets[0] > 0) || !(targets[1] > 0) || !std::isfinite(targets[0]) || !std::isfinite(targets[1]))
    throw std::invalid_argument("target puncture masses must be positive and finite");
  if (!(tolerance > 0) || !(tolerance < 1))
    throw std::invalid_argument("the bare-mass tolerance is relative to the target masses and must lie in (0, 1)");
  BareMassSearch search;
  search.parameters = params;
  TwoPunctureParameters &p = search.parameters;
  elliptic::Vector v;
  // Broyden's method on G(m) = M(m) - targets, starting from the Jacobian diag(M_n / m_n)
  // (M_n is nearly proportional to m_n), one solve per iteration.
  Eigen::Matrix2d J = Eigen::Matrix2d::Zero();
  Eigen::Vector2d m(p.m1, p.m2), G = Eigen::Vector2d::Zero(), previousG = G, previousM = m;
  for (int it = 0; it <= maxIterations; ++it) {
    p.m1 = m(0);
    p.m2 = m(1);
    TwoPunctureSolution s = solveTwoPunctures(kernel, p, options, v.size() ? &v : nullptr);
    if (!s.result().converged()) {
      search.message = "solve at bare masses (" + std::to_string(m(0)) + ", " + std::to_string(m(1)) +
                       ") failed: " + s.result().message;
      return search;
    }
    v = s.v();
    search.iterations = it;
    search.punctureMasses = s.punctureAdmMasses();
    G << search.punctureMasses[0] - targets[0], search.punctureMasses[1] - targets[1];
    // Relative to each target: an absolute tolerance would call any mass below it converged.
    if (std::abs(G(0)) <= tolerance * targets[0] && std::abs(G(1)) <= tolerance * targets[1]) {
      search.converged = true;
      return search;
    }
    if (it == 0) {
      J(0, 0) = search.punctureMasses[0] / m(0);
      J(1, 1) = search.punctureMasses[1] / m(1);
    } else {
      Eigen::Vector2d dm = m - previousM, dG = G - previousG;
      if (dm.squaredNorm() > 0)
        J += (dG - J * dm) * dm.transpose() / dm.squaredNorm();
    }
    previousM = m;
    previousG = G;
    Eigen::Vector2d step = J.fullPivLu().solve(-G);
    if (!step.allFinite()) {
      search.message = "bare-mass iteration broke down (singular Jacobian estimate)";
      return search;
    }
    m += step;
    for (int i = 0; i < 2; ++i)
      if (m(i) <= 0)
        m(i) = 0.5 * previousM(i); // keep the bare masses positive
  }
  search.message = "bare masses did not reach the targets in " + std::to_string(maxIterations) + " iterations";
  return search;
}

} // namespace tensorium_mlir::physics
