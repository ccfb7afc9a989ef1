// The spacetime check: 4-Ricci and box x^mu of a fixture's metric by finite differences.
#include "tensorium_mlir/Support/FiniteDifferenceWeights.h"
#include "tensorium_mlir/Verification/SpacetimeCheck.h"

#include "CaseSupport.h"

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace tensorium_mlir::verification {

namespace {

/// Centred stencil weights (offsets -s..s) of the first and second derivative at even order.
struct Stencil {
  int s = 0;
  std::vector<double> first, second;
};

Stencil stencil(int order) {
  if (order < 0 || !support::isFiniteDifferenceOrder(static_cast<unsigned>(order)))
    throw std::invalid_argument("spacetime check: finite-difference orders are 2, 4, 6 or 8 (got " + std::to_string(order) + ")");
  const auto p = static_cast<unsigned>(order);
  return {order / 2, support::firstDerivativeWeights(p), support::secondDerivativeWeights(p)};
}

using Matrix4 = Eigen::Matrix4d;

/// R_bd = d_a Gamma^a_bd - d_d Gamma^a_ba + Gamma^a_ae Gamma^e_bd - Gamma^a_de Gamma^e_ba from
/// g, dg[e] = d_e g and ddg[e][f] = d_e d_f g at one event.
SpacetimeResidual curvature(const Matrix4 &g, const std::array<Matrix4, 4> &dg, const std::array<std::array<Matrix4, 4>, 4> &ddg) {
  const Matrix4 gi = g.inverse();
  // Gamma_{c,ab} = (d_a g_bc + d_b g_ac - d_c g_ab) / 2 and its derivatives.
  double low[4][4][4], dlow[4][4][4][4], gam[4][4][4], dgam[4][4][4][4];
  for (int c = 0; c < 4; ++c)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        low[c][a][b] = 0.5 * (dg[a](b, c) + dg[b](a, c) - dg[c](a, b));
        for (int e = 0; e < 4; ++e)
          dlow[e][c][a][b] = 0.5 * (ddg[e][a](b, c) + ddg[e][b](a, c) - ddg[e][c](a, b));
      }
  // d_e g^dc = -g^df d_e g_fh g^hc
  std::array<Matrix4, 4> dgi;
  for (int e = 0; e < 4; ++e)
    dgi[e] = -gi * dg[e] * gi;
  for (int d = 0; d < 4; ++d)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        double v = 0;
        for (int c = 0; c < 4; ++c)
          v += gi(d, c) * low[c][a][b];
        gam[d][a][b] = v;
        for (int e = 0; e < 4; ++e) {
          double dv = 0;
          for (int c = 0; c < 4; ++c)
            dv += dgi[e](d, c) * low[c][a][b] + gi(d, c) * dlow[e][c][a][b];
          dgam[e][d][a][b] = dv;
        }
      }
  SpacetimeResidual out;
  for (int b = 0; b < 4; ++b)
    for (int d = 0; d < 4; ++d) {
      double r = 0;
      for (int a = 0; a < 4; ++a) {
        r += dgam[a][a][b][d] - dgam[d][a][b][a];
        for (int e = 0; e < 4; ++e)
          r += gam[a][a][e] * gam[e][b][d] - gam[a][d][e] * gam[e][b][a];
      }
      out.ricci[static_cast<size_t>(b * 4 + d)] = r;
    }
  for (int m = 0; m < 4; ++m) {
    double v = 0;
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        v -= gi(a, b) * gam[m][a][b];
    out.box[static_cast<size_t>(m)] = v;
  }
  return out;
}

} // namespace

std::vector<SpacetimeResidual> spacetimeResiduals(const MetricSampler &metric, std::span<const std::array<double, 4>> events,
                                                  double h, int order) {
  if (!(h > 0) || !std::isfinite(h))
    throw std::invalid_argument("spacetime check: the step must be positive and finite");
  const Stencil st = stencil(order);
  const int w = 2 * st.s + 1, cube = w * w * w;
  std::vector<SpacetimeResidual> out;
  out.reserve(events.size());
  std::vector<std::array<double, 3>> points(static_cast<size_t>(cube));
  // lattice[m][q]: g at time offset m and spatial offset q (x slowest) around the event.
  std::vector<std::vector<std::array<double, 16>>> lattice(static_cast<size_t>(w),
                                                           std::vector<std::array<double, 16>>(static_cast<size_t>(cube)));
  for (const std::array<double, 4> &ev : events) {
    for (int i = 0; i < w; ++i)
      for (int j = 0; j < w; ++j)
        for (int k = 0; k < w; ++k)
          points[static_cast<size_t>((i * w + j) * w + k)] = {ev[1] + (i - st.s) * h, ev[2] + (j - st.s) * h,
                                                               ev[3] + (k - st.s) * h};
    for (int m = 0; m < w; ++m)
      metric(ev[0] + (m - st.s) * h, points, lattice[static_cast<size_t>(m)]);
    // The metric at an offset (o_t, o_x, o_y, o_z), each in -s..s.
    auto at = [&](const std::array<int, 4> &o) {
      const std::array<double, 16> &v =
          lattice[static_cast<size_t>(o[0] + st.s)][static_cast<size_t>(((o[1] + st.s) * w + o[2] + st.s) * w + o[3] + st.s)];
      Matrix4 g;
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
          g(a, b) = v[static_cast<size_t>(a * 4 + b)];
      return g;
    };
    const Matrix4 g = at({0, 0, 0, 0});
    std::array<Matrix4, 4> dg;
    std::array<std::array<Matrix4, 4>, 4> ddg;
    for (int a = 0; a < 4; ++a) {
      dg[a].setZero();
      ddg[a][a].setZero();
      for (int q = -st.s; q <= st.s; ++q) {
        std::array<int, 4> o{};
        o[static_cast<size_t>(a)] = q;
        const Matrix4 v = at(o);
        dg[a] += st.first[static_cast<size_t>(q + st.s)] / h * v;
        ddg[a][a] += st.second[static_cast<size_t>(q + st.s)] / (h * h) * v;
      }
      for (int b = 0; b < a; ++b) {
        Matrix4 mixed = Matrix4::Zero();
        for (int p = -st.s; p <= st.s; ++p)
          for (int q = -st.s; q <= st.s; ++q) {
            const double c = st.first[static_cast<size_t>(p + st.s)] * st.first[static_cast<size_t>(q + st.s)];
            if (c == 0)
              continue;
            std::array<int, 4> o{};
            o[static_cast<size_t>(a)] = p;
            o[static_cast<size_t>(b)] = q;
            mixed += c / (h * h) * at(o);
          }
        ddg[a][b] = mixed;
        ddg[b][a] = mixed;
      }
    }
    out.push_back(curvature(g, dg, ddg));
  }
  return out;
}

std::vector<std::array<double, 4>> sampleEvents(const std::vector<double> &times, const std::array<double, 3> &lo,
                                                const std::array<double, 3> &hi, int count,
                                                const std::vector<std::array<double, 3>> &centres, double excision) {
  for (int a = 0; a < 3; ++a)
    if (!(hi[static_cast<size_t>(a)] > lo[static_cast<size_t>(a)]))
      throw std::invalid_argument("spacetime check: the sample box needs hi > lo along every axis");
  std::mt19937_64 random(20261206);
  std::vector<std::array<double, 4>> events;
  for (double t : times) {
    int found = 0;
    for (int tries = 0; found < count; ++tries) {
      if (tries > 1000 * count)
        throw std::invalid_argument("spacetime check: the sample box lies (almost) entirely inside the excision balls");
      std::array<double, 3> p;
      for (size_t a = 0; a < 3; ++a)
        p[a] = lo[a] + (hi[a] - lo[a]) * std::generate_canonical<double, 53>(random);
      bool excised = false;
      for (const std::array<double, 3> &c : centres)
        excised = excised || std::hypot(p[0] - c[0], p[1] - c[1], p[2] - c[2]) < excision;
      if (excised)
        continue;
      events.push_back({t, p[0], p[1], p[2]});
      ++found;
    }
  }
  return events;
}

std::array<std::string, 4> fixtureCoordinateNames(const std::string &modulePath) {
  const cases::LoadedModule &m = cases::moduleAt(modulePath);
  const runtime::GeneratedHostStorage storage(m.tables(), {1, 1, 1});
  if (storage.hasBuffer("r"))
    return {"t", "r", "theta", "phi"};
  return {"t", "x", "y", "z"};
}

MetricSampler fixtureMetric(const std::string &modulePath, std::vector<double> parameters, int timeParameter) {
  const cases::LoadedModule *m = &cases::moduleAt(modulePath);
  const std::array<std::string, 4> names = fixtureCoordinateNames(modulePath);
  return [m, parameters, timeParameter, names](double t, std::span<const std::array<double, 3>> points,
                                               std::span<std::array<double, 16>> g) mutable {
    const int n = static_cast<int>(points.size());
    runtime::GeneratedHostStorage storage(m->tables(), {n, 1, 1});
    for (size_t a = 0; a < 3; ++a) {
      std::span<double> c = storage.buffer(names[a + 1]);
      for (size_t p = 0; p < points.size(); ++p)
        c[p] = points[p][a];
    }
    if (timeParameter >= 0)
      parameters[static_cast<size_t>(timeParameter)] = t;
    storage.invoke(m->adapters(), cases::kSliceKernelSymbol, parameters, {1, 1, 1});
    const char *what = "the spacetime check (g_mu_nu from alpha, beta^i and gamma_ij)";
    std::span<const double> alpha = storage.kernelOutput("alpha", what), beta = storage.kernelOutput("beta", what),
                            gamma = storage.kernelOutput("gamma", what);
    const size_t np = points.size();
    for (size_t p = 0; p < np; ++p) {
      std::array<double, 16> &out = g[p];
      double lower[3] = {0, 0, 0}, b2 = 0;
      for (size_t i = 0; i < 3; ++i) {
        for (size_t j = 0; j < 3; ++j) {
          const double gij = gamma[(i * 3 + j) * np + p];
          out[(i + 1) * 4 + j + 1] = gij;
          lower[i] += gij * beta[j * np + p];
        }
        b2 += lower[i] * beta[i * np + p];
      }
      out[0] = -alpha[p] * alpha[p] + b2;
      for (size_t i = 0; i < 3; ++i)
        out[i + 1] = out[(i + 1) * 4] = lower[i];
    }
  };
}

SpacetimeStudy spacetimeStudyFrom(const StudyFile &study, const std::string &modulePath) {
  SpacetimeStudy out;
  out.name = study.name;
  out.description = study.description;
  out.module = modulePath;
  const cases::LoadedModule *m = nullptr;
  try {
    m = &cases::moduleAt(modulePath);
  } catch (const std::exception &e) {
    study.fail("spacetime.fixture", e.what());
  }
  const tensorium_module_tables &t = m->module->tables();
  const cases::SliceKernelOutputs slice = cases::sliceKernelOutputs(t, {"alpha", "beta", "gamma"});
  if (!slice.missing.empty())
    study.fail("spacetime.fixture", "its split_3p1 does not map '" + slice.missing +
                                        "' (the check rebuilds g_mu_nu from alpha, beta and gamma)");
  if (!slice.present)
    study.fail("spacetime.fixture", std::string("its program has no ") + cases::kSliceKernelSymbol +
                                        " kernel (an initial_data block with a metric4 and a split_3p1 mapping beta)");
  std::vector<std::string> names;
  for (int i = 0; i < t.param_count; ++i)
    names.push_back(t.param_names[i]);
  for (const auto &[name, value] : study.spacetimeParameters)
    if (name == "t")
      study.fail("spacetime.parameters.t", "t is the check's own coordinate (set sample.times)");
  out.parameters = parametersInModuleOrder(study, "spacetime.parameters", study.spacetimeParameters, names,
                                           "the fixture", &out.timeParameter);
  try {
    out.events = sampleEvents(study.sampleTimes, study.sampleLo, study.sampleHi, study.sampleCount, study.sampleCentres,
                              study.sampleExcision);
  } catch (const std::invalid_argument &e) {
    study.fail("sample.box", e.what());
  }
  out.steps = study.steps;
  out.order = study.spacetimeOrder;
  out.vacuum = study.claimsVacuum;
  out.harmonic = study.claimsHarmonic;
  out.tolerance = study.tolerance;
  return out;
}

namespace {

struct StepRow {
  double h = 0, ricci = 0, box = 0, orderRicci = NAN, orderBox = NAN;
  size_t ricciEvent = 0, boxEvent = 0;
  int ricciComponent = 0, boxComponent = 0;
};

std::string eventText(const std::array<double, 4> &e, const std::array<std::string, 4> &names) {
  char buffer[160];
  std::snprintf(buffer, sizeof buffer, "(%s, %s, %s, %s) = (%.4g, %.4g, %.4g, %.4g)", names[0].c_str(), names[1].c_str(),
                names[2].c_str(), names[3].c_str(), e[0], e[1], e[2], e[3]);
  return buffer;
}

} // namespace

void runSpacetimeStudy(const SpacetimeStudy &study, Report &report) {
  if (study.steps.size() < 2)
    throw std::invalid_argument("spacetime check: at least two steps are needed for an order");
  if (study.events.empty())
    throw std::invalid_argument("spacetime check: no events to sample");
  const std::array<std::string, 4> names = fixtureCoordinateNames(study.module);
  const MetricSampler metric = fixtureMetric(study.module, study.parameters, study.timeParameter);
  const auto started = std::chrono::steady_clock::now();
  std::vector<StepRow> rows;
  for (double h : study.steps) {
    StepRow row;
    row.h = h;
    const std::vector<SpacetimeResidual> r = spacetimeResiduals(metric, study.events, h, study.order);
    for (size_t e = 0; e < r.size(); ++e) {
      for (int c = 0; c < 16; ++c) {
        const double v = std::abs(r[e].ricci[static_cast<size_t>(c)]);
        if (!std::isfinite(v))
          throw std::runtime_error("spacetime check: R at " + eventText(study.events[e], names) + " is not finite (h = " +
                                   std::to_string(h) + "): the metric is singular or undefined there");
        if (v > row.ricci)
          row.ricci = v, row.ricciEvent = e, row.ricciComponent = c;
      }
      for (int c = 0; c < 4; ++c) {
        const double v = std::abs(r[e].box[static_cast<size_t>(c)]);
        if (v > row.box || !std::isfinite(v))
          row.box = v, row.boxEvent = e, row.boxComponent = c;
      }
    }
    if (!rows.empty()) {
      const double ratio = rows.back().h / h;
      row.orderRicci = std::log(rows.back().ricci / row.ricci) / std::log(ratio);
      row.orderBox = std::log(rows.back().box / row.box) / std::log(ratio);
    }
    rows.push_back(row);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  char line[256];
  report.text << study.name << ": " << study.description << "\n"
              << "spacetime check: 4-Ricci" << (study.harmonic ? " and box x^mu" : "") << " by centred differences of order "
              << study.order << " at " << study.events.size() << " events\n";
  std::snprintf(line, sizeof line, "%12s %14s %9s %14s %9s\n", "h", "max|R_ab|", "order", "max|box x|", "order");
  report.text << line;
  for (const StepRow &r : rows) {
    std::snprintf(line, sizeof line, "%12.5g %14.6e %9.3f %14.6e %9.3f\n", r.h, r.ricci, r.orderRicci, r.box, r.orderBox);
    report.text << line;
    std::snprintf(line, sizeof line, "spacetime,%d,0,%.17g,%zu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", study.order, r.h,
                  study.events.size(), r.ricci, r.ricci, r.orderRicci, r.box, r.box, r.orderBox);
    report.csv << line;
    std::snprintf(line, sizeof line,
                  "{\"h\": %.17g, \"max_ricci\": %.17g, \"order_ricci\": %.17g, \"max_box\": %.17g, \"order_box\": %.17g}", r.h,
                  r.ricci, std::isfinite(r.orderRicci) ? r.orderRicci : 0.0, r.box,
                  std::isfinite(r.orderBox) ? r.orderBox : 0.0);
    report.json.push_back(line);
  }
  const StepRow &finest = rows.back();
  auto judge = [&](const std::string &what, double value, double order, size_t event, const std::string &component) {
    char text[512];
    const bool falls = std::isfinite(order) && order >= study.order - study.tolerance;
    if (!falls && value <= kSpacetimeRoundOff) {
      std::snprintf(text, sizeof text, "max |%s| = %.3e on the finest step h = %.4g: zero to round-off (below %.0e)",
                    what.c_str(), value, finest.h, kSpacetimeRoundOff);
      report.verdict("spacetime " + what + " vanishes", true, text, seconds);
      return;
    }
    const bool pass = falls;
    std::snprintf(text, sizeof text,
                  "%s = %.3e at %s %s (observed order %.2f between h = %.4g and %.4g; a vanishing %s falls at order %d, "
                  "tolerance %.2f)",
                  component.c_str(), value, eventText(study.events[event], names).c_str(),
                  pass ? "falls with h" : "does not vanish", order, rows[rows.size() - 2].h, finest.h, what.c_str(),
                  study.order, study.tolerance);
    report.verdict("spacetime " + what + " vanishes", pass, text, seconds);
  };
  if (study.vacuum)
    judge("R_ab", finest.ricci, finest.orderRicci, finest.ricciEvent,
          "R_" + names[static_cast<size_t>(finest.ricciComponent / 4)] + names[static_cast<size_t>(finest.ricciComponent % 4)]);
  if (study.harmonic)
    judge("box x^mu", finest.box, finest.orderBox, finest.boxEvent, "box " + names[static_cast<size_t>(finest.boxComponent)]);
}

} // namespace tensorium_mlir::verification
