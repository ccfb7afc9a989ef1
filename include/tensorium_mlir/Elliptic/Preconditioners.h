#pragma once
// Right preconditioners for the matrix-free Newton-Krylov solves of spectral residuals.
#include "tensorium_mlir/Elliptic/NewtonKrylov.h"
#include "tensorium_mlir/Spectral/Spectral.h"

#include <memory>
#include <string>
#include <vector>

namespace tensorium_mlir::elliptic {

enum class SpectralPreconditionerKind { None, DiagonalJVP, DenseLaplacianShift, ModalLaplacianShift };
const char *preconditionerName(SpectralPreconditionerKind kind);
/// Parses none, diagonal-jvp, dense-laplacian-shift, modal-laplacian-shift; throws
/// std::invalid_argument otherwise.
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

} // namespace tensorium_mlir::elliptic
