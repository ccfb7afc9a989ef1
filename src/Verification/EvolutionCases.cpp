// Evolution cases on the distributed engine: warped Kasner against its closed form, flat space
// with a non-uniform shift, and flat space staying flat.
#include "CaseSupport.h"

namespace tensorium_mlir::verification::cases {

/// Kasner, ds^2 = -dt^2 + sum_i t^(2 p_i) dx_i^2 (sum p = sum p^2 = 1), in spatial coordinates
/// warped along the first axis, x = X + eps sin(2 pi X): with J = dx/dX the slice has
///   gamma_XX = t^(2 p1) J^2, gamma_YY = t^(2 p2), gamma_ZZ = t^(2 p3), K_ij = -(1/2) d_t gamma_ij,
/// so chi = (t J)^(-2/3), K = -1/t and Gammatilde^X = -d_X gammatilde^XX
/// = (4/3) t^(2/3 - 2 p1) J^(-7/3) J'. The map is time independent, so alpha = 1, beta = 0
/// (geodesic slicing) still evolve it exactly, and the data now vary in space: the numerical
/// error is the finite-difference error (plus RK4's).
BSSNState kasner(const Grid &g, double t, const std::array<double, 3> &pk, double eps) {
  BSSNState s(g.points());
  const size_t n = s.n;
  const double twoPi = 2 * std::numbers::pi;
  for (int i = 0; i < g.n[0]; ++i) {
    const double X = g.at(i, 0, 0)[0];
    const double J = 1 + twoPi * eps * std::cos(twoPi * X), dJ = -twoPi * twoPi * eps * std::sin(twoPi * X);
    const double chi = std::pow(t * J, -2.0 / 3.0), K = -1.0 / t;
    const double gamma[3] = {std::pow(t, 2 * pk[0]) * J * J, std::pow(t, 2 * pk[1]), std::pow(t, 2 * pk[2])};
    const double Kdd[3] = {-pk[0] * std::pow(t, 2 * pk[0] - 1) * J * J, -pk[1] * std::pow(t, 2 * pk[1] - 1),
                           -pk[2] * std::pow(t, 2 * pk[2] - 1)};
    const double GammaX = 4.0 / 3.0 * std::pow(t, 2.0 / 3.0 - 2 * pk[0]) * std::pow(J, -7.0 / 3.0) * dJ;
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k) {
        const size_t p = g.index(i, j, k);
        s.chi[p] = chi;
        s.K[p] = K;
        s.alpha[p] = 1.0;
        s.Gammatilde[p] = GammaX;
        for (size_t d = 0; d < 3; ++d) {
          s.gammatilde[d * 4 * n + p] = chi * gamma[d];
          s.Atilde[d * 4 * n + p] = chi * (Kdd[d] - gamma[d] * K / 3);
        }
      }
  }
  return s;
}

int runKasner(const Options &o, Report &report) {
  std::vector<int> resolutions = o.resolutions.empty() ? std::vector<int>{16, 24, 32} : o.resolutions;
  const std::array<double, 3> pk{-1.0 / 3, 2.0 / 3, 2.0 / 3};
  const double t0 = 1.0, t1 = 1.5, eps = 0.01;
  report.text << "Kasner (p1, p2, p3) = (-1/3, 2/3, 2/3) in coordinates warped along x (x = X + 0.01 sin(2 pi X)), "
                 "geodesic slicing (slicing = 0, shift_driver = 0), Kreiss-Oliger sigma = 0.1, periodic unit cube, "
                 "RK4 from t = 1 to 1.5\n"
                 "dt = h / 2 for orders 2 and 4; for order 6, dt = (h / 2) (h / h_coarsest)^(1/2) so that RK4's "
                 "error falls like h^6 too. Error: max over the interior of |numerical - exact| in chi, K, "
                 "gammatilde, Atilde and Gammatilde.\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%6s %5s %9s %7s %14s %8s %14s %14s\n", "order", "n", "h", "steps", "max error",
                "p", "|H| t=1", "|H| t=1.5");
  bool pass = true;
  // The closed form used here against fixtures/gr/kasner_warped_3d.tn (its generated init
  // kernel) at the start and end times: gamma_ij = gammatilde_ij / chi.
  {
    Grid g = periodicUnitCube(resolutions.back(), 3);
    double mismatch = 0;
    for (double t : {t0, t1}) {
      BSSNState closed = kasner(g, t, pk, eps);
      ADMFields fixture = exactSlice("kasner_warped", g, {pk[0], pk[1], pk[2], t, eps}).adm;
      const size_t N = g.points();
      for (size_t c = 0; c < 9; ++c)
        for (size_t p = 0; p < N; ++p) {
          const double want = closed.gammatilde[c * N + p] / closed.chi[p];
          mismatch = std::max(mismatch, std::abs(fixture.gamma[c * N + p] - want) / (1 + std::abs(want)));
        }
    }
    const bool agree = mismatch <= 1e-13;
    report.text << "closed form against fixtures/gr/kasner_warped_3d.tn at t = 1 and 1.5: max relative mismatch of "
                   "gamma_ij "
                << mismatch << (agree ? " (agree)" : " (DISAGREE)") << "\n\n";
    pass = pass && agree;
  }
  // The generated right-hand side at t = 1 against the exact time derivative of the solution
  // (a centred difference in t of the closed form, step 1e-5): it must converge at the order.
  {
    char head[200];
    std::snprintf(head, sizeof head, "%6s %5s %9s %16s %16s %8s %8s\n", "order", "n", "h", "max|dAtilde err|",
                  "max|dGt err|", "p(A)", "p(Gt)");
    std::ostringstream table;
    table << "Right-hand side at t = 1 against the exact time derivative (Atilde and Gammatilde; with alpha = 1 "
             "and beta = 0 the chi, K and gammatilde equations take no spatial derivatives):\n"
          << head;
    for (int order : o.orders) {
      OrderSeries series[2];
      for (int n : resolutions) {
        Evolution e(n, order, {2.0, 0.0, 0.0, 0.1, 0.0});
        const Grid &g = e.grid;
        e.load(kasner(g, t0, pk, eps));
        e.rhs();
        const double d = 1e-5;
        BSSNState plus = kasner(g, t0 + d, pk, eps), minus = kasner(g, t0 - d, pk, eps);
        Mask interior = e.interior();
        auto worst = [&](const char *name, const std::vector<double> &a, const std::vector<double> &b) {
          std::span<double> k = e.storage.buffer(std::string("d") + name);
          double w = 0;
          const size_t N = g.points(), comps = k.size() / N;
          for (size_t c = 0; c < comps; ++c)
            for (size_t p = 0; p < N; ++p)
              if (interior[p] > 0)
                w = std::max(w, std::abs(k[c * N + p] - (a[c * N + p] - b[c * N + p]) / (2 * d)));
          return allMax(w);
        };
        const double errors[2] = {worst("Atilde", plus.Atilde, minus.Atilde),
                                  worst("Gammatilde", plus.Gammatilde, minus.Gammatilde)};
        const double p[2] = {series[0].add(errors[0], g.h[0]), series[1].add(errors[1], g.h[0])};
        char row[200];
        std::snprintf(row, sizeof row, "%6d %5d %9.5f %16.4e %16.4e %s %s\n", order, n, g.h[0], errors[0], errors[1],
                      orderText(p[0]).c_str(), orderText(p[1]).c_str());
        table << row;
      }
      pass = pass && series[0].within(o.expected(order)) && series[1].within(o.expected(order));
    }
    report.text << table.str() << "\nEvolution:\n";
  }
  report.text << line;
  for (int order : o.orders) {
    OrderSeries series;
    const double hCoarsest = 1.0 / resolutions.front();
    for (int n : resolutions) {
      const double h = 1.0 / n;
      double dtTarget = 0.5 * h;
      if (order > 4)
        dtTarget *= std::pow(h / hCoarsest, (order - 4) / 4.0);
      const int steps = static_cast<int>(std::ceil((t1 - t0) / dtTarget - 1e-9));
      const double dt = (t1 - t0) / steps;
      Evolution e(n, order, {2.0, 0.0, 0.0, 0.1, 0.0});
      const Grid &g = e.grid;
      e.load(kasner(g, t0, pk, eps));
      Mask interior = e.interior();
      ConstraintNorms c0 = evaluateConstraints(g, toADM(e.state()), order, interior);
      for (int s = 0; s < steps; ++s)
        e.step(dt);
      BSSNState end = e.state(), exact = kasner(g, t1, pk, eps);
      double error = 0;
      const size_t N = g.points();
      for (size_t p = 0; p < N; ++p)
        if (interior[p] > 0) {
          error = std::max({error, std::abs(end.chi[p] - exact.chi[p]), std::abs(end.K[p] - exact.K[p])});
          for (size_t c = 0; c < 9; ++c)
            error = std::max({error, std::abs(end.gammatilde[c * N + p] - exact.gammatilde[c * N + p]),
                              std::abs(end.Atilde[c * N + p] - exact.Atilde[c * N + p])});
          for (size_t c = 0; c < 3; ++c)
            error = std::max(error, std::abs(end.Gammatilde[c * N + p] - exact.Gammatilde[c * N + p]));
        }
      error = allMax(error);
      if (!std::isfinite(error))
        throw std::runtime_error("the Kasner evolution became non-finite at order " + std::to_string(order) + ", n = " +
                                 std::to_string(n));
      ConstraintNorms c1 = evaluateConstraints(g, toADM(end), order, interior);
      const double p = series.add(error, g.h[0]);
      std::snprintf(line, sizeof line, "%6d %5d %9.5f %7d %14.4e %s %14.4e %14.4e\n", order, n, g.h[0], steps, error,
                    orderText(p).c_str(), c0.H.max, c1.H.max);
      report.text << line;
      char row[256];
      std::snprintf(row, sizeof row, "kasner,%d,%d,%.17g,%d,%.17g,%.17g,%.6g,%.17g,%.17g,nan\n", order, n, g.h[0], steps,
                    error, error, p, c0.H.max, c1.H.max);
      report.csv << row;
      std::snprintf(row, sizeof row, "{\"label\": \"kasner\", \"order\": %d, \"n\": %d, \"h\": %.17g, \"error\": %.17g}",
                    order, n, g.h[0], error);
      report.json.push_back(row);
    }
    pass = pass && series.within(o.expected(order));
  }
  report.verdict("kasner evolution orders", pass,
                 "observed orders of the finest pair, right-hand side and evolution, within 0.3 of the "
                 "finite-difference order");
  return 0;
}

/// Flat data with a non-uniform shift beta^i(x) and B^i(x) (periodic, analytic): every shift
/// term of the right-hand side has a closed form here (alpha = 1, K = Atilde = Gammatilde = 0),
///   d_t chi = -(2/3) div beta,   d_t gammatilde_ij = d_j beta^i + d_i beta^j - (2/3) delta_ij div beta,
///   d_t Gammatilde^i = lap beta^i + (1/3) d_i div beta,   d_t beta^i = (3/4) B^i + beta^k d_k beta^i,
///   d_t B^i = d_t Gammatilde^i - eta B^i + beta^k d_k B^i,   d_t K = d_t Atilde = d_t alpha = 0,
/// so the generated right-hand side (advected Gamma-driver) must approach it at the order.
void shiftTerms(const Options &o, Report &report) {
  std::vector<int> resolutions = o.resolutions.size() >= 2 ? o.resolutions : std::vector<int>{16, 24, 32};
  const double a = 0.1, c = 0.05, tp = 2 * std::numbers::pi, eta = 2.0;
  // beta = a (sin 2pi y, sin 2pi x cos 2pi z, sin 2pi (x + z)), B = c (cos 2pi x, sin 2pi y, cos 2pi (y + z)).
  auto beta = [&](const std::array<double, 3> &x, double J[3][3], double H[3][3][3], double b[3]) {
    const double X = tp * x[0], Y = tp * x[1], Z = tp * x[2];
    b[0] = a * std::sin(Y), b[1] = a * std::sin(X) * std::cos(Z), b[2] = a * std::sin(X + Z);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        J[i][j] = 0;
        for (int k = 0; k < 3; ++k)
          H[i][j][k] = 0;
      }
    J[0][1] = a * tp * std::cos(Y);
    H[0][1][1] = -a * tp * tp * std::sin(Y);
    J[1][0] = a * tp * std::cos(X) * std::cos(Z), J[1][2] = -a * tp * std::sin(X) * std::sin(Z);
    H[1][0][0] = -a * tp * tp * std::sin(X) * std::cos(Z), H[1][2][2] = H[1][0][0];
    H[1][0][2] = H[1][2][0] = -a * tp * tp * std::cos(X) * std::sin(Z);
    J[2][0] = J[2][2] = a * tp * std::cos(X + Z);
    H[2][0][0] = H[2][0][2] = H[2][2][0] = H[2][2][2] = -a * tp * tp * std::sin(X + Z);
  };
  auto bField = [&](const std::array<double, 3> &x, double B[3], double dB[3][3]) {
    const double X = tp * x[0], Y = tp * x[1], Z = tp * x[2];
    B[0] = c * std::cos(X), B[1] = c * std::sin(Y), B[2] = c * std::cos(Y + Z);
    for (int i = 0; i < 3; ++i)
      dB[i][0] = dB[i][1] = dB[i][2] = 0;
    dB[0][0] = -c * tp * std::sin(X), dB[1][1] = c * tp * std::cos(Y);
    dB[2][1] = dB[2][2] = -c * tp * std::sin(Y + Z);
  };
  report.text << "Flat data with a non-uniform shift beta = 0.1 (sin 2pi y, sin 2pi x cos 2pi z, sin 2pi (x + z)) and "
                 "B = 0.05 (cos 2pi x, sin 2pi y, cos 2pi (y + z)): the right-hand side (advected Gamma-driver, "
                 "Kreiss-Oliger sigma = 0.1) against its closed form, max over the interior and every field\n";
  char line[200];
  std::snprintf(line, sizeof line, "%6s %5s %9s %14s %8s\n", "order", "n", "h", "max|err|", "p");
  report.text << line;
  bool pass = true;
  std::string observed;
  for (int order : o.orders) {
    OrderSeries series;
    for (int n : resolutions) {
      Evolution e(n, order, {eta, 1.0, 0.75, 0.1, 1.0});
      const Grid &g = e.grid;
      const size_t N = g.points();
      BSSNState s(N);
      std::map<std::string, std::vector<double>> expected;
      for (const char *name : {"dchi", "dgammatilde", "dK", "dAtilde", "dGammatilde", "dalpha", "dbeta", "dB"})
        expected[name].assign(name == std::string("dgammatilde") || name == std::string("dAtilde") ? 9 * N
                              : name == std::string("dGammatilde") || name == std::string("dbeta") ||
                                      name == std::string("dB")
                                  ? 3 * N
                                  : N,
                              0.0);
      for (int i = 0; i < g.n[0]; ++i)
        for (int j = 0; j < g.n[1]; ++j)
          for (int k = 0; k < g.n[2]; ++k) {
            const size_t p = g.index(i, j, k);
            const auto x = g.at(i, j, k);
            double J[3][3], H[3][3][3], b[3], B[3], dB[3][3];
            beta(x, J, H, b);
            bField(x, B, dB);
            s.chi[p] = s.alpha[p] = 1.0;
            for (size_t d = 0; d < 3; ++d) {
              s.gammatilde[d * 4 * N + p] = 1.0;
              s.beta[d * N + p] = b[d];
              s.B[d * N + p] = B[d];
            }
            const double div = J[0][0] + J[1][1] + J[2][2];
            expected["dchi"][p] = -2.0 / 3.0 * div;
            for (size_t u = 0; u < 3; ++u) {
              for (size_t w = 0; w < 3; ++w)
                expected["dgammatilde"][(u * 3 + w) * N + p] = J[u][w] + J[w][u] - (u == w ? 2.0 / 3.0 * div : 0.0);
              double lap = 0, gradDiv = 0, advectBeta = 0, advectB = 0;
              for (size_t m = 0; m < 3; ++m) {
                lap += H[u][m][m];
                gradDiv += H[m][m][u];
                advectBeta += b[m] * J[u][m];
                advectB += b[m] * dB[u][m];
              }
              const double dGt = lap + gradDiv / 3;
              expected["dGammatilde"][u * N + p] = dGt;
              expected["dbeta"][u * N + p] = 0.75 * B[u] + advectBeta;
              expected["dB"][u * N + p] = dGt - eta * B[u] + advectB;
            }
          }
      e.load(s);
      e.rhs();
      Mask interior = e.interior();
      double worst = 0;
      for (auto &[name, want] : expected) {
        std::span<double> got = e.storage.buffer(name);
        std::vector<double> error(got.begin(), got.end());
        for (size_t q = 0; q < error.size(); ++q)
          error[q] -= want[q];
        for (size_t comp = 0; comp < error.size() / N; ++comp)
          worst = std::max(worst, norms(std::span<const double>(error).subspan(comp * N, N), interior).max);
      }
      const double p = series.add(worst, g.h[0]);
      std::snprintf(line, sizeof line, "%6d %5d %9.5f %14.4e %s\n", order, n, g.h[0], worst, orderText(p).c_str());
      report.text << line;
    }
    pass = pass && series.within(o.expected(order));
    std::snprintf(line, sizeof line, "%sorder %d: p = %.3f, required within 0.3 of %d", observed.empty() ? "" : "; ",
                  order, series.last(), o.expected(order));
    observed += line;
  }
  report.verdict("shift terms orders", pass, "shift terms, finest pair: " + observed);
}

int runFlat(const Options &o, Report &report) {
  std::vector<int> resolutions = o.resolutions.empty() ? std::vector<int>{24} : o.resolutions;
  report.text << "Flat space (chi = alpha = 1, gammatilde = delta, everything else 0), 1+log slicing and Gamma-driver "
                 "shift (eta = 2), Kreiss-Oliger sigma = 0.1, periodic cube, 20 RK4 steps with dt = h / 4: every field must stay at its flat "
                 "value to round-off\n\n";
  char line[200];
  std::snprintf(line, sizeof line, "%6s %5s %7s %16s %14s %14s\n", "order", "n", "steps", "max |u - flat|", "|H| end",
                "|M| end");
  report.text << line;
  bool pass = true;
  for (int order : o.orders)
    for (int n : resolutions) {
      Evolution e(n, order, {2.0, 1.0, 0.75, 0.1, 1.0});
      const Grid &g = e.grid;
      BSSNState flat(g.points());
      for (size_t p = 0; p < flat.n; ++p) {
        flat.chi[p] = flat.alpha[p] = 1.0;
        for (size_t d = 0; d < 3; ++d)
          flat.gammatilde[d * 4 * flat.n + p] = 1.0;
      }
      e.load(flat);
      for (int s = 0; s < 20; ++s)
        e.step(0.25 * g.h[0]);
      BSSNState end = e.state();
      const double deviation = allMax(maxDifference(end, flat));
      ConstraintNorms c = evaluateConstraints(g, toADM(end), order, e.interior());
      std::snprintf(line, sizeof line, "%6d %5d %7d %16.4e %14.4e %14.4e\n", order, n, 20, deviation, c.H.max, c.M.max);
      report.text << line;
      // Second differences of round-off: eps / h^2 scale.
      const double eps = std::numeric_limits<double>::epsilon();
      pass = pass && deviation <= 1e-13 && c.H.max <= 1000 * eps / (g.h[0] * g.h[0]);
    }
  report.verdict("flat evolution stays flat", pass, "max deviation <= 1e-13, max |H| <= 1000 eps / h^2");
  report.text << "\n";
  shiftTerms(o, report);
  return 0;
}

} // namespace tensorium_mlir::verification::cases
