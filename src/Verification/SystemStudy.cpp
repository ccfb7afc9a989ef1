#include "tensorium_mlir/Verification/SystemStudy.h"

#include "CaseSupport.h"
#include "tensorium_mlir/Distributed/BssnDiagnostics.h"
#include "tensorium_mlir/Distributed/SystemRun.h"
#include "tensorium_mlir/Verification/Convergence.h"
#include "tensorium_mlir/Verification/EvolutionStudy.h"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace tensorium_mlir::verification {

using namespace cases;

namespace {

/// Lagrange nodes of the probe interpolation (self-convergence): its O(h^10) error stays far
/// below the fourth-order differences it measures; the ghost width must reach half of them.
constexpr int kProbeNodes = 10;
/// Errors and differences at or below this are round-off: no order to measure.
constexpr double kRoundOff = 1e-12;

struct GridRun {
  double h = 0;
  distributed::SystemEvolution::Norms errors, constraints;
  std::map<std::string, std::vector<double>> samples; // field -> [probe * components + c]
  long steps = 0;
};

GridRun evolve(const SystemStudy &study, int n, const std::vector<std::array<double, 3>> &probes) {
  const runtime::KernelModule &module = *moduleAt(study.module).module;
  const distributed::SystemDescription system = distributed::describeSystem(module);
  distributed::SystemGrid grid;
  grid.points = n;
  grid.extent = study.extent;
  grid.ghost = study.selfConvergence ? kProbeNodes / 2 : 0;
  distributed::SystemEvolution s(gComm, module, grid, distributed::systemParameters(system, study.parameters));
  s.initialize(0);
  distributed::SystemRunSettings settings;
  settings.finalTime = study.finalTime;
  settings.cfl = study.cfl;
  settings.monitorEvery = 1L << 40;
  settings.quiet = true;
  const distributed::SystemRunResult result = distributed::runSystemEvolution(s, settings);
  GridRun out;
  out.h = grid.spacing();
  out.errors = result.errors;
  out.constraints = result.constraints;
  out.steps = result.steps;
  if (study.selfConvergence) {
    distributed::DistributedEvolution &e = s.engine();
    e.loadStorage(e.state());
    for (const std::string &f : system.evolved)
      for (const auto &x : probes)
        for (unsigned c = 0; c < e.field(f).components; ++c)
          out.samples[f].push_back(distributed::interpolateField(e, f, c, x, kProbeNodes));
  }
  if (gRank == 0)
    std::fprintf(stderr, "  system n = %d: h = %.4f, %ld steps\n", n, out.h, out.steps);
  return out;
}

/// One row per quantity: three norms, both pairs' orders; a verdict on the finest pair.
struct OrderTable {
  const SystemStudy &study;
  Report &report;
  int expected;
  std::string failing, roundOff;
  std::vector<double> coarseOrders, fineOrders;

  void row(const std::string &name, const std::array<double, 3> &norm, const std::array<double, 3> &h) {
    const double p12 = observedOrder(norm[0], norm[1], h[0], h[1]), p23 = observedOrder(norm[1], norm[2], h[1], h[2]);
    const bool exact = norm[1] <= kRoundOff && norm[2] <= kRoundOff;
    char line[200];
    std::snprintf(line, sizeof line, "%14s %12.4e %12.4e %12.4e %s %s%s\n", name.c_str(), norm[0], norm[1], norm[2],
                  orderText(p12, 8).c_str(), orderText(p23, 8).c_str(), exact ? "  (round-off)" : "");
    report.text << line;
    report.csv << "system," << name << "," << norm[0] << "," << norm[1] << "," << norm[2] << "," << p12 << "," << p23
                << "\n";
    if (exact) {
      roundOff += (roundOff.empty() ? "" : ", ") + name;
    } else if (!(std::abs(p23 - expected) <= study.tolerance)) {
      failing += (failing.empty() ? "" : ", ") + name + " p = " + orderText(p23, 0);
      coarseOrders.push_back(p12);
      fineOrders.push_back(p23);
    }
  }
  void verdict(const std::string &name, double seconds) {
    char line[120];
    std::snprintf(line, sizeof line, "within %.2f of order %d (finest pair)", study.tolerance, expected);
    report.verdict(name, failing.empty(),
                   failing.empty() ? std::string("every quantity ") + line +
                                         (roundOff.empty() ? "" : " (round-off: " + roundOff + ")")
                                   : "not converging at order " + std::to_string(expected) + ": " + failing,
                   seconds);
    for (size_t q = 0; q < fineOrders.size(); ++q)
      if (std::isfinite(coarseOrders[q]) && std::isfinite(fineOrders[q]))
        if (const std::string hint = preAsymptoticHint({coarseOrders[q], fineOrders[q]}, expected, study.tolerance);
            !hint.empty()) {
          report.text << hint << "\n";
          break;
        }
  }
};

} // namespace

SystemStudy systemStudyFrom(const StudyFile &s, const std::string &module) {
  SystemStudy out;
  out.name = s.name;
  out.description = s.description;
  out.module = module;
  for (const auto &[name, value] : s.systemParameters)
    out.parameters[name] = value;
  std::copy_n(s.resolutions.begin(), 3, out.resolutions.begin());
  out.extent = s.halfWidth;
  out.order = s.orders.front();
  out.finalTime = s.finalTime;
  out.cfl = s.cfl;
  out.selfConvergence = s.systemCompare == "self";
  out.probeSpacing = s.probeSpacing;
  out.expectedOrder = s.expectedOrder;
  out.tolerance = s.tolerance;
  return out;
}

void runSystemStudy(const SystemStudy &study, Report &report) {
  const auto started = std::chrono::steady_clock::now();
  const distributed::SystemDescription system = distributed::describeSystem(*moduleAt(study.module).module);
  if (!study.selfConvergence && system.timeParameter < 0)
    throw std::invalid_argument("system.compare = \"exact\" needs initial data that depend on the time t (an exact "
                                "solution); this fixture's do not: use system.compare = \"self\"");
  // Probes (self-convergence): a lattice far enough from the faces for the interpolation.
  std::vector<std::array<double, 3>> probes;
  if (study.selfConvergence) {
    const double hCoarse = 2 * study.extent / study.resolutions[0];
    const double box = study.extent - (kProbeNodes / 2 + 1) * hCoarse;
    const int m = static_cast<int>(std::floor(box / study.probeSpacing));
    for (int i = -m; i <= m; ++i)
      for (int j = -m; j <= m; ++j)
        for (int k = -m; k <= m; ++k)
          probes.push_back({i * study.probeSpacing, j * study.probeSpacing, k * study.probeSpacing});
    if (m < 1)
      throw std::invalid_argument("the probe lattice holds too few points: lower norm.spacing or refine grid.resolutions");
  }
  std::vector<GridRun> runs;
  for (int n : study.resolutions) {
    try {
      runs.push_back(evolve(study, n, probes));
    } catch (const distributed::DistributedError &e) {
      // A run that blows up is the verdict (a wrong sign makes the system ill-posed), not an error.
      if (std::string(e.what()).find("non-finite") == std::string::npos)
        throw;
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      report.text << study.name << ": " << study.description << "\n";
      report.verdict(study.selfConvergence ? "fields self-converge" : "fields converge to the exact solution", false,
                     "on the " + std::to_string(n) + "^3 grid, " + e.what(), seconds);
      return;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const int expected = study.expectedOrder > 0 ? study.expectedOrder : study.order;
  const std::array<double, 3> h{runs[0].h, runs[1].h, runs[2].h};
  std::string params;
  for (const auto &[name, value] : study.parameters)
    params += (params.empty() ? "" : ", ") + name + " = " + orderText(value, 0);
  report.text << study.name << ": " << study.description << "\n"
              << "grids " << study.resolutions[0] << ", " << study.resolutions[1] << ", " << study.resolutions[2]
              << " points per side on [-" << study.extent << ", " << study.extent << "]^3 ("
              << (system.periodic() ? "periodic" : "outer faces") << "), order " << study.order << ", to t = "
              << study.finalTime << (params.empty() ? "" : "; " + params) << "\n";
  char line[200];
  if (!study.selfConvergence) {
    std::snprintf(line, sizeof line, "t = %g: L2 error against the exact solution\n%14s %12s %12s %12s %8s %8s\n",
                  study.finalTime, "field", "grid 1", "grid 2", "grid 3", "p(1,2)", "p(2,3)");
    report.text << line;
    OrderTable table{study, report, expected, {}, {}, {}, {}};
    for (size_t q = 0; q < system.evolved.size(); ++q)
      table.row(system.evolved[q], {runs[0].errors.l2[q], runs[1].errors.l2[q], runs[2].errors.l2[q]}, h);
    table.verdict("fields converge to the exact solution", seconds);
  } else {
    std::snprintf(line, sizeof line, "t = %g: self-convergence at %zu probes\n%14s %14s %14s %9s\n", study.finalTime,
                  probes.size(), "field", "|u1 - u2|", "|u2 - u3|", "order");
    report.text << line;
    std::string failing, exact;
    std::vector<SelfConvergenceFailure> failingOrders;
    for (const std::string &f : system.evolved) {
      const double d12 = rmsDifference(runs[0].samples[f], runs[1].samples[f], probes.size());
      const double d23 = rmsDifference(runs[1].samples[f], runs[2].samples[f], probes.size());
      const double p = selfConvergenceOrder(d12, d23, h[0], h[1], h[2]);
      const bool roundOff = d12 <= kRoundOff && d23 <= kRoundOff;
      std::snprintf(line, sizeof line, "%14s %14.4e %14.4e %s%s\n", f.c_str(), d12, d23, orderText(p, 9).c_str(),
                    roundOff ? "  (round-off)" : "");
      report.text << line;
      report.csv << "system-self," << f << "," << d12 << "," << d23 << "," << p << "\n";
      if (roundOff)
        exact += (exact.empty() ? "" : ", ") + f;
      else if (!(std::abs(p - expected) <= study.tolerance)) {
        failing += (failing.empty() ? "" : ", ") + f + " p = " + orderText(p, 0);
        failingOrders.push_back({f, p, d12, d23});
      }
    }
    std::snprintf(line, sizeof line, "within %.2f of order %d", study.tolerance, expected);
    report.verdict("fields self-converge", failing.empty(),
                   failing.empty() ? std::string("every field ") + line + (exact.empty() ? "" : " (round-off: " + exact + ")")
                                   : "not converging at order " + std::to_string(expected) + ": " + failing,
                   seconds);
    if (const std::string hint = selfConvergenceHint(failingOrders, expected); !hint.empty())
      report.text << hint << "\n";
  }
  if (!system.residuals.empty()) {
    std::snprintf(line, sizeof line, "t = %g: L2 norms of the constraints\n%14s %12s %12s %12s %8s %8s\n",
                  study.finalTime, "constraint", "grid 1", "grid 2", "grid 3", "p(1,2)", "p(2,3)");
    report.text << line;
    OrderTable table{study, report, expected, {}, {}, {}, {}};
    for (size_t q = 0; q < system.residuals.size(); ++q)
      table.row(system.residuals[q], {runs[0].constraints.l2[q], runs[1].constraints.l2[q], runs[2].constraints.l2[q]},
                h);
    table.verdict("constraints converge", seconds);
  }
}

} // namespace tensorium_mlir::verification
