// Grids of a rank, module loading, BSSN/ADM conversions, exact slices, constraint norms and the
// convergence table of the built-in cases.
#include "CaseSupport.h"
#include "tensorium_mlir/Physics/AdmToBssn.h"

namespace tensorium_mlir::verification::cases {

MPI_Comm gComm = MPI_COMM_WORLD;
int gRank = 0;
std::string gKernelDir;

double allMax(double v) { return verification::allMax(v, gComm); }

/// The ghosted box of this rank as a Grid (the whole grid plus ghosts on one rank).
Grid localGrid(const distributed::DistributedGrid &d) {
  const distributed::Box &b = d.ghosted();
  const auto &lo = d.spec().lower;
  return {{static_cast<int>(b.extent[0]), static_cast<int>(b.extent[1]), static_cast<int>(b.extent[2])},
          {lo[0], lo[1], lo[2]},
          {d.spec().spacing[0], d.spec().spacing[1], d.spec().spacing[2]},
          {static_cast<int>(b.begin[0]), static_cast<int>(b.begin[1]), static_cast<int>(b.begin[2])}};
}

const LoadedModule &moduleFor(const std::string &kind, int order) {
  static std::map<std::string, LoadedModule> cache;
  const std::string name = "verify_" + kind + "_o" + std::to_string(order);
  auto it = cache.find(name);
  if (it == cache.end()) {
    LoadedModule m;
    m.module = std::make_unique<runtime::KernelModule>(gKernelDir + "/lib" + name + ".so");
    it = cache.emplace(name, std::move(m)).first;
  }
  return it->second;
}

const LoadedModule &moduleAt(const std::string &path) {
  static std::map<std::string, LoadedModule> cache;
  auto it = cache.find(path);
  if (it == cache.end()) {
    LoadedModule m;
    m.module = std::make_unique<runtime::KernelModule>(path);
    it = cache.emplace(path, std::move(m)).first;
  }
  return it->second;
}

/// From the handoff's 6-component symmetric buffers to the kernels' 9-component layout.
void expandSymmetric(const std::vector<double> &six, std::vector<double> &nine, size_t n) {
  for (int a = 0; a < 6; ++a) {
    const size_t i = static_cast<size_t>(kSym6[a][0]), j = static_cast<size_t>(kSym6[a][1]);
    for (size_t p = 0; p < n; ++p)
      nine[(i * 3 + j) * n + p] = nine[(j * 3 + i) * n + p] = six[static_cast<size_t>(a) * n + p];
  }
}

/// Inverse of a symmetric 3x3 stored component-major at point p.
void invert3(std::span<const double> m, std::span<double> inv, size_t n, size_t p, double scale) {
  auto a = [&](int i, int j) { return m[static_cast<size_t>(i * 3 + j) * n + p]; };
  const double c00 = a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1), c01 = a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2),
               c02 = a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1), c11 = a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0),
               c12 = a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2), c22 = a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
  const double det = a(0, 0) * c00 + a(0, 1) * (a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2)) + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
  const double r = scale / det;
  const double c[3][3] = {{c00, c01, c02}, {c01, c11, c12}, {c02, c12, c22}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      inv[static_cast<size_t>(i * 3 + j) * n + p] = r * c[i][j];
}

ADMFields toADM(const BSSNState &s) {
  const size_t n = s.n;
  ADMFields a{std::vector<double>(9 * n), std::vector<double>(9 * n), std::vector<double>(9 * n)};
  for (size_t p = 0; p < n; ++p) {
    for (size_t c = 0; c < 9; ++c) {
      a.gamma[c * n + p] = s.gammatilde[c * n + p] / s.chi[p];
      a.Kij[c * n + p] = (s.Atilde[c * n + p] + s.gammatilde[c * n + p] * s.K[p] / 3) / s.chi[p];
    }
    invert3(s.gammatilde, a.gammaU, n, p, s.chi[p]);
  }
  return a;
}

ExactSlice exactSlice(const std::string &kind, const Grid &g, std::vector<double> params) {
  return exactSlice(moduleFor(kind, 0), g, std::move(params));
}

ExactSlice exactSlice(const LoadedModule &m, const Grid &g, std::vector<double> params, bool extrinsicCurvature) {
  runtime::GeneratedHostStorage storage(m.tables(), {g.n[0], g.n[1], g.n[2]});
  // K_ij comes from the slice kernel (the 3+1 split of the metric4 with its time derivatives);
  // the plain init kernel gives alpha, gamma_ij and gamma^ij only.
  const bool slice = extrinsicCurvature && [&] {
    for (const runtime::KernelBinding &k : storage.kernels())
      if (k.symbol == kSliceKernelSymbol)
        return true;
    return false;
  }();
  const std::string kernel = slice ? kSliceKernelSymbol : "tensorium_init_grid_affine";
  const bool spherical = storage.hasBuffer("r");
  const char *names[3] = {spherical ? "r" : "x", spherical ? "theta" : "y", spherical ? "phi" : "z"};
  for (int a = 0; a < 3; ++a) {
    std::span<double> c = storage.buffer(names[a]);
    for (int i = 0; i < g.n[0]; ++i)
      for (int j = 0; j < g.n[1]; ++j)
        for (int k = 0; k < g.n[2]; ++k)
          c[g.index(i, j, k)] = g.at(i, j, k)[static_cast<size_t>(a)];
  }
  storage.invoke(m.adapters(), kernel, params, {g.h[0], g.h[1], g.h[2]});
  ExactSlice out;
  auto get = [&](const char *name) {
    if (!storage.hasBuffer(name))
      throw runtime::StorageError("the exact-slice fixture has no buffer '" + std::string(name) + "'");
    std::span<const double> b = storage.kernelOutput(name, "the exact-slice data");
    return std::vector<double>(b.begin(), b.end());
  };
  out.adm = {get("gamma"), get("gammaU"), extrinsicCurvature ? get("Kij") : std::vector<double>()};
  out.alpha = get("alpha");
  return out;
}

SliceKernelOutputs sliceKernelOutputs(const tensorium_module_tables &t, std::initializer_list<const char *> buffers) {
  SliceKernelOutputs out;
  for (int k = 0; k < t.kernel_count && !out.present; ++k)
    if (std::string(t.kernels[k].symbol) == kSliceKernelSymbol) {
      out.present = true;
      for (const char *b : buffers) {
        bool found = false;
        for (int i = 0; i < t.kernels[k].buffer_count; ++i)
          found = found || std::string(t.buffers[t.kernels[k].first_buffer + i].name) == b;
        if (!found && out.missing.empty())
          out.missing = b;
      }
    }
  return out;
}

/// BSSN variables of a conformally flat slice with K_ij = 0: chi = det(gamma)^(-1/3),
/// gammatilde = chi gamma (= delta to round-off), Gammatilde^i = 0, Atilde = K = 0.
BSSNState fromConformallyFlatADM(const ExactSlice &e) {
  const size_t n = e.alpha.size();
  BSSNState s(n);
  for (size_t p = 0; p < n; ++p) {
    physics::Matrix3 gamma;
    for (size_t c = 0; c < 9; ++c)
      gamma[c] = e.adm.gamma[c * n + p];
    const physics::BssnPointValues b = physics::bssnFromAdm(gamma, nullptr);
    s.chi[p] = b.chi;
    for (size_t c = 0; c < 9; ++c)
      s.gammatilde[c * n + p] = b.gammatilde[c];
    s.alpha[p] = e.alpha[p];
  }
  return s;
}

/// max |gamma_ij - psi^4 delta_ij| / psi^4 between a fixture's metric and the closed form.
double conformalFlatnessMismatch(const Grid &g, const ADMFields &adm, const std::function<double(const std::array<double, 3> &)> &psi) {
  double worst = 0;
  const size_t n = g.points();
  for (int i = 0; i < g.n[0]; ++i)
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k) {
        const size_t p = g.index(i, j, k);
        const double psi4 = std::pow(psi(g.at(i, j, k)), 4);
        if (!std::isfinite(psi4))
          continue; // a grid point on a puncture
        for (size_t c = 0; c < 9; ++c)
          worst = std::max(worst, std::abs(adm.gamma[c * n + p] - (c % 4 == 0 ? psi4 : 0.0)) / psi4);
      }
  return allMax(worst);
}

/// Weighted norms over every rank's points (masks weight only the points a rank owns).
Norms norms(std::span<const double> values, const Mask &mask, bool sqrtOf) {
  return verification::weightedNorms(values, mask, gComm, sqrtOf);
}

/// 1 on the points of the local grid this rank owns, 0 on its ghosts.
Mask ownedMask(const distributed::DistributedGrid &d) {
  Mask m(static_cast<size_t>(d.ghosted().points()), 0.0);
  const distributed::Box &o = d.owned();
  for (int64_t i = o.begin[0]; i < o.begin[0] + o.extent[0]; ++i)
    for (int64_t j = o.begin[1]; j < o.begin[1] + o.extent[1]; ++j)
      for (int64_t k = o.begin[2]; k < o.begin[2] + o.extent[2]; ++k)
        m[d.storageIndex(i, j, k)] = 1;
  return m;
}

/// The generated ADM residual kernel (order p) on the ADM fields.
ConstraintNorms evaluateConstraints(const Grid &g, const ADMFields &adm, int order, const Mask &mask) {
  return evaluateConstraints(moduleFor("constraints", order), g, adm, mask);
}

ConstraintNorms evaluateConstraints(const LoadedModule &m, const Grid &g, const ADMFields &adm, const Mask &mask) {
  runtime::GeneratedHostStorage storage(m.tables(), {g.n[0], g.n[1], g.n[2]});
  auto copy = [&](const char *name, const std::vector<double> &v) {
    std::span<double> b = storage.buffer(name);
    std::copy(v.begin(), v.end(), b.begin());
  };
  copy("gamma", adm.gamma);
  copy("gammaU", adm.gammaU);
  copy("Kij", adm.Kij);
  storage.invoke(m.adapters(), "tensorium_residual_grid_parallel", {}, {g.h[0], g.h[1], g.h[2]});
  // A constraints fixture without the momentum constraint reports |M| as zero (not judged).
  return {norms(storage.buffer("H"), mask),
          storage.hasBuffer("M2") ? norms(storage.buffer("M2"), mask, true) : Norms{}};
}

/// Fills observed orders, prints the table and the verdict: the order between the two finest
/// spacings within 0.3 of the finite-difference order, for H and for |M| when M is not at
/// round-off.
void judgeConvergence(std::vector<ConvergenceRow> &rows, const std::string &what, const std::string &verdictName,
                      int expected, Report &report, double tolerance, bool judgeMomentum) {
  // No verdict from NaN: a non-finite norm is a run error.
  for (const ConvergenceRow &r : rows)
    if (!std::isfinite(r.c.H.l2) || !std::isfinite(r.c.H.max) || !std::isfinite(r.c.M.l2) || !std::isfinite(r.c.M.max))
      throw std::runtime_error(what + ": a constraint norm is not finite at n = " + std::to_string(r.n) +
                               " (the data are singular at a weighted point or its stencil)");
  for (size_t k = 1; k < rows.size(); ++k) {
    rows[k].orderH = observedOrder(rows[k - 1].c.H.l2, rows[k].c.H.l2, rows[k - 1].h, rows[k].h);
    rows[k].orderM = observedOrder(rows[k - 1].c.M.l2, rows[k].c.M.l2, rows[k - 1].h, rows[k].h);
  }
  char line[256];
  report.text << what << "\n";
  std::snprintf(line, sizeof line, "%6s %5s %9s %9s %12s %12s %7s %12s %12s %7s\n", "order", "n", "h", "points", "L2(H)",
                "max|H|", "p(H)", "L2(|M|)", "max|M|", "p(M)");
  report.text << line;
  for (const ConvergenceRow &r : rows) {
    std::snprintf(line, sizeof line, "%6d %5d %9.5f %9zu %12.4e %12.4e %s %12.4e %12.4e %s\n", r.order, r.n, r.h,
                  r.c.H.count, r.c.H.l2, r.c.H.max, orderText(r.orderH, 7).c_str(), r.c.M.l2, r.c.M.max,
                  orderText(r.orderM, 7).c_str());
    report.text << line;
    char row[320];
    std::snprintf(row, sizeof row, "%s,%d,%d,%.17g,%zu,%.17g,%.17g,%.6g,%.17g,%.17g,%.6g\n", r.label.c_str(), r.order, r.n,
                  r.h, r.c.H.count, r.c.H.l2, r.c.H.max, r.orderH, r.c.M.l2, r.c.M.max, r.orderM);
    report.csv << row;
    std::snprintf(row, sizeof row,
                  "{\"label\": \"%s\", \"order\": %d, \"n\": %d, \"h\": %.17g, \"L2_H\": %.17g, \"max_H\": %.17g, "
                  "\"L2_M\": %.17g, \"max_M\": %.17g}",
                  r.label.c_str(), r.order, r.n, r.h, r.c.H.l2, r.c.H.max, r.c.M.l2, r.c.M.max);
    report.json.push_back(row);
  }
  // A constraint at round-off on every grid is exact (nothing to converge): reported as such,
  // never as an order. At round-off on some grids only, no order is meaningful: a failure.
  const ConvergenceRow &last = rows.back();
  auto behaviour = [&](auto norm, double order, bool judged, bool &ok) -> std::string {
    size_t atRoundOff = 0;
    for (const ConvergenceRow &r : rows)
      atRoundOff += norm(r) < kConstraintRoundOff;
    char text[64];
    if (!judged) {
      ok = true;
      return "not judged";
    }
    if (atRoundOff == rows.size()) {
      ok = true;
      return "round-off (exact data)";
    }
    if (atRoundOff > 0) {
      ok = false;
      std::snprintf(text, sizeof text, "round-off on %zu of %zu grids only", atRoundOff, rows.size());
      return text;
    }
    ok = std::abs(order - expected) <= tolerance;
    std::snprintf(text, sizeof text, "%.3f", order);
    return text;
  };
  bool okH = false, okM = false;
  const std::string pH = behaviour([](const ConvergenceRow &r) { return r.c.H.l2; }, last.orderH, true, okH);
  const std::string pM = behaviour([](const ConvergenceRow &r) { return r.c.M.l2; }, last.orderM, judgeMomentum, okM);
  std::snprintf(line, sizeof line, "finest pair: p(H) = %s, p(M) = %s; required within %g of %d", pH.c_str(), pM.c_str(),
                tolerance, expected);
  report.verdict(verdictName, okH && okM, line);
  if (!(okH && okM)) {
    std::vector<double> ordersH, ordersM;
    for (const ConvergenceRow &r : rows)
      ordersH.push_back(r.orderH), ordersM.push_back(r.orderM);
    std::string hint = okH ? "" : preAsymptoticHint(ordersH, expected, tolerance);
    if (hint.empty() && !okM && judgeMomentum)
      hint = preAsymptoticHint(ordersM, expected, tolerance);
    if (!hint.empty())
      report.text << hint << "\n";
  }
  report.text << "\n";
}

/// Zero in the balls r <= excision around the punctures, rising smoothly to 1 at excision +
/// 0.3, times a taper from 1 at |x_a| <= box - 0.4 to 0 at |x_a| >= box along each axis.
Mask evaluationMask(const Grid &g, double box, const PunctureSet &p, double excision) {
  verification::NormRegion region;
  region.box = box;
  region.excisionCentres = p.centres;
  region.excision = excision;
  return region.mask(g);
}

double maxDifference(const BSSNState &a, const BSSNState &b) {
  double d = 0;
  auto fa = bssnFields(a), fb = bssnFields(b);
  for (size_t f = 0; f < fa.size(); ++f)
    for (size_t i = 0; i < fa[f].second->size(); ++i)
      d = std::max(d, std::abs((*fa[f].second)[i] - (*fb[f].second)[i]));
  return d;
}

} // namespace tensorium_mlir::verification::cases
