#pragma once
// The data an apparent-horizon finder reads: the spatial metric gamma_ij, its first Cartesian
// derivatives and the extrinsic curvature K_ij at arbitrary points of a slice. Samplers evaluate
// whole batches (one surface at a time), so a source with a per-call cost (a generated kernel, a
// spectral interpolant) pays it once per surface. No MLIR.
#include <array>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

namespace tensorium_mlir::horizons {

using Point3 = std::array<double, 3>;
/// Symmetric components in the order xx, xy, xz, yy, yz, zz.
using Sym3 = std::array<double, 6>;

/// Index of (i, j) in a Sym3.
constexpr int symIndex(int i, int j) {
  constexpr int table[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
  return table[i][j];
}

struct SpatialGeometry {
  Sym3 gamma{};
  std::array<Sym3, 3> dgamma{}; ///< dgamma[k] = d_k gamma_ij
  Sym3 K{};
};

/// A point where the data are not defined (outside a grid, at a puncture).
struct GeometryDomainError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Fills out[p] with the geometry at points[p]; throws GeometryDomainError where it cannot.
using GeometrySampler = std::function<void(std::span<const Point3> points, std::span<SpatialGeometry> out)>;

/// gamma_ij and K_ij only (a generated slice kernel, an interpolant without derivatives).
using MetricSampler = std::function<void(std::span<const Point3> points, std::span<Sym3> gamma, std::span<Sym3> K)>;

/// d_k gamma_ij by centred differences of order 6 with step `step` around each point (the
/// sampler is called once for all 19 points of every stencil).
GeometrySampler differentiatedGeometry(MetricSampler metric, double step);

struct Puncture {
  double mass = 0;
  Point3 position{};
};

/// Time-symmetric Brill-Lindquist data: gamma_ij = psi^4 delta_ij with psi = 1 + sum_n m_n /
/// (2 |x - c_n|), K_ij = 0, in closed form. Throws std::invalid_argument for no punctures or a
/// mass that is not positive and finite.
GeometrySampler brillLindquistGeometry(std::vector<Puncture> punctures);

/// Conformally flat data gamma_ij = psi^4 delta_ij from psi, its gradient and K_ij at a point.
using ConformalFactor = std::function<void(const Point3 &x, double &psi, Point3 &gradPsi, Sym3 &K)>;
GeometrySampler conformallyFlatGeometry(ConformalFactor factor);

/// gamma_ij and K_ij on a uniform Cartesian grid, point (i, j, k) at origin + (i, j, k) * spacing
/// and stored at index i + n[0] * (j + n[1] * k) of every component.
struct UniformGridData {
  std::array<int, 3> n{};
  Point3 origin{}, spacing{};
  std::array<std::vector<double>, 6> gamma, K;
  /// Throws std::invalid_argument when sizes, spacings or components do not match.
  void validate() const;
};

/// Weights w[i] of the Lagrange polynomials through `points` nodes at 1 - points / 2 + i
/// (i = 0 .. points - 1) at the position t (0 <= t < 1 between the nodes points/2 - 1 and points/2),
/// and their derivatives dw[i] with respect to t: interpolation with derivatives on a uniform grid.
void lagrangeWeights(int points, double t, double *w, double *dw);

/// gamma_ij and K_ij of `metric` at the points of an n^3 grid over [lo, hi]^3 (for finding
/// horizons in grid data of a known slice: the resolution study of a finder on interpolated data).
std::shared_ptr<UniformGridData> sampleOnGrid(const MetricSampler &metric, int n, double lo, double hi);

/// Tensor-product Lagrange interpolation of `points` (4 or 6) nodes per direction; d_k gamma_ij
/// is the derivative of the interpolant (one order lower). A point whose stencil leaves the grid
/// throws GeometryDomainError.
GeometrySampler interpolatedGeometry(std::shared_ptr<const UniformGridData> data, int points = 6);

} // namespace tensorium_mlir::horizons
