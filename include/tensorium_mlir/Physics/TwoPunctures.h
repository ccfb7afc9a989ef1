#pragma once
// Two-puncture initial data: the puncture equation laplacian(U) + Ahat_ij Ahat^ij psi^-7 / 8 = 0
// solved on the compact (A, B, phi) domain with U = (A - 1) v, through the generated residual.
#include "tensorium_mlir/Elliptic/SpectralNewton.h"
#include "tensorium_mlir/Physics/TwoPunctureGeometry.h"

#include <array>
#include <memory>
#include <string>

namespace tensorium_mlir::physics {

struct TwoPunctureParameters {
  double b = 1.0;                      // punctures at x = +b (1) and x = -b (2)
  double m1 = 0.5, m2 = 0.5;           // bare masses
  std::array<double, 3> P1{}, P2{}, S1{}, S2{};
};

struct TwoPunctureOptions {
  int nA = 16, nB = 16, nPhi = 8; // Chebyshev-Gauss in A and B, Fourier in phi
  /// Weight the residual rows by TwoPunctureGeometry::residualScale (logical units); the
  /// tolerance then applies to the weighted residual. Off: raw Cartesian rows, whose round-off
  /// floor grows with resolution near the punctures and the axis.
  bool scaleResidual = true;
  /// Defaults: restarted GMRES with the Fourier-mode finite-difference preconditioner rebuilt
  /// at every Newton iterate (see defaultNewtonOptions()).
  elliptic::SpectralNewtonOptions newton = defaultNewtonOptions();
  static elliptic::SpectralNewtonOptions defaultNewtonOptions();
};

class TwoPunctureSolution {
public:
  const spectral::SpectralGrid3D &grid() const { return *grid_; }
  const TwoPunctureGeometry &geometry() const { return geometry_; }
  const TwoPunctureParameters &parameters() const { return params_; }
  const elliptic::Vector &v() const { return v_; }
  const elliptic::SpectralNewtonResult &result() const { return result_; }

  /// v at spatial infinity (A = 1, B = 0, phi = 0) by spectral interpolation.
  double vAtInfinity() const;
  /// ADM mass from the asymptotic value: U ~ -b v_inf / r, so M = m1 + m2 - 2 b v_inf.
  double admMass() const;
  /// Per-puncture ADM masses M_n = m_n (1 + U(c_n) + m_other / (2 D)), D = 2 b.
  std::array<double, 2> punctureAdmMasses() const;
  /// U and psi at a Cartesian point (analytic inverse map, spectral interpolation). psi is
  /// infinite at a puncture itself.
  double U(const std::array<double, 3> &x) const;
  double psi(const std::array<double, 3> &x) const;
  /// Unweighted puncture-equation residual at the collocation points (RMS, max), whatever the
  /// solve weighted.
  std::array<double, 2> rawResidualNorms() const;

private:
  friend TwoPunctureSolution solveTwoPunctures(const tensorium_spectral_residual_kernel_desc *,
                                               const TwoPunctureParameters &, const TwoPunctureOptions &,
                                               const elliptic::Vector *);
  friend TwoPunctureSolution prepareSolution(const tensorium_spectral_residual_kernel_desc *,
                                             const TwoPunctureParameters &, const TwoPunctureOptions &);
  friend TwoPunctureSolution restoreTwoPunctures(const tensorium_spectral_residual_kernel_desc *,
                                                 const TwoPunctureParameters &, const TwoPunctureOptions &,
                                                 const elliptic::Vector &, const elliptic::SpectralNewtonResult &);
  explicit TwoPunctureSolution(const TwoPunctureParameters &p) : geometry_(p.b), params_(p) {}
  const tensorium_spectral_residual_kernel_desc *kernel_ = nullptr;
  TwoPunctureGeometry geometry_;
  TwoPunctureParameters params_;
  std::shared_ptr<spectral::SpectralGrid3D> grid_;
  elliptic::Vector v_;
  elliptic::SpectralNewtonResult result_;
};

/// Solves with the generated Hamiltonian residual (fixtures/elliptic/two_puncture_hamiltonian_3d.tn:
/// params m1 m2 x1 y1 z1 x2 y2 z2 P1x..P2z S1x..S2z, unknown U). Failures are in result().
/// Throws std::invalid_argument for parameters that are not finite, non-positive masses or b,
/// and resolutions below 4 (A, B) or 1 (phi); solver failures are in result(). `initialV`
/// (optional, same resolution) starts Newton from an earlier solution.
TwoPunctureSolution solveTwoPunctures(const tensorium_spectral_residual_kernel_desc *kernel,
                                      const TwoPunctureParameters &params, const TwoPunctureOptions &options,
                                      const elliptic::Vector *initialV = nullptr);

/// Estimated peak memory of a solve at these resolutions, in bytes (a measured model,
/// docs/memory.md). solveTwoPunctures throws runtime::InsufficientMemory before allocating when
/// it exceeds the memory available.
double twoPunctureMemoryEstimate(const TwoPunctureOptions &options);

/// A solution computed elsewhere (e.g. on another MPI rank) from its collocation values v and
/// solver result, without solving again; throws std::invalid_argument when v does not match
/// the resolution in `options`.
TwoPunctureSolution restoreTwoPunctures(const tensorium_spectral_residual_kernel_desc *kernel,
                                        const TwoPunctureParameters &params, const TwoPunctureOptions &options,
                                        const elliptic::Vector &v, const elliptic::SpectralNewtonResult &result);

struct BareMassSearch {
  TwoPunctureParameters parameters; // with the bare masses found
  int iterations = 0;
  bool converged = false;
  std::array<double, 2> punctureMasses{};
  std::string message;
};

/// Bare masses m1, m2 whose per-puncture ADM masses equal `targets` to `tolerance` relative to
/// each target (|M_n - target_n| <= tolerance target_n; tolerance in (0, 1)): Newton on
/// the two masses with a finite-difference Jacobian, each evaluation a full solve started from
/// the previous one. `params` supplies b, momenta, spins and the starting bare masses.
BareMassSearch findBareMasses(const tensorium_spectral_residual_kernel_desc *kernel, const TwoPunctureParameters &params,
                              const std::array<double, 2> &targets, const TwoPunctureOptions &options,
                              double tolerance = 1e-10, int maxIterations = 20);

} // namespace tensorium_mlir::physics
