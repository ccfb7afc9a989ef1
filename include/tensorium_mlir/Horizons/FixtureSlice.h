#pragma once
// gamma_ij and K_ij of an exact-solution fixture at arbitrary points, from its compiled module's
// slice kernel (tensorium_init_slice_grid_affine, written by a split_3p1 that maps gamma and
// Kij). No MLIR: the module is loaded, not compiled, here.
#include "tensorium_mlir/Horizons/SpatialGeometry.h"

#include <map>
#include <memory>
#include <string>

namespace tensorium_mlir::runtime {
class KernelModule;
}

namespace tensorium_mlir::horizons {

class FixtureSlice {
public:
  /// Loads the module at `modulePath` (`displayName`, e.g. the fixture's path, names it in
  /// errors). `parameters` by name: every parameter of the module must be given except the
  /// reserved time t (0 unless given). Throws std::runtime_error naming a missing or unknown
  /// parameter or a module without initial-data kernels.
  FixtureSlice(const std::string &modulePath, const std::map<std::string, double> &parameters,
               const std::string &displayName = "");
  ~FixtureSlice();
  FixtureSlice(const FixtureSlice &) = delete;
  FixtureSlice &operator=(const FixtureSlice &) = delete;

  /// The parameter names in the module's order.
  const std::vector<std::string> &parameterNames() const { return names_; }
  /// Evaluates the slice kernel at the points. A K_ij that the kernel does not write (a split
  /// without `Kij`) is an error (here or at the first evaluation) unless `timeSymmetric`, when
  /// K_ij = 0 is meant and a fixture without the slice kernel is read through its plain
  /// initial-data kernel.
  MetricSampler sampler(bool timeSymmetric = false) const;

private:
  std::shared_ptr<runtime::KernelModule> module_;
  std::vector<std::string> names_;
  std::vector<double> values_;
  std::string name_;
  bool hasSlice_ = false, hasInit_ = false;
};

} // namespace tensorium_mlir::horizons
