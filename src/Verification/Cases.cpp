// The built-in cases by name: defaults, memory and norm-region checks, and the dispatch.
#include "CaseSupport.h"

namespace tensorium_mlir::verification {

using namespace cases;

void configureCases(MPI_Comm comm, const std::string &kernelDirectory) {
  gComm = comm;
  MPI_Comm_rank(comm, &gRank);
  gKernelDir = kernelDirectory;
}

const std::vector<std::string> &builtinCases() {
  static const std::vector<std::string> names{"two-puncture-boosted", "two-puncture-spinning", "brill-lindquist",
                                              "schwarzschild-isotropic", "kasner-evolution", "flat-evolution"};
  return names;
}

bool isBuiltinCase(const std::string &name) {
  for (const std::string &n : builtinCases())
    if (n == name)
      return true;
  return false;
}

std::vector<int> defaultResolutions(const std::string &name) {
  return name == "kasner-evolution" ? std::vector<int>{16, 24, 32}
         : name == "flat-evolution" ? std::vector<int>{24, 32}
                                    : std::vector<int>{49, 65, 81};
}

size_t minimumResolutions(const std::string &name) {
  return name == "flat-evolution" ? 1 : name == "kasner-evolution" ? 2 : 3;
}

namespace cases {
/// Peak memory of a case at its largest resolution (all ranks together), from the measured
/// per-point costs in docs/memory.md: constraint cases keep the BSSN state, the ADM fields, the
/// mask and the constraint kernel's storage per point; the Schwarzschild case adds the BSSN
/// right-hand side on the distributed engine; evolutions keep PETSc's state, RK4 stages, the
/// ghosted local vector and the kernel storage per ghosted point.
double memoryEstimate(const std::string &name, const std::vector<int> &resolutions, const std::vector<int> &orders) {
  const double n = *std::max_element(resolutions.begin(), resolutions.end());
  const int order = *std::max_element(orders.begin(), orders.end());
  if (name == "kasner-evolution" || name == "flat-evolution") {
    const double ghosted = n + 2 * (order / 2 + 1);
    return 35e6 + 3500 * ghosted * ghosted * ghosted;
  }
  if (name == "schwarzschild-isotropic")
    return 65e6 + 1700 * n * n * n;
  const double solve = name.rfind("two-puncture", 0) == 0 ? physics::twoPunctureMemoryEstimate(solverOptions()) : 0;
  return 55e6 + 710 * n * n * n + solve;
}

/// Before any work: every resolution of a constraint case leaves points in the norm region, and
/// no stencil of a weighted point reaches a puncture that sits on a grid point (the data are
/// singular there). Throws UsageError naming the resolution.
void checkNormRegions(const std::string &name, const std::vector<int> &resolutions, const std::vector<int> &orders) {
  if (name == "kasner-evolution" || name == "flat-evolution")
    return;
  const HandoffGeometry geometry = handoffGeometry(name);
  const int order = *std::max_element(orders.begin(), orders.end());
  for (int n : resolutions) {
    const Grid g = cube(n, geometry.L);
    const double h = g.h[0], reach = (order / 2) * h * std::sqrt(3.0);
    // Points strictly inside the box taper along one axis; the region needs one per axis and a
    // box point outside every excision ball (the outermost box points are the farthest).
    std::vector<double> inside;
    for (int i = 0; i < n; ++i)
      if (std::abs(g.at(i, 0, 0)[0]) < geometry.box)
        inside.push_back(g.at(i, 0, 0)[0]);
    bool found = false;
    if (!inside.empty())
      for (double x : {inside.front(), inside.back()})
        for (double y : {inside.front(), inside.back()})
          for (double z : {inside.front(), inside.back()}) {
            bool outside = true;
            for (const auto &c : geometry.punctures.centres)
              outside = outside && std::hypot(x - c[0], y - c[1], z - c[2]) > geometry.excision;
            found = found || outside;
          }
    if (!found)
      throw std::invalid_argument("resolution " + std::to_string(n) + " leaves no grid point in the norm region (|x|, |y|, |z| < " +
                                      std::to_string(geometry.box) + " outside radius " +
                                      std::to_string(geometry.excision) + " of the punctures)");
    for (const auto &c : geometry.punctures.centres) {
      bool onGrid = true;
      for (int a = 0; a < 3; ++a) {
        const double s = (c[a] - g.lo[a]) / h;
        onGrid = onGrid && std::abs(s - std::round(s)) < 1e-9;
      }
      if (onGrid && reach >= geometry.excision)
        throw std::invalid_argument(
            "resolution " + std::to_string(n) + " puts a grid point on the puncture at (" + std::to_string(c[0]) + ", " +
            std::to_string(c[1]) + ", " + std::to_string(c[2]) + ") and order-" + std::to_string(order) +
            " stencils of weighted points reach it (h = " + std::to_string(h) + "): choose another resolution");
    }
  }
}
} // namespace cases

double caseMemoryEstimate(const std::string &name, const std::vector<int> &resolutions, const std::vector<int> &orders) {
  return memoryEstimate(name, resolutions, orders);
}

void checkCaseNormRegions(const std::string &name, const std::vector<int> &resolutions, const std::vector<int> &orders) {
  checkNormRegions(name, resolutions, orders);
}

void runCase(const std::string &name, const CaseOptions &o, Report &report) {
  report.text << "tensorium-verify " << name << "\n";
  if (name == "two-puncture-boosted" || name == "two-puncture-spinning") {
    physics::TwoPunctureParameters p;
    p.b = 1.0;
    p.m1 = p.m2 = 0.5;
    if (name == "two-puncture-boosted")
      p.P1 = {0.0, 0.2, 0.0}, p.P2 = {0.0, -0.2, 0.0};
    else
      p.S1 = {0.0, 0.0, 0.2}, p.S2 = {0.0, 0.0, -0.1}, p.P1 = {0.0, 0.1, 0.0}, p.P2 = {0.0, -0.1, 0.0};
    auto solution = std::make_shared<physics::TwoPunctureSolution>(solvePunctures(p));
    HandoffCase c;
    static_cast<HandoffGeometry &>(c) = handoffGeometry(name);
    c.description = name == "two-puncture-boosted"
                        ? "two punctures b = 1, m1 = m2 = 0.5, P1 = -P2 = (0, 0.2, 0); spectral solve 28 x 28 x 14"
                        : "two punctures b = 1, m1 = m2 = 0.5, P1 = -P2 = (0, 0.1, 0), S1 = (0, 0, 0.2), "
                          "S2 = (0, 0, -0.1); spectral solve 28 x 28 x 14";
    c.state = [solution](const Grid &g) { return handoffState(g, *solution); };
    runHandoffCase(c, o, report);
  } else if (name == "brill-lindquist" || name == "schwarzschild-isotropic") {
    // The exact data come from the project's fixtures (generated init kernels); the closed
    // form of psi checks them on every grid.
    const bool bl = name == "brill-lindquist";
    auto psi = [bl](const std::array<double, 3> &x) {
      return bl ? 1 + 0.5 / (2 * std::hypot(x[0] - 1, x[1], x[2])) + 0.3 / (2 * std::hypot(x[0] + 1, x[1], x[2]))
                : 1 + 1.0 / (2 * std::hypot(x[0], x[1], x[2]));
    };
    auto mismatch = std::make_shared<double>(0.0);
    HandoffCase c;
    static_cast<HandoffGeometry &>(c) = handoffGeometry(name);
    c.description = bl ? "Brill-Lindquist data m1 = 0.5 at (1, 0, 0), m2 = 0.3 at (-1, 0, 0) from "
                         "fixtures/gr/brill_lindquist_3d.tn, K_ij = 0"
                       : "Schwarzschild M = 1 in isotropic Cartesian coordinates from "
                         "fixtures/gr/schwarzschild_isotropic_3d.tn, K_ij = 0";
    c.state = [bl, psi, mismatch](const Grid &g) {
      ExactSlice e = bl ? exactSlice("brill_lindquist", g, {0.5, 0.3, 1, 0, 0, -1, 0, 0})
                        : exactSlice("schwarzschild", g, {1.0});
      *mismatch = std::max(*mismatch, conformalFlatnessMismatch(g, e.adm, psi));
      return fromConformallyFlatADM(e);
    };
    runHandoffCase(c, o, report);
    const bool agree = *mismatch <= 1e-13;
    report.text << "fixture metric against psi^4 delta_ij from the closed form: max relative mismatch "
                << *mismatch << (agree ? " (agree)" : " (DISAGREE)") << "\n";
    report.verdict("fixture metric against the closed form", agree, "max relative mismatch <= 1e-13");
    report.text << "\n";
    if (!bl) {
        // The 3+1 split of the fixture's metric4 gives alpha = |(1 - M/2r)/(1 + M/2r)|, which has a
      // kink at r = M/2: exclude r <= 1 so that no stencil (radius <= 4 h) reaches it.
      schwarzschildStatic(o, report, 1.0, c.L, c.box, 1.0);
      schwarzschildSpherical(o, report, 1.0);
    }
  } else if (name == "kasner-evolution") {
    runKasner(o, report);
  } else if (name == "flat-evolution") {
    runFlat(o, report);
  } else {
    throw std::invalid_argument("unknown case '" + name + "'");
  }
}

} // namespace tensorium_mlir::verification
