#include "tensorium_mlir/Physics/TwoPunctures.h"

#include <cmath>

namespace tensorium_mlir::physics {

double TwoPunctureSolution::vAtInfinity() const {
  return grid_->interpolate(std::span<const double>(v_.data(), static_cast<size_t>(v_.size())), {1.0, 0.0, 0.0});
}

double TwoPunctureSolution::admMass() const { return params_.m1 + params_.m2 - 2.0 * params_.b * vAtInfinity(); }

double TwoPunctureSolution::U(const std::array<double, 3> &x) const {
  std::array<double, 3> q = geometry_.toCompact(x);
  return (q[0] - 1.0) * grid_->interpolate(std::span<const double>(v_.data(), static_cast<size_t>(v_.size())), q);
}

double TwoPunctureSolution::psi(const std::array<double, 3> &x) const {
  auto r = [&](double cx) { return std::sqrt((x[0] - cx) * (x[0] - cx) + x[1] * x[1] + x[2] * x[2]); };
  return 1.0 + params_.m1 / (2 * r(params_.b)) + params_.m2 / (2 * r(-params_.b)) + U(x);
}

TwoPunctureSolution solveTwoPunctures(const tensorium_spectral_residual_kernel_desc *kernel,
                                      const TwoPunctureParameters &p, const TwoPunctureOptions &options) {
  TwoPunctureSolution solution(p);
  solution.grid_ = std::make_shared<spectral::SpectralGrid3D>(spectral::SpectralAxis::chebyshevGauss(options.nA, 0.0, 1.0),
                                                              spectral::SpectralAxis::chebyshevGauss(options.nB, -1.0, 1.0),
                                                              spectral::SpectralAxis::fourier(options.nPhi));
  const TwoPunctureGeometry geometry = solution.geometry_;
  solution.grid_->setCoordinateMap([geometry](const std::array<double, 3> &q) { return geometry.toCartesian(q); });
  solution.grid_->setDerivativeMap(
      [geometry](const std::array<double, 3> &q, std::array<double, 10> &b) { geometry.toCartesianBundle(q, b); });
  elliptic::SpectralResidualProblem problem;
  problem.grid = solution.grid_.get();
  problem.kernel = kernel;
  problem.unknownMap = elliptic::makeLinearBoundaryFactorUnknownMap(0, 1.0, 1.0); // U = (A - 1) v
  solution.v_ = elliptic::Vector::Zero(static_cast<Eigen::Index>(solution.grid_->size()));
  try {
    problem.setParameter("m1", p.m1);
    problem.setParameter("m2", p.m2);
    problem.setParameter("x1", p.b);
    problem.setParameter("x2", -p.b);
    for (const char *c : {"y1", "z1", "y2", "z2"})
      problem.setParameter(c, 0.0);
    const char *axes = "xyz";
    for (int i = 0; i < 3; ++i) {
      std::string a(1, axes[i]);
      problem.setParameter("P1" + a, p.P1[static_cast<size_t>(i)]);
      problem.setParameter("P2" + a, p.P2[static_cast<size_t>(i)]);
      problem.setParameter("S1" + a, p.S1[static_cast<size_t>(i)]);
      problem.setParameter("S2" + a, p.S2[static_cast<size_t>(i)]);
    }
  } catch (const std::invalid_argument &e) {
    solution.result_.status = elliptic::NewtonStatus::InvalidProblem;
    solution.result_.message = e.what();
    return solution;
  }
  solution.result_ = elliptic::solveSpectralNewton(problem, solution.v_, options.newton);
  return solution;
}

} // namespace tensorium_mlir::physics
