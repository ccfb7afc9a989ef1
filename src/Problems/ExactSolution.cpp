// Errors of a declared problem's solution against its declared exact solutions.
#include "tensorium_mlir/Problems/ExactSolution.h"
#include "tensorium_mlir/Runtime/KernelModule.h"

#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

namespace tensorium_mlir::elliptic {

namespace {

std::string pointText(const std::array<double, 3> &p) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "(%.6g, %.6g, %.6g)", p[0], p[1], p[2]);
  return buffer;
}

/// The exact kernel of `unknown`: value (and tolerance) at the points; false when the program
/// declares no exact solution for it.
bool evaluateExact(const tensorium_module_tables &tables, const DeclaredProblemSolution &solution, const std::string &unknown,
                   const std::vector<std::array<double, 3>> &points, std::vector<double> &value,
                   std::vector<double> &tolerance, bool &hasTolerance) {
  const std::string symbol = abi::spectralExactSymbol(unknown);
  int32_t kernel = -1;
  for (int32_t k = 0; k < tables.kernel_count; ++k)
    if (symbol == tables.kernels[k].symbol)
      kernel = k;
  if (kernel < 0)
    return false;
  const tensorium_host_kernel_adapter *adapter = runtime::adapterOf(tables, kernel);
  if (!adapter)
    throw ProblemError("the module has no adapter for its kernel '" + symbol + "'");
  const tensorium_host_kernel_desc &desc = tables.kernels[kernel];
  std::vector<double> params;
  for (int32_t i = 0; i < tables.param_count; ++i) {
    auto it = solution.parameters.find(tables.param_names[i]);
    if (it == solution.parameters.end())
      throw ProblemError("parameter '" + std::string(tables.param_names[i]) + "' of the exact solution of '" + unknown +
                         "' has no value");
    params.push_back(it->second);
  }
  if (static_cast<int32_t>(params.size()) != desc.param_count)
    throw ProblemError("kernel '" + symbol + "' takes " + std::to_string(desc.param_count) + " parameters, the module " +
                       std::to_string(params.size()));
  const size_t m = points.size();
  std::vector<double> x(m), y(m), z(m);
  for (size_t q = 0; q < m; ++q)
    x[q] = points[q][0], y[q] = points[q][1], z[q] = points[q][2];
  value.assign(m, NAN);
  tolerance.assign(m, NAN);
  hasTolerance = false;
  std::vector<std::pair<int32_t, double *>> byArg;
  for (int32_t b = 0; b < desc.buffer_count; ++b) {
    const tensorium_host_buffer_desc &buffer = tables.buffers[desc.first_buffer + b];
    const std::string name = buffer.name;
    double *data = name == "x"           ? x.data()
                   : name == "y"         ? y.data()
                   : name == "z"         ? z.data()
                   : name == "value"     ? value.data()
                   : name == "tolerance" ? tolerance.data()
                                         : nullptr;
    if (!data)
      throw ProblemError("kernel '" + symbol + "' has an unexpected buffer '" + name + "'");
    hasTolerance = hasTolerance || name == "tolerance";
    byArg.push_back({buffer.arg_index, data});
  }
  std::sort(byArg.begin(), byArg.end());
  std::vector<double *> buffers;
  for (const auto &entry : byArg)
    buffers.push_back(entry.second);
  const std::vector<int64_t> sizes(buffers.size(), static_cast<int64_t>(m));
  const int64_t extents[3] = {static_cast<int64_t>(m), 1, 1};
  const double spacing[3] = {0.0, 0.0, 0.0};
  adapter->invoke(extents, spacing, params.data(), buffers.data(), sizes.data());
  for (size_t q = 0; q < m; ++q) {
    if (!std::isfinite(value[q]))
      throw ProblemError("the exact solution of '" + unknown + "' is not finite at " + pointText(points[q]));
    if (hasTolerance && !(std::isfinite(tolerance[q]) && tolerance[q] > 0))
      throw ProblemError("the exact solution's tolerance of '" + unknown + "' is not a positive number at " +
                         pointText(points[q]));
  }
  return true;
}

void accumulate(ExactErrorNorms &norms, UnknownExactError &out, const std::vector<std::array<double, 3>> &points,
                const std::vector<double> &computed, const std::vector<double> &value, const std::vector<double> &tolerance) {
  double sum = 0;
  for (size_t q = 0; q < points.size(); ++q) {
    const double e = std::abs(computed[q] - value[q]);
    sum += e * e;
    if (!(e <= norms.max)) // NaN counts as the worst
      norms.max = e, norms.worst = points[q];
    if (out.hasTolerance && !(e / tolerance[q] <= out.worstRatio))
      out.worstRatio = e / tolerance[q], out.worstRatioPoint = points[q];
  }
  norms.points = points.size();
  norms.rms = points.empty() ? 0.0 : std::sqrt(sum / static_cast<double>(points.size()));
}

} // namespace

std::vector<UnknownExactError> exactSolutionErrors(const tensorium_module_tables &tables,
                                                   const DeclaredProblemSolution &solution, int betweenPoints, uint64_t seed) {
  const size_t n = solution.grid->size();
  std::vector<std::array<double, 3>> collocation(n);
  for (size_t p = 0; p < n; ++p)
    collocation[p] = solution.grid->physicalPoint(p);
  // Points between the collocation points: in a random cell of the tensor grid, a random
  // trilinear blend of its eight corners (the map's own spacing, so a compactified domain is
  // sampled where its points are), kept when inside the domain.
  const std::array<int, 3> ext = solution.grid->extents();
  std::mt19937_64 random(seed);
  auto uniform = [&] { return std::generate_canonical<double, 53>(random); };
  std::vector<std::array<double, 3>> between;
  for (int tries = 0; static_cast<int>(between.size()) < betweenPoints && tries < 100 * betweenPoints; ++tries) {
    int cell[3];
    double w[3];
    for (int a = 0; a < 3; ++a) {
      cell[a] = ext[a] > 1 ? static_cast<int>(uniform() * (ext[a] - 1)) % (ext[a] - 1) : 0;
      w[a] = ext[a] > 1 ? uniform() : 0.0;
    }
    std::array<double, 3> p{0, 0, 0};
    for (int corner = 0; corner < 8; ++corner) {
      int idx[3];
      double weight = 1;
      for (int a = 0; a < 3; ++a) {
        const int up = (corner >> a) & 1;
        idx[a] = std::min(cell[a] + up, ext[a] - 1);
        weight *= up ? w[a] : 1 - w[a];
      }
      const std::array<double, 3> c = solution.grid->physicalPoint(solution.grid->index(idx[0], idx[1], idx[2]));
      for (size_t a = 0; a < 3; ++a)
        p[a] += weight * c[a];
    }
    if (solution.toLogical(p))
      between.push_back(p);
  }
  std::vector<UnknownExactError> out;
  for (const std::string &name : solution.unknownNames) {
    UnknownExactError e;
    e.unknown = name;
    std::vector<double> value, tolerance;
    if (!evaluateExact(tables, solution, name, collocation, value, tolerance, e.hasTolerance))
      continue;
    accumulate(e.collocation, e, collocation, solution.values(name), value, tolerance);
    evaluateExact(tables, solution, name, between, value, tolerance, e.hasTolerance);
    std::vector<double> interpolated(between.size());
    for (size_t q = 0; q < between.size(); ++q)
      interpolated[q] = solution.interpolate(name, between[q]);
    accumulate(e.between, e, between, interpolated, value, tolerance);
    out.push_back(e);
  }
  return out;
}

} // namespace tensorium_mlir::elliptic
