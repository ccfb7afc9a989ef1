#pragma once
// Psi4 on the refined grid for wave extraction: the generated Weyl-scalar kernel
// (fixtures/gr/weyl_scalars_3d.tn) run on each block that holds a sphere point, and cubic
// interpolation inside that block. The modes and ADM integrals are the uniform grid's
// (distributed::WaveExtractor::record). No MLIR here.
#include "tensorium_mlir/Distributed/WaveExtraction.h"
#include "tensorium_mlir/Refinement/RefinedBssn.h"

#include <array>
#include <memory>
#include <span>
#include <vector>

namespace tensorium_mlir::refinement {

class RefinedPsi4Sampler {
public:
  /// `weyl`: the module with tensorium_residual_grid_affine reading gamma, gammaU, Kij and the
  /// coordinates x, y, z and writing psi4re, psi4im, with parameters cx, cy, cz (the tetrad's
  /// centre). Throws RefinementError for a module without them or a stencil wider than the
  /// blocks' ghost width.
  RefinedPsi4Sampler(const RefinedEvolution &e, const distributed::KernelModuleTables &weyl, std::array<double, 3> center);
  ~RefinedPsi4Sampler();
  /// Psi4 at `points` (real and imaginary parts interleaved), the same on every rank; points
  /// must lie in the domain. Reads the blocks' ghost layers as they are: fill them for the
  /// present state first (refinedSliceGeometry does). Collective.
  std::vector<double> sample(RefinedEvolution &e, std::span<const horizons::Point3> points);

private:
  distributed::KernelModuleTables module_;
  std::unique_ptr<runtime::GeneratedHostStorage> storage_;
  std::array<double, 3> center_;
  int valid_ = 0; // ghost layers of a block where the kernel's values hold (ghost width - stencil)
};

} // namespace tensorium_mlir::refinement
