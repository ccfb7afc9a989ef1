#include "tensorium_mlir/Distributed/BssnHorizons.h"

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace tensorium_mlir::distributed {
namespace {

using horizons::Point3;
using horizons::Sym3;

constexpr int kValues = 14, kPerPoint = kSliceValues;
constexpr int kSymmetric[6] = {0, 1, 2, 4, 5, 8}; // xx xy xz yy yz zz of a row-major 3x3

} // namespace

SliceBuffers sliceBuffers(const runtime::UniformGridStorage &s) {
  return {s.buffer("chi").data(), s.buffer("gammatilde").data(), s.buffer("Atilde").data(), s.buffer("K").data(),
          static_cast<size_t>(s.shape().points())};
}

void addSliceSample(const SliceBuffers &b, size_t index, double wv, const double wd[3], double *v) {
  double f[7];
  f[0] = b.chi[index];
  for (int q = 0; q < 6; ++q)
    f[1 + q] = b.gammatilde[static_cast<size_t>(kSymmetric[q]) * b.points + index];
  for (int q = 0; q < 7; ++q) {
    v[q] += wv * f[q];
    for (int k = 0; k < 3; ++k)
      v[kValues + 7 * k + q] += wd[k] * f[q];
  }
  for (int q = 0; q < 6; ++q)
    v[7 + q] += wv * b.Atilde[static_cast<size_t>(kSymmetric[q]) * b.points + index];
  v[13] += wv * b.K[index];
}

void sliceGeometryFromValues(const double *v, const Point3 &x, horizons::SpatialGeometry &out) {
  const double c = v[0];
  if (!(c > 0)) {
    char text[160];
    std::snprintf(text, sizeof text, "chi = %.3g at (%.4g, %.4g, %.4g): the surface reaches the puncture", c, x[0], x[1],
                  x[2]);
    throw horizons::GeometryDomainError(text);
  }
  for (size_t q = 0; q < 6; ++q) {
    out.gamma[q] = v[1 + q] / c;
    out.K[q] = (v[7 + q] + v[1 + q] * v[13] / 3) / c;
    for (size_t k = 0; k < 3; ++k)
      out.dgamma[k][q] = v[kValues + 7 * k + 1 + q] / c - v[1 + q] * v[kValues + 7 * k] / (c * c);
  }
}

horizons::GeometrySampler bssnSliceGeometry(DistributedEvolution &e, int nodes) {
  if (nodes != 4 && nodes != 6)
    throw DistributedError("horizon interpolation takes 4 or 6 nodes per axis");
  if (static_cast<int>(e.grid().spec().ghostWidth) < nodes / 2)
    throw DistributedError("horizon interpolation with " + std::to_string(nodes) + " nodes needs a ghost width of at least " +
                           std::to_string(nodes / 2));
  for (const char *name : {"chi", "gammatilde", "Atilde", "K"})
    (void)e.field(name); // a system without them is refused now
  if (e.field("gammatilde").components != 9 || e.field("Atilde").components != 9)
    throw DistributedError("horizons need gammatilde and Atilde stored with 9 components");
  return [&e, nodes](std::span<const Point3> points, std::span<horizons::SpatialGeometry> out) {
    const GridSpec &g = e.grid().spec();
    const int below = nodes / 2 - 1;
    const size_t np = points.size();
    std::vector<double> local(np * kPerPoint, 0.0), sum(np * kPerPoint, 0.0);
    const SliceBuffers buffers = sliceBuffers(std::as_const(e.storage()));
    for (size_t p = 0; p < np; ++p) {
      int64_t base[3];
      double w[3][6], dw[3][6];
      for (int a = 0; a < 3; ++a) {
        const double s = (points[p][static_cast<size_t>(a)] - g.lower[a]) / g.spacing[a];
        if (!std::isfinite(s) || s < below || s > static_cast<double>(g.points[a] - 1 - nodes / 2)) {
          char text[160];
          std::snprintf(text, sizeof text, "the point (%.4g, %.4g, %.4g) is outside the grid's interpolation region",
                        points[p][0], points[p][1], points[p][2]);
          throw horizons::GeometryDomainError(text);
        }
        base[a] = static_cast<int64_t>(std::floor(s));
        horizons::lagrangeWeights(nodes, s - static_cast<double>(base[a]), w[a], dw[a]);
        for (int i = 0; i < nodes; ++i)
          dw[a][i] /= g.spacing[a];
      }
      if (!e.grid().owned().contains(base[0], base[1], base[2]))
        continue;
      double *v = &local[p * kPerPoint];
      for (int a = 0; a < nodes; ++a)
        for (int b = 0; b < nodes; ++b)
          for (int c = 0; c < nodes; ++c) {
            const size_t index = e.grid().storageIndex(base[0] + a - below, base[1] + b - below, base[2] + c - below);
            const double wv = w[0][a] * w[1][b] * w[2][c];
            const double wd[3] = {dw[0][a] * w[1][b] * w[2][c], w[0][a] * dw[1][b] * w[2][c], w[0][a] * w[1][b] * dw[2][c]};
            addSliceSample(buffers, index, wv, wd, v);
          }
    }
    // Exactly one rank owns each point's base cell: the sum is its value.
    MPI_Allreduce(local.data(), sum.data(), static_cast<int>(sum.size()), MPI_DOUBLE, MPI_SUM, e.grid().comm());
    for (size_t p = 0; p < np; ++p)
      sliceGeometryFromValues(&sum[p * kPerPoint], points[p], out[p]);
  };
}

namespace {

HorizonMonitorSettings checked(HorizonMonitorSettings settings, size_t trackedPoints) {
  if (settings.every < 0)
    throw DistributedError("the horizon cadence must not be negative");
  for (const HorizonGuess &g : settings.guesses) {
    if (!(g.radius > 0) || !std::isfinite(g.radius))
      throw DistributedError("a horizon guess needs a positive radius");
    if (g.follows == HorizonGuess::Follows::Tracked && g.tracked >= trackedPoints)
      throw DistributedError("a horizon guess follows tracked point " + std::to_string(g.tracked + 1) + " of " +
                             std::to_string(trackedPoints));
    if (g.follows == HorizonGuess::Follows::Centroid && trackedPoints == 0)
      throw DistributedError("a common-horizon guess needs tracked points");
  }
  return settings;
}

} // namespace

// The settings are checked before the table (an output) is created.
HorizonMonitor::HorizonMonitor(const DistributedEvolution &e, HorizonMonitorSettings settings, size_t trackedPoints)
    : HorizonMonitor(e.grid().comm(), std::move(settings), trackedPoints) {}

HorizonMonitor::HorizonMonitor(MPI_Comm comm, HorizonMonitorSettings settings, size_t trackedPoints)
    : settings_(checked(std::move(settings), trackedPoints)),
      table_(comm, settings_.every > 0 ? settings_.table : "", "horizon table") {
  previous_.resize(settings_.guesses.size());
  table_.append(!table_.writing() ? std::string() : std::string("time,step,horizon,follows,found,iterations,area,irreducible_mass,mean_radius,centroid_x,centroid_y,"
                  "centroid_z,circumference_xy,circumference_xz,circumference_yz,J_x,J_y,J_z,christodoulou_mass,chi,"
                  "rms_expansion,stagnated\n"));
}

std::vector<std::string> HorizonMonitor::columns() {
  return {"time", "step", "horizon", "follows", "found", "iterations", "area", "irreducible_mass", "mean_radius",
          "centroid_x", "centroid_y", "centroid_z", "circumference_xy", "circumference_xz", "circumference_yz", "J_x", "J_y",
          "J_z", "christodoulou_mass", "chi", "rms_expansion", "stagnated"};
}

void HorizonMonitor::observe(DistributedEvolution &e, const std::vector<Point3> &tracked) {
  if (!enabled())
    return;
  observe(bssnSliceGeometry(e, e.grid().spec().ghostWidth >= 3 ? 6 : 4), e.grid().comm(), e.time(), e.stepNumber(),
          tracked);
}

void HorizonMonitor::observe(const horizons::GeometrySampler &geometry, MPI_Comm comm, double t, long step,
                             const std::vector<Point3> &tracked) {
  if (!enabled())
    return;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto started = std::chrono::steady_clock::now();
  std::string line;
  char text[512];
  for (size_t q = 0; q < settings_.guesses.size(); ++q) {
    const HorizonGuess &g = settings_.guesses[q];
    Point3 center = g.center;
    if (g.follows == HorizonGuess::Follows::Tracked) {
      center = tracked[g.tracked];
    } else if (g.follows == HorizonGuess::Follows::Centroid) {
      center = {0, 0, 0};
      for (const Point3 &t : tracked)
        for (size_t a = 0; a < 3; ++a)
          center[a] += t[a] / static_cast<double>(tracked.size());
    }
    horizons::HorizonOptions options = settings_.options;
    horizons::StarSurface guess = horizons::StarSurface::sphere(center, g.radius, options.lmax);
    if (previous_[q]) {
      guess = *previous_[q];
      guess.center = center; // the shape found last time, moved with the point it follows
    } else {
      options.maxIterations = std::min(options.maxIterations, settings_.firstSearchIterations);
    }
    horizons::HorizonResult r;
    try {
      r = horizons::findHorizon(geometry, guess, options);
    } catch (const horizons::GeometryDomainError &err) {
      r.message = err.what();
    }
    if (r.found)
      previous_[q] = r.surface;
    const char *follows = g.follows == HorizonGuess::Follows::Tracked ? "tracked" :
                          g.follows == HorizonGuess::Follows::Centroid ? "common" : "fixed";
    const horizons::SurfaceMeasures &m = r.measures;
    if (r.found) {
      std::snprintf(text, sizeof text, "  horizon %zu (%s): M_irr %.6f, |J| %.3e, at (%.3f, %.3f, %.3f)", q + 1, follows,
                    m.irreducibleMass, m.spinMagnitude, m.centroid[0], m.centroid[1], m.centroid[2]);
    } else {
      std::snprintf(text, sizeof text, "  horizon %zu (%s): none", q + 1, follows);
    }
    line += text;
    if (g.follows == HorizonGuess::Follows::Centroid && r.found && !commonTime_) {
      commonTime_ = t;
      std::snprintf(text, sizeof text, "  [common horizon first found at t = %.4f]", t);
      line += text;
    }
    const double follows01 = g.follows == HorizonGuess::Follows::Tracked ? 1 : g.follows == HorizonGuess::Follows::Centroid ? 2 : 0;
    rows_.insert(rows_.end(), {t, static_cast<double>(step), static_cast<double>(q + 1), follows01,
                               r.found ? 1.0 : 0.0, static_cast<double>(r.iterations), m.area, m.irreducibleMass,
                               m.meanRadius, m.centroid[0], m.centroid[1], m.centroid[2], m.equatorialCircumference,
                               m.polarCircumferenceXZ, m.polarCircumferenceYZ, m.spin[0], m.spin[1], m.spin[2],
                               m.christodoulouMass, m.dimensionlessSpin, m.rmsExpansion, r.stagnated ? 1.0 : 0.0});
    if (table_.writing()) {
      std::snprintf(text, sizeof text,
                    "%.17g,%ld,%zu,%s,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
                    "%.17g,%d\n",
                    t, step, q + 1, follows, r.found ? 1 : 0, r.iterations, m.area, m.irreducibleMass,
                    m.meanRadius, m.centroid[0], m.centroid[1], m.centroid[2], m.equatorialCircumference,
                    m.polarCircumferenceXZ, m.polarCircumferenceYZ, m.spin[0], m.spin[1], m.spin[2], m.christodoulouMass,
                    m.dimensionlessSpin, m.rmsExpansion, r.stagnated ? 1 : 0);
      table_.append(text);
    } else {
      table_.append("");
    }
  }
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (rank == 0) {
    std::printf("t = %8.4f horizons:%s\n", t, line.c_str());
    std::fflush(stdout);
  }
}

} // namespace tensorium_mlir::distributed
