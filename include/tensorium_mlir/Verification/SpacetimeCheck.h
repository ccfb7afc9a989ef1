#pragma once
// The spacetime check of an exact-solution fixture: the 4-Ricci tensor of its metric (and box
// x^mu when it claims harmonic coordinates) by centred finite differences of g_mu_nu at several
// steps. A vacuum solution's curvature is zero, so the values must fall at the stencil's order
// (or sit at round-off); a metric that is not a solution keeps a step-independent residual.
#include "tensorium_mlir/Verification/Report.h"
#include "tensorium_mlir/Verification/StudyFile.h"

#include <array>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace tensorium_mlir::verification {

/// g_mu_nu (row-major 4x4, coordinates t and the three spatial ones) at spatial points of one
/// time t.
using MetricSampler =
    std::function<void(double t, std::span<const std::array<double, 3>> points, std::span<std::array<double, 16>> g)>;

/// R_mu_nu (row-major) and box x^mu = -g^ab Gamma^mu_ab at one event.
struct SpacetimeResidual {
  std::array<double, 16> ricci{};
  std::array<double, 4> box{};
};

/// Finite-difference 4-Ricci tensor and box x^mu at each event (t, x1, x2, x3), from centred
/// stencils of the given even order (2, 4 or 6) and step h in all four coordinates.
std::vector<SpacetimeResidual> spacetimeResiduals(const MetricSampler &metric, std::span<const std::array<double, 4>> events,
                                                  double h, int order);

struct SpacetimeStudy {
  std::string name, description;
  /// The fixture's module: its slice kernel writes alpha, beta and gamma from the metric4;
  /// `parameters` in the module's order, `timeParameter` the index of the reserved t (-1: a
  /// static metric).
  std::string module;
  std::vector<double> parameters;
  int timeParameter = -1;
  std::vector<std::array<double, 4>> events;
  std::vector<double> steps; ///< decreasing
  int order = 4;
  bool vacuum = true, harmonic = false;
  double tolerance = 0.5;
};

/// The events of a study: `count` points drawn uniformly (fixed seed) in the box [lo, hi],
/// outside the balls of radius `excision` around `centres`, at each of the times.
std::vector<std::array<double, 4>> sampleEvents(const std::vector<double> &times, const std::array<double, 3> &lo,
                                                const std::array<double, 3> &hi, int count,
                                                const std::vector<std::array<double, 3>> &centres, double excision);

/// The metric of a fixture module at a time, rebuilt from its 3+1 split:
/// g_tt = -alpha^2 + beta_k beta^k, g_ti = beta_i = gamma_ij beta^j, g_ij = gamma_ij. A split
/// that does not write alpha, beta or gamma is an error naming the buffer.
MetricSampler fixtureMetric(const std::string &modulePath, std::vector<double> parameters, int timeParameter);

/// The coordinate names of a module (t then x, y, z or r, theta, phi).
std::array<std::string, 4> fixtureCoordinateNames(const std::string &modulePath);

/// Runs the check: a table per step (max |R_mu_nu| and, when claimed, max |box x^mu|, with the
/// observed orders) and one verdict per claim: PASS when the finest value is at round-off or
/// the order between the two finest steps is at least `order - tolerance`; FAIL names the
/// largest component, its value and the event.
void runSpacetimeStudy(const SpacetimeStudy &study, Report &report);

/// The check a study file of kind "spacetime" describes, on the fixture's module (compiled by the
/// caller): parameters by name in the module's order (the reserved t left to the check), the
/// slice kernel's alpha, beta and gamma required. Throws StudyFileError located at the key.
SpacetimeStudy spacetimeStudyFrom(const StudyFile &study, const std::string &modulePath);

/// A residual at or below this on the finest step is round-off: the metric satisfies the claim.
inline constexpr double kSpacetimeRoundOff = 1e-9;

} // namespace tensorium_mlir::verification
