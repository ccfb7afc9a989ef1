#pragma once
// Hands two-puncture initial data to BSSN grid fields at arbitrary Cartesian points:
//   chi = psi^-4, gammatilde_ij = delta_ij, K = 0, Atilde_ij = psi^-6 Ahat_ij,
//   Gammatilde^i = 0, beta^i = 0, B^i = 0, alpha = 1 or psi^-2,
// with psi = 1 + m1/(2 r1) + m2/(2 r2) + U, U interpolated spectrally through the analytic
// inverse of the compact map, and Ahat_ij the Bowen-York curvature evaluated in closed form.
#include "tensorium_mlir/Physics/TwoPunctures.h"

#include <array>
#include <cstddef>
#include <span>

namespace tensorium_mlir::physics {

/// Symmetric components in the order xx, xy, xz, yy, yz, zz.
using SymmetricTensor = std::array<double, 6>;

/// Bowen-York Ahat_ij (flat metric, indices lowered with delta) of punctures at c1 and c2.
SymmetricTensor bowenYorkCurvature(const TwoPunctureParameters &p, const std::array<double, 3> &x);

enum class InitialLapse { One, PreCollapsed }; // alpha = 1, or alpha = psi^-2

struct HandoffOptions {
  InitialLapse lapse = InitialLapse::PreCollapsed;
  /// Distances to a puncture are evaluated as max(r, punctureRadiusFloor * b): at and inside
  /// this radius the fields take their values on the sphere of that radius, which are finite
  /// (psi ~ m / (2 r), chi ~ (2 r / m)^4, Atilde ~ r^6 Ahat all representable for radii down
  /// to ~1e-30). The physical limits at the puncture itself are chi = 0, alpha = 0, Atilde = 0.
  double punctureRadiusFloor = 1e-10;
};

/// Caller-owned, component-major SoA buffers: component c of point p is at c * nPoints + p.
/// chi, K, alpha: 1 component; gammatilde, Atilde: 6; Gammatilde, beta, B: 3. phi (= ln psi)
/// and W (= psi^-2) are optional (empty spans are skipped).
struct BSSNFieldBuffers {
  std::span<double> chi, gammatilde, K, Atilde, Gammatilde, alpha, beta, B;
  std::span<double> phi, W;
};

struct PunctureFieldValues {
  double U = 0, psi = 1;
  SymmetricTensor Ahat{};
};

class TwoPunctureHandoff {
public:
  explicit TwoPunctureHandoff(const TwoPunctureSolution &solution, const HandoffOptions &options = {});

  /// psi, U and Ahat_ij at one point (with the puncture radius floor applied).
  PunctureFieldValues evaluate(const std::array<double, 3> &x) const;

  /// Writes the BSSN fields at the points (x[p], y[p], z[p]). Throws std::invalid_argument,
  /// before writing anything, when coordinate arrays differ in length, a coordinate is not
  /// finite, or a buffer's size is not components * nPoints.
  void write(std::span<const double> x, std::span<const double> y, std::span<const double> z,
             const BSSNFieldBuffers &buffers) const;

private:
  void writeRange(std::span<const double> x, std::span<const double> y, std::span<const double> z,
                  const BSSNFieldBuffers &buffers, size_t begin, size_t end) const;
  const TwoPunctureSolution &solution_;
  HandoffOptions options_;
};

/// ADM linear momentum P^i and angular momentum J^i.
struct AdmMomenta {
  std::array<double, 3> P{}, J{};
};

/// Closed forms for Bowen-York data: P = P1 + P2, J = c1 x P1 + c2 x P2 + S1 + S2 with the
/// punctures at c1 = (b, 0, 0) and c2 = (-b, 0, 0).
AdmMomenta bowenYorkAdmMomenta(const TwoPunctureParameters &p);

/// The ADM surface integrals on the sphere of radius R about the origin,
///   P^i = (1/8 pi) oint K_ij n^j dA,   J^i = (1/8 pi) oint eps_ijk x^j K_kl n^l dA   (K = 0),
/// with the solution's K_ij = psi^-2 Ahat_ij (`conformal`: Ahat_ij, psi = 1, for which the
/// integrals are independent of R), Gauss-Legendre in cos(theta) times the trapezoidal rule in
/// phi. The physical integrands approach the closed forms as O(M / R).
AdmMomenta surfaceAdmMomenta(const TwoPunctureSolution &solution, double R, int nTheta = 48, int nPhi = 96,
                             bool conformal = false);

} // namespace tensorium_mlir::physics
