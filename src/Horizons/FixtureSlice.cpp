#include "tensorium_mlir/Horizons/FixtureSlice.h"

#include "tensorium_mlir/Runtime/HostStorage.h"
#include "tensorium_mlir/Runtime/KernelModule.h"

#include <stdexcept>

namespace tensorium_mlir::horizons {
namespace {

constexpr const char *kSliceKernel = "tensorium_init_slice_grid_affine";
// A split without beta or Kij has only the plain initial-data kernel (gamma, alpha).
constexpr const char *kInitKernel = "tensorium_init_grid_affine";

runtime::GeneratedHostTables tablesOf(const runtime::KernelModule &m) {
  const tensorium_module_tables &t = m.tables();
  return {t.kernels, static_cast<size_t>(t.kernel_count), t.buffers, static_cast<size_t>(t.buffer_count),
          t.param_names, static_cast<size_t>(t.param_count), static_cast<unsigned>(t.dimension)};
}

} // namespace

FixtureSlice::FixtureSlice(const std::string &modulePath, const std::map<std::string, double> &parameters,
                           const std::string &displayName)
    : module_(std::make_shared<runtime::KernelModule>(modulePath)), name_(displayName.empty() ? modulePath : displayName) {
  const tensorium_module_tables &t = module_->tables();
  for (int k = 0; k < t.adapter_count; ++k) {
    hasSlice_ = hasSlice_ || std::string(t.adapters[k].symbol) == kSliceKernel;
    hasInit_ = hasInit_ || std::string(t.adapters[k].symbol) == kInitKernel;
  }
  if (!hasSlice_ && !hasInit_)
    throw std::runtime_error(name_ + " has no initial-data kernel (an initial_data block with a metric4 and a split_3p1 "
                                     "mapping gamma and Kij)");
  for (int i = 0; i < t.param_count; ++i) {
    const std::string name = t.param_names[i];
    names_.push_back(name);
    const auto it = parameters.find(name);
    if (it == parameters.end() && name != "t")
      throw std::runtime_error("the fixture's parameter '" + name + "' has no value");
    values_.push_back(it == parameters.end() ? 0.0 : it->second);
  }
  for (const auto &[name, value] : parameters) {
    bool known = false;
    for (const std::string &n : names_)
      known = known || n == name;
    if (!known) {
      std::string list;
      for (const std::string &n : names_)
        list += (list.empty() ? "" : ", ") + n;
      throw std::runtime_error("the fixture has no parameter '" + name + "' (it has: " + (list.empty() ? "none" : list) + ")");
    }
  }
}

FixtureSlice::~FixtureSlice() = default;

MetricSampler FixtureSlice::sampler(bool timeSymmetric) const {
  if (!hasSlice_ && !timeSymmetric)
    throw std::runtime_error(name_ + ": its split_3p1 maps no Kij (only " + kInitKernel +
                             "); map Kij, or state K_ij = 0 for time-symmetric data");
  const char *kernel = hasSlice_ ? kSliceKernel : kInitKernel;
  return [module = module_, values = values_, timeSymmetric, kernel](std::span<const Point3> points, std::span<Sym3> gamma,
                                                            std::span<Sym3> K) {
    const int n = static_cast<int>(points.size());
    if (n == 0)
      return;
    runtime::GeneratedHostStorage storage(tablesOf(*module), {n, 1, 1});
    static const char *const axes[3] = {"x", "y", "z"};
    for (size_t a = 0; a < 3; ++a) {
      std::span<double> c = storage.buffer(axes[a]);
      for (size_t p = 0; p < points.size(); ++p)
        c[p] = points[p][a];
    }
    const tensorium_module_tables &t = module->tables();
    storage.invoke({t.adapters, static_cast<size_t>(t.adapter_count)}, kernel, values, {1, 1, 1});
    const char *reader = "the horizon finder (gamma_ij and K_ij of the slice)";
    std::span<const double> g = storage.kernelOutput("gamma", reader);
    std::span<const double> k;
    if (!timeSymmetric)
      k = storage.kernelOutput("Kij", reader);
    const size_t np = points.size();
    if (g.size() != 9 * np || (!timeSymmetric && k.size() != 9 * np))
      throw std::runtime_error("the fixture's gamma or Kij is not a 3x3 tensor per point");
    for (size_t p = 0; p < np; ++p)
      for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) {
          const size_t c = static_cast<size_t>(i * 3 + j) * np + p, s = static_cast<size_t>(symIndex(i, j));
          gamma[p][s] = g[c];
          K[p][s] = timeSymmetric ? 0.0 : k[c];
        }
  };
}

} // namespace tensorium_mlir::horizons
