#include "tensorium_mlir/Distributed/WaveExtraction.h"

#include "tensorium_mlir/Distributed/BssnDiagnostics.h"
#include "tensorium_mlir/Distributed/BssnHorizons.h"

#include <petscdmda.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>

namespace tensorium_mlir::distributed {

struct WaveExtractor::Impl {
  KernelModuleTables module;
  std::unique_ptr<runtime::GeneratedHostStorage> storage;
  std::unique_ptr<DistributedGrid> psiGrid; // the evolution's decomposition, 2 values per point
  Vec global = nullptr, local = nullptr;
  waves::SphereQuadrature quadrature;
  std::vector<horizons::Point3> points; // every sphere's nodes, sphere after sphere
  ProgressTable modes, integrals;
  Impl(MPI_Comm comm, int lmax, const WaveExtractionSettings &s)
      : quadrature(lmax), modes(comm, s.modesTable, "wave table"), integrals(comm, s.integralsTable, "ADM integral table") {}
  ~Impl() {
    if (local)
      VecDestroy(&local);
    if (global)
      VecDestroy(&global);
  }
};

std::vector<horizons::Point3> WaveExtractor::checkedSpheres() const {
  if (settings_.every < 0)
    throw DistributedError("the extraction cadence must not be negative");
  if (settings_.lmax < 2 || settings_.lmax > 16)
    throw DistributedError("extraction lmax must lie in [2, 16]");
  const waves::SphereQuadrature quadrature(settings_.lmax);
  std::vector<horizons::Point3> points;
  for (double R : settings_.radii) {
    if (!(R > 0) || !std::isfinite(R))
      throw DistributedError("extraction radii must be positive");
    for (int k = 0; k < quadrature.size(); ++k) {
      const double th = quadrature.theta(k), ph = quadrature.phi(k);
      points.push_back({settings_.center[0] + R * std::sin(th) * std::cos(ph),
                        settings_.center[1] + R * std::sin(th) * std::sin(ph), settings_.center[2] + R * std::cos(th)});
    }
  }
  return points;
}

WaveExtractor::WaveExtractor(MPI_Comm comm, WaveExtractionSettings settings) : settings_(std::move(settings)) {
  std::vector<horizons::Point3> points = checkedSpheres();
  impl_ = std::make_unique<Impl>(comm, settings_.lmax, enabled() ? settings_ : WaveExtractionSettings{});
  if (!enabled())
    return;
  impl_->points = std::move(points);
  impl_->modes.append(impl_->modes.writing() ? "time,step,radius,l,m,psi4_re,psi4_im\n" : "");
  impl_->integrals.append(impl_->integrals.writing() ? "time,step,radius,M_adm,P_x,P_y,P_z,J_x,J_y,J_z\n" : "");
}

const std::vector<horizons::Point3> &WaveExtractor::points() const { return impl_->points; }

WaveExtractor::WaveExtractor(DistributedEvolution &e, const KernelModuleTables &weyl, WaveExtractionSettings settings)
    : settings_(std::move(settings)) {
  std::vector<horizons::Point3> points = checkedSpheres();
  if (!enabled()) {
    impl_ = std::make_unique<Impl>(e.grid().comm(), settings_.lmax, WaveExtractionSettings{});
    return;
  }
  const GridSpec &g = e.grid().spec();
  for (double R : settings_.radii) {
    for (int a = 0; a < 3; ++a) {
      // Cubic interpolation needs one grid point below and two above each sphere point.
      const double lo = g.lower[a] + g.spacing[a], hi = g.lower[a] + static_cast<double>(g.points[a] - 3) * g.spacing[a];
      if (settings_.center[a] - R < lo || settings_.center[a] + R > hi) {
        char text[200];
        std::snprintf(text, sizeof text, "the extraction sphere of radius %g about (%g, %g, %g) leaves the grid (axis %c: %g to %g)",
                      R, settings_.center[0], settings_.center[1], settings_.center[2], "xyz"[a], lo, hi);
        throw DistributedError(text);
      }
    }
  }
  const Box &gb = e.grid().ghosted();
  auto storage = std::make_unique<runtime::GeneratedHostStorage>(weyl.tables, runtime::GridShape{gb.extent[0], gb.extent[1], gb.extent[2]});
  for (const char *name : {"gamma", "gammaU", "Kij", "psi4re", "psi4im", "x", "y", "z"})
    if (!storage->hasBuffer(name))
      throw DistributedError(std::string("the Weyl module has no buffer '") + name + "'");
  const runtime::KernelBinding &k = storage->binding("tensorium_residual_grid_parallel");
  if (k.stencilRadius > g.ghostWidth)
    throw DistributedError("the Weyl kernel's stencil radius " + std::to_string(k.stencilRadius) + " exceeds the ghost width " +
                           std::to_string(g.ghostWidth));
  if (g.ghostWidth < 2)
    throw DistributedError("wave extraction needs a ghost width of at least 2");
  (void)bssnSliceGeometry(e); // the BSSN variables the integrals read
  // Every check passed: now the tables (outputs) and the rest.
  impl_ = std::make_unique<Impl>(e.grid().comm(), settings_.lmax, settings_);
  impl_->module = weyl;
  impl_->storage = std::move(storage);
  impl_->points = std::move(points);
  std::span<double> X = impl_->storage->buffer("x"), Y = impl_->storage->buffer("y"), Z = impl_->storage->buffer("z");
  for (int64_t i = gb.begin[0]; i < gb.begin[0] + gb.extent[0]; ++i)
    for (int64_t j = gb.begin[1]; j < gb.begin[1] + gb.extent[1]; ++j)
      for (int64_t kk = gb.begin[2]; kk < gb.begin[2] + gb.extent[2]; ++kk) {
        const size_t p = e.grid().storageIndex(i, j, kk);
        const auto c = e.grid().coordinate(i, j, kk);
        X[p] = c[0], Y[p] = c[1], Z[p] = c[2];
      }
  impl_->psiGrid = std::make_unique<DistributedGrid>(e.grid().comm(), g, 2);
  const Box &o1 = e.grid().owned(), &o2 = impl_->psiGrid->owned();
  for (int a = 0; a < 3; ++a)
    if (o1.begin[a] != o2.begin[a] || o1.extent[a] != o2.extent[a])
      throw DistributedError("the Psi4 grid is not decomposed like the evolution's");
  checkPetsc(DMCreateGlobalVector(impl_->psiGrid->dm(), &impl_->global), "DMCreateGlobalVector");
  checkPetsc(DMCreateLocalVector(impl_->psiGrid->dm(), &impl_->local), "DMCreateLocalVector");
  impl_->modes.append(impl_->modes.writing() ? "time,step,radius,l,m,psi4_re,psi4_im\n" : "");
  impl_->integrals.append(impl_->integrals.writing() ? "time,step,radius,M_adm,P_x,P_y,P_z,J_x,J_y,J_z\n" : "");
}

WaveExtractor::~WaveExtractor() = default;

void WaveExtractor::observe(DistributedEvolution &e) {
  if (!enabled())
    return;
  const auto started = std::chrono::steady_clock::now();
  Impl &m = *impl_;
  // Psi4 over the rank's ghosted box, then the owned values into the 2-dof grid and PETSc's
  // exchange for the ghost layers the interpolation reads.
  admFromBssn(e.storage(), *m.storage);
  const auto &h = e.grid().spec().spacing;
  const std::vector<double> centre = {settings_.center[0], settings_.center[1], settings_.center[2]};
  m.storage->invoke(m.module.adapters, "tensorium_residual_grid_parallel", centre, {h[0], h[1], h[2]});
  const std::span<const double> re = std::as_const(*m.storage).buffer("psi4re"), im = std::as_const(*m.storage).buffer("psi4im");
  const Box &o = e.grid().owned();
  PetscScalar *g;
  checkPetsc(VecGetArray(m.global, &g), "VecGetArray");
  size_t q = 0;
  for (int64_t k = o.begin[2]; k < o.begin[2] + o.extent[2]; ++k)
    for (int64_t j = o.begin[1]; j < o.begin[1] + o.extent[1]; ++j)
      for (int64_t i = o.begin[0]; i < o.begin[0] + o.extent[0]; ++i, q += 2) {
        const size_t p = e.grid().storageIndex(i, j, k);
        g[q] = re[p], g[q + 1] = im[p];
      }
  checkPetsc(VecRestoreArray(m.global, &g), "VecRestoreArray");
  checkPetsc(DMGlobalToLocalBegin(m.psiGrid->dm(), m.global, INSERT_VALUES, m.local), "DMGlobalToLocalBegin");
  checkPetsc(DMGlobalToLocalEnd(m.psiGrid->dm(), m.global, INSERT_VALUES, m.local), "DMGlobalToLocalEnd");
  const PetscScalar *l;
  checkPetsc(VecGetArrayRead(m.local, &l), "VecGetArrayRead");
  const GridSpec &spec = e.grid().spec();
  const size_t np = m.points.size();
  std::vector<double> local(2 * np, 0.0), sum(2 * np, 0.0);
  for (size_t p = 0; p < np; ++p) {
    int64_t base[3];
    double w[3][4];
    for (int a = 0; a < 3; ++a) {
      const double s = (m.points[p][static_cast<size_t>(a)] - spec.lower[a]) / spec.spacing[a];
      base[a] = static_cast<int64_t>(std::floor(s));
      double unused[4];
      horizons::lagrangeWeights(4, s - static_cast<double>(base[a]), w[a], unused);
    }
    if (!o.contains(base[0], base[1], base[2]))
      continue;
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 4; ++c) {
          const size_t idx = m.psiGrid->localIndex(base[0] + a - 1, base[1] + b - 1, base[2] + c - 1);
          const double wt = w[0][a] * w[1][b] * w[2][c];
          local[2 * p] += wt * l[idx];
          local[2 * p + 1] += wt * l[idx + 1];
        }
  }
  checkPetsc(VecRestoreArrayRead(m.local, &l), "VecRestoreArrayRead");
  MPI_Allreduce(local.data(), sum.data(), static_cast<int>(sum.size()), MPI_DOUBLE, MPI_SUM, e.grid().comm());

  // ADM surface integrals from the slice at the same points (6-point interpolation with
  // derivatives, as the horizon finder reads it), flat normals and area elements:
  //   M = (1/16 pi) oint (d_j gamma_ij - d_i gamma_jj) n^i dS,  P_i = (1/8 pi) oint (K_ij - K delta_ij) n^j dS,
  //   J_i = (1/8 pi) oint eps_ijk x^j (K_kl - K delta_kl) n^l dS  (about the extraction centre).
  std::vector<horizons::SpatialGeometry> slice(np);
  bssnSliceGeometry(e, spec.ghostWidth >= 3 ? 6 : 4)(m.points, slice);
  record(e.grid().comm(), e.time(), e.stepNumber(), sum, slice);
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void WaveExtractor::record(MPI_Comm comm, double t, long step, const std::vector<double> &sum,
                           const std::vector<horizons::SpatialGeometry> &slice) {
  if (!enabled())
    return;
  Impl &m = *impl_;
  if (sum.size() != 2 * m.points.size() || slice.size() != m.points.size())
    throw DistributedError("wave extraction: Psi4 and the slice must be given at every sphere point");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int nq = m.quadrature.size();
  std::string summary;
  for (size_t r = 0; r < settings_.radii.size(); ++r) {
    const double R = settings_.radii[r];
    std::vector<std::complex<double>> f(static_cast<size_t>(nq));
    double M = 0, P[3] = {0, 0, 0}, J[3] = {0, 0, 0};
    for (int k = 0; k < nq; ++k) {
      const size_t p = r * static_cast<size_t>(nq) + static_cast<size_t>(k);
      f[static_cast<size_t>(k)] = {sum[2 * p], sum[2 * p + 1]};
      const double dS = m.quadrature.weight(k) * R * R;
      double n[3], x[3];
      for (int a = 0; a < 3; ++a)
        x[a] = m.points[p][static_cast<size_t>(a)] - settings_.center[a], n[a] = x[a] / R;
      const horizons::SpatialGeometry &s = slice[p];
      auto G = [&](int a, int i, int j) { return s.dgamma[static_cast<size_t>(a)][static_cast<size_t>(horizons::symIndex(i, j))]; };
      auto Kd = [&](int i, int j) { return s.K[static_cast<size_t>(horizons::symIndex(i, j))]; };
      const double trK = Kd(0, 0) + Kd(1, 1) + Kd(2, 2);
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j)
          M += (G(j, i, j) - G(i, j, j)) * n[i] * dS / (16 * std::numbers::pi);
        double kn[3];
        for (int a = 0; a < 3; ++a) {
          kn[a] = 0;
          for (int b = 0; b < 3; ++b)
            kn[a] += (Kd(a, b) - trK * (a == b)) * n[b];
        }
        P[i] += kn[i] * dS / (8 * std::numbers::pi);
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        J[i] += (x[j] * kn[k] - x[k] * kn[j]) * dS / (8 * std::numbers::pi);
      }
    }
    const std::vector<waves::Mode> modes = waves::projectSpinWeighted(m.quadrature, f, -2, settings_.lmax);
    char text[256];
    for (const waves::Mode &md : modes) {
      modeRows_.insert(modeRows_.end(), {t, static_cast<double>(step), R, static_cast<double>(md.l),
                                         static_cast<double>(md.m), md.value.real(), md.value.imag()});
      if (m.modes.writing()) {
        std::snprintf(text, sizeof text, "%.17g,%ld,%.17g,%d,%d,%.17g,%.17g\n", t, step, R, md.l, md.m,
                      md.value.real(), md.value.imag());
        m.modes.append(text);
      } else {
        m.modes.append("");
      }
      if (r == 0 && md.l == 2 && (md.m == 0 || md.m == 2)) {
        std::snprintf(text, sizeof text, "  Psi4(2,%d) %+.4e %+.4ei", md.m, md.value.real(), md.value.imag());
        summary += text;
      }
    }
    std::snprintf(text, sizeof text, "%.17g,%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", t, step, R, M,
                  P[0], P[1], P[2], J[0], J[1], J[2]);
    m.integrals.append(m.integrals.writing() ? text : "");
    integralRows_.insert(integralRows_.end(), {t, static_cast<double>(step), R, M, P[0], P[1], P[2], J[0], J[1], J[2]});
    if (r == 0) {
      std::snprintf(text, sizeof text, "  M_adm %.6f |P| %.2e |J| %.2e", M, std::sqrt(P[0] * P[0] + P[1] * P[1] + P[2] * P[2]),
                    std::sqrt(J[0] * J[0] + J[1] * J[1] + J[2] * J[2]));
      summary += text;
    }
  }
  if (rank == 0) {
    std::printf("t = %8.4f waves at r = %g:%s\n", t, settings_.radii.front(), summary.c_str());
    std::fflush(stdout);
  }
}

std::vector<std::string> WaveExtractor::modeColumns() { return {"time", "step", "radius", "l", "m", "psi4_re", "psi4_im"}; }

std::vector<std::string> WaveExtractor::integralColumns() {
  return {"time", "step", "radius", "M_adm", "P_x", "P_y", "P_z", "J_x", "J_y", "J_z"};
}

void WaveExtractor::finish() {
  impl_->modes.finish();
  impl_->integrals.finish();
}

} // namespace tensorium_mlir::distributed
