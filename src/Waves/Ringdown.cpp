#include "tensorium_mlir/Waves/Ringdown.h"

#include <unsupported/Eigen/NonLinearOptimization>

#include <cmath>
#include <stdexcept>

namespace tensorium_mlir::waves {
namespace {

// x = (A, omega, gamma, phi); residuals model - data.
struct Residuals {
  using Scalar = double;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  const std::vector<double> &t, &y;
  double t0;
  int inputs() const { return 4; }
  int values() const { return static_cast<int>(t.size()); }
  int operator()(const Eigen::VectorXd &x, Eigen::VectorXd &f) const {
    for (size_t k = 0; k < t.size(); ++k) {
      const double s = t[k] - t0;
      f(static_cast<Eigen::Index>(k)) = x(0) * std::exp(-x(2) * s) * std::cos(x(1) * s + x(3)) - y[k];
    }
    return 0;
  }
  int df(const Eigen::VectorXd &x, Eigen::MatrixXd &J) const {
    for (size_t k = 0; k < t.size(); ++k) {
      const double s = t[k] - t0, e = std::exp(-x(2) * s), c = std::cos(x(1) * s + x(3)), sn = std::sin(x(1) * s + x(3));
      const Eigen::Index r = static_cast<Eigen::Index>(k);
      J(r, 0) = e * c;
      J(r, 1) = -x(0) * e * sn * s;
      J(r, 2) = -x(0) * s * e * c;
      J(r, 3) = -x(0) * e * sn;
    }
    return 0;
  }
};

} // namespace

DampedSinusoid fitDampedSinusoid(const std::vector<double> &t, const std::vector<double> &y, double omegaGuess,
                                 double gammaGuess) {
  if (t.size() != y.size() || t.size() < 8)
    throw std::invalid_argument("ringdown fit: need at least 8 samples of t and y, of equal length");
  for (size_t k = 1; k < t.size(); ++k)
    if (!(t[k] > t[k - 1]))
      throw std::invalid_argument("ringdown fit: times must increase");
  if (!(omegaGuess > 0) || !(gammaGuess > 0))
    throw std::invalid_argument("ringdown fit: the frequency and damping guesses must be positive");
  Residuals r{t, y, t.front()};
  // Amplitude and phase from the first samples: y0 = A cos(phi), y0' ~ -A (gamma cos + omega sin).
  const double y0 = y[0], dy = (y[1] - y[0]) / (t[1] - t[0]);
  const double sinPart = -(dy + gammaGuess * y0) / omegaGuess;
  Eigen::VectorXd x(4);
  x << std::hypot(y0, sinPart), omegaGuess, gammaGuess, std::atan2(sinPart, y0);
  Eigen::LevenbergMarquardt<Residuals> lm(r);
  lm.parameters.xtol = 1e-14;
  lm.parameters.ftol = 1e-14;
  lm.parameters.maxfev = 2000;
  const int status = lm.minimize(x);
  DampedSinusoid out;
  out.evaluations = static_cast<int>(lm.nfev);
  Eigen::VectorXd f(static_cast<Eigen::Index>(t.size()));
  r(x, f);
  double data = 0;
  for (double v : y)
    data += v * v;
  out.rmsResidual = data > 0 ? std::sqrt(f.squaredNorm() / data) : 0.0;
  // A negative amplitude is the same curve with the phase turned by pi.
  if (x(0) < 0)
    x(0) = -x(0), x(3) += M_PI;
  out.amplitude = x(0), out.omega = x(1), out.gamma = x(2), out.phase = std::remainder(x(3), 2 * M_PI);
  out.converged = status == Eigen::LevenbergMarquardtSpace::RelativeReductionTooSmall ||
                  status == Eigen::LevenbergMarquardtSpace::RelativeErrorTooSmall ||
                  status == Eigen::LevenbergMarquardtSpace::RelativeErrorAndReductionTooSmall ||
                  status == Eigen::LevenbergMarquardtSpace::CosinusTooSmall ||
                  status == Eigen::LevenbergMarquardtSpace::FtolTooSmall || status == Eigen::LevenbergMarquardtSpace::XtolTooSmall;
  if (!out.converged)
    out.message = "Levenberg-Marquardt stopped with status " + std::to_string(status);
  return out;
}

} // namespace tensorium_mlir::waves
