#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace tensorium_mlir::physics {

namespace {

constexpr int kSymmetric[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};

/// One puncture's Bowen-York curvature added to A (physics note: momentum and spin terms).
void addBowenYork(const std::array<double, 3> &c, const std::array<double, 3> &P, const std::array<double, 3> &S,
                  const std::array<double, 3> &x, double radiusFloor, SymmetricTensor &A) {
  double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
  double r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double n[3];
  if (r > 0) {
    for (int i = 0; i < 3; ++i)
      n[i] = d[i] / r;
  } else { // any direction: the floor sphere's value along x
    n[0] = 1, n[1] = 0, n[2] = 0;
  }
  r = std::max(r, radiusFloor);
  const double Pn = P[0] * n[0] + P[1] * n[1] + P[2] * n[2];
  // eps^kil S_l n_k = (S x n)_i: the spin term is 3/r^3 [(S x n)_i n_j + (S x n)_j n_i].
  const double Sxn[3] = {S[1] * n[2] - S[2] * n[1], S[2] * n[0] - S[0] * n[2], S[0] * n[1] - S[1] * n[0]};
  const double momentum = 1.5 / (r * r), spin = 3.0 / (r * r * r);
  for (int a = 0; a < 6; ++a) {
    const int i = kSymmetric[a][0], j = kSymmetric[a][1];
    const double delta = i == j ? 1.0 : 0.0;
    A[static_cast<size_t>(a)] += momentum * (P[static_cast<size_t>(i)] * n[j] + P[static_cast<size_t>(j)] * n[i] -
                                              (delta - n[i] * n[j]) * Pn) +
                                 spin * (Sxn[i] * n[j] + Sxn[j] * n[i]);
  }
}

} // namespace

SymmetricTensor bowenYorkCurvature(const TwoPunctureParameters &p, const std::array<double, 3> &x) {
  SymmetricTensor A{};
  addBowenYork({p.b, 0, 0}, p.P1, p.S1, x, 0.0, A);
  addBowenYork({-p.b, 0, 0}, p.P2, p.S2, x, 0.0, A);
  return A;
}

TwoPunctureHandoff::TwoPunctureHandoff(const TwoPunctureSolution &solution, const HandoffOptions &options)
    : solution_(solution), options_(options) {
  if (!(options.punctureRadiusFloor > 0) || !std::isfinite(options.punctureRadiusFloor))
    throw std::invalid_argument("the puncture radius floor must be positive and finite");
}

PunctureFieldValues TwoPunctureHandoff::evaluate(const std::array<double, 3> &x) const {
  const TwoPunctureParameters &p = solution_.parameters();
  const double floor = options_.punctureRadiusFloor * p.b;
  auto distance = [&](double cx) {
    return std::max(std::sqrt((x[0] - cx) * (x[0] - cx) + x[1] * x[1] + x[2] * x[2]), floor);
  };
  PunctureFieldValues v;
  v.U = solution_.U(x); // regular everywhere, the punctures included
  v.psi = 1.0 + p.m1 / (2 * distance(p.b)) + p.m2 / (2 * distance(-p.b)) + v.U;
  addBowenYork({p.b, 0, 0}, p.P1, p.S1, x, floor, v.Ahat);
  addBowenYork({-p.b, 0, 0}, p.P2, p.S2, x, floor, v.Ahat);
  return v;
}

void TwoPunctureHandoff::write(std::span<const double> x, std::span<const double> y, std::span<const double> z,
                               const BSSNFieldBuffers &out) const {
  const size_t n = x.size();
  if (y.size() != n || z.size() != n)
    throw std::invalid_argument("handoff: coordinate arrays have " + std::to_string(x.size()) + ", " +
                                std::to_string(y.size()) + " and " + std::to_string(z.size()) + " entries");
  for (size_t p = 0; p < n; ++p)
    if (!std::isfinite(x[p]) || !std::isfinite(y[p]) || !std::isfinite(z[p]))
      throw std::invalid_argument("handoff: point " + std::to_string(p) + " has a non-finite coordinate");
  auto check = [n](std::span<double> buffer, size_t components, const char *name, bool optional) {
    if (optional && buffer.empty())
      return;
    if (buffer.size() != components * n)
      throw std::invalid_argument(std::string("handoff: buffer '") + name + "' has " + std::to_string(buffer.size()) +
                                  " entries, expected " + std::to_string(components) + " x " + std::to_string(n));
  };
  check(out.chi, 1, "chi", false);
  check(out.gammatilde, 6, "gammatilde", false);
  check(out.K, 1, "K", false);
  check(out.Atilde, 6, "Atilde", false);
  check(out.Gammatilde, 3, "Gammatilde", false);
  check(out.alpha, 1, "alpha", false);
  check(out.beta, 3, "beta", false);
  check(out.B, 3, "B", false);
  check(out.phi, 1, "phi", true);
  check(out.W, 1, "W", true);

  // Points are independent: split them over the hardware threads (spectral interpolation costs
  // O(nA nB nphi) per point and dominates for large target grids).
  const size_t threads = std::max<size_t>(1, std::min<size_t>(std::thread::hardware_concurrency(), n / 4096));
  std::vector<std::thread> workers;
  for (size_t t = 1; t < threads; ++t)
    workers.emplace_back([&, t] { writeRange(x, y, z, out, n * t / threads, n * (t + 1) / threads); });
  writeRange(x, y, z, out, 0, n / threads);
  for (std::thread &w : workers)
    w.join();
}

void TwoPunctureHandoff::writeRange(std::span<const double> x, std::span<const double> y, std::span<const double> z,
                                    const BSSNFieldBuffers &out, size_t begin, size_t end) const {
  const size_t n = x.size();
  for (size_t p = begin; p < end; ++p) {
    const PunctureFieldValues v = evaluate({x[p], y[p], z[p]});
    const double inversePsi = 1.0 / v.psi, psiMinus2 = inversePsi * inversePsi;
    const double psiMinus4 = psiMinus2 * psiMinus2, psiMinus6 = psiMinus4 * psiMinus2;
    out.chi[p] = psiMinus4;
    out.K[p] = 0.0;
    out.alpha[p] = options_.lapse == InitialLapse::One ? 1.0 : psiMinus2;
    for (size_t a = 0; a < 6; ++a) {
      out.gammatilde[a * n + p] = (a == 0 || a == 3 || a == 5) ? 1.0 : 0.0;
      out.Atilde[a * n + p] = psiMinus6 * v.Ahat[a];
    }
    for (size_t i = 0; i < 3; ++i) {
      out.Gammatilde[i * n + p] = 0.0;
      out.beta[i * n + p] = 0.0;
      out.B[i * n + p] = 0.0;
    }
    if (!out.phi.empty())
      out.phi[p] = std::log(v.psi);
    if (!out.W.empty())
      out.W[p] = psiMinus2;
  }
}

AdmMomenta bowenYorkAdmMomenta(const TwoPunctureParameters &p) {
  AdmMomenta m;
  const std::array<double, 3> c1{p.b, 0, 0}, c2{-p.b, 0, 0};
  auto cross = [](const std::array<double, 3> &a, const std::array<double, 3> &b) {
    return std::array<double, 3>{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  };
  const auto l1 = cross(c1, p.P1), l2 = cross(c2, p.P2);
  for (size_t i = 0; i < 3; ++i) {
    m.P[i] = p.P1[i] + p.P2[i];
    m.J[i] = l1[i] + l2[i] + p.S1[i] + p.S2[i];
  }
  return m;
}

namespace {
/// Gauss-Legendre nodes and weights on [-1, 1] (Newton on P_n from Chebyshev guesses).
void gaussLegendre(int n, std::vector<double> &x, std::vector<double> &w) {
  x.assign(static_cast<size_t>(n), 0.0);
  w.assign(static_cast<size_t>(n), 0.0);
  for (int i = 0; i < n; ++i) {
    double t = std::cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 1.0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1.0, p1 = t;
      for (int k = 2; k <= n; ++k) {
        const double pk = ((2.0 * k - 1.0) * t * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = pk;
      }
      dp = n * (t * p1 - p0) / (t * t - 1.0);
      const double step = p1 / dp;
      t -= step;
      if (std::abs(step) < 1e-16)
        break;
    }
    x[static_cast<size_t>(i)] = t;
    w[static_cast<size_t>(i)] = 2.0 / ((1.0 - t * t) * dp * dp);
  }
}
} // namespace

AdmMomenta surfaceAdmMomenta(const TwoPunctureSolution &solution, double R, int nTheta, int nPhi, bool conformal) {
  if (!(R > 0) || !std::isfinite(R) || nTheta < 2 || nPhi < 2)
    throw std::invalid_argument("ADM surface integrals need a positive radius and at least 2 x 2 points");
  const TwoPunctureHandoff handoff(solution);
  std::vector<double> mu, w;
  gaussLegendre(nTheta, mu, w);
  AdmMomenta m;
  const double dphi = 2.0 * M_PI / nPhi;
  for (int a = 0; a < nTheta; ++a) {
    const double ct = mu[static_cast<size_t>(a)], st = std::sqrt(std::max(0.0, 1.0 - ct * ct));
    for (int b = 0; b < nPhi; ++b) {
      const double phi = dphi * b;
      const double n[3] = {st * std::cos(phi), st * std::sin(phi), ct};
      const std::array<double, 3> x{R * n[0], R * n[1], R * n[2]};
      const PunctureFieldValues v = handoff.evaluate(x);
      const double factor = conformal ? 1.0 : 1.0 / (v.psi * v.psi);
      double K[3][3];
      for (int c = 0; c < 6; ++c) {
        const int i = kSymmetric[c][0], j = kSymmetric[c][1];
        K[i][j] = K[j][i] = factor * v.Ahat[static_cast<size_t>(c)];
      }
      double Kn[3];
      for (int i = 0; i < 3; ++i)
        Kn[i] = K[i][0] * n[0] + K[i][1] * n[1] + K[i][2] * n[2];
      const double dA = R * R * w[static_cast<size_t>(a)] * dphi / (8.0 * M_PI);
      const double J[3] = {x[1] * Kn[2] - x[2] * Kn[1], x[2] * Kn[0] - x[0] * Kn[2], x[0] * Kn[1] - x[1] * Kn[0]};
      for (size_t i = 0; i < 3; ++i) {
        m.P[i] += Kn[i] * dA;
        m.J[i] += J[i] * dA;
      }
    }
  }
  return m;
}

} // namespace tensorium_mlir::physics
