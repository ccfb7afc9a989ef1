// Moving-puncture engine configuration and BSSN initial data (two-puncture handoff, exact
// slices).
#include "tensorium_mlir/Distributed/BssnSetup.h"

#include "tensorium_mlir/Distributed/BssnHooks.h"
#include "tensorium_mlir/Physics/AdmToBssn.h"
#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"
#include "tensorium_mlir/Support/FiniteDifferenceWeights.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace tensorium_mlir::distributed {

DistributedEvolution::Options bssnEvolutionOptions(const BssnRunOptions &o) {
  DistributedEvolution::Options eo;
  eo.params = {o.eta, 1.0, 0.75, o.koSigma, 1.0}; // eta, 1+log slicing, Gamma-driver 3/4, KO, advected shift
  const double h = o.spacing(), lo = -o.extent + h / 2;
  eo.grid = {{o.points, o.points, o.points}, {lo, lo, lo}, {h, h, h}, o.ghost, Boundary::Radiative};
  eo.integrator = o.integrator;
  eo.radiative.farValues = {{"chi", {1.0}}, {"alpha", {1.0}}, {"gammatilde", {1, 0, 0, 0, 1, 0, 0, 0, 1}}};
  eo.radiative.speeds = {{"alpha", std::sqrt(2.0)}, {"K", std::sqrt(2.0)}}; // 1+log gauge speed
  return eo;
}

SystemHooks bssnSystemHooks(const BssnRunOptions &o, DistributedEvolution::StorageHook initialData) {
  const DistributedEvolution::Options eo = bssnEvolutionOptions(o);
  SystemHooks hooks;
  hooks.grid = eo.grid;
  hooks.radiative = eo.radiative;
  hooks.initialData = std::move(initialData);
  hooks.preRhs = [](runtime::UniformGridStorage &s, const DistributedGrid &) { computeInverseConformalMetric(s); };
  hooks.postStep = [project = bssnAlgebraicConstraints(), floor = bssnFloors(o.floors)](std::span<double> owned,
                                                                                     const DistributedEvolution &e) {
    project(owned, e);
    floor(owned, e);
  };
  return hooks;
}

std::vector<double> bssnParameters(const SystemDescription &system, const BssnRunOptions &o) {
  const std::map<std::string, double> gauge{
      {"eta", o.eta}, {"slicing", 1.0}, {"shift_driver", 0.75}, {"ko_sigma", o.koSigma}, {"shift_advect", 1.0}};
  std::map<std::string, double> given;
  for (const std::string &name : system.parameters)
    if (auto found = gauge.find(name); found != gauge.end())
      given.insert(*found);
  return systemParameters(system, given);
}

void checkBssnFields(const DistributedEvolution &e) {
  for (const char *name : kBssnFields)
    e.field(name);
}

StorageLattice ghostedLattice(const DistributedGrid &g) {
  const Box &b = g.ghosted();
  StorageLattice l;
  l.extent = b.extent;
  l.offset = b.begin;
  l.origin = g.spec().lower;
  l.spacing = g.spec().spacing;
  return l;
}

void writeTwoPunctureData(const physics::TwoPunctureSolution &solution, runtime::UniformGridStorage &s,
                          const StorageLattice &b) {
  const size_t n = static_cast<size_t>(b.points());
  std::vector<double> x(n), y(n), z(n);
  for (int64_t i = 0; i < b.extent[0]; ++i)
    for (int64_t j = 0; j < b.extent[1]; ++j)
      for (int64_t k = 0; k < b.extent[2]; ++k) {
        const size_t p = b.index(i, j, k);
        const auto c = b.coordinate(i, j, k);
        x[p] = c[0], y[p] = c[1], z[p] = c[2];
      }
  std::vector<double> gt6(6 * n), At6(6 * n);
  physics::BSSNFieldBuffers buffers{s.buffer("chi"), gt6, s.buffer("K"), At6, s.buffer("Gammatilde"), s.buffer("alpha"),
                                    s.buffer("beta"), s.buffer("B"), {}, {}};
  physics::TwoPunctureHandoff(solution).write(x, y, z, buffers);
  const int sym[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
  std::span<double> gt = s.buffer("gammatilde"), At = s.buffer("Atilde");
  for (int a = 0; a < 6; ++a)
    for (size_t p = 0; p < n; ++p) {
      const size_t ij = static_cast<size_t>(sym[a][0] * 3 + sym[a][1]), ji = static_cast<size_t>(sym[a][1] * 3 + sym[a][0]);
      gt[ij * n + p] = gt[ji * n + p] = gt6[static_cast<size_t>(a) * n + p];
      At[ij * n + p] = At[ji * n + p] = At6[static_cast<size_t>(a) * n + p];
    }
}

void writeExactData(const KernelModuleTables &initial, const std::vector<double> &params, int order,
                    runtime::UniformGridStorage &s, const StorageLattice &b) {
  if (order < 0 || !support::isFiniteDifferenceOrder(static_cast<unsigned>(order)))
    throw DistributedError("exact-slice data: no centred first derivative of order " + std::to_string(order) +
                           " (2, 4, 6 or 8)");
  // d/dx = sum_q w_q (u[q] - u[-q]) / h over q = 1..radius, from the centred table's upper half.
  const std::vector<double> &centred = support::firstDerivativeWeights(static_cast<unsigned>(order));
  const std::vector<double> weights(centred.begin() + static_cast<long>(centred.size() / 2) + 1, centred.end());
  runtime::GeneratedHostStorage init(initial.tables, {b.extent[0], b.extent[1], b.extent[2]});
  const std::string symbol = "tensorium_init_slice_grid_affine";
  if (std::none_of(init.kernels().begin(), init.kernels().end(),
                   [&](const runtime::KernelBinding &k) { return k.symbol == symbol; }))
    throw DistributedError("the initial-data module has no " + symbol +
                           " kernel: the evolution needs K_ij, so the fixture's split_3p1 must map Kij -> Kij[i,j] "
                           "(a static metric4 with zero shift gives K_ij = 0)");
  for (const char *name : {"x", "y", "z", "alpha", "gamma", "Kij"})
    if (!init.hasBuffer(name))
      throw DistributedError(std::string("the initial-data module has no buffer '") + name +
                             "' (Cartesian x, y, z in; alpha, gamma_ij and K_ij out)");
  if (params.size() != init.binding(symbol).paramCount)
    throw DistributedError("the initial-data kernel takes " + std::to_string(init.binding(symbol).paramCount) +
                           " parameters, got " + std::to_string(params.size()));
  const size_t n = static_cast<size_t>(b.points());
  for (int64_t i = 0; i < b.extent[0]; ++i)
    for (int64_t j = 0; j < b.extent[1]; ++j)
      for (int64_t k = 0; k < b.extent[2]; ++k) {
        const auto c = b.coordinate(i, j, k);
        const size_t p = b.index(i, j, k);
        init.buffer("x")[p] = c[0], init.buffer("y")[p] = c[1], init.buffer("z")[p] = c[2];
      }
  const auto &h = b.spacing;
  init.invoke(initial.adapters, symbol, params, {h[0], h[1], h[2]});
  const char *reader = "the evolution's initial data";
  std::span<const double> gamma = init.kernelOutput("gamma", reader), alpha = init.kernelOutput("alpha", reader),
                          Kij = init.kernelOutput("Kij", reader);
  std::span<double> chi = s.buffer("chi"), gt = s.buffer("gammatilde"), K = s.buffer("K"), At = s.buffer("Atilde"),
                    Gt = s.buffer("Gammatilde"), al = s.buffer("alpha"), gu = s.buffer("gammatildeU");
  std::fill(s.buffer("B").begin(), s.buffer("B").end(), 0.0);
  if (init.hasBuffer("beta") && !init.bufferInfo("beta").writtenBy.empty())
    std::copy_n(init.kernelOutput("beta", reader).begin(), 3 * n, s.buffer("beta").begin());
  else
    std::fill(s.buffer("beta").begin(), s.buffer("beta").end(), 0.0);
  std::fill(Gt.begin(), Gt.end(), 0.0);
  for (size_t p = 0; p < n; ++p) {
    physics::Matrix3 gammaAt, KAt;
    for (size_t c = 0; c < 9; ++c)
      gammaAt[c] = gamma[c * n + p], KAt[c] = Kij[c * n + p];
    const physics::BssnPointValues v = physics::bssnFromAdm(gammaAt, &KAt);
    chi[p] = v.chi, K[p] = v.K, al[p] = alpha[p];
    for (size_t c = 0; c < 9; ++c)
      gt[c * n + p] = v.gammatilde[c], At[c * n + p] = v.Atilde[c], gu[c * n + p] = v.gammatildeInverse[c];
  }
  // Gammatilde^i = -d_j gammatilde^ij where the whole stencil lies in the ghosted box (the
  // outermost layers are refilled by the engine's boundary treatment).
  const int64_t radius = static_cast<int64_t>(weights.size());
  const int64_t stride[3] = {b.extent[1] * b.extent[2], b.extent[2], 1};
  for (int64_t i = radius; i < b.extent[0] - radius; ++i)
    for (int64_t j = radius; j < b.extent[1] - radius; ++j)
      for (int64_t k = radius; k < b.extent[2] - radius; ++k) {
        const size_t p = b.index(i, j, k);
        for (size_t a = 0; a < 3; ++a) {
          double sum = 0;
          for (size_t d = 0; d < 3; ++d) {
            const double *u = gu.data() + (3 * a + d) * n + p;
            double derivative = 0;
            for (int64_t q = 1; q <= radius; ++q)
              derivative += weights[static_cast<size_t>(q - 1)] * (u[q * stride[d]] - u[-q * stride[d]]);
            sum += derivative / h[d];
          }
          Gt[a * n + p] = -sum;
        }
      }
}

} // namespace tensorium_mlir::distributed
