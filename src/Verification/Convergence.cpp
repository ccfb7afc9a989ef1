#include "tensorium_mlir/Verification/Convergence.h"

#include <cmath>
#include <cstdio>

namespace tensorium_mlir::verification {

double observedOrder(double coarse, double fine, double hc, double hf) {
  if (!(coarse > 0) || !(fine > 0) || !std::isfinite(coarse) || !std::isfinite(fine) || !(hc > hf) || !(hf > 0))
    return std::nan("");
  return std::log(coarse / fine) / std::log(hc / hf);
}

double OrderSeries::add(double value, double h) {
  last_ = std::isnan(previous_) ? kNaN : observedOrder(previous_, value, previousH_, h);
  previous_ = value;
  previousH_ = h;
  return last_;
}

bool OrderSeries::within(double expected, double tolerance) const { return std::abs(last_ - expected) <= tolerance; }

std::string orderText(double order, int width) {
  char text[64];
  if (std::isfinite(order))
    std::snprintf(text, sizeof text, "%*.3f", width, order);
  else
    std::snprintf(text, sizeof text, "%*s", width, "-");
  return text;
}

std::string preAsymptoticHint(const std::vector<double> &orders, double expected, double tolerance) {
  std::vector<double> finite;
  for (double p : orders)
    if (std::isfinite(p))
      finite.push_back(p);
  if (finite.empty() || std::abs(finite.back() - expected) <= tolerance)
    return "";
  char text[256];
  if (finite.size() == 1) {
    // A lone order far from the expected one (4.00 against 6) is more likely a real error.
    if (std::abs(finite.back() - expected) > 1.0)
      return "";
    std::snprintf(text, sizeof text,
                  "hint: one pair of resolutions only (p = %.2f): add a finer one to see whether the order settles at %g",
                  finite.back(), expected);
    return text;
  }
  const double previous = finite[finite.size() - 2], last = finite.back();
  if (std::abs(last - previous) <= tolerance)
    return "";
  // Orders moving away from the expected one and below 1: the error stops shrinking with h,
  // which coarse grids do not explain.
  if (last < previous && last < 1.0 && std::abs(last - expected) > std::abs(previous - expected)) {
    std::snprintf(text, sizeof text,
                  "hint: the observed order falls to %.2f (from %.2f): the error no longer shrinks as h does (or "
                  "grows), as an error independent of resolution (a wrong term or coefficient, a boundary) or a "
                  "round-off floor does; finer grids will not fix it",
                  last, previous);
    return text;
  }
  // Orders moving away from the expected one on one side of it, and far from it: no hint either
  // way (orders jumping across it are the coarse-grid case).
  if (std::abs(last - expected) > 1.0 && std::abs(last - expected) > std::abs(previous - expected) &&
      (last - expected) * (previous - expected) > 0)
    return "";
  std::snprintf(text, sizeof text,
                "hint: the observed order still changes from pair to pair (%.2f, then %.2f): the coarser grids are "
                "probably not yet in the asymptotic regime; add a finer resolution before suspecting the code",
                previous, last);
  return text;
}

std::string selfConvergenceHint(const std::vector<SelfConvergenceFailure> &failing, double expected) {
  std::string missing, near;
  bool allNear = !failing.empty();
  for (const SelfConvergenceFailure &f : failing) {
    if (!std::isfinite(f.order)) {
      allNear = false;
      if (!(f.fineDifference < f.coarseDifference)) // NaN differences count as not falling
        missing += (missing.empty() ? "" : ", ") + f.name;
    } else if (std::abs(f.order - expected) <= 1.0) {
      near += (near.empty() ? "" : ", ") + f.name;
    } else {
      allNear = false;
    }
  }
  if (!missing.empty())
    return "hint: no order for " + missing +
           ": the difference between the two finer grids is not smaller than between the two coarser ones, so "
           "the run does not converge there (look for growth in the finest run's constraint norms)";
  if (allNear) {
    char order[32];
    std::snprintf(order, sizeof order, "%g", expected);
    return "hint: the orders of " + near + " lie within 1 of " + order +
           ": three grids give one order, and grids this coarse near the punctures are often not yet asymptotic; "
           "rerun with finer grid.resolutions before suspecting the code";
  }
  return "";
}

SelfConvergence selfConvergence(double coarseMedium, double mediumFine, double hc, double hm, double hf) {
  SelfConvergence out;
  if (!(hc > hm && hm > hf && hf > 0) || !(coarseMedium > 0) || !(mediumFine > 0) || !std::isfinite(coarseMedium) ||
      !std::isfinite(mediumFine))
    return out;
  out.ratio = coarseMedium / mediumFine;
  // f(p) = (hc^p - hm^p) / (hm^p - hf^p) increases monotonically from log(hc/hm)/log(hm/hf) at
  // p -> 0: bisect in log space (spacings scaled by hf keep the powers finite).
  auto f = [&](double p) {
    const double c = std::pow(hc / hf, p), m = std::pow(hm / hf, p);
    return std::log((c - m) / (m - 1));
  };
  const double target = std::log(out.ratio);
  double lo = 1e-6, hi = 32;
  if (!(f(lo) < target && target < f(hi)))
    return out;
  for (int it = 0; it < 200 && hi - lo > 1e-13; ++it) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < target ? lo : hi) = mid;
  }
  out.order = 0.5 * (lo + hi);
  return out;
}

double richardsonExtrapolate(double coarse, double fine, double hc, double hf, double p) {
  return fine + (fine - coarse) / (std::pow(hc / hf, p) - 1);
}

double rmsDifference(const std::vector<double> &a, const std::vector<double> &b, size_t points) {
  double sum = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum / static_cast<double>(points));
}

} // namespace tensorium_mlir::verification
