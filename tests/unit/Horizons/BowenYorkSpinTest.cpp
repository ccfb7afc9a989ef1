// Bowen-York spinning puncture data: on any surface that encloses one puncture, the flat
// rotational-vector integral (1/8 pi) oint K_ij phi^i s^j dA of the physical data equals that of
// the conformal data (psi cancels: K_ij = psi^-2 Ahat_ij, s^j = psi^-2 stilde^j,
// dA = psi^4 dAtilde), which is the puncture's spin S by the momentum constraint. The horizons
// found must carry S1 and zero. The broken twin, K_ij = psi^-6 Ahat_ij (the conformal weight of
// the other convention), does not.
#include "TensoriumHorizonSpinTests_kernels.h"

#include "tensorium_mlir/Horizons/HorizonFinder.h"
#include "tensorium_mlir/Horizons/PunctureSlice.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

using namespace tensorium_mlir;
using namespace tensorium_mlir::horizons;

TEST(BowenYorkSpin, HorizonAngularMomentumEqualsTheInputSpin) {
  physics::TwoPunctureParameters p;
  p.b = 3;
  p.m1 = 0.5, p.m2 = 0.5;
  p.S1 = {0.02, -0.03, 0.1};
  physics::TwoPunctureOptions o;
  o.nA = o.nB = 20, o.nPhi = 12;
  const physics::TwoPunctureSolution solution = physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], p, o);
  ASSERT_TRUE(solution.result().converged()) << solution.result().message;
  const physics::TwoPunctureHandoff handoff(solution);
  const GeometrySampler geometry = differentiatedGeometry(twoPunctureSlice(handoff), 1e-4);
  HorizonOptions options;
  options.lmax = 8;
  for (int n = 0; n < 2; ++n) {
    const Point3 centre = {n == 0 ? p.b : -p.b, 0, 0};
    const HorizonResult r = findHorizon(geometry, StarSurface::sphere(centre, 0.3, 8), options);
    ASSERT_TRUE(r.found) << r.message;
    const std::array<double, 3> &S = n == 0 ? p.S1 : p.S2;
    const SurfaceMeasures &m = r.measures;
    std::printf("puncture %d: J = (%.12f, %.12f, %.12f), S = (%.3f, %.3f, %.3f), M_irr %.8f, M %.8f, mean radius %.6f\n",
                n + 1, m.spin[0], m.spin[1], m.spin[2], S[0], S[1], S[2], m.irreducibleMass, m.christodoulouMass,
                m.meanRadius);
    for (size_t a = 0; a < 3; ++a)
      EXPECT_NEAR(m.spin[a], S[a], 1e-9) << "puncture " << n + 1 << " component " << a;
  }
  // The twin: the surface found in it (or the true horizon measured with it) carries a spin
  // that is not S1.
  const physics::TwoPunctureHandoff &h = handoff;
  const MetricSampler wrongWeight = [&h](std::span<const Point3> points, std::span<Sym3> gamma, std::span<Sym3> K) {
    for (size_t q = 0; q < points.size(); ++q) {
      const physics::PunctureFieldValues v = h.evaluate(points[q]);
      const double psi4 = std::pow(v.psi, 4);
      gamma[q] = {psi4, 0, 0, psi4, 0, psi4};
      for (size_t c = 0; c < 6; ++c)
        K[q][c] = v.Ahat[c] / (psi4 * v.psi * v.psi);
    }
  };
  const HorizonResult twin =
      findHorizon(differentiatedGeometry(wrongWeight, 1e-4), StarSurface::sphere({p.b, 0, 0}, 0.3, 8), options);
  ASSERT_TRUE(twin.found) << twin.message;
  std::printf("twin: J_z = %.6f (S = %.3f)\n", twin.measures.spin[2], p.S1[2]);
  EXPECT_GT(std::abs(twin.measures.spin[2] - p.S1[2]), 1e-2);
}
