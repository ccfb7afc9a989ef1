#include "tensorium_mlir/Horizons/PunctureSlice.h"

namespace tensorium_mlir::horizons {

MetricSampler twoPunctureSlice(const physics::TwoPunctureHandoff &handoff) {
  return [&handoff](std::span<const Point3> points, std::span<Sym3> gamma, std::span<Sym3> K) {
    for (size_t p = 0; p < points.size(); ++p) {
      const physics::PunctureFieldValues v = handoff.evaluate(points[p]);
      const double psi2 = v.psi * v.psi, psi4 = psi2 * psi2;
      gamma[p] = {psi4, 0, 0, psi4, 0, psi4};
      for (size_t c = 0; c < 6; ++c)
        K[p][c] = v.Ahat[c] / psi2;
    }
  };
}

} // namespace tensorium_mlir::horizons
