// Spectral collocation building blocks (Chebyshev and Fourier axes, 3-D tensor-product grids).
//
// This library is self-contained: it depends on the C++ standard library and Eigen only, and never
// includes MLIR or LLVM headers.
//
// Conventions
// -----------
// * Chebyshev axes map the logical coordinate t in [-1, 1] affinely to the physical interval [a, b]:
//     x = mid + half * t,  mid = (a + b) / 2,  half = (b - a) / 2.
//   Nodes are stored in ASCENDING order (x_0 is closest to a, x_{n-1} closest to b):
//     Gauss-Lobatto: t_j = -cos(pi j / (n - 1)),        j = 0..n-1   (x_0 = a, x_{n-1} = b exactly)
//     Gauss (roots): t_j = -cos(pi (2j + 1) / (2n)),    j = 0..n-1   (interior points only)
//   Modal coefficients c_k satisfy u(x) = sum_{k=0}^{n-1} c_k T_k(t(x)).
// * Fourier axes sample one period P starting at `origin`: x_j = origin + P j / n, j = 0..n-1, with
//   the angle theta = 2 pi (x - origin) / P. The real modal layout is
//     [a_0, a_1, b_1, a_2, b_2, ..., a_K, b_K]                 (odd n,  K = (n - 1) / 2)
//     [a_0, a_1, b_1, ..., a_K, b_K, a_{n/2}]                  (even n, K = n / 2 - 1)
//   with u(x) = a_0 + sum_k (a_k cos(k theta) + b_k sin(k theta)) [+ a_{n/2} cos(n theta / 2)].
//   For even n the Nyquist mode is represented by its cosine only (its sine vanishes at the nodes);
//   its first derivative is therefore zero at the nodes, while the second derivative keeps
//   -(n/2)^2 a_{n/2} (the symmetric trigonometric interpolant).
// * All derivative matrices are in PHYSICAL units of the axis (d/dx, not d/dt).
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include <Eigen/Dense>

namespace tensorium_mlir::spectral {

enum class AxisKind { ChebyshevGaussLobatto, ChebyshevGauss, Fourier };

/// One-dimensional spectral collocation axis. Immutable after construction; all operators are
/// precomputed as dense n x n matrices.
class SpectralAxis {
public:
  /// Chebyshev-Gauss-Lobatto nodes on [a, b], ascending (includes both endpoints).
  /// Throws std::invalid_argument if n < 2, if a or b is not finite, or if b <= a.
  static SpectralAxis chebyshevGaussLobatto(int n, double a = -1.0, double b = 1.0);
  /// Chebyshev-Gauss (roots of T_n) nodes on [a, b], ascending (interior points only).
  /// Throws std::invalid_argument if n < 2, if a or b is not finite, or if b <= a.
  static SpectralAxis chebyshevGauss(int n, double a = -1.0, double b = 1.0);
  /// Equispaced periodic nodes x_j = origin + period * j / n.
  /// Throws std::invalid_argument if n < 1, or if period <= 0 or period/origin not finite.
  static SpectralAxis fourier(int n, double period = 6.283185307179586476925286766559,
                              double origin = 0.0);

  AxisKind kind() const { return kind_; }
  int size() const { return n_; }
  /// Chebyshev: a and b. Fourier: origin and origin + period.
  double lower() const { return lower_; }
  double upper() const { return upper_; }
  /// Fourier period (upper - lower).
  double period() const { return upper_ - lower_; }
  bool isPeriodic() const { return kind_ == AxisKind::Fourier; }

  /// Physical collocation points (ascending).
  const std::vector<double> &points() const { return points_; }
  /// Collocation differentiation matrices: (D u)_i approximates u'(x_i) (physical scaling included).
  const Eigen::MatrixXd &firstDerivative() const { return d1_; }
  const Eigen::MatrixXd &secondDerivative() const { return d2_; }
  /// Dense nodal -> modal (analysis) and modal -> nodal (synthesis) matrices; mutually inverse.
  const Eigen::MatrixXd &analysisMatrix() const { return analysis_; }
  const Eigen::MatrixXd &synthesisMatrix() const { return synthesis_; }

  /// Nodal values -> modal coefficients (layout documented above). Throws on size mismatch.
  std::vector<double> toModal(std::span<const double> values) const;
  /// Modal coefficients -> nodal values; exact inverse of toModal (up to round-off).
  std::vector<double> fromModal(std::span<const double> coefficients) const;

  /// Evaluates the interpolant at physical x. Chebyshev: barycentric formula (2nd kind); x outside
  /// [a, b] extrapolates the polynomial. Fourier: trigonometric interpolant (periodic in x).
  /// Returns the nodal value exactly when x coincides with a node. Throws on size mismatch or
  /// non-finite x.
  double interpolate(std::span<const double> values, double x) const;
  /// Weights w_j such that interpolate(u, x) == sum_j w_j u_j. At a node this is a unit vector.
  std::vector<double> interpolationRow(double x) const;

private:
  SpectralAxis() = default;
  void checkValues(std::span<const double> values, const char *what) const;
  static SpectralAxis chebyshev(AxisKind kind, int n, double a, double b, const char *who);
  void buildChebyshev(bool lobatto);
  void buildFourier();

  AxisKind kind_ = AxisKind::ChebyshevGaussLobatto;
  int n_ = 0;
  double lower_ = -1.0;
  double upper_ = 1.0;
  std::vector<double> points_;
  std::vector<double> logical_;     // Chebyshev: t_j in [-1, 1]; Fourier: theta_j in [0, 2 pi)
  std::vector<double> baryWeights_; // Chebyshev barycentric weights (unused for Fourier)
  Eigen::MatrixXd d1_;
  Eigen::MatrixXd d2_;
  Eigen::MatrixXd analysis_;
  Eigen::MatrixXd synthesis_;
};

/// Value and logical first/second derivatives of a grid function, one vector of size() per slot.
/// Slot order is fixed (ABI): value, d1, d2, d3, d11, d12, d13, d22, d23, d33.
struct DerivativeBundle {
  enum Slot : int { Value = 0, D1, D2, D3, D11, D12, D13, D22, D23, D33, NumSlots };
  std::array<std::vector<double>, 10> slot;
};

/// Slot index of d^2/(dx_a dx_b) in DerivativeBundle (a, b in 0..2, symmetric).
int secondDerivativeSlot(int a, int b);

/// Tensor product of three spectral axes. Flat storage is row-major with axis 0 slowest:
/// flat = (i * n1 + j) * n2 + k.
class SpectralGrid3D {
public:
  using CoordinateMap = std::function<std::array<double, 3>(const std::array<double, 3> &)>;
  /// Transforms the 10-slot bundle at one point from logical to physical derivatives in place.
  using DerivativeMap =
      std::function<void(const std::array<double, 3> &logical, std::array<double, 10> &bundle)>;

  SpectralGrid3D(SpectralAxis a0, SpectralAxis a1, SpectralAxis a2);

  /// Throws std::out_of_range for a outside 0..2.
  const SpectralAxis &axis(int a) const;
  std::size_t size() const { return size_; }
  std::array<int, 3> extents() const { return {n_[0], n_[1], n_[2]}; }
  std::size_t index(int i, int j, int k) const {
    return (static_cast<std::size_t>(i) * static_cast<std::size_t>(n_[1]) +
            static_cast<std::size_t>(j)) *
               static_cast<std::size_t>(n_[2]) +
           static_cast<std::size_t>(k);
  }
  /// Collocation point (x0, x1, x2) of the axes (the axes' own physical coordinates).
  std::array<double, 3> logicalPoint(std::size_t flat) const;

  /// Value plus all first and second derivatives w.r.t. the axis coordinates. Pure second
  /// derivatives use the axes' second-derivative matrices; mixed ones are successive
  /// first-derivative applications. Cost O(N * (n0 + n1 + n2)).
  DerivativeBundle bundle(std::span<const double> values) const;
  /// out = derivative of `in` of order 1 or 2 along `axis`. `in` and `out` may alias.
  void applyDerivative(int axis, int order, std::span<const double> in,
                       std::span<double> out) const;
  /// Tensor-product interpolation at a point given in the axes' coordinates.
  double interpolate(std::span<const double> values, std::array<double, 3> logical) const;

  void setCoordinateMap(CoordinateMap map) { coordinateMap_ = std::move(map); }
  /// Replaces the map and drops any table of it.
  void setDerivativeMap(DerivativeMap map) {
    derivativeMap_ = std::move(map);
    derivativeTable_.clear();
  }
  /// Evaluates the (linear) derivative map once per collocation point into a 10x10 matrix, so
  /// later applications are one small product instead of a map evaluation (100 doubles per point).
  /// Throws std::domain_error naming the point where the map's chain rule is not finite.
  void tabulateDerivativeMap();
  bool derivativeMapTabulated() const { return !derivativeTable_.empty(); }
  bool hasCoordinateMap() const { return static_cast<bool>(coordinateMap_); }
  bool hasDerivativeMap() const { return static_cast<bool>(derivativeMap_); }
  const CoordinateMap &coordinateMap() const { return coordinateMap_; }
  const DerivativeMap &derivativeMap() const { return derivativeMap_; }

  /// Coordinate map applied to logicalPoint(flat); identity when no map is set.
  std::array<double, 3> physicalPoint(std::size_t flat) const;
  /// bundle() followed by the derivative map at every point (identity when no map is set).
  DerivativeBundle physicalBundle(std::span<const double> values) const;
  /// The derivative map at one collocation point, in place (identity when no map is set).
  void applyDerivativeMap(std::size_t flat, std::array<double, 10> &bundle) const;

private:
  void checkValues(std::size_t got, const char *what) const;

  std::array<SpectralAxis, 3> axes_;
  std::array<int, 3> n_{};
  std::size_t size_ = 0;
  CoordinateMap coordinateMap_;
  DerivativeMap derivativeMap_;
  std::vector<double> derivativeTable_; // [point][row][column], row = physical slot
};

} // namespace tensorium_mlir::spectral
