#pragma once
// The stationary 1+log trumpet slice of Schwarzschild (Hannam et al. 2008): the slice that a
// moving-puncture evolution of one black hole settles to, with d_t alpha = beta^k d_k alpha -
// 2 alpha K. On a stationary slice with areal radius R, f = 1 - 2M/R and u the radial component
// of the unit normal,
//   alpha^2 = f + u^2,   beta^R = -alpha u,   K = -(R^2 u)' / R^2,
// and stationarity of the slicing condition gives the ODE
//   d alpha / dR = (4 (alpha^2 - f) / R - 2M / R^2) / (alpha^2 - f - 2 alpha),
// singular where the denominator vanishes; the trumpet is the solution that passes through that
// point regularly (numerator zero too): M / R_c = sqrt(160) - 12, alpha_c = M / (4 R_c).
// K follows from stationarity as K = beta^R alpha' / (2 alpha) = sqrt(alpha^2 - f) alpha' / 2.
#include <span>
#include <stdexcept>
#include <vector>

namespace tensorium_mlir::physics {

struct TrumpetError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The trumpet's lapse and K as functions of areal radius, tabulated by RK4 from the critical
/// point outward (to `outerRadius`) and inward to the throat (alpha = 0), in units of M.
class TrumpetSlice {
public:
  /// `mass` > 0; `outerRadius` > the critical radius; `stepsPerMass` RK4 steps per unit of R / M.
  explicit TrumpetSlice(double mass = 1, double outerRadius = 20, int stepsPerMass = 4000);

  double mass() const { return mass_; }
  double criticalRadius() const { return criticalRadius_; }
  double criticalLapse() const { return criticalLapse_; }
  /// The areal radius where the lapse vanishes (the trumpet's throat), from the inward integration.
  double throatRadius() const { return throatRadius_; }

  /// alpha(R) and K(R) for throatRadius() <= R <= outerRadius, by cubic Hermite interpolation of
  /// the table (throws TrumpetError outside it).
  double lapse(double arealRadius) const;
  double meanCurvature(double arealRadius) const;
  /// d alpha / dR from the ODE (the critical point's regular slope there).
  double lapseSlope(double arealRadius, double lapse) const;

private:
  struct Node {
    double radius, lapse, slope;
  };
  const Node &nodeBelow(double arealRadius) const;
  double hermite(double arealRadius) const;

  double mass_, criticalRadius_, criticalLapse_, criticalSlope_, throatRadius_ = 0;
  std::vector<Node> nodes_; // increasing radius
};

/// One point of a numerical slice: areal radius, lapse and K.
struct SliceSample {
  double arealRadius, lapse, meanCurvature;
};

/// A numerical slice's lapse and K against the trumpet over from <= R <= to.
struct TrumpetDifference {
  int samples = 0;
  double maxLapse = 0, rmsLapse = 0, maxMeanCurvature = 0, rmsMeanCurvature = 0;
  double worstLapseRadius = 0; // where |alpha - alpha_trumpet| is largest
};

/// Throws TrumpetError when no sample lies in [from, to] or a sample is not finite there.
TrumpetDifference compareWithTrumpet(const TrumpetSlice &trumpet, std::span<const SliceSample> samples, double from,
                                     double to);

} // namespace tensorium_mlir::physics
