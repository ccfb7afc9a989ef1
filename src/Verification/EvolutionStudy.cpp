// Evolution self-convergence studies on the distributed engine.
#include "tensorium_mlir/Verification/EvolutionStudy.h"

#include "CaseSupport.h"

#include "tensorium_mlir/Distributed/BssnDiagnostics.h"
#include "tensorium_mlir/Distributed/BssnSetup.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tensorium_mlir::verification {

using namespace cases;

EvolutionStudy evolutionStudyFrom(const StudyFile &s) {
  EvolutionStudy e;
  e.name = s.name;
  e.description = s.description;
  e.punctures = s.punctures;
  e.resolutions = {s.resolutions[0], s.resolutions[1], s.resolutions[2]};
  e.extent = s.halfWidth;
  e.order = s.orders.front();
  e.times = s.evolutionTimes;
  e.cfl = s.cfl;
  e.koSigma = s.koSigma;
  e.eta = s.eta;
  e.box = s.region.box;
  e.excisionCentres = s.region.excisionCentres;
  e.excision = s.region.excision;
  e.probeSpacing = s.probeSpacing;
  e.expectedOrder = s.expectedOrder;
  e.tolerance = s.tolerance;
  return e;
}

double selfConvergenceOrder(double d12, double d23, double h1, double h2, double h3) {
  if (!(d12 > 0) || !(d23 > 0) || !std::isfinite(d12) || !std::isfinite(d23))
    return NAN;
  const double target = std::log(d12 / d23);
  auto f = [&](double p) { return std::log((std::pow(h1, p) - std::pow(h2, p)) / (std::pow(h2, p) - std::pow(h3, p))) - target; };
  double lo = 1e-3, hi = 20;
  if (f(lo) > 0 || f(hi) < 0) // the ratio grows with p: outside the bracket no order explains it
    return NAN;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

namespace {

constexpr const char *kFields[] = {"chi", "gammatilde", "K", "Atilde", "Gammatilde", "alpha", "beta", "B"};
constexpr unsigned kComponents[] = {1, 9, 1, 9, 3, 1, 3, 3};
constexpr size_t kFieldCount = 8;
/// Ten-point Lagrange interpolation at the probes. Its O(h^10) error (~2e-10 at r = 5.5 on
/// h = 1/3) stays below the order-4 differences it measures; lower orders do not for
/// chi = psi^-4, whose 1/r profile (n-th derivative 2 n! / r^(n+1)) gives interpolation errors of
/// ~1e-8 with six points and ~3e-9 with eight at r = 5.5 on h = 1/3, as large as the
/// evolution's differences at t = 1, and at a position within the cell that differs from grid to
/// grid.
constexpr int kProbeNodes = 10;

distributed::KernelModuleTables tablesOf(const LoadedModule &m) { return {m.tables(), m.adapters()}; }

/// Field values at the probes at each time: [time][field][probe * components + c].
using Samples = std::vector<std::array<std::vector<double>, kFieldCount>>;

struct GridRun {
  double h = 0;
  Samples samples;
  std::vector<distributed::ConstraintNorms> constraints; // per time
};

GridRun evolve(const EvolutionStudy &study, int n, const physics::TwoPunctureSolution &data,
               const std::vector<std::array<double, 3>> &probes) {
  distributed::BssnRunOptions run;
  run.points = n;
  run.extent = study.extent;
  run.eta = study.eta;
  run.koSigma = study.koSigma;
  run.ghost = kProbeNodes / 2; // the interpolation's reach (the order-4 and order-6 stencils reach 3 and 4 points)
  const LoadedModule &evolution = study.module.empty() ? moduleFor("bssn", study.order) : moduleAt(study.module);
  const distributed::SystemModule system = distributed::systemModule(*evolution.module);
  auto twoPunctures = [&](runtime::UniformGridStorage &s, const distributed::DistributedGrid &g) {
    distributed::writeTwoPunctureData(data, s, g);
  };
  distributed::SystemEvolution evolutionRun(gComm, system, {}, distributed::bssnParameters(distributed::describeSystem(system), run),
                                            run.integrator, distributed::bssnSystemHooks(run, twoPunctures));
  distributed::DistributedEvolution &e = evolutionRun.engine();
  distributed::checkBssnFields(e);
  distributed::ConstraintMonitor monitor(e, tablesOf(moduleFor("constraints", study.order)));
  evolutionRun.initialize();
  GridRun out;
  out.h = run.spacing();
  auto excluded = [&](const std::array<double, 3> &x) {
    if (std::abs(x[0]) > study.box || std::abs(x[1]) > study.box || std::abs(x[2]) > study.box)
      return true;
    for (const auto &c : study.excisionCentres)
      if (std::hypot(x[0] - c[0], x[1] - c[1], x[2] - c[2]) < study.excision)
        return true;
    return false;
  };
  double t = 0;
  for (double T : study.times) {
    // Steps of at most cfl h that land on T exactly on every grid.
    const long steps = static_cast<long>(std::ceil((T - t) / (study.cfl * out.h) - 1e-9));
    e.advance(steps, (T - t) / static_cast<double>(steps));
    t = T;
    e.loadStorage(e.state());
    out.constraints.push_back(monitor.evaluate(e, excluded));
    const distributed::ConstraintNorms &c = out.constraints.back();
    if (!std::isfinite(c.l2H) || !std::isfinite(c.l2M))
      throw std::runtime_error("the evolution at n = " + std::to_string(n) + " became non-finite by t = " + std::to_string(T));
    std::array<std::vector<double>, kFieldCount> values;
    for (size_t f = 0; f < kFieldCount; ++f)
      for (const auto &x : probes)
        for (unsigned c = 0; c < kComponents[f]; ++c)
          values[f].push_back(distributed::interpolateField(e, kFields[f], c, x, kProbeNodes));
    out.samples.push_back(std::move(values));
  }
  if (gRank == 0)
    std::fprintf(stderr, "  evolution n = %d: h = %.4f, %ld steps\n", n, out.h, e.stepNumber());
  return out;
}

} // namespace

void runEvolutionStudy(const EvolutionStudy &study, Report &report) {
  const auto started = std::chrono::steady_clock::now();
  // Probes: a lattice over the region, off the punctures' balls.
  std::vector<std::array<double, 3>> probes;
  const int m = static_cast<int>(std::floor(study.box / study.probeSpacing));
  for (int i = -m; i <= m; ++i)
    for (int j = -m; j <= m; ++j)
      for (int k = -m; k <= m; ++k) {
        const std::array<double, 3> x{i * study.probeSpacing, j * study.probeSpacing, k * study.probeSpacing};
        bool excised = false;
        for (const auto &c : study.excisionCentres)
          excised = excised || std::hypot(x[0] - c[0], x[1] - c[1], x[2] - c[2]) < study.excision;
        if (!excised)
          probes.push_back(x);
      }
  if (probes.empty())
    throw std::invalid_argument("the probe region holds no point (norm.box, norm.excision, norm.spacing)");
  const physics::TwoPunctureSolution data = solvePunctures(study.punctures);
  std::vector<GridRun> runs;
  for (int n : study.resolutions)
    runs.push_back(evolve(study, n, data, probes));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const int expected = study.expectedOrder > 0 ? study.expectedOrder : study.order;
  report.text << study.name << ": " << study.description << "\n"
              << "grids " << study.resolutions[0] << ", " << study.resolutions[1] << ", " << study.resolutions[2]
              << " points per side on [-" << study.extent << ", " << study.extent << "]^3, order " << study.order << "; "
              << probes.size() << " probes over |x_a| <= " << study.box << " outside r < " << study.excision
              << " around the punctures\n";
  char line[256];
  for (size_t ti = 0; ti < study.times.size(); ++ti) {
    const double T = study.times[ti];
    std::snprintf(line, sizeof line, "t = %g: self-convergence at the probes\n%12s %14s %14s %9s\n", T, "field",
                  "|u1 - u2|", "|u2 - u3|", "order");
    report.text << line;
    std::string failing, exact;
    std::vector<SelfConvergenceFailure> failingOrders;
    for (size_t f = 0; f < kFieldCount; ++f) {
      const double d12 = rmsDifference(runs[0].samples[ti][f], runs[1].samples[ti][f], probes.size());
      const double d23 = rmsDifference(runs[1].samples[ti][f], runs[2].samples[ti][f], probes.size());
      const double p = selfConvergenceOrder(d12, d23, runs[0].h, runs[1].h, runs[2].h);
      const bool roundOff = d12 <= 1e-12 && d23 <= 1e-12;
      std::snprintf(line, sizeof line, "%12s %14.4e %14.4e %s%s\n", kFields[f], d12, d23, orderText(p, 9).c_str(),
                    roundOff ? "  (round-off)" : "");
      report.text << line;
      report.csv << "evolution," << T << "," << kFields[f] << "," << d12 << "," << d23 << "," << p << "\n";
      if (roundOff)
        exact += (exact.empty() ? "" : ", ") + std::string(kFields[f]);
      else if (!(std::abs(p - expected) <= study.tolerance)) {
        failing += (failing.empty() ? "" : ", ") + std::string(kFields[f]) + " p = " + orderText(p, 0);
        failingOrders.push_back({kFields[f], p, d12, d23});
      }
    }
    std::snprintf(line, sizeof line, "within %.2f of order %d", study.tolerance, expected);
    report.verdict("fields self-converge at t = " + std::to_string(T).substr(0, 6), failing.empty(),
                   failing.empty() ? std::string("every field ") + line + (exact.empty() ? "" : " (round-off: " + exact + ")")
                                   : "not " + std::string(line) + ": " + failing,
                   seconds);
    if (const std::string hint = selfConvergenceHint(failingOrders, expected); !hint.empty())
      report.text << hint << "\n";
    // The constraints over the same region: they vanish in the continuum, so they fall at the
    // order between the two finest grids.
    const double H2 = runs[1].constraints[ti].l2H, H3 = runs[2].constraints[ti].l2H;
    const double M2 = runs[1].constraints[ti].l2M, M3 = runs[2].constraints[ti].l2M;
    const double H1 = runs[0].constraints[ti].l2H, M1 = runs[0].constraints[ti].l2M;
    const double pH = observedOrder(H2, H3, runs[1].h, runs[2].h), pM = observedOrder(M2, M3, runs[1].h, runs[2].h);
    std::snprintf(line, sizeof line, "t = %g: L2(H) = %.3e, %.3e, %.3e; L2(M) = %.3e, %.3e, %.3e\n", T,
                  runs[0].constraints[ti].l2H, H2, H3, runs[0].constraints[ti].l2M, M2, M3);
    report.text << line;
    std::snprintf(line, sizeof line, "finest pair: p(H) = %s, p(M) = %s; required within %.2f of %d",
                  orderText(pH, 0).c_str(), orderText(pM, 0).c_str(), study.tolerance, expected);
    const bool okH = std::abs(pH - expected) <= study.tolerance, okM = std::abs(pM - expected) <= study.tolerance;
    report.verdict("constraints converge at t = " + std::to_string(T).substr(0, 6), okH && okM, line, seconds);
    // Both pairs' orders: an order still moving between them points at coarse grids (only where
    // both pairs have one: three grids are not "one pair only").
    auto pairHint = [&](bool ok, double coarsePair, double finePair) -> std::string {
      if (ok || !std::isfinite(coarsePair) || !std::isfinite(finePair))
        return "";
      return preAsymptoticHint({coarsePair, finePair}, expected, study.tolerance);
    };
    std::string hint = pairHint(okH, observedOrder(H1, H2, runs[0].h, runs[1].h), pH);
    if (hint.empty())
      hint = pairHint(okM, observedOrder(M1, M2, runs[0].h, runs[1].h), pM);
    if (!hint.empty())
      report.text << hint << "\n";
  }
}

} // namespace tensorium_mlir::verification
