#include "tensorium_mlir/Elliptic/SpectralResidual.h"

#include <cmath>

namespace tensorium_mlir::elliptic {

SpectralUnknownMap makeLinearBoundaryFactorUnknownMap(int axis, double boundary, double scale) {
  if (axis < 0 || axis > 2)
    throw ProblemError("boundary-factor unknown map: axis must be 0, 1 or 2");
  SpectralUnknownMap map;
  map.apply = [axis, boundary, scale](const std::array<double, 3> &q, std::array<double, 10> &b) {
    // u = s v with s = scale (q_a - boundary): s_a = scale, every other derivative of s is 0.
    const double s = scale * (q[static_cast<size_t>(axis)] - boundary);
    std::array<double, 10> v = b;
    auto ds = [&](int i) { return i == axis ? scale : 0.0; };
    b[0] = s * v[0];
    for (int i = 0; i < 3; ++i)
      b[1 + i] = s * v[1 + i] + ds(i) * v[0];
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j) {
        int slot = spectral::secondDerivativeSlot(i, j);
        b[static_cast<size_t>(slot)] = s * v[static_cast<size_t>(slot)] + ds(i) * v[1 + j] + ds(j) * v[1 + i];
      }
  };
  return map;
}

void SpectralResidualProblem::setParameter(const std::string &name, double value) {
  if (!kernel)
    throw ProblemError("set the kernel before its parameters");
  for (int32_t i = 0; i < kernel->param_count; ++i)
    if (kernel->param_names[i] && name == kernel->param_names[i]) {
      if (params.size() != static_cast<size_t>(kernel->param_count))
        params.resize(static_cast<size_t>(kernel->param_count), 0.0);
      params[static_cast<size_t>(i)] = value;
      return;
    }
  std::string known;
  for (int32_t i = 0; i < kernel->param_count; ++i)
    known += (i ? ", " : "") + std::string(kernel->param_names[i]);
  throw ProblemError("residual '" + std::string(kernel->residual_name) + "' has no parameter '" + name +
                     "' (parameters: " + (known.empty() ? "none" : known) + ")");
}

void SpectralResidualProblem::validate() const {
  if (!grid)
    throw ProblemError("spectral residual problem has no grid");
  if (!kernel || !kernel->evaluate)
    throw ProblemError("spectral residual problem has no point kernel");
  if (params.size() != static_cast<size_t>(kernel->param_count))
    throw ProblemError("residual '" + std::string(kernel->residual_name) + "' takes " +
                       std::to_string(kernel->param_count) + " parameters, got " + std::to_string(params.size()));
  for (double p : params)
    if (!std::isfinite(p))
      throw ProblemError("a parameter of residual '" + std::string(kernel->residual_name) + "' is not finite");
  for (int32_t f = 1; f < kernel->field_count; ++f) {
    auto it = auxiliaryFields.find(kernel->field_names[f]);
    if (it == auxiliaryFields.end())
      throw ProblemError("residual '" + std::string(kernel->residual_name) + "' needs the auxiliary field '" +
                         kernel->field_names[f] + "'");
    if (it->second.size() != grid->size())
      throw ProblemError("auxiliary field '" + it->first + "' has " + std::to_string(it->second.size()) +
                         " values, the grid " + std::to_string(grid->size()));
  }
  if (!boundaryMask.empty() && (boundaryMask.size() != grid->size() || boundaryValues.size() != grid->size()))
    throw ProblemError("boundary mask and values must have one entry per collocation point (" +
                       std::to_string(grid->size()) + ")");
  if (gridKernel && (gridKernel->field_count != kernel->field_count || !gridKernel->evaluate))
    throw ProblemError("grid kernel does not match the point kernel of residual '" +
                       std::string(kernel->residual_name) + "'");
}

namespace {

/// Physical bundles of the primary unknown (after the unknown map) and of every auxiliary
/// field, point-major: bundles[field][point][slot].
struct PhysicalBundles {
  std::vector<std::vector<std::array<double, 10>>> fields;
};

std::array<double, 10> at(const spectral::DerivativeBundle &b, size_t p) {
  std::array<double, 10> out;
  for (size_t s = 0; s < 10; ++s)
    out[s] = b.slot[s][p];
  return out;
}

PhysicalBundles physicalBundles(const SpectralResidualProblem &problem, const Vector &v, bool includeAux) {
  const spectral::SpectralGrid3D &grid = *problem.grid;
  const size_t n = grid.size();
  if (static_cast<size_t>(v.size()) != n)
    throw ProblemError("solver vector has " + std::to_string(v.size()) + " entries, the grid " + std::to_string(n));
  PhysicalBundles out;
  // v's logical bundle -> unknown map (logical) -> derivative map (physical).
  spectral::DerivativeBundle logical = grid.bundle(std::span<const double>(v.data(), n));
  auto &primary = out.fields.emplace_back(n);
  for (size_t p = 0; p < n; ++p) {
    std::array<double, 10> b = at(logical, p);
    if (problem.unknownMap.apply)
      problem.unknownMap.apply(grid.logicalPoint(p), b);
    grid.applyDerivativeMap(p, b);
    primary[p] = b;
  }
  if (includeAux)
    for (int32_t f = 1; f < problem.kernel->field_count; ++f) {
      const std::vector<double> &values = problem.auxiliaryFields.at(problem.kernel->field_names[f]);
      spectral::DerivativeBundle aux = grid.bundle(values);
      auto &field = out.fields.emplace_back(n);
      for (size_t p = 0; p < n; ++p) {
        field[p] = at(aux, p);
        grid.applyDerivativeMap(p, field[p]);
      }
    }
  return out;
}

tensorium_spectral_residual_point makePoint(const PhysicalBundles &b, size_t p, const std::array<double, 3> &x,
                                            std::vector<double> &auxValues, std::vector<double> &auxBundles) {
  tensorium_spectral_residual_point point{};
  const std::array<double, 10> &u = b.fields[0][p];
  point.value = u[0];
  for (int i = 0; i < 3; ++i)
    point.d[i] = u[1 + static_cast<size_t>(i)];
  for (int i = 0; i < 6; ++i)
    point.dd[i] = u[4 + static_cast<size_t>(i)];
  for (int i = 0; i < 3; ++i)
    point.physical[i] = x[static_cast<size_t>(i)];
  const size_t aux = b.fields.size() - 1;
  auxValues.resize(aux);
  auxBundles.resize(aux * 10);
  for (size_t f = 0; f < aux; ++f) {
    auxValues[f] = b.fields[f + 1][p][0];
    for (size_t s = 0; s < 10; ++s)
      auxBundles[f * 10 + s] = b.fields[f + 1][p][s];
  }
  point.aux_count = static_cast<int32_t>(aux);
  point.aux_values = auxValues.data();
  point.aux_derivatives = auxBundles.data();
  return point;
}

} // namespace

ResidualAssembly assembleSpectralResidual(const SpectralResidualProblem &problem, const Vector &v) {
  problem.validate();
  const spectral::SpectralGrid3D &grid = *problem.grid;
  const size_t n = grid.size();
  PhysicalBundles b = physicalBundles(problem, v, true);
  ResidualAssembly out;
  out.F.resize(static_cast<Eigen::Index>(n));
  if (problem.gridKernel) {
    // SoA copies for the generated loop kernel.
    std::vector<std::array<std::vector<double>, 10>> soa(b.fields.size());
    std::vector<tensorium_spectral_residual_derivative_fields> fields(b.fields.size());
    for (size_t f = 0; f < b.fields.size(); ++f)
      for (size_t s = 0; s < 10; ++s) {
        soa[f][s].resize(n);
        for (size_t p = 0; p < n; ++p)
          soa[f][s][p] = b.fields[f][p][s];
        fields[f].slot[s] = soa[f][s].data();
      }
    std::array<std::vector<double>, 3> coords;
    for (auto &c : coords)
      c.resize(n);
    for (size_t p = 0; p < n; ++p) {
      std::array<double, 3> x = grid.physicalPoint(p);
      for (size_t a = 0; a < 3; ++a)
        coords[a][p] = x[a];
    }
    const double *coordinates[3] = {coords[0].data(), coords[1].data(), coords[2].data()};
    problem.gridKernel->evaluate(static_cast<int64_t>(n), problem.params.data(), fields.data(), coordinates,
                                 out.F.data());
  } else {
    std::vector<double> auxValues, auxBundles;
    for (size_t p = 0; p < n; ++p) {
      tensorium_spectral_residual_point point = makePoint(b, p, grid.physicalPoint(p), auxValues, auxBundles);
      out.F(static_cast<Eigen::Index>(p)) = problem.kernel->evaluate(&point, problem.params.data(), problem.userData);
    }
  }
  for (size_t p = 0; p < problem.boundaryMask.size(); ++p)
    if (problem.boundaryMask[p])
      out.F(static_cast<Eigen::Index>(p)) = b.fields[0][p][0] - problem.boundaryValues[p];
  out.l2 = rmsNorm(out.F);
  out.max = n ? out.F.cwiseAbs().maxCoeff() : 0.0;
  return out;
}

Vector evaluateSpectralJacobianVectorProduct(const SpectralResidualProblem &problem, const Vector &v, const Vector &dv) {
  problem.validate();
  const spectral::SpectralGrid3D &grid = *problem.grid;
  const size_t n = grid.size();
  if (static_cast<size_t>(dv.size()) != n)
    throw ProblemError("direction has " + std::to_string(dv.size()) + " entries, the grid " + std::to_string(n));
  if (!problem.kernel->evaluate_jvp) {
    double scale = dv.norm();
    if (scale == 0.0)
      return Vector::Zero(static_cast<Eigen::Index>(n));
    double eps = std::cbrt(std::numeric_limits<double>::epsilon()) * (1.0 + v.norm()) / scale;
    Vector plus = v + eps * dv, minus = v - eps * dv;
    return (assembleSpectralResidual(problem, plus).F - assembleSpectralResidual(problem, minus).F) / (2 * eps);
  }
  PhysicalBundles b = physicalBundles(problem, v, true);
  // The direction moves only the primary unknown; the unknown and derivative maps are linear.
  PhysicalBundles d = physicalBundles(problem, dv, false);
  for (size_t f = 1; f < b.fields.size(); ++f)
    d.fields.emplace_back(n, std::array<double, 10>{});
  Vector out(static_cast<Eigen::Index>(n));
  std::vector<double> av, ab, dav, dab;
  for (size_t p = 0; p < n; ++p) {
    std::array<double, 3> x = grid.physicalPoint(p);
    tensorium_spectral_residual_point point = makePoint(b, p, x, av, ab);
    tensorium_spectral_residual_point dir = makePoint(d, p, x, dav, dab);
    out(static_cast<Eigen::Index>(p)) = problem.boundaryMask.empty() || !problem.boundaryMask[p]
                                            ? problem.kernel->evaluate_jvp(&point, &dir, problem.params.data(), problem.userData)
                                            : d.fields[0][p][0];
  }
  return out;
}

} // namespace tensorium_mlir::elliptic
