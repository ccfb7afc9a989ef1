#pragma once
// An apparent-horizon finder: the surface r = h(theta, phi) about a centre, h expanded in real
// spherical harmonics up to lmax, on which the expansion of the outgoing null normals
//   Theta = D_i s^i - K + s^i s^j K_ij = (gamma^ij - s^i s^j) (D_i D_j F / |dF| - K_ij),
// F = r - h, s^i = gamma^ij d_j F / |dF|, vanishes. Newton on the Galerkin projection of Theta
// onto the harmonics; its Jacobian is assembled from the local dependence of Theta on h and its
// first and second angular derivatives at each node (differences of the closed form, with the
// geometry sampled again only for the dependence on h itself, which moves the point). No MLIR.
#include "tensorium_mlir/Horizons/SpatialGeometry.h"

#include <string>
#include <vector>

namespace tensorium_mlir::horizons {

/// A star-shaped surface: r = h(theta, phi) = sum_lm coefficients[harmonicIndex(l, m)] Y_lm.
struct StarSurface {
  Point3 center{};
  int lmax = 0;
  std::vector<double> coefficients;
  /// The sphere of radius r about `center`, represented to `lmax`.
  static StarSurface sphere(const Point3 &center, double radius, int lmax);
  double radiusAt(double theta, double phi) const;
};

struct HorizonOptions {
  int lmax = 8;
  int thetaPoints = 0; ///< 0: 2 (lmax + 1)
  int phiPoints = 0;   ///< 0: 2 thetaPoints
  int maxIterations = 40;
  /// Converged when the Newton update of h is below tolerance * mean radius everywhere.
  double tolerance = 1e-10;
  int circumferencePoints = 256; ///< per circumference curve (trapezoidal rule in its angle)
  /// Give up when the mean radius exceeds this multiple of the guess's (far from any horizon
  /// Theta falls like 2 / r and Newton can chase it outward).
  double maxRadiusGrowth = 10;
  /// Grid data: a Newton step that no line search makes decrease the residual, and whose RMS is
  /// below this times the mean radius, ends the search as converged to the data's smoothness.
  double stagnationTolerance = 1e-6;
  bool verbose = false; ///< one line per Newton iteration on stderr
};

/// What is measured on a surface. Spins are the flat-space rotational-vector integrals
/// J_a = (1/8 pi) oint (K_ij - K gamma_ij) phi_a^i s^j dA with phi_a the rotations about the
/// coordinate axes through the centroid; the Christodoulou mass M^2 = M_irr^2 + J^2 / (4 M_irr^2).
struct SurfaceMeasures {
  double area = 0, irreducibleMass = 0, meanRadius = 0;
  Point3 centroid{};
  /// Proper lengths of the curves where the surface meets the planes through the centroid
  /// spanned by x and y (equatorial), x and z, y and z (polar); NaN where the curve is not
  /// star-shaped about the centroid (a strongly non-convex surface).
  double equatorialCircumference = 0, polarCircumferenceXZ = 0, polarCircumferenceYZ = 0;
  Point3 spin{};
  double spinMagnitude = 0, christodoulouMass = 0, dimensionlessSpin = 0;
  double rmsExpansion = 0, maxExpansion = 0; ///< of Theta over the nodes (times meanRadius: dimensionless)
};

struct HorizonResult {
  bool found = false;
  std::string message; ///< why not, when not found
  int iterations = 0;
  double lastStep = 0;    ///< RMS of the last Newton update of h, relative to the mean radius
  bool stagnated = false; ///< converged to the smoothness of the data, not to the tolerance
  StarSurface surface;
  SurfaceMeasures measures;
};

/// Theta at the nodes of `grid` on `surface` (for checks). Throws GeometryDomainError where the
/// geometry cannot be sampled and std::domain_error where h <= 0.
class SphereGrid;
std::vector<double> expansionAt(const GeometrySampler &geometry, const StarSurface &surface, const SphereGrid &grid);

/// Measures `surface` (area, circumferences, spin, ...).
SurfaceMeasures measureSurface(const GeometrySampler &geometry, const StarSurface &surface, const HorizonOptions &options);

/// Newton from `guess` (its lmax is raised or truncated to options.lmax). Not finding a horizon
/// (no convergence, the surface leaving the data or shrinking to its centre) is a result with
/// found = false and the reason, never an exception; bad options throw std::invalid_argument.
HorizonResult findHorizon(const GeometrySampler &geometry, const StarSurface &guess, const HorizonOptions &options = {});

/// The largest coordinate separation d of two Brill-Lindquist punctures of masses m1, m2 (on the
/// z axis at z = +d m2 / M and -d m1 / M) with a common apparent horizon about the centre of
/// mass: continuation in d from d = 0 with each surface the next one's guess, then bisection
/// between the last separation with a horizon and the first without, to `tolerance`.
struct CommonHorizonSearch {
  double lastFound = 0, firstMissing = 0; ///< the bracket, in units of M = m1 + m2
  SurfaceMeasures lastMeasures;
  int finderCalls = 0;
};
/// `slice` builds the data of the two punctures (Brill-Lindquist by default; another builder
/// serves checks of the search itself).
CommonHorizonSearch commonHorizonSeparation(double m1, double m2, const HorizonOptions &options, double tolerance = 1e-3,
                                            const std::function<GeometrySampler(std::vector<Puncture>)> &slice =
                                                brillLindquistGeometry);

} // namespace tensorium_mlir::horizons
