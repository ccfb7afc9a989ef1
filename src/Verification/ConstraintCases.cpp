// Constraint cases: two-puncture handoffs and exact slices on Cartesian grids, and the BSSN
// right-hand side on the static (and moving) Schwarzschild slice, Cartesian and spherical.
#include "CaseSupport.h"

namespace tensorium_mlir::verification::cases {

/// Handoff of a solved two-puncture configuration through TwoPunctureHandoff's SoA buffers.
BSSNState handoffState(const Grid &g, const physics::TwoPunctureSolution &solution) {
  const size_t n = g.points();
  std::vector<double> x(n), y(n), z(n);
  for (int i = 0; i < g.n[0]; ++i)
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k) {
        auto c = g.at(i, j, k);
        const size_t p = g.index(i, j, k);
        x[p] = c[0], y[p] = c[1], z[p] = c[2];
      }
  BSSNState s(n);
  std::vector<double> gt6(6 * n), At6(6 * n);
  physics::BSSNFieldBuffers buffers{s.chi, gt6, s.K, At6, s.Gammatilde, s.alpha, s.beta, s.B, {}, {}};
  physics::TwoPunctureHandoff(solution).write(x, y, z, buffers);
  expandSymmetric(gt6, s.gammatilde, n);
  expandSymmetric(At6, s.Atilde, n);
  return s;
}

/// Domain, norm box, punctures and excision radius of each constraint case.
HandoffGeometry handoffGeometry(const std::string &name) {
  HandoffGeometry g;
  g.punctures = name == "schwarzschild-isotropic" ? PunctureSet{{{0, 0, 0}}} : PunctureSet{{{1.0, 0, 0}, {-1.0, 0, 0}}};
  if (name == "schwarzschild-isotropic")
    g.excision = 0.8;
  return g;
}

int runHandoffCase(const HandoffCase &c, const Options &o, Report &report) {
  std::vector<int> resolutions = o.resolutions.empty() ? std::vector<int>{49, 65, 81} : o.resolutions;
  report.text << c.description << "\n"
              << "grids: [-" << c.L << ", " << c.L << "]^3; norms over |x|, |y|, |z| <= " << c.box
              << " (smooth taper over the last 0.4) outside balls of radius " << c.excision
              << " around the punctures (weight rising smoothly to 1 at radius " << c.excision + 0.3
              << "); weighted L2 and max norms\n\n";
  std::map<int, std::vector<ConvergenceRow>> byOrder;
  for (int n : resolutions) {
    const Grid whole = cube(n, c.L);
    // This rank's part of the grid, with ghosts as wide as the widest constraint stencil.
    distributed::DistributedGrid part(gComm, {{n, n, n}, {whole.lo[0], whole.lo[1], whole.lo[2]},
                                              {whole.h[0], whole.h[1], whole.h[2]}, 3, distributed::Boundary::Open}, 1);
    const Grid g = localGrid(part);
    auto start = std::chrono::steady_clock::now();
    BSSNState s = c.state(g);
    ADMFields adm = toADM(s);
    Mask mask = evaluationMask(g, c.box, c.punctures, c.excision) * ownedMask(part);
    for (int order : o.orders) {
      ConvergenceRow row{"constraints", order, n, g.h[0], evaluateConstraints(g, adm, order, mask)};
      byOrder[order].push_back(row);
    }
    if (gRank == 0)
      std::fprintf(stderr, "  n=%d: data and constraints in %.2f s\n", n,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  for (auto &[order, rows] : byOrder)
    judgeConvergence(rows, "Hamiltonian and momentum constraints, finite-difference order " + std::to_string(order),
                     "constraints order " + std::to_string(order), o.expected(order), report);
  return 0;
}

physics::TwoPunctureOptions solverOptions() {
  physics::TwoPunctureOptions options;
  options.nA = options.nB = 28;
  options.nPhi = 14;
  return options;
}

/// Solved once on rank 0; every rank receives the collocation values.
physics::TwoPunctureSolution solvePunctures(const physics::TwoPunctureParameters &p) {
  const tensorium_module_tables &t = moduleFor("two_puncture", 0).module->tables();
  physics::TwoPunctureSolution s = distributed::solveTwoPuncturesOnRoot(gComm, &t.spectral_kernels[0], p, solverOptions());
  if (gRank == 0)
    std::fprintf(stderr, "  two-puncture solve: %d Newton, %d Krylov iterations, M_ADM = %.12f\n", s.result().iterations,
                 s.result().krylovIterations, s.admMass());
  return s;
}

/// Static Schwarzschild in isotropic coordinates with alpha = (1 - M/2r)/(1 + M/2r): the BSSN
/// right-hand side vanishes analytically, so its finite-difference value must fall like h^p.
/// The static Schwarzschild slice, once at rest and once in coordinates moving with constant
/// velocity -v (shift beta = v): the exact time derivative of every field is then v^k d_k of it
/// (zero at rest), so the generated right-hand side must approach it at the scheme's order. The
/// moving run exercises the advection terms beta^k d_k of every equation.
void schwarzschildStatic(const Options &o, Report &report, double M, double L, double box, double excision) {
  std::vector<int> resolutions = o.resolutions.empty() ? std::vector<int>{49, 65, 81} : o.resolutions;
  const std::array<double, 3> v{0.3, -0.2, 0.1};
  report.text << "Static lapse alpha = (1 - M/2r)/(1 + M/2r) from the fixture: the BSSN right-hand side equals the "
                 "exact time derivative, 0 at rest (Ricci and lapse terms balance) and v^k d_k u with a constant "
                 "shift beta = v = (0.3, -0.2, 0.1) (coordinates moving with -v); max error over the same box "
                 "outside r = "
              << excision << "\n";
  char line[200];
  std::snprintf(line, sizeof line, "%6s %5s %9s %14s %8s %14s %8s\n", "order", "n", "h", "max|err| rest", "p",
                "max|err| moving", "p");
  report.text << line;
  bool pass = true;
  for (int order : o.orders) {
    OrderSeries series[2];
    for (int n : resolutions) {
      Evolution e(Evolution::openGrid(cube(n, L)), order, {2.0, 1.0, 0.75, 0.1, 1.0});
      const Grid &g = e.grid;
      // fixtures/gr/schwarzschild_isotropic_3d.tn supplies the metric and the static lapse.
      BSSNState s = fromConformallyFlatADM(exactSlice("schwarzschild", g, {M}));
      Mask mask = evaluationMask(g, box, {{{0, 0, 0}}}, excision) * e.interior();
      double worst[2] = {0, 0};
      for (int moving = 0; moving < 2; ++moving) {
        const size_t N = g.points();
        for (size_t c = 0; c < 3; ++c)
          for (size_t p = 0; p < N; ++p)
            s.beta[c * N + p] = moving ? v[c] : 0.0;
        e.load(s);
        e.rhs(); // open faces: the slice is not periodic

        // Exact v . grad of chi = psi^-4 and alpha = (1 - q)/(1 + q), q = M/2r; every other field
        // is constant in space (gammatilde = delta) or zero.
        std::vector<double> dchi(N, 0.0), dalpha(N, 0.0);
        if (moving)
          for (int i = 0; i < g.n[0]; ++i)
            for (int j = 0; j < g.n[1]; ++j)
              for (int k = 0; k < g.n[2]; ++k) {
                auto x = g.at(i, j, k);
                const double r = std::hypot(x[0], x[1], x[2]), q = M / (2 * r), psi = 1 + q;
                const double vDotGradQ = -q * (v[0] * x[0] + v[1] * x[1] + v[2] * x[2]) / (r * r);
                dchi[g.index(i, j, k)] = -4 * std::pow(psi, -5) * vDotGradQ;
                dalpha[g.index(i, j, k)] = -2 / (psi * psi) * vDotGradQ;
              }
        for (auto &[d, x] : e.pairs) {
          std::span<double> b = e.storage.buffer(d);
          const size_t comps = b.size() / N;
          const std::vector<double> *exact = d == "dchi" ? &dchi : d == "dalpha" ? &dalpha : nullptr;
          for (size_t c = 0; c < comps; ++c) {
            std::vector<double> error(b.begin() + static_cast<std::ptrdiff_t>(c * N),
                                      b.begin() + static_cast<std::ptrdiff_t>((c + 1) * N));
            if (exact)
              for (size_t p = 0; p < N; ++p)
                error[p] -= (*exact)[p];
            worst[moving] = std::max(worst[moving], norms(error, mask).max);
          }
        }
      }
      const double p[2] = {series[0].add(worst[0], g.h[0]), series[1].add(worst[1], g.h[0])};
      std::snprintf(line, sizeof line, "%6d %5d %9.5f %14.4e %s %14.4e %s\n", order, n, g.h[0], worst[0],
                    orderText(p[0]).c_str(), worst[1], orderText(p[1]).c_str());
      report.text << line;
    }
    pass = pass && series[0].within(o.expected(order)) && series[1].within(o.expected(order));
  }
  report.verdict("static and moving Schwarzschild right-hand side orders", pass, "finest pairs within 0.3 of the order");
  report.text << "\n";
}

/// The same slice in spherical coordinates (r, theta, phi): gamma = psi^4 diag(1, r^2, r^2 sin^2 theta).
void schwarzschildSpherical(const Options &o, Report &report, double M) {
  std::vector<int> resolutions = o.resolutions.empty() ? std::vector<int>{49, 65, 81} : o.resolutions;
  const double r0 = 0.6, r1 = 3.0, th0 = 0.4, th1 = std::numbers::pi - 0.4, ph1 = 1.0;
  std::vector<ConvergenceRow> rows;
  std::map<int, std::vector<ConvergenceRow>> byOrder;
  double mismatch = 0;
  for (int n : resolutions) {
    distributed::DistributedGrid part(gComm, {{n, n, n}, {r0, th0, 0.0}, {(r1 - r0) / (n - 1), (th1 - th0) / (n - 1), ph1 / (n - 1)}, 3,
                                              distributed::Boundary::Open}, 1);
    const Grid g = localGrid(part);
    const int64_t k0 = part.ghosted().begin[2]; // global index of the local grid's first phi point
    const Mask owned = ownedMask(part);
    const size_t N = g.points();
    // fixtures/gr/schwarzschild_spherical_3d.tn; checked against psi^4 diag(1, r^2, r^2 sin^2 theta).
    ADMFields a = exactSlice("schwarzschild_spherical", g, {M}).adm;
    Mask mask(N, 0.0);
    for (int i = 0; i < g.n[0]; ++i)
      for (int j = 0; j < g.n[1]; ++j)
        for (int k = 0; k < g.n[2]; ++k) {
          auto q = g.at(i, j, k);
          const size_t p = g.index(i, j, k);
          const double psi4 = std::pow(1 + M / (2 * q[0]), 4), s = std::sin(q[1]);
          const double diag[3] = {psi4, psi4 * q[0] * q[0], psi4 * q[0] * q[0] * s * s};
          for (size_t d = 0; d < 3; ++d)
            mismatch = std::max(mismatch, std::abs(a.gamma[d * 4 * N + p] - diag[d]) / diag[d]);
          // The central part of the shell in r and theta, all of phi's interior.
          mask[p] = smoothStep((q[0] - 1.0) / 0.3) * smoothStep((2.6 - q[0]) / 0.3) * smoothStep((q[1] - 0.7) / 0.3) *
                    smoothStep((std::numbers::pi - 0.7 - q[1]) / 0.3) * (k + k0 >= 3 && k + k0 <= n - 4 ? 1.0 : 0.0) *
                    owned[p];
        }
    for (int order : o.orders)
      byOrder[order].push_back({"spherical", order, n, g.h[0], evaluateConstraints(g, a, order, mask)});
  }
  for (auto &[order, r] : byOrder)
    judgeConvergence(r, "Spherical coordinates (r, theta, phi) on r in [0.6, 3], theta in [0.4, pi - 0.4], phi in [0, 1]; "
                        "norms over r in [1, 2.6], theta in [0.7, pi - 0.7]; h is the radial spacing; order " +
                            std::to_string(order),
                     "spherical constraints order " + std::to_string(order), o.expected(order), report);
  mismatch = allMax(mismatch);
  const bool agree = mismatch <= 1e-13;
  report.text << "spherical fixture metric against psi^4 diag(1, r^2, r^2 sin^2 theta): max relative mismatch "
              << mismatch << (agree ? " (agree)" : " (DISAGREE)") << "\n";
  report.verdict("spherical fixture metric against the closed form", agree, "max relative mismatch <= 1e-13");
}

} // namespace tensorium_mlir::verification::cases
