#pragma once
// Observed convergence orders: against an exact solution (error norms at two or more spacings)
// and, when no exact solution exists, Richardson self-convergence from three resolutions.
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace tensorium_mlir::verification {

/// log(coarse / fine) / log(hc / hf); NaN when either norm is zero (exact data: nothing to
/// measure) or not finite.
double observedOrder(double coarse, double fine, double hc, double hf);

/// An observed order for a table, `width` characters right-aligned: "%.3f", or "-" where no
/// order exists (NaN: the first resolution, or data exact to round-off).
std::string orderText(double order, int width = 8);

/// Root mean square over `points` probes of a - b (values probe-major, components within).
double rmsDifference(const std::vector<double> &a, const std::vector<double> &b, size_t points);

/// Observed orders along one series of resolutions: add() returns the order between the
/// previous value and this one (NaN for the first); within() judges the finest pair.
class OrderSeries {
public:
  double add(double value, double h);
  double last() const { return last_; }
  bool within(double expected, double tolerance = 0.3) const;

private:
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  double previous_ = kNaN, previousH_ = kNaN, last_ = kNaN;
};

/// Why a failed order check may say nothing about the code: the observed orders of successive
/// pairs (NaN where none exists) still change by more than `tolerance` from one pair to the
/// next, or there is only one pair and its order lies within 1 of `expected`, so the grids are
/// probably not yet in the asymptotic regime.
/// Orders falling below 1 and away from `expected` get the opposite hint: the error does not
/// shrink with h, which finer grids will not fix.
/// Returns a one-line "hint: ..." to print after the failed verdict, or "" when the orders
/// have settled, or move away from `expected` while still above 1 (then the failure is more
/// likely a real error).
std::string preAsymptoticHint(const std::vector<double> &orders, double expected, double tolerance = 0.3);

/// A quantity that failed a self-convergence verdict of three grids: its order (NaN where none
/// was found) and its differences between the coarse pair and the fine pair.
struct SelfConvergenceFailure {
  std::string name;
  double order, coarseDifference, fineDifference;
};

/// The hint after a failed self-convergence verdict of three grids, which give one order per
/// quantity. No order with a fine difference at least the coarse one: the run does not converge
/// there. Finite orders all within 1 of `expected`: the usual sign of grids too coarse for the
/// asymptotic regime. Anything else (orders far off, no order although the differences fall)
/// gets no hint: a real error is likelier. Returns "hint: ..." or "".
std::string selfConvergenceHint(const std::vector<SelfConvergenceFailure> &failing, double expected);

/// Self-convergence from three solutions at spacings hc > hm > hf, with no exact solution: with
/// u_h = u + C h^p, the differences satisfy |u_c - u_m| / |u_m - u_f| = (hc^p - hm^p) /
/// (hm^p - hf^p), which fixes p (for a constant refinement ratio r it is log(ratio) / log(r)).
struct SelfConvergence {
  double order = std::numeric_limits<double>::quiet_NaN(); ///< p, NaN when the differences do not determine one in (0, 32)
  double ratio = std::numeric_limits<double>::quiet_NaN(); ///< |u_c - u_m| / |u_m - u_f|
};
/// `coarseMedium` = ||u_c - u_m||, `mediumFine` = ||u_m - u_f|| (the norms on common points).
SelfConvergence selfConvergence(double coarseMedium, double mediumFine, double hc, double hm, double hf);

/// Richardson extrapolation of a scalar from two spacings with a known order p:
/// u ~ u_f + (u_f - u_c) / ((hc / hf)^p - 1).
double richardsonExtrapolate(double coarse, double fine, double hc, double hf, double p);

} // namespace tensorium_mlir::verification
