#pragma once
// Right preconditioners for the matrix-free Newton-Krylov solves of spectral residuals.
#include "tensorium_mlir/Elliptic/NewtonKrylov.h"
#include "tensorium_mlir/Spectral/Spectral.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace tensorium_mlir::elliptic {

enum class SpectralPreconditionerKind {
  None, DiagonalJVP, DenseLaplacianShift, ModalLaplacianShift, MappedFiniteDifferenceLaplacianShift,
  MappedFiniteDifferenceMultigrid, FourierModeFiniteDifference
};
const char *preconditionerName(SpectralPreconditionerKind kind);
/// Parses none, diagonal-jvp, dense-laplacian-shift, modal-laplacian-shift,
/// mapped-fd-laplacian-shift, mapped-fd-multigrid, fourier-mode-fd; throws std::invalid_argument otherwise.
SpectralPreconditionerKind parsePreconditioner(const std::string &name);

/// Jacobi: the Jacobian's diagonal from unit-vector JVPs (n JVPs, so a small-problem tool).
LinearOperator makeDiagonalJvpPreconditioner(const std::function<void(const Vector &, Vector &)> &jvp, Eigen::Index n);

/// Dense collocation inverse of (laplacian + shift) on the grid, rows of boundary points
/// replaced by the identity, applied block by block to `blocks` stacked unknowns. Factorised
/// once (O(N^3)); the small-grid oracle the scalable preconditioners are judged against.
LinearOperator makeDenseLaplacianShiftPreconditioner(const spectral::SpectralGrid3D &grid, double shift,
                                                     const std::vector<char> &boundaryMask, int blocks = 1);

/// The same operator in Fourier coefficient space along axis 2: the grid's third axis must be
/// Fourier and the boundary mask may depend on axes 0 and 1 only. Each Fourier mode k is an
/// independent (n0 n1) block laplacian_01 - k^2 + shift, factorised once: O(n2 (n0 n1)^3) set-up
/// and O(n2 (n0 n1)^2) memory instead of O((n0 n1 n2)^3) and O((n0 n1 n2)^2).
LinearOperator makeModalLaplacianShiftPreconditioner(const spectral::SpectralGrid3D &grid, double shift,
                                                     const std::vector<char> &boundaryMask, int blocks = 1);

/// Second-order finite-difference (laplacian + shift) on the collocation points, in physical
/// space through the grid's derivative map: at most seven coefficients per row (the mixed
/// metric terms are dropped), identity rows on the boundary mask. O(N) memory.
class MappedFiniteDifferenceOperator {
public:
  /// `reaction` (optional, one entry per point) adds a local shift dF/du on top of `shift`.
  MappedFiniteDifferenceOperator(const spectral::SpectralGrid3D &grid, double shift, const std::vector<char> &boundaryMask,
                                 const std::vector<double> &reaction = {});
  size_t size() const { return diagonal_.size(); }
  /// y = A x.
  void apply(const Vector &x, Vector &y) const;
  /// `sweeps` symmetric Gauss-Seidel sweeps on A x = b starting from x = 0 (a fixed linear map).
  void relax(const Vector &b, Vector &x, int sweeps) const;
  /// The same sweeps continuing from the given x.
  void smooth(const Vector &b, Vector &x, int sweeps) const;
  /// Alternating line Gauss-Seidel: every grid line along each non-periodic axis solved exactly
  /// (tridiagonal), forward then backward, continuing from x. Robust where Chebyshev points
  /// cluster and point smoothers stall.
  void lineSmooth(const spectral::SpectralGrid3D &grid, const Vector &b, Vector &x, int sweeps) const;

private:
  // Row p: diagonal_[p] x_p + sum_{s < 6} offDiagonal_[6 p + s] x_{neighbour_[6 p + s]} (-1: none).
  std::vector<double> diagonal_, offDiagonal_;
  std::vector<int64_t> neighbour_;
};

/// M^-1 = `sweeps` symmetric Gauss-Seidel sweeps of the mapped finite-difference operator.
LinearOperator makeMappedFiniteDifferencePreconditioner(const spectral::SpectralGrid3D &grid, double shift,
                                                        const std::vector<char> &boundaryMask, int blocks = 1,
                                                        int sweeps = 4);

struct MultigridOptions {
  int preSmoothing = 2;
  int postSmoothing = 2;
  size_t coarsestMaxUnknowns = 600; // dense LU at or below this size, cached
};

/// One V-cycle of geometric multigrid over the mapped finite-difference operator: Chebyshev
/// Gauss-Lobatto axes with odd n and Fourier axes with even n are halved (the coarse points are
/// a subset of the fine ones, so boundary rows carry over); operators are rediscretised on
/// every level through the grid's derivative map; prolongation is tensor-product
/// Chebyshev/Fourier interpolation and restriction its transpose, row-normalised; alternating
/// line Gauss-Seidel smoothing; dense LU on the coarsest level, factorised once. O(N) memory.
/// `reaction` (optional, one entry per fine point) is the local reaction term dF/du, for
/// example J applied to a constant; it is injected onto the coarse levels. A hierarchy of two
/// levels uses the Galerkin coarse operator R A P; deeper ones rediscretise.
LinearOperator makeMappedFiniteDifferenceMultigridPreconditioner(const spectral::SpectralGrid3D &grid, double shift,
                                                                 const std::vector<char> &boundaryMask, int blocks = 1,
                                                                 const MultigridOptions &options = {},
                                                                 const std::vector<double> &reaction = {});
/// For grids Chebyshev x Chebyshev x Fourier (any Chebyshev kind, Gauss included): the
/// linearised operator given by its logical coefficients per point (linearisedLogicalCoefficients:
/// value, d0, d1, d2, d00, d01, d02, d11, d12, d22), averaged along the Fourier axis,
/// discretised by three-point differences on the Chebyshev points of axes 0 and 1 (one-sided
/// at the ends) and exact in each Fourier mode m (d22 -> -m^2). One sparse LU of an (n0 n1)
/// plane operator per distinct m; memory close to linear in the unknowns; applying it costs two
/// real DFTs along axis 2 and the plane solves. Terms that couple modes (d2, d02, d12, phi
/// dependence of the coefficients) are left to the Krylov iteration: exact for axisymmetric
/// operators in the Fourier directions. Throws std::invalid_argument for another grid shape or
/// a singular plane operator.
LinearOperator makeFourierModeFiniteDifferencePreconditioner(const spectral::SpectralGrid3D &grid,
                                                             const std::vector<std::array<double, 10>> &coefficients);

/// Number of levels the hierarchy above would use (for reports and tests).
int multigridLevelCount(const spectral::SpectralGrid3D &grid, const MultigridOptions &options = {});

} // namespace tensorium_mlir::elliptic
