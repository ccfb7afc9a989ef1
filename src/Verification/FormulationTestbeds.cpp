// The Apples-with-Apples formulation testbeds on the distributed engine: exact plane-wave data
// (and noise) turned into BSSN variables, evolved with a harmonic-slicing BSSN kernel, the
// compared metric component checked against the exact solution and the Hamiltonian constraint
// followed over time.
#include "tensorium_mlir/Verification/FormulationTestbeds.h"

#include "CaseSupport.h"
#include "tensorium_mlir/Physics/AdmToBssn.h"

namespace tensorium_mlir::verification {

using namespace cases;

namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;

/// ADM variables of a solution that depends on t and x only, with d_x gamma_ij; alpha and
/// gamma_ij also as deviations from flat space, formed without the rounding of 1 + deviation.
struct PlaneADM {
  double alpha = 1;
  double gamma[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double K[3][3] = {};
  double dxGamma[3][3] = {};
  double alphaDev = 0;        ///< alpha - 1
  double gammaDev[3][3] = {}; ///< gamma_ij - delta_ij
};

PlaneADM gaugeWave(double A, double t, double x) {
  PlaneADM s;
  const double phase = kTwoPi * (x - t), H = 1 - A * std::sin(phase), dH = A * kTwoPi * std::cos(phase);
  s.alpha = std::sqrt(H);
  s.gamma[0][0] = H;
  s.alphaDev = std::expm1(0.5 * std::log1p(-A * std::sin(phase)));
  s.gammaDev[0][0] = -A * std::sin(phase);
  s.dxGamma[0][0] = -dH;             // d_x H
  s.K[0][0] = -dH / (2 * s.alpha);   // -(d_t gamma_xx) / (2 alpha), beta = 0
  return s;
}

PlaneADM linearWave(double A, double t, double x) {
  PlaneADM s;
  const double phase = kTwoPi * (x - t), b = A * std::sin(phase), db = A * kTwoPi * std::cos(phase);
  s.gamma[1][1] = 1 + b;
  s.gamma[2][2] = 1 - b;
  s.gammaDev[1][1] = b;
  s.gammaDev[2][2] = -b;
  s.dxGamma[1][1] = db;
  s.dxGamma[2][2] = -db;
  s.K[1][1] = db / 2; // -(d_t gamma_yy) / 2 with d_t b = -db
  s.K[2][2] = -db / 2;
  return s;
}

/// BSSN variables of plane-wave ADM data at every point of g: chi = det^(-1/3), gammatilde =
/// chi gamma, Atilde = chi (K_ij - gamma_ij K / 3), Gammatilde^i = -d_x gammatilde^(ix) with
/// gammatilde^ij = det^(1/3) gamma^ij differentiated in closed form; beta = B = 0. With
/// `deviation`, chi, gammatilde_ij and alpha are stored as chi - 1 = expm1(-log1p(det - 1) / 3),
/// gammatilde_ij - delta_ij = (chi - 1) delta_ij + chi (gamma_ij - delta_ij) and alpha - 1.
BSSNState planeWaveState(const Grid &g, const std::function<PlaneADM(double)> &at, bool deviation = false) {
  BSSNState s(g.points());
  const size_t N = g.points();
  for (int i = 0; i < g.n[0]; ++i)
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k) {
        const size_t p = g.index(i, j, k);
        const PlaneADM a = at(g.at(i, j, k)[0]);
        physics::Matrix3 gamma, K;
        for (int m = 0; m < 3; ++m)
          for (int n = 0; n < 3; ++n)
            gamma[static_cast<size_t>(3 * m + n)] = a.gamma[m][n], K[static_cast<size_t>(3 * m + n)] = a.K[m][n];
        const physics::BssnPointValues b = physics::bssnFromAdm(gamma, &K);
        auto inv = [&](int m, int n) { return b.gammaInverse[static_cast<size_t>(3 * m + n)]; };
        const double cbrtDet = std::cbrt(b.determinant);
        double trDg = 0;
        for (int m = 0; m < 3; ++m)
          for (int n = 0; n < 3; ++n)
            trDg += inv(m, n) * a.dxGamma[m][n];
        const double chiDev =
            deviation ? std::expm1(-std::log1p(distributed::conformalDeterminantMinusOne(&a.gammaDev[0][0])) / 3) : 0.0;
        s.chi[p] = deviation ? chiDev : b.chi;
        s.K[p] = b.K;
        s.alpha[p] = deviation ? a.alphaDev : a.alpha;
        for (int m = 0; m < 3; ++m)
          for (int n = 0; n < 3; ++n) {
            const size_t c = static_cast<size_t>(m * 3 + n) * N + p;
            s.gammatilde[c] = deviation ? (m == n ? chiDev : 0.0) + (1 + chiDev) * a.gammaDev[m][n]
                                        : b.gammatilde[static_cast<size_t>(m * 3 + n)];
            s.Atilde[c] = b.Atilde[static_cast<size_t>(m * 3 + n)];
          }
        for (int m = 0; m < 3; ++m) {
          // d_x gamma^(m0) = -gamma^(mk) d_x gamma_kl gamma^(l0)
          double dInv = 0;
          for (int kk = 0; kk < 3; ++kk)
            for (int l = 0; l < 3; ++l)
              dInv -= inv(m, kk) * a.dxGamma[kk][l] * inv(l, 0);
          s.Gammatilde[static_cast<size_t>(m) * N + p] = -(cbrtDet * trDg / 3 * inv(m, 0) + cbrtDet * dInv);
        }
      }
  return s;
}

/// A uniform number in [-1, 1) from a point's global index and a component (independent of how
/// the grid is split among ranks).
double noiseAt(uint64_t key) {
  uint64_t z = key + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

/// Minkowski plus noise of amplitude eps on every component of every variable (symmetric
/// tensors keep their symmetry); `nx`, `ny`, `nz` the global points per axis.
BSSNState noisyMinkowski(const Grid &g, double eps, const std::array<int, 3> &global, bool deviation) {
  BSSNState s = planeWaveState(g, [](double) { return PlaneADM{}; }, deviation);
  const size_t N = g.points();
  uint64_t field = 0;
  for (auto [name, values] : bssnFields(s)) {
    const size_t comps = values->size() / N;
    for (int i = 0; i < g.n[0]; ++i)
      for (int j = 0; j < g.n[1]; ++j)
        for (int k = 0; k < g.n[2]; ++k) {
          const auto wrap = [](int v, int n) { return static_cast<uint64_t>(((v % n) + n) % n); };
          const uint64_t point = (wrap(g.offset[0] + i, global[0]) * static_cast<uint64_t>(global[1]) +
                                  wrap(g.offset[1] + j, global[1])) * static_cast<uint64_t>(global[2]) +
                                 wrap(g.offset[2] + k, global[2]);
          const size_t p = g.index(i, j, k);
          for (size_t c = 0; c < comps; ++c) {
            const size_t a = comps == 9 ? std::min(c / 3, c % 3) * 3 + std::max(c / 3, c % 3) : c;
            (*values)[c * N + p] += eps * noiseAt(((point * 16 + field) * 16 + a) * 2654435761ULL);
          }
        }
    ++field;
  }
  return s;
}

std::vector<double> moduleParams(const LoadedModule &m, const std::map<std::string, double> &values) {
  const tensorium_module_tables &t = m.module->tables();
  std::vector<double> out;
  for (int i = 0; i < t.param_count; ++i) {
    auto it = values.find(t.param_names[i]);
    if (it == values.end())
      throw std::runtime_error(std::string("the testbed has no value for the kernel parameter '") + t.param_names[i] + "'");
    out.push_back(it->second);
  }
  return out;
}

/// The compared component at point p: gamma_ij = gammatilde_ij / chi of the full variables, or
/// gamma_ij - delta_ij = (h_ij - delta_ij c) / (1 + c) of the deviations h, c.
double comparedValue(const BSSNState &s, size_t component, size_t p, bool deviation) {
  const size_t N = s.n;
  if (!deviation)
    return s.gammatilde[component * N + p] / s.chi[p];
  return (s.gammatilde[component * N + p] - (component % 4 == 0 ? s.chi[p] : 0.0)) / (1 + s.chi[p]);
}

/// The full BSSN variables of a state in deviation form.
BSSNState withFlatBackground(BSSNState s) {
  const size_t N = s.n;
  for (size_t p = 0; p < N; ++p) {
    s.chi[p] += 1;
    s.alpha[p] += 1;
    for (size_t c : {0u, 4u, 8u})
      s.gammatilde[c * N + p] += 1;
  }
  return s;
}

/// The part of e that is odd under a shift by half the unit period along x, (e(x) - e(x + 1/2)) / 2,
/// at the points this rank owns (zero elsewhere): the odd harmonics of the wave. The values at
/// x + 1/2 come from whichever rank owns them.
std::vector<double> oddHarmonicPart(const std::vector<double> &e, const Grid &g, const Mask &owned,
                                    const std::array<int, 3> &global, MPI_Comm comm) {
  const size_t total = static_cast<size_t>(global[0]) * global[1] * global[2];
  const auto at = [&](int i, int j, int k) {
    return (static_cast<size_t>(i) * global[1] + static_cast<size_t>(j)) * global[2] + static_cast<size_t>(k);
  };
  std::vector<double> local(total, 0.0), all(total, 0.0);
  for (int i = 0; i < g.n[0]; ++i)
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k)
        if (const size_t p = g.index(i, j, k); owned[p] > 0)
          local[at(g.offset[0] + i, g.offset[1] + j, g.offset[2] + k)] = e[p];
  MPI_Allreduce(local.data(), all.data(), static_cast<int>(total), MPI_DOUBLE, MPI_SUM, comm);
  std::vector<double> odd(e.size(), 0.0);
  for (int i = 0; i < g.n[0]; ++i)
    for (int j = 0; j < g.n[1]; ++j)
      for (int k = 0; k < g.n[2]; ++k)
        if (const size_t p = g.index(i, j, k); owned[p] > 0)
          odd[p] = (e[p] - all[at((g.offset[0] + i + global[0] / 2) % global[0], g.offset[1] + j, g.offset[2] + k)]) / 2;
  return odd;
}

struct VariableError {
  std::string name;
  Norms error;
  double scale = 0; ///< max |exact value|, for the round-off floor
};

/// The error of every BSSN variable (B aside: zero in every testbed) and of the ADM gamma_ij and
/// K_ij at T, over the interior.
std::vector<VariableError> variableErrors(const BSSNState &end, const BSSNState &want, const Mask &interior) {
  std::vector<VariableError> out;
  const size_t N = end.n;
  auto add = [&](const std::string &name, const std::vector<double> &a, const std::vector<double> &b) {
    const size_t components = a.size() / N;
    std::vector<double> error(N, 0.0);
    double scale = 0;
    for (size_t c = 0; c < components; ++c)
      for (size_t p = 0; p < N; ++p) {
        const double d = a[c * N + p] - b[c * N + p];
        error[p] += d * d;
        if (interior[p] > 0)
          scale = std::max(scale, std::abs(b[c * N + p]));
      }
    for (double &e : error)
      e = std::sqrt(e);
    out.push_back({name, norms(error, interior), allMax(scale)});
  };
  const auto fieldsEnd = bssnFields(end), fieldsWant = bssnFields(want);
  for (size_t f = 0; f < fieldsEnd.size(); ++f)
    if (std::string(fieldsEnd[f].first) != "B")
      add(fieldsEnd[f].first, *fieldsEnd[f].second, *fieldsWant[f].second);
  const ADMFields a = toADM(end), b = toADM(want);
  add("gamma_ij (ADM)", a.gamma, b.gamma);
  add("K_ij (ADM)", a.Kij, b.Kij);
  return out;
}

struct RunResult {
  std::vector<std::pair<double, Norms>> hamiltonian; // (t, norms of H)
  Norms error;                                       // of the compared component at the end
  Norms wholeError; ///< the whole error when `error` is its odd harmonics
  int steps = 0;
  double h = 0;
  double lostAt = -1; ///< the first sample time with a non-finite constraint, -1 when none
  std::vector<double> coarse; ///< the compared component at T on the coarsest grid's points
  /// Every variable's error at T (the pointwise Euclidean norm over its components), with the
  /// largest magnitude of its exact value, by variable.
  std::vector<VariableError> variables;
  /// The same a quarter crossing before T (exact-solution testbeds): at whole crossing times a
  /// periodic wave is back at its start whatever its speed, so T alone cannot tell a fixture
  /// whose wave moves at the wrong speed.
  std::vector<VariableError> variablesBeforeEnd;
};

/// The compared component at T at the points x = -0.5 + i / 50 (i < 50), y = z = 0: gathered
/// from the ranks that own them, the same on every rank.
std::vector<double> sampleOnCoarsest(const BSSNState &s, const Grid &g, const Mask &owned, size_t component, int rho,
                                     bool deviation, MPI_Comm comm) {
  std::vector<double> local(50, 0.0), out(50, 0.0);
  for (int i = 0; i < 50; ++i) {
    const int li = i * rho - g.offset[0], lj = -g.offset[1], lk = -g.offset[2];
    if (li < 0 || li >= g.n[0] || lj < 0 || lj >= g.n[1] || lk < 0 || lk >= g.n[2])
      continue;
    const size_t p = g.index(li, lj, lk);
    if (owned[p] > 0)
      local[static_cast<size_t>(i)] = comparedValue(s, component, p, deviation);
  }
  MPI_Allreduce(local.data(), out.data(), 50, MPI_DOUBLE, MPI_SUM, comm);
  return out;
}

} // namespace

const std::vector<std::string> &testbedNames() {
  static const std::vector<std::string> names{"robust-stability", "linear-wave", "gauge-wave", "exact-solution"};
  return names;
}

namespace {

/// The BSSN state of a slice kernel at time t on the points of g (B = 0).
BSSNState sliceState(const LoadedModule &m, const Grid &g, std::vector<double> params, int timeParameter, double t) {
  runtime::GeneratedHostStorage storage(m.tables(), {g.n[0], g.n[1], g.n[2]});
  for (int a = 0; a < 3; ++a) {
    std::span<double> c = storage.buffer(a == 0 ? "x" : a == 1 ? "y" : "z");
    for (int i = 0; i < g.n[0]; ++i)
      for (int j = 0; j < g.n[1]; ++j)
        for (int k = 0; k < g.n[2]; ++k)
          c[g.index(i, j, k)] = g.at(i, j, k)[static_cast<size_t>(a)];
  }
  params[static_cast<size_t>(timeParameter)] = t;
  storage.invoke(m.adapters(), kSliceKernelSymbol, params, {g.h[0], g.h[1], g.h[2]});
  BSSNState s(g.points());
  for (auto [name, values] : bssnFields(s))
    if (std::string(name) != "B") {
      std::span<const double> b = storage.kernelOutput(name, "the exact solution");
      values->assign(b.begin(), b.end());
    }
  return s;
}
} // namespace

std::string missingSliceOutputs(const std::string &modulePath) {
  const LoadedModule *m = nullptr;
  try {
    m = &moduleAt(modulePath);
  } catch (const std::exception &e) {
    return e.what();
  }
  const tensorium_module_tables &t = m->module->tables();
  const SliceKernelOutputs slice =
      sliceKernelOutputs(t, {"x", "y", "z", "alpha", "beta", "chi", "gammatilde", "K", "Atilde", "Gammatilde"});
  if (slice.present) {
    if (!slice.missing.empty())
      return "its slice kernel writes no '" + slice.missing +
             "' (split_3p1 must map alpha, beta, gamma, gammaU and the BSSN chi, gammatilde, K, Atilde, Gammatilde)";
    bool hasTime = false;
    for (int i = 0; i < t.param_count; ++i)
      hasTime = hasTime || std::string(t.param_names[i]) == "t";
    return hasTime ? "" : "its metric4 does not depend on the reserved time t";
  }
  return std::string("its program has no ") + kSliceKernelSymbol +
         " kernel (an initial_data block whose split_3p1 maps beta, Kij or the BSSN variables)";
}

/// The error of every variable at T against the exact solution: each must be exact (below the
/// round-off floor at every rho) or converge at the expected order, within the tolerance,
/// between the two finest rho. The linear wave's nonlinear response at second order in A does
/// not converge away (testbed.error_part), so there the table is reported, not judged.
void judgeEveryVariable(const TestbedStudy &study, int order, int expected, const std::vector<RunResult> &results,
                        Report &report, std::vector<VariableError> RunResult::*at = &RunResult::variables,
                        const std::string &when = "T") {
  const bool judged = study.test != "linear-wave";
  char line[256];
  report.text << "error of every variable at " << when << " (L2 over the interior of the error's Euclidean norm over components), "
                 "observed order between the two finest rho"
              << (judged ? "" : " (reported, not judged: see testbed.error_part)") << ":\n";
  std::snprintf(line, sizeof line, "%16s", "variable");
  report.text << line;
  for (int rho : study.rhos) {
    std::snprintf(line, sizeof line, " %10s%-3d", "rho=", rho);
    report.text << line;
  }
  report.text << "        p\n";
  bool lost = false;
  for (const RunResult &r : results)
    lost = lost || (r.*at).empty();
  const std::string verdictName =
      study.test + " order " + std::to_string(order) + " every variable" + (when == "T" ? "" : " at " + when);
  if (lost) {
    report.text << "(a run was lost: no errors at " << when << ")\n";
    if (judged)
      report.verdict(verdictName, false, "a run became non-finite before " + when);
    return;
  }
  std::string failing, exact;
  for (size_t v = 0; v < (results.front().*at).size(); ++v) {
    const std::string &name = (results.front().*at)[v].name;
    OrderSeries series;
    bool atRoundOff = true;
    std::snprintf(line, sizeof line, "%16s", name.c_str());
    report.text << line;
    for (const RunResult &r : results) {
      const VariableError &e = (r.*at)[v];
      series.add(e.error.l2, r.h);
      atRoundOff = atRoundOff && e.error.l2 <= 1e-13 * std::max(1.0, e.scale);
      std::snprintf(line, sizeof line, " %13.4e", e.error.l2);
      report.text << line;
    }
    std::snprintf(line, sizeof line, " %s%s\n", orderText(series.last()).c_str(),
                  atRoundOff ? "  exact (round-off at every rho)" : "");
    report.text << line;
    if (atRoundOff) {
      exact += (exact.empty() ? "" : ", ") + name;
    } else if (!series.within(expected, study.tolerance)) {
      std::snprintf(line, sizeof line, "%s p = %.3f", name.c_str(), series.last());
      failing += (failing.empty() ? "" : ", ") + std::string(line);
    }
  }
  if (!judged)
    return;
  const std::string message =
      failing.empty() ? "every variable exact or within " + std::to_string(study.tolerance).substr(0, 4) + " of order " +
                            std::to_string(expected) + (exact.empty() ? "" : " (exact: " + exact + ")")
                      : "not converging at order " + std::to_string(expected) + ": " + failing;
  report.verdict(verdictName, failing.empty(), message);
}

void runTestbed(const TestbedStudy &study, Report &report) {
  const bool noise = study.test == "robust-stability", gauge = study.test == "gauge-wave",
             fromFixture = study.test == "exact-solution";
  if (!noise && !gauge && !fromFixture && study.test != "linear-wave")
    throw std::invalid_argument("unknown testbed '" + study.test + "'");
  const std::string comparedName = !study.compared.empty() ? study.compared : gauge || fromFixture ? "gamma_xx" : "gamma_yy";
  const auto axis = [](char c) { return static_cast<size_t>(c - 'x'); };
  if (comparedName.size() != 8 || comparedName.rfind("gamma_", 0) != 0 || axis(comparedName[6]) > 2 ||
      axis(comparedName[7]) > 2)
    throw std::invalid_argument("compared component '" + comparedName + "' is not gamma_ij with i, j in x, y, z");
  report.text << "study " << study.name << ": " << study.test << "\n" << study.description << "\n"
              << (study.moduleKind == "bssn_harmonic_shift"
                      ? "BSSN in harmonic gauge (d_t alpha = beta^k d_k alpha - alpha^2 K, d_t beta^i = beta^k d_k beta^i - "
                        "alpha gamma^ij d_j alpha + alpha^2 gamma^jk Gamma^i_jk)"
                      : "BSSN with harmonic slicing (d_t alpha = -alpha^2 K), zero shift")
              << "; x in [-0.5, 0.5] periodic, dx = 1 / (50 "
                 "rho), thin periodic y and z; RK4, dt = "
              << study.courant << " dx; T = " << study.crossingTimes << " crossing times; Kreiss-Oliger sigma = "
              << study.koSigma << "; algebraic-constraint projection after each step: "
              << (study.projection ? "on" : "off") << "\n";
  if (study.deviation)
    report.text << "variables: chi - 1, gammatilde_ij - delta_ij and alpha - 1 (deviation form, "
                   "fixtures/gr/bssn_harmonic_deviation_3d.tn)\n";
  if (noise)
    report.text << "data: Minkowski plus uniform noise of amplitude " << study.amplitude << " / rho^2 on every variable\n";
  else if (fromFixture)
    report.text << "data: the slice kernel of the study's fixture at t = 0; compared: " << comparedName
                << " against the same kernel at T\n";
  else
    report.text << "data: " << study.test << " A = " << study.amplitude << "; compared: " << comparedName
                << " against the exact solution at T\n";
  report.text << "\n";
  const size_t compared = axis(comparedName[6]) * 3 + axis(comparedName[7]); // component-major (i * 3 + j)
  for (int order : study.orders) {
    const LoadedModule &module = moduleFor(study.moduleKind, order);
    const std::vector<double> params =
        moduleParams(module, {{"eta", 0.0}, {"shift_driver", 0.0}, {"shift_advect", 0.0}, {"ko_sigma", study.koSigma}});
    std::vector<RunResult> results;
    const auto begin = std::chrono::steady_clock::now();
    for (int rho : study.rhos) {
      // Thin in y and z: the fewest points a periodic axis of the kernel's stencil allows.
      const int nx = 50 * rho, nyz = order + 3;
      const double h = 1.0 / nx, dt = study.courant * h;
      const int steps = static_cast<int>(std::lround(study.crossingTimes / dt));
      distributed::GridSpec spec{{nx, nyz, nyz}, {-0.5, 0, 0}, {h, h, h}, 0, distributed::Boundary::Periodic};
      const distributed::ConformalMetricForm form =
          study.deviation ? distributed::ConformalMetricForm::Deviation : distributed::ConformalMetricForm::Full;
      Evolution e(spec, module, params, form, study.projection);
      const Grid &g = e.grid;
      const double A = study.amplitude;
      auto exact = [&](double t) {
        if (fromFixture)
          return sliceState(moduleAt(study.dataModule), g, study.dataParameters, study.timeParameter, t);
        return planeWaveState(g, [&](double x) { return gauge ? gaugeWave(A, t, x) : linearWave(A, t, x); },
                              study.deviation);
      };
      e.load(noise ? noisyMinkowski(g, A / (rho * rho), {nx, nyz, nyz}, study.deviation) : exact(0));
      const Mask interior = e.interior();
      RunResult r;
      r.h = h;
      r.steps = steps;
      const int every = std::max(1, steps / std::max(1, study.samples));
      const int beforeEnd = fromFixture && study.crossingTimes > 0.25
                                ? static_cast<int>(std::lround((study.crossingTimes - 0.25) / dt))
                                : -1;
      for (int s = 0;; ++s) {
        if (s == beforeEnd)
          r.variablesBeforeEnd = variableErrors(e.state(), exact(s * dt), interior);
        if (s % every == 0 || s == steps) {
          const ConstraintNorms c =
              evaluateConstraints(g, toADM(study.deviation ? withFlatBackground(e.state()) : e.state()), order, interior);
          if (!std::isfinite(c.H.l2) || !std::isfinite(c.H.max)) {
            // The evolution has lost the solution: keep what was measured, judge it failed.
            r.lostAt = s * dt;
            break;
          }
          r.hamiltonian.push_back({s * dt, c.H});
        }
        if (s == steps)
          break;
        e.step(dt);
      }
      if (!noise && r.lostAt < 0) {
        const BSSNState end = e.state(), want = exact(steps * dt);
        const size_t N = g.points();
        std::vector<double> error(N);
        for (size_t p = 0; p < N; ++p)
          error[p] = comparedValue(end, compared, p, study.deviation) - comparedValue(want, compared, p, study.deviation);
        r.error = norms(error, interior);
        if (study.oddHarmonics) {
          r.wholeError = r.error;
          r.error = norms(oddHarmonicPart(error, g, interior, {nx, nyz, nyz}, gComm), interior);
        }
        r.coarse = sampleOnCoarsest(end, g, interior, compared, rho, study.deviation, gComm);
        r.variables = study.deviation ? variableErrors(withFlatBackground(end), withFlatBackground(want), interior)
                                      : variableErrors(end, want, interior);
      }
      if (r.lostAt >= 0) {
        r.error.l2 = r.error.max = std::nan("");
        report.text << "rho = " << rho << ": the evolution became non-finite between t = "
                    << (r.hamiltonian.empty() ? 0.0 : r.hamiltonian.back().first) << " and t = " << r.lostAt << "\n";
      }
      results.push_back(r);
      if (gRank == 0)
        std::fprintf(stderr, "  %s order %d rho=%d: %d steps\n", study.test.c_str(), order, rho, steps);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    // Hamiltonian constraint over time.
    char line[256];
    report.text << "Hamiltonian constraint over time, finite-difference order " << order << " (L2 / max):\n";
    std::snprintf(line, sizeof line, "%8s", "t");
    report.text << line;
    for (int rho : study.rhos) {
      std::snprintf(line, sizeof line, "   %10s rho=%-2d %10s", "", rho, "");
      report.text << line;
    }
    report.text << "\n";
    size_t rows = 0;
    for (const RunResult &r : results)
      rows = std::max(rows, r.hamiltonian.size());
    for (size_t k = 0; k < rows; ++k) {
      for (const RunResult &r : results)
        if (k < r.hamiltonian.size()) {
          std::snprintf(line, sizeof line, "%8.3f", r.hamiltonian[k].first);
          break;
        }
      report.text << line;
      for (const RunResult &r : results) {
        if (k < r.hamiltonian.size())
          std::snprintf(line, sizeof line, "   %11.4e %11.4e", r.hamiltonian[k].second.l2, r.hamiltonian[k].second.max);
        else
          std::snprintf(line, sizeof line, "   %23s", r.lostAt >= 0 ? "lost" : "");
        report.text << line;
      }
      report.text << "\n";
    }
    for (size_t i = 0; i < results.size(); ++i)
      for (const auto &[t, n] : results[i].hamiltonian) {
        char row[320];
        std::snprintf(row, sizeof row, "%s H,%d,%d,%.17g,%zu,%.17g,%.17g,%.17g,nan,nan,nan\n", study.test.c_str(), order,
                      50 * study.rhos[i], results[i].h, n.count, n.l2, n.max, t);
        report.csv << row;
      }
    if (noise) {
      bool ok = true;
      std::vector<double> growth;
      for (const RunResult &r : results) {
        double worst = 0;
        for (const auto &[t, n] : r.hamiltonian)
          worst = std::max(worst, n.max);
        growth.push_back(r.lostAt >= 0 ? std::nan("") : worst / r.hamiltonian.front().second.max);
        ok = ok && growth.back() <= study.growthBound;
      }
      ok = ok && growth.back() <= 2 * growth.front();
      std::ostringstream message;
      message << "growth of max|H| over the run:";
      for (size_t i = 0; i < growth.size(); ++i)
        message << " rho=" << study.rhos[i] << ": " << growth[i];
      message << "; required <= " << study.growthBound << " at every rho and no more than twice the coarsest's at the finest";
      report.verdict(study.test + " order " + std::to_string(order), ok, message.str(), seconds);
    } else {
      report.text << "\nerror of " << comparedName << " at T"
                  << (study.oddHarmonics ? ", its odd harmonics (e(x) - e(x + 1/2)) / 2; the whole error after them" : "")
                  << ":\n";
      std::snprintf(line, sizeof line, "%5s %6s %9s %7s %12s %12s %8s", "rho", "n", "dx", "steps", "L2", "max", "p");
      report.text << line;
      if (study.oddHarmonics) {
        std::snprintf(line, sizeof line, " %12s %12s", "whole L2", "whole max");
        report.text << line;
      }
      report.text << "\n";
      OrderSeries series;
      std::vector<double> orders;
      for (size_t i = 0; i < results.size(); ++i) {
        const double p = series.add(results[i].error.l2, results[i].h);
        orders.push_back(p);
        std::snprintf(line, sizeof line, "%5d %6d %9.6f %7d %12.4e %12.4e %s", study.rhos[i], 50 * study.rhos[i],
                      results[i].h, results[i].steps, results[i].error.l2, results[i].error.max, orderText(p).c_str());
        report.text << line;
        if (study.oddHarmonics) {
          std::snprintf(line, sizeof line, " %12.4e %12.4e", results[i].wholeError.l2, results[i].wholeError.max);
          report.text << line;
        }
        report.text << "\n";
        char row[320];
        // The judged error's label says when it is the odd harmonics alone.
        const std::string label = study.test + (study.oddHarmonics ? " odd-harmonic" : "");
        std::snprintf(row, sizeof row, "%s error,%d,%d,%.17g,%zu,nan,nan,nan,%.17g,%.17g,%.6g\n", label.c_str(),
                      order, 50 * study.rhos[i], results[i].h, results[i].error.count, results[i].error.l2,
                      results[i].error.max, p);
        report.csv << row;
        std::snprintf(row, sizeof row, "{\"label\": \"%s\", \"order\": %d, \"rho\": %d, \"h\": %.17g, \"error_l2\": %.17g}",
                      label.c_str(), order, study.rhos[i], results[i].h, results[i].error.l2);
        report.json.push_back(row);
      }
      // Richardson self-convergence from the three finest runs on the coarsest grid's points: the
      // order the solutions show among themselves, without the exact solution.
      if (results.size() >= 3) {
        const RunResult &c = results[results.size() - 3], &m = results[results.size() - 2], &f = results.back();
        if (!c.coarse.empty() && !m.coarse.empty() && !f.coarse.empty()) {
          double cm = 0, mf = 0;
          for (size_t i = 0; i < c.coarse.size(); ++i) {
            cm += (c.coarse[i] - m.coarse[i]) * (c.coarse[i] - m.coarse[i]);
            mf += (m.coarse[i] - f.coarse[i]) * (m.coarse[i] - f.coarse[i]);
          }
          const SelfConvergence sc = selfConvergence(std::sqrt(cm / 50), std::sqrt(mf / 50), c.h, m.h, f.h);
          std::snprintf(line, sizeof line,
                        "self-convergence (no exact solution): |u(rho=%d) - u(rho=%d)| / |u(rho=%d) - u(rho=%d)| = "
                        "%.4g, order %.3f\n",
                        study.rhos[results.size() - 3], study.rhos[results.size() - 2], study.rhos[results.size() - 2],
                        study.rhos.back(), sc.ratio, sc.order);
          report.text << line;
        }
      }
      const int expected = study.expectedOrder > 0 ? study.expectedOrder : order;
      char message[240];
      if (study.errorBound > 0) {
        double worst = 0;
        for (const RunResult &r : results)
          worst = r.lostAt >= 0 ? std::nan("") : std::max(worst, r.error.max);
        std::snprintf(message, sizeof message,
                      "max error / A = %.3e at the worst rho (observed p = %.3f, not judged); required <= %g", worst /
                      study.amplitude, series.last(), study.errorBound);
        report.verdict(study.test + " order " + std::to_string(order), !(worst > study.errorBound * study.amplitude) &&
                                                                      std::isfinite(worst),
                       message, seconds);
      } else {
        std::snprintf(message, sizeof message, "finest pair: p = %.3f; required within %g of %d", series.last(),
                      study.tolerance, expected);
        report.verdict(study.test + " order " + std::to_string(order), series.within(expected, study.tolerance), message,
                       seconds);
        if (!series.within(expected, study.tolerance))
          if (const std::string hint = preAsymptoticHint(orders, expected, study.tolerance); !hint.empty())
            report.text << hint << "\n";
      }
      judgeEveryVariable(study, order, expected, results, report);
      if (fromFixture && study.crossingTimes > 0.25)
        judgeEveryVariable(study, order, expected, results, report, &RunResult::variablesBeforeEnd, "T - 1/4");
    }
    report.text << "\n";
  }
}

} // namespace tensorium_mlir::verification
