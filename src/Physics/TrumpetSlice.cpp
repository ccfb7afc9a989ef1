#include "tensorium_mlir/Physics/TrumpetSlice.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace tensorium_mlir::physics {

namespace {

/// Numerator and denominator of d alpha / dR (M = 1 units are not assumed).
struct Slope {
  double numerator, denominator;
};

Slope slopeParts(double mass, double r, double a) {
  const double f = 1 - 2 * mass / r;
  return {4 * (a * a - f) / r - 2 * mass / (r * r), a * a - f - 2 * a};
}

} // namespace

double TrumpetSlice::lapseSlope(double r, double a) const {
  if (std::abs(r - criticalRadius_) < 1e-9 * mass_ && std::abs(a - criticalLapse_) < 1e-9)
    return criticalSlope_;
  const Slope s = slopeParts(mass_, r, a);
  return s.numerator / s.denominator;
}

TrumpetSlice::TrumpetSlice(double mass, double outerRadius, int stepsPerMass) : mass_(mass) {
  if (!(mass > 0) || !std::isfinite(mass))
    throw TrumpetError("the trumpet's mass must be positive and finite");
  if (stepsPerMass < 100)
    throw TrumpetError("the trumpet needs at least 100 steps per unit of mass");
  const double x = std::sqrt(160.0) - 12; // M / R_c, the positive root of x^2 + 24 x - 16 = 0
  criticalRadius_ = mass / x;
  criticalLapse_ = x / 4;
  if (!(outerRadius > criticalRadius_ * 1.01) || !std::isfinite(outerRadius))
    throw TrumpetError("the trumpet's outer radius must lie beyond its critical radius " +
                       std::to_string(criticalRadius_));
  // At the critical point alpha' = N / D is 0/0; l'Hopital's rule gives the quadratic
  // D_a s^2 + (D_R - N_a) s - N_R = 0, whose positive root is the trumpet's (alpha rises with R).
  const double r = criticalRadius_, a = criticalLapse_, m = mass;
  const double nA = 8 * a / r, nR = (-4 * a * a + 4) / (r * r) - 12 * m / (r * r * r);
  const double dA = 2 * a - 2, dR = -2 * m / (r * r);
  const double qa = dA, qb = dR - nA, qc = -nR;
  const double root = std::sqrt(qb * qb - 4 * qa * qc);
  criticalSlope_ = std::max((-qb + root) / (2 * qa), (-qb - root) / (2 * qa));

  // Leave the critical point along the regular slope, then RK4 in R both ways.
  const double h = mass / stepsPerMass;
  auto integrate = [&](double direction, auto stop) {
    std::vector<Node> path;
    double R = r + direction * h, A = a + criticalSlope_ * direction * h;
    path.push_back({R, A, lapseSlope(R, A)});
    while (!stop(R, A)) {
      const double s = direction * h;
      const double k1 = lapseSlope(R, A), k2 = lapseSlope(R + s / 2, A + s / 2 * k1),
                   k3 = lapseSlope(R + s / 2, A + s / 2 * k2), k4 = lapseSlope(R + s, A + s * k3);
      A += s / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
      R += s;
      if (!std::isfinite(A))
        throw TrumpetError("the trumpet's integration became non-finite at R = " + std::to_string(R));
      path.push_back({R, A, lapseSlope(R, A)});
    }
    return path;
  };
  std::vector<Node> outward = integrate(+1, [&](double R, double) { return R >= outerRadius; });
  std::vector<Node> inward = integrate(-1, [&](double R, double A) { return A <= 0 || R <= mass * 0.5; });
  if (inward.back().lapse > 0)
    throw TrumpetError("the trumpet's lapse did not reach zero inside the critical radius");
  // The throat: linear interpolation in the last inward step, then Newton on the Hermite cubic.
  const Node &in = inward[inward.size() - 2], &out = inward.back();
  throatRadius_ = in.radius + (out.radius - in.radius) * in.lapse / (in.lapse - out.lapse);
  nodes_.assign(inward.rbegin(), inward.rend());
  nodes_.push_back({r, a, criticalSlope_});
  nodes_.insert(nodes_.end(), outward.begin(), outward.end());
  for (int iteration = 0; iteration < 3; ++iteration) {
    const double value = hermite(throatRadius_);
    throatRadius_ -= value / lapseSlope(throatRadius_, std::max(value, 0.0));
  }
  // The first node (alpha < 0) stays: the cubic between it and the next covers the throat.
}

const TrumpetSlice::Node &TrumpetSlice::nodeBelow(double R) const {
  auto above = std::upper_bound(nodes_.begin(), nodes_.end(), R,
                                [](double value, const Node &n) { return value < n.radius; });
  if (above == nodes_.begin())
    return nodes_.front();
  if (above == nodes_.end())
    return nodes_[nodes_.size() - 2];
  return *(above - 1);
}

double TrumpetSlice::hermite(double R) const {
  const Node &p = nodeBelow(R);
  const Node &q = *(&p + 1);
  const double h = q.radius - p.radius, t = (R - p.radius) / h;
  const double t2 = t * t, t3 = t2 * t;
  return (2 * t3 - 3 * t2 + 1) * p.lapse + (t3 - 2 * t2 + t) * h * p.slope + (-2 * t3 + 3 * t2) * q.lapse +
         (t3 - t2) * h * q.slope;
}

double TrumpetSlice::lapse(double R) const {
  if (!(R >= throatRadius_ && R <= nodes_.back().radius))
    throw TrumpetError("areal radius " + std::to_string(R) + " outside the trumpet's table [" +
                       std::to_string(throatRadius_) + ", " + std::to_string(nodes_.back().radius) + "]");
  return std::max(hermite(R), 0.0);
}

double TrumpetSlice::meanCurvature(double R) const {
  const double a = lapse(R);
  const double f = 1 - 2 * mass_ / R;
  return std::sqrt(std::max(a * a - f, 0.0)) * lapseSlope(R, a) / 2;
}

TrumpetDifference compareWithTrumpet(const TrumpetSlice &trumpet, std::span<const SliceSample> samples, double from,
                                     double to) {
  TrumpetDifference d;
  double sumLapse = 0, sumCurvature = 0;
  for (const SliceSample &s : samples) {
    if (!(s.arealRadius >= from && s.arealRadius <= to))
      continue;
    if (!std::isfinite(s.lapse) || !std::isfinite(s.meanCurvature))
      throw TrumpetError("a non-finite sample at areal radius " + std::to_string(s.arealRadius));
    const double lapse = std::abs(s.lapse - trumpet.lapse(s.arealRadius));
    const double curvature = std::abs(s.meanCurvature - trumpet.meanCurvature(s.arealRadius));
    if (lapse > d.maxLapse)
      d.maxLapse = lapse, d.worstLapseRadius = s.arealRadius;
    d.maxMeanCurvature = std::max(d.maxMeanCurvature, curvature);
    sumLapse += lapse * lapse, sumCurvature += curvature * curvature;
    ++d.samples;
  }
  if (d.samples == 0)
    throw TrumpetError("no sample with areal radius in [" + std::to_string(from) + ", " + std::to_string(to) + "]");
  d.rmsLapse = std::sqrt(sumLapse / d.samples);
  d.rmsMeanCurvature = std::sqrt(sumCurvature / d.samples);
  return d;
}

} // namespace tensorium_mlir::physics
