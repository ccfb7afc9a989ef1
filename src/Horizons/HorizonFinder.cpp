#include "tensorium_mlir/Horizons/HorizonFinder.h"
#include "tensorium_mlir/Horizons/SphericalHarmonics.h"
#include "tensorium_mlir/Physics/AdmToBssn.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

namespace tensorium_mlir::horizons {
namespace {

constexpr double kPi = std::numbers::pi;

struct LocalShape {
  double h = 0, ht = 0, hp = 0, htt = 0, htp = 0, hpp = 0;
};

double &component(LocalShape &s, int q) {
  switch (q) {
  case 0: return s.h;
  case 1: return s.ht;
  case 2: return s.hp;
  case 3: return s.htt;
  case 4: return s.htp;
  default: return s.hpp;
  }
}

LocalShape shapeOf(const HarmonicValues &v) { return {v.y, v.dTheta, v.dPhi, v.dThetaTheta, v.dThetaPhi, v.dPhiPhi}; }

struct Frame {
  Point3 n, eTheta, ePhi;
};

Frame frameAt(double theta, double phi) {
  const double st = std::sin(theta), ct = std::cos(theta), sp = std::sin(phi), cp = std::cos(phi);
  return {{st * cp, st * sp, ct}, {ct * cp, ct * sp, -st}, {-sp, cp, 0}};
}

using Matrix3 = std::array<std::array<double, 3>, 3>;

Matrix3 full(const Sym3 &s) {
  Matrix3 m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      m[static_cast<size_t>(i)][static_cast<size_t>(j)] = s[static_cast<size_t>(symIndex(i, j))];
  return m;
}

/// gamma^ij by the physics library's cofactor inverse; false unless gamma_ij is positive definite
/// enough to have a positive, finite determinant.
bool invert(const Matrix3 &a, Matrix3 &inv) {
  physics::Matrix3 flat, flatInverse;
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 3; ++j)
      flat[3 * i + j] = a[i][j];
  const double det = physics::invert3x3(flat, flatInverse);
  if (!(det > 0) || !std::isfinite(det))
    return false;
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 3; ++j)
      inv[i][j] = flatInverse[3 * i + j];
  return true;
}

/// First and second Cartesian derivatives of F = r - h(theta, phi) about the centre.
void levelSetDerivatives(double theta, double phi, const LocalShape &s, Point3 &dF, Matrix3 &ddF) {
  const Frame f = frameAt(theta, phi);
  const double r = s.h, st = std::sin(theta);
  const Point3 X = {r * f.n[0], r * f.n[1], r * f.n[2]};
  const double rho = r * st, rho2 = rho * rho, rho3 = rho2 * rho, rho4 = rho2 * rho2, r2 = r * r, r4 = r2 * r2;
  Point3 dTheta, dPhi;
  for (size_t i = 0; i < 3; ++i) {
    dTheta[i] = f.eTheta[i] / r;
    dPhi[i] = f.ePhi[i] / rho;
  }
  // phi = atan2(y, x); theta = atan2(rho, z) with rho = sqrt(x^2 + y^2).
  Matrix3 hPhi{}, hTheta{}, hRho{};
  hPhi[0][0] = 2 * X[0] * X[1] / rho4;
  hPhi[1][1] = -hPhi[0][0];
  hPhi[0][1] = hPhi[1][0] = (X[1] * X[1] - X[0] * X[0]) / rho4;
  hRho[0][0] = X[1] * X[1] / rho3;
  hRho[1][1] = X[0] * X[0] / rho3;
  hRho[0][1] = hRho[1][0] = -X[0] * X[1] / rho3;
  const Point3 dRho = {X[0] / rho, X[1] / rho, 0};
  const double z = X[2], tU = z / r2, tUU = -2 * rho * z / r4, tUZ = (rho2 - z * z) / r4, tZZ = 2 * rho * z / r4;
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 3; ++j)
      hTheta[i][j] = tUU * dRho[i] * dRho[j] + tUZ * (dRho[i] * (j == 2) + (i == 2) * dRho[j]) + tZZ * (i == 2) * (j == 2) +
                     tU * hRho[i][j];
  for (size_t i = 0; i < 3; ++i) {
    dF[i] = f.n[i] - s.ht * dTheta[i] - s.hp * dPhi[i];
    for (size_t j = 0; j < 3; ++j)
      ddF[i][j] = ((i == j) - f.n[i] * f.n[j]) / r -
                  (s.htt * dTheta[i] * dTheta[j] + s.htp * (dTheta[i] * dPhi[j] + dPhi[i] * dTheta[j]) +
                   s.hpp * dPhi[i] * dPhi[j] + s.ht * hTheta[i][j] + s.hp * hPhi[i][j]);
  }
}

struct NormalData {
  double theta = 0;       // the expansion
  double lambda = 0;      // |dF|
  Point3 sUp{};           // s^i
  Matrix3 gammaUp{};
  double trK = 0;
};

/// Theta from the closed form; false where the metric is not positive definite.
bool expansion(double theta, double phi, const LocalShape &s, const SpatialGeometry &g, NormalData &out) {
  Point3 dF;
  Matrix3 ddF;
  levelSetDerivatives(theta, phi, s, dF, ddF);
  const Matrix3 gamma = full(g.gamma);
  Matrix3 inv;
  if (!invert(gamma, inv))
    return false;
  // Gamma^k_ij d_k F = gamma^kl Gamma_lij d_k F.
  Point3 dFUp{};
  for (size_t k = 0; k < 3; ++k)
    for (size_t l = 0; l < 3; ++l)
      dFUp[k] += inv[k][l] * dF[l];
  double lambda2 = 0;
  for (size_t k = 0; k < 3; ++k)
    lambda2 += dF[k] * dFUp[k];
  if (!(lambda2 > 0))
    return false;
  const double lambda = std::sqrt(lambda2);
  double theta0 = 0, trK = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double christoffel = 0; // Gamma^k_ij d_k F
      for (int l = 0; l < 3; ++l) {
        const double lower = 0.5 * (g.dgamma[static_cast<size_t>(i)][static_cast<size_t>(symIndex(l, j))] +
                                    g.dgamma[static_cast<size_t>(j)][static_cast<size_t>(symIndex(l, i))] -
                                    g.dgamma[static_cast<size_t>(l)][static_cast<size_t>(symIndex(i, j))]);
        christoffel += dFUp[static_cast<size_t>(l)] * lower;
      }
      const double sij = dFUp[static_cast<size_t>(i)] * dFUp[static_cast<size_t>(j)] / lambda2;
      const double Kij = g.K[static_cast<size_t>(symIndex(i, j))];
      theta0 += (inv[static_cast<size_t>(i)][static_cast<size_t>(j)] - sij) *
                ((ddF[static_cast<size_t>(i)][static_cast<size_t>(j)] - christoffel) / lambda - Kij);
      trK += inv[static_cast<size_t>(i)][static_cast<size_t>(j)] * Kij;
    }
  out.theta = theta0;
  out.lambda = lambda;
  out.gammaUp = inv;
  out.trK = trK;
  for (size_t i = 0; i < 3; ++i)
    out.sUp[i] = dFUp[i] / lambda;
  return std::isfinite(theta0);
}

Point3 surfacePoint(const Point3 &center, double theta, double phi, double h) {
  const Frame f = frameAt(theta, phi);
  return {center[0] + h * f.n[0], center[1] + h * f.n[1], center[2] + h * f.n[2]};
}

double quadratic(const Sym3 &g, const Point3 &a, const Point3 &b) {
  double sum = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      sum += g[static_cast<size_t>(symIndex(i, j))] * a[static_cast<size_t>(i)] * b[static_cast<size_t>(j)];
  return sum;
}

double meanRadiusOf(const std::vector<double> &c) { return c.empty() ? 0.0 : c[0] / std::sqrt(4 * kPi); }

/// Length of the curve where `surface` meets the plane through `origin` spanned by the unit
/// vectors e1, e2: the curve's radius rho(psi) about the origin in the plane by a secant search
/// along each ray, its derivative by differentiating the trigonometric interpolant, and the
/// length sum (2 pi / N) sqrt(gamma(t, t)) with t = rho' u + rho u_perp (spectral for a smooth
/// closed curve). NaN when the curve is not star-shaped about the origin.
double planeCurveLength(const GeometrySampler &geometry, const StarSurface &surface, const Point3 &origin, const Point3 &e1,
                        const Point3 &e2, int count) {
  auto levelSet = [&](const Point3 &x) {
    const double dx = x[0] - surface.center[0], dy = x[1] - surface.center[1], dz = x[2] - surface.center[2];
    const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
    return r - surface.radiusAt(std::acos(std::clamp(dz / r, -1.0, 1.0)), std::atan2(dy, dx));
  };
  const size_t n = static_cast<size_t>(count);
  std::vector<double> rho(n);
  std::vector<Point3> u(n), uPerp(n), points(n);
  const double scale = meanRadiusOf(surface.coefficients);
  for (size_t j = 0; j < n; ++j) {
    const double psi = 2 * kPi * static_cast<double>(j) / count;
    for (size_t i = 0; i < 3; ++i) {
      u[j][i] = std::cos(psi) * e1[i] + std::sin(psi) * e2[i];
      uPerp[j][i] = -std::sin(psi) * e1[i] + std::cos(psi) * e2[i];
    }
    auto along = [&](double r) {
      return levelSet({origin[0] + r * u[j][0], origin[1] + r * u[j][1], origin[2] + r * u[j][2]});
    };
    // Bracket from the origin (inside the surface) outward, then false position (Illinois).
    double a = 0, fa = along(a), b = scale, fb = along(b);
    if (!(fa < 0))
      return std::numeric_limits<double>::quiet_NaN(); // the centroid is not inside the surface
    for (int grow = 0; grow < 60 && fb < 0; ++grow)
      a = b, fa = fb, b *= 1.5, fb = along(b);
    if (!(fb >= 0))
      return std::numeric_limits<double>::quiet_NaN();
    int side = 0;
    for (int it = 0; it < 200 && b - a > 1e-15 * scale; ++it) {
      const double c = (a * fb - b * fa) / (fb - fa), fc = along(c);
      if (fc == 0) {
        a = b = c;
        break;
      }
      if (fc < 0) {
        a = c, fa = fc;
        if (side == -1)
          fb /= 2;
        side = -1;
      } else {
        b = c, fb = fc;
        if (side == 1)
          fa /= 2;
        side = 1;
      }
    }
    b = 0.5 * (a + b);
    rho[j] = b;
    for (size_t i = 0; i < 3; ++i)
      points[j][i] = origin[i] + b * u[j][i];
  }
  // d rho / d psi of the trigonometric interpolant (the Nyquist mode dropped).
  std::vector<double> dRho(n, 0.0);
  for (int k = 1; k < (count + 1) / 2; ++k) {
    double a = 0, b = 0;
    for (size_t j = 0; j < n; ++j) {
      const double psi = 2 * kPi * static_cast<double>(j) / count;
      a += rho[j] * std::cos(k * psi), b += rho[j] * std::sin(k * psi);
    }
    a *= 2.0 / count, b *= 2.0 / count;
    for (size_t j = 0; j < n; ++j) {
      const double psi = 2 * kPi * static_cast<double>(j) / count;
      dRho[j] += k * (b * std::cos(k * psi) - a * std::sin(k * psi));
    }
  }
  std::vector<SpatialGeometry> g(n);
  geometry(points, g);
  double length = 0;
  for (size_t j = 0; j < n; ++j) {
    Point3 t;
    for (size_t i = 0; i < 3; ++i)
      t[i] = dRho[j] * u[j][i] + rho[j] * uPerp[j][i];
    length += 2 * kPi / count * std::sqrt(std::max(quadratic(g[j].gamma, t, t), 0.0));
  }
  return length;
}

void checkOptions(const HorizonOptions &o) {
  if (o.lmax < 0 || o.lmax > 40)
    throw std::invalid_argument("horizon finder: lmax must lie in [0, 40]");
  if (o.maxIterations < 1)
    throw std::invalid_argument("horizon finder: maxIterations must be at least 1");
  if (!(o.tolerance > 0) || !std::isfinite(o.tolerance))
    throw std::invalid_argument("horizon finder: the tolerance must be positive and finite");
  if (!(o.stagnationTolerance >= 0) || !std::isfinite(o.stagnationTolerance))
    throw std::invalid_argument("horizon finder: the stagnation tolerance must be finite and not negative");
  if (!(o.maxRadiusGrowth > 1))
    throw std::invalid_argument("horizon finder: maxRadiusGrowth must exceed 1");
  if (o.circumferencePoints < 8)
    throw std::invalid_argument("horizon finder: circumferencePoints must be at least 8");
}

SphereGrid gridFor(const HorizonOptions &o) {
  const int nTheta = o.thetaPoints > 0 ? o.thetaPoints : 2 * (o.lmax + 1);
  const int nPhi = o.phiPoints > 0 ? o.phiPoints : 2 * nTheta;
  return SphereGrid(o.lmax, nTheta, nPhi);
}


std::string text(const char *format, double a, double b = 0) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, format, a, b);
  return buffer;
}

/// h and its derivatives at every node of `grid`, the surface points there and the geometry at
/// them; throws std::domain_error where h <= 0.
void sampleOnNodes(const GeometrySampler &geometry, const StarSurface &surface, const SphereGrid &grid,
                   std::vector<LocalShape> &shapes, std::vector<Point3> &points, std::vector<SpatialGeometry> &g) {
  const size_t nodes = static_cast<size_t>(grid.nodeCount());
  shapes.resize(nodes);
  points.resize(nodes);
  for (size_t k = 0; k < nodes; ++k) {
    const int node = static_cast<int>(k);
    shapes[k] = shapeOf(grid.synthesize(surface.coefficients, node));
    if (!(shapes[k].h > 0))
      throw std::domain_error("the surface passes through its centre");
    points[k] = surfacePoint(surface.center, grid.theta(node), grid.phi(node), shapes[k].h);
  }
  g.resize(nodes);
  geometry(points, g);
}

} // namespace

StarSurface StarSurface::sphere(const Point3 &center, double radius, int lmax) {
  StarSurface s;
  s.center = center;
  s.lmax = lmax;
  s.coefficients.assign(static_cast<size_t>(harmonicCount(lmax)), 0.0);
  s.coefficients[0] = radius * std::sqrt(4 * kPi);
  return s;
}

double StarSurface::radiusAt(double theta, double phi) const {
  const std::vector<HarmonicValues> y = realHarmonics(lmax, theta, phi);
  double h = 0;
  for (size_t k = 0; k < y.size() && k < coefficients.size(); ++k)
    h += coefficients[k] * y[k].y;
  return h;
}

std::vector<double> expansionAt(const GeometrySampler &geometry, const StarSurface &surface, const SphereGrid &grid) {
  const int nodes = grid.nodeCount();
  std::vector<Point3> points;
  std::vector<LocalShape> shapes;
  std::vector<SpatialGeometry> g;
  sampleOnNodes(geometry, surface, grid, shapes, points, g);
  std::vector<double> theta(static_cast<size_t>(nodes));
  for (int k = 0; k < nodes; ++k) {
    NormalData nd;
    if (!expansion(grid.theta(k), grid.phi(k), shapes[static_cast<size_t>(k)], g[static_cast<size_t>(k)], nd))
      throw std::domain_error("the metric is not positive definite on the surface");
    theta[static_cast<size_t>(k)] = nd.theta;
  }
  return theta;
}

SurfaceMeasures measureSurface(const GeometrySampler &geometry, const StarSurface &surface, const HorizonOptions &options) {
  checkOptions(options);
  HorizonOptions o = options;
  o.lmax = surface.lmax;
  const SphereGrid grid = gridFor(o);
  const int nodes = grid.nodeCount();
  SurfaceMeasures m;
  m.meanRadius = meanRadiusOf(surface.coefficients);
  std::vector<Point3> points;
  std::vector<LocalShape> shapes;
  std::vector<SpatialGeometry> g;
  sampleOnNodes(geometry, surface, grid, shapes, points, g);
  std::vector<double> dA(static_cast<size_t>(nodes));
  std::vector<NormalData> normal(static_cast<size_t>(nodes));
  double sumTheta2 = 0;
  for (int k = 0; k < nodes; ++k) {
    const size_t kk = static_cast<size_t>(k);
    const LocalShape &s = shapes[kk];
    const Frame f = frameAt(grid.theta(k), grid.phi(k));
    const double st = std::sin(grid.theta(k));
    Point3 xTheta, xPhi;
    for (size_t i = 0; i < 3; ++i) {
      xTheta[i] = s.ht * f.n[i] + s.h * f.eTheta[i];
      xPhi[i] = s.hp * f.n[i] + s.h * st * f.ePhi[i];
    }
    const double qtt = quadratic(g[kk].gamma, xTheta, xTheta), qtp = quadratic(g[kk].gamma, xTheta, xPhi),
                 qpp = quadratic(g[kk].gamma, xPhi, xPhi);
    dA[kk] = grid.weight(k) * std::sqrt(std::max(qtt * qpp - qtp * qtp, 0.0)) / st;
    if (!expansion(grid.theta(k), grid.phi(k), s, g[kk], normal[kk]))
      throw std::domain_error("the metric is not positive definite on the surface");
    m.area += dA[kk];
    for (size_t i = 0; i < 3; ++i)
      m.centroid[i] += points[kk][i] * dA[kk];
    sumTheta2 += grid.weight(k) * normal[kk].theta * normal[kk].theta;
    m.maxExpansion = std::max(m.maxExpansion, std::abs(normal[kk].theta) * m.meanRadius);
  }
  m.rmsExpansion = std::sqrt(sumTheta2 / (4 * kPi)) * m.meanRadius;
  for (double &c : m.centroid)
    c /= m.area;
  // J_a = (1/8 pi) oint (K_ij - K gamma_ij) phi_a^i s^j dA.
  for (int k = 0; k < nodes; ++k) {
    const size_t kk = static_cast<size_t>(k);
    const Point3 x = {points[kk][0] - m.centroid[0], points[kk][1] - m.centroid[1], points[kk][2] - m.centroid[2]};
    const Point3 rotations[3] = {{0, -x[2], x[1]}, {x[2], 0, -x[0]}, {-x[1], x[0], 0}};
    Sym3 P;
    for (size_t c = 0; c < 6; ++c)
      P[c] = g[kk].K[c] - normal[kk].trK * g[kk].gamma[c];
    for (size_t a = 0; a < 3; ++a)
      m.spin[a] += quadratic(P, rotations[a], normal[kk].sUp) * dA[kk] / (8 * kPi);
  }
  m.irreducibleMass = std::sqrt(m.area / (16 * kPi));
  m.spinMagnitude = std::sqrt(m.spin[0] * m.spin[0] + m.spin[1] * m.spin[1] + m.spin[2] * m.spin[2]);
  m.christodoulouMass =
      std::sqrt(m.irreducibleMass * m.irreducibleMass + m.spinMagnitude * m.spinMagnitude / (4 * m.irreducibleMass * m.irreducibleMass));
  m.dimensionlessSpin = m.spinMagnitude / (m.christodoulouMass * m.christodoulouMass);
  // Circumferences: the curves where the surface meets the planes through the centroid
  // spanned by two coordinate axes (the equator: x and y).
  const Point3 ex = {1, 0, 0}, ey = {0, 1, 0}, ez = {0, 0, 1};
  m.equatorialCircumference = planeCurveLength(geometry, surface, m.centroid, ex, ey, options.circumferencePoints);
  m.polarCircumferenceXZ = planeCurveLength(geometry, surface, m.centroid, ex, ez, options.circumferencePoints);
  m.polarCircumferenceYZ = planeCurveLength(geometry, surface, m.centroid, ey, ez, options.circumferencePoints);
  return m;
}

HorizonResult findHorizon(const GeometrySampler &geometry, const StarSurface &guess, const HorizonOptions &options) {
  checkOptions(options);
  const SphereGrid grid = gridFor(options);
  const int nodes = grid.nodeCount(), n = grid.harmonics();
  HorizonResult result;
  result.surface.center = guess.center;
  result.surface.lmax = options.lmax;
  std::vector<double> c(static_cast<size_t>(n), 0.0);
  for (size_t k = 0; k < c.size() && k < guess.coefficients.size(); ++k)
    c[k] = guess.coefficients[k];
  if (!(meanRadiusOf(c) > 0) || !std::isfinite(meanRadiusOf(c)))
    throw std::invalid_argument("horizon finder: the initial guess needs a positive mean radius");
  for (double v : c)
    if (!std::isfinite(v))
      throw std::invalid_argument("horizon finder: the initial guess has a coefficient that is not finite");

  // Theta at every node for coefficients `coef`; with `jacobian`, also the Galerkin Jacobian.
  std::vector<LocalShape> shapes(static_cast<size_t>(nodes));
  std::vector<double> theta(static_cast<size_t>(nodes));
  Eigen::MatrixXd J(n, n), L(nodes, n), Y(nodes, n);
  for (int k = 0; k < nodes; ++k)
    for (int col = 0; col < n; ++col)
      Y(k, col) = grid.basis(k, col).y;
  std::string failure;
  auto evaluate = [&](const std::vector<double> &coef, bool jacobian) -> bool {
    const double rMean = meanRadiusOf(coef);
    const double dh = 1e-6 * rMean;
    const int copies = jacobian ? 3 : 1;
    std::vector<Point3> points(static_cast<size_t>(nodes * copies));
    for (int k = 0; k < nodes; ++k) {
      LocalShape &s = shapes[static_cast<size_t>(k)];
      s = shapeOf(grid.synthesize(coef, k));
      if (!(s.h > 0) || !std::isfinite(s.h)) {
        failure = "the surface shrank through its centre";
        return false;
      }
      for (int copy = 0; copy < copies; ++copy)
        points[static_cast<size_t>(copy * nodes + k)] =
            surfacePoint(result.surface.center, grid.theta(k), grid.phi(k), s.h + (copy == 1 ? dh : copy == 2 ? -dh : 0.0));
    }
    std::vector<SpatialGeometry> g(points.size());
    try {
      geometry(points, g);
    } catch (const GeometryDomainError &e) {
      failure = std::string("the surface left the data: ") + e.what();
      return false;
    }
    std::vector<std::array<double, 6>> local(jacobian ? static_cast<size_t>(nodes) : 0);
    for (int k = 0; k < nodes; ++k) {
      const size_t kk = static_cast<size_t>(k);
      const LocalShape &s = shapes[kk];
      NormalData nd;
      if (!expansion(grid.theta(k), grid.phi(k), s, g[kk], nd)) {
        failure = "the metric is not positive definite, or not finite, on the surface";
        return false;
      }
      theta[kk] = nd.theta;
      if (!jacobian)
        continue;
      // dTheta/dh moves the point (geometry sampled at h +- dh); the derivatives of h do not.
      auto at = [&](const LocalShape &shifted, const SpatialGeometry &geo) {
        NormalData x;
        expansion(grid.theta(k), grid.phi(k), shifted, geo, x);
        return x.theta;
      };
      LocalShape up = s, down = s;
      up.h += dh, down.h -= dh;
      local[kk][0] = (at(up, g[static_cast<size_t>(nodes) + kk]) - at(down, g[2 * static_cast<size_t>(nodes) + kk])) / (2 * dh);
      for (int q = 1; q < 6; ++q) {
        LocalShape a = s, b = s;
        component(a, q) += dh, component(b, q) -= dh;
        local[kk][static_cast<size_t>(q)] = (at(a, g[kk]) - at(b, g[kk])) / (2 * dh);
      }
    }
    if (jacobian) {
      // J = Y^T W L with L(k, col) the change of Theta at node k per unit of coefficient col.
      for (int k = 0; k < nodes; ++k) {
        const std::array<double, 6> &d = local[static_cast<size_t>(k)];
        for (int col = 0; col < n; ++col) {
          const HarmonicValues &b = grid.basis(k, col);
          L(k, col) = grid.weight(k) * (d[0] * b.y + d[1] * b.dTheta + d[2] * b.dPhi + d[3] * b.dThetaTheta +
                                        d[4] * b.dThetaPhi + d[5] * b.dPhiPhi);
        }
      }
      J.noalias() = Y.transpose() * L;
    }
    return true;
  };
  // The merit is the Galerkin residual that Newton drives to zero, not Theta at the nodes:
  // the part of Theta above lmax cannot be removed by any surface of the band and would stall a
  // line search at the truncation error.
  auto galerkin = [&]() {
    Eigen::VectorXd wTheta(nodes);
    for (int k = 0; k < nodes; ++k)
      wTheta(k) = grid.weight(k) * theta[static_cast<size_t>(k)];
    return Eigen::VectorXd(Y.transpose() * wTheta);
  };
  auto merit = [&]() { return galerkin().squaredNorm(); };

  for (int iteration = 1; iteration <= options.maxIterations; ++iteration) {
    result.iterations = iteration;
    if (!evaluate(c, true)) {
      result.message = failure;
      result.surface.coefficients = c;
      return result;
    }
    const Eigen::VectorXd R = galerkin();
    const double merit0 = R.squaredNorm();
    const Eigen::VectorXd step = J.fullPivLu().solve(-R);
    if (!step.allFinite()) {
      result.message = "the Newton system is singular";
      result.surface.coefficients = c;
      return result;
    }
    // A step that moves some point of the surface by more than a third of the mean radius is
    // shortened (far from the horizon a full step can jump into the region near a puncture,
    // where grid data are not smooth); then backtracking on the L2 norm of Theta.
    double largest = 0;
    for (int k = 0; k < nodes; ++k) {
      double dh = 0;
      for (int col = 0; col < n; ++col)
        dh += step(col) * grid.basis(k, col).y;
      largest = std::max(largest, std::abs(dh));
    }
    double alpha = std::min(1.0, meanRadiusOf(c) / (3 * largest));
    std::vector<double> trial(c.size());
    bool accepted = false, decreased = false;
    for (int cut = 0; cut < 8; ++cut, alpha /= 2) {
      for (size_t k = 0; k < c.size(); ++k)
        trial[k] = c[k] + alpha * step(static_cast<Eigen::Index>(k));
      if (!evaluate(trial, false))
        continue;
      decreased = merit() < merit0;
      if (decreased || cut == 7) {
        accepted = true;
        break;
      }
    }
    const double fullStep = step.norm() / std::sqrt(4 * kPi) / meanRadiusOf(c); // relative RMS change of h
    auto converged = [&](const std::vector<double> &coefficients, double lastStep) {
      result.found = true;
      result.surface.coefficients = coefficients;
      result.lastStep = lastStep;
      try {
        result.measures = measureSurface(geometry, result.surface, options);
      } catch (const std::exception &e) {
        result.found = false;
        result.message = std::string("the surface converged but could not be measured: ") + e.what();
      }
      return result;
    };
    // Interpolated grid data are smooth only within cells: Theta jumps by the interpolation
    // error as nodes cross cell faces, so Newton stalls at that level. A step that no line
    // search can make decrease, and that is already below the stagnation tolerance, is that
    // floor: the surface is converged as far as the data allow.
    if (!decreased && fullStep < options.stagnationTolerance) {
      result.stagnated = true;
      return converged(c, fullStep);
    }
    if (!accepted) {
      result.message = failure.empty() ? "no Newton step reduces the expansion" : failure;
      result.surface.coefficients = c;
      return result;
    }
    c = trial;
    if (meanRadiusOf(c) > options.maxRadiusGrowth * meanRadiusOf(guess.coefficients)) {
      result.message = text("the surface grew past %.0f times the guess's mean radius (no horizon inside it)",
                            options.maxRadiusGrowth);
      result.surface.coefficients = c;
      return result;
    }
    if (options.verbose)
      std::fprintf(stderr, "iteration %d: merit %.3e -> %.3e, |step| %.3e, alpha %g\n", iteration, merit0, merit(),
                   step.norm(), alpha);
    if (alpha * fullStep < options.tolerance)
      return converged(c, alpha * fullStep);
  }
  result.surface.coefficients = c;
  result.message = text("no convergence in %.0f Newton iterations (no marginally trapped surface near the guess?)",
                        options.maxIterations);
  return result;
}

CommonHorizonSearch commonHorizonSeparation(double m1, double m2, const HorizonOptions &options, double tolerance,
                                            const std::function<GeometrySampler(std::vector<Puncture>)> &slice) {
  if (!(m1 > 0) || !(m2 > 0) || !std::isfinite(m1) || !std::isfinite(m2))
    throw std::invalid_argument("common horizon search: masses must be positive and finite");
  if (!(tolerance > 0) || !(tolerance < 0.1))
    throw std::invalid_argument("common horizon search: the tolerance must lie in (0, 0.1) M");
  const double M = m1 + m2;
  CommonHorizonSearch search;
  auto attempt = [&](double d, const StarSurface &guess) {
    ++search.finderCalls;
    const GeometrySampler g = slice({{m1, {0, 0, d * m2}}, {m2, {0, 0, -d * m1}}});
    return findHorizon(g, guess, options);
  };
  StarSurface last = StarSurface::sphere({0, 0, 0}, M / 2, options.lmax);
  double found = 0, missing = -1;
  for (double d = 0.1; d < 4.0; d += 0.1) {
    const HorizonResult r = attempt(d, last);
    if (!r.found) {
      missing = d;
      break;
    }
    found = d, last = r.surface, search.lastMeasures = r.measures;
  }
  if (missing < 0)
    throw std::runtime_error("common horizon search: a common horizon was found up to d = 4 M");
  if (found == 0)
    throw std::runtime_error("common horizon search: no common horizon even at d = 0.1 M");
  while (missing - found > tolerance) {
    const double mid = 0.5 * (found + missing);
    const HorizonResult r = attempt(mid, last);
    if (r.found)
      found = mid, last = r.surface, search.lastMeasures = r.measures;
    else
      missing = mid;
  }
  search.lastFound = found;
  search.firstMissing = missing;
  return search;
}

} // namespace tensorium_mlir::horizons
