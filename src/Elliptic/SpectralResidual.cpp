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
  if (!rowScale.empty()) {
    if (rowScale.size() != grid->size())
      throw ProblemError("row scale has " + std::to_string(rowScale.size()) + " entries, the grid " +
                         std::to_string(grid->size()));
    for (double w : rowScale)
      if (!(std::isfinite(w) && w > 0.0))
        throw ProblemError("row scale entries must be finite and positive");
  }
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
  for (size_t p = 0; p < problem.rowScale.size(); ++p)
    out.F(static_cast<Eigen::Index>(p)) *= problem.rowScale[p];
  for (size_t p = 0; p < problem.boundaryMask.size(); ++p)
    if (problem.boundaryMask[p])
      out.F(static_cast<Eigen::Index>(p)) = b.fields[0][p][0] - problem.boundaryValues[p];
  out.l2 = rmsNorm(out.F);
  out.max = n ? out.F.cwiseAbs().maxCoeff() : 0.0;
  return out;
}

Vector evaluateSpectralJacobianVectorProduct(const SpectralResidualProblem &problem, const Vector &v, const Vector &dv,
                                             const std::map<std::string, std::vector<double>> &auxiliaryDirections) {
  problem.validate();
  const spectral::SpectralGrid3D &grid = *problem.grid;
  const size_t n = grid.size();
  if (static_cast<size_t>(dv.size()) != n)
    throw ProblemError("direction has " + std::to_string(dv.size()) + " entries, the grid " + std::to_string(n));
  for (auto &[name, values] : auxiliaryDirections)
    if (values.size() != n)
      throw ProblemError("direction of auxiliary field '" + name + "' has " + std::to_string(values.size()) +
                         " entries, the grid " + std::to_string(n));
  if (!problem.kernel->evaluate_jvp) {
    // Centred difference of the whole assembly, auxiliary directions included.
    double scale = dv.norm();
    for (auto &[name, values] : auxiliaryDirections)
      scale += Eigen::Map<const Vector>(values.data(), static_cast<Eigen::Index>(n)).norm();
    if (scale == 0.0)
      return Vector::Zero(static_cast<Eigen::Index>(n));
    double eps = std::cbrt(std::numeric_limits<double>::epsilon()) * (1.0 + v.norm()) / scale;
    auto shifted = [&](double sign) {
      SpectralResidualProblem moved = problem;
      for (auto &[name, values] : auxiliaryDirections) {
        std::vector<double> &target = moved.auxiliaryFields.at(name);
        for (size_t p = 0; p < n; ++p)
          target[p] += sign * eps * values[p];
      }
      return assembleSpectralResidual(moved, v + sign * eps * dv).F;
    };
    return (shifted(1.0) - shifted(-1.0)) / (2 * eps);
  }
  PhysicalBundles b = physicalBundles(problem, v, true);
  // Directions: the primary unknown's through the (linear) unknown and derivative maps; an
  // auxiliary field's through the derivative map; zero for static auxiliaries.
  PhysicalBundles d = physicalBundles(problem, dv, false);
  for (int32_t f = 1; f < problem.kernel->field_count; ++f) {
    auto it = auxiliaryDirections.find(problem.kernel->field_names[f]);
    auto &field = d.fields.emplace_back(n, std::array<double, 10>{});
    if (it == auxiliaryDirections.end())
      continue;
    spectral::DerivativeBundle db = grid.bundle(it->second);
    for (size_t p = 0; p < n; ++p) {
      field[p] = at(db, p);
      grid.applyDerivativeMap(p, field[p]);
    }
  }
  Vector out(static_cast<Eigen::Index>(n));
  std::vector<double> av, ab, dav, dab;
  for (size_t p = 0; p < n; ++p) {
    std::array<double, 3> x = grid.physicalPoint(p);
    tensorium_spectral_residual_point point = makePoint(b, p, x, av, ab);
    tensorium_spectral_residual_point dir = makePoint(d, p, x, dav, dab);
    const double w = problem.rowScale.empty() ? 1.0 : problem.rowScale[p];
    out(static_cast<Eigen::Index>(p)) =
        problem.boundaryMask.empty() || !problem.boundaryMask[p]
            ? w * problem.kernel->evaluate_jvp(&point, &dir, problem.params.data(), problem.userData)
            : d.fields[0][p][0];
  }
  return out;
}

std::vector<std::array<double, 10>> linearisedLogicalCoefficients(const SpectralResidualProblem &problem,
                                                                  const Vector &v) {
  problem.validate();
  if (!problem.kernel->evaluate_jvp)
    throw ProblemError("residual '" + std::string(problem.kernel->residual_name) +
                       "' has no JVP kernel; its linearised coefficients cannot be probed");
  const spectral::SpectralGrid3D &grid = *problem.grid;
  const size_t n = grid.size();
  PhysicalBundles b = physicalBundles(problem, v, true);
  // A unit logical bundle per slot, pushed through the unknown and derivative maps; auxiliary
  // fields have zero tangent.
  PhysicalBundles d;
  d.fields.assign(b.fields.size(), std::vector<std::array<double, 10>>(1, std::array<double, 10>{}));
  std::vector<std::array<double, 10>> out(n);
  std::vector<double> av, ab, dav, dab;
  for (size_t p = 0; p < n; ++p) {
    const std::array<double, 3> x = grid.physicalPoint(p);
    const std::array<double, 3> q = grid.logicalPoint(p);
    tensorium_spectral_residual_point point = makePoint(b, p, x, av, ab);
    const bool boundary = !problem.boundaryMask.empty() && problem.boundaryMask[p];
    const double w = problem.rowScale.empty() ? 1.0 : problem.rowScale[p];
    for (size_t s = 0; s < 10; ++s) {
      std::array<double, 10> unit{};
      unit[s] = 1.0;
      if (problem.unknownMap.apply)
        problem.unknownMap.apply(q, unit);
      if (boundary) {
        out[p][s] = unit[0];
        continue;
      }
      grid.applyDerivativeMap(p, unit);
      d.fields[0][0] = unit;
      tensorium_spectral_residual_point dir = makePoint(d, 0, x, dav, dab);
      out[p][s] = w * problem.kernel->evaluate_jvp(&point, &dir, problem.params.data(), problem.userData);
    }
  }
  return out;
}

// ------------------------------------------------------------------ residual systems

void SpectralResidualSystemProblem::validate() const {
  if (!grid || !system || !kernels)
    throw ProblemError("residual system needs a grid, a system descriptor and the kernel table");
  if (system->equation_count != system->unknown_count)
    throw ProblemError("residual system '" + std::string(system->block_name) + "' is not square: " +
                       std::to_string(system->equation_count) + " equations, " + std::to_string(system->unknown_count) +
                       " unknowns");
  if (params.size() != static_cast<size_t>(system->param_count))
    throw ProblemError("residual system '" + std::string(system->block_name) + "' takes " +
                       std::to_string(system->param_count) + " parameters, got " + std::to_string(params.size()));
  for (int32_t e = 0; e < system->equation_count; ++e)
    for (int32_t a = system->aux_offset[e]; a < system->aux_offset[e + 1]; ++a)
      if (system->aux_unknown_index[a] < 0 && !staticFields.count(system->aux_field_names[a]))
        throw ProblemError("residual system '" + std::string(system->block_name) + "' needs the field '" +
                           system->aux_field_names[a] + "'");
  if (!boundaryMask.empty() && boundaryRows.empty() &&
      (boundaryMask.size() != grid->size() || boundaryValues.size() != static_cast<size_t>(system->unknown_count)))
    throw ProblemError("boundary mask needs one entry per point and boundary values one vector per unknown");
  if (!boundaryRows.empty()) {
    if (boundaryMask.size() != grid->size() || boundaryRows.size() != static_cast<size_t>(system->unknown_count))
      throw ProblemError("boundary rows need a mask with one entry per point and one row set per unknown");
    for (const auto &rows : boundaryRows)
      if (rows.size() != grid->size())
        throw ProblemError("boundary rows need one row per point for every unknown");
  }
}

void SpectralResidualSystemProblem::setParameter(const std::string &name, double value) {
  if (!system)
    throw ProblemError("set the system before its parameters");
  params.resize(static_cast<size_t>(system->param_count), 0.0);
  for (int32_t i = 0; i < system->param_count; ++i)
    if (name == system->param_names[i]) {
      params[static_cast<size_t>(i)] = value;
      return;
    }
  throw ProblemError("residual system '" + std::string(system->block_name) + "' has no parameter '" + name + "'");
}

namespace {
/// Equation e as a single-residual problem at the current unknowns: auxiliaries bound to other
/// unknowns take those unknowns' current values.
SpectralResidualProblem equationProblem(const SpectralResidualSystemProblem &sys, int32_t e, const Vector &U) {
  const size_t n = sys.grid->size();
  SpectralResidualProblem p;
  p.grid = sys.grid;
  p.kernel = &sys.kernels[sys.system->point_kernel_index[e]];
  p.params = sys.params;
  for (int32_t a = sys.system->aux_offset[e]; a < sys.system->aux_offset[e + 1]; ++a) {
    const char *name = sys.system->aux_field_names[a];
    int32_t unknown = sys.system->aux_unknown_index[a];
    if (unknown < 0)
      p.auxiliaryFields[name] = sys.staticFields.at(name);
    else
      p.auxiliaryFields[name] = std::vector<double>(U.data() + static_cast<size_t>(unknown) * n,
                                                    U.data() + static_cast<size_t>(unknown + 1) * n);
  }
  if (!sys.boundaryMask.empty()) {
    p.boundaryMask = sys.boundaryMask;
    p.boundaryValues = sys.boundaryRows.empty() ? sys.boundaryValues[static_cast<size_t>(sys.system->equation_unknown[e])]
                                                : std::vector<double>(n, 0.0);
  }
  return p;
}

/// Replaces the boundary rows of equation e's block of `out` by a u + gradient . grad u - value
/// (value omitted for a JVP) of its unknown u.
void applyBoundaryRows(const SpectralResidualSystemProblem &sys, int32_t e, const Vector &u, bool linearised,
                       Eigen::Ref<Vector> out) {
  if (sys.boundaryRows.empty())
    return;
  const auto &rows = sys.boundaryRows[static_cast<size_t>(sys.system->equation_unknown[e])];
  // Rows need gradients at boundary points only: three logical first derivatives over the grid,
  // then the derivative map at those points (physical first derivatives depend on the logical
  // first derivatives alone).
  const size_t n = sys.grid->size();
  const std::span<const double> values(u.data(), n);
  std::array<std::vector<double>, 3> logical;
  for (int a = 0; a < 3; ++a) {
    logical[static_cast<size_t>(a)].resize(n);
    sys.grid->applyDerivative(a, 1, values, logical[static_cast<size_t>(a)]);
  }
  for (size_t p = 0; p < n; ++p) {
    if (!sys.boundaryMask[p])
      continue;
    std::array<double, 10> bundle{values[p], logical[0][p], logical[1][p], logical[2][p]};
    sys.grid->applyDerivativeMap(p, bundle);
    const auto &r = rows[p];
    double row = r.a * values[p];
    for (size_t k = 0; k < 3; ++k)
      if (r.gradient[k] != 0.0)
        row += r.gradient[k] * bundle[1 + k];
    out(static_cast<Eigen::Index>(p)) = linearised ? row : row - r.value;
  }
}

Vector unknownSlice(const Vector &U, int32_t unknown, size_t n) {
  return U.segment(static_cast<Eigen::Index>(unknown) * static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
}
} // namespace

ResidualAssembly assembleSpectralResidualSystem(const SpectralResidualSystemProblem &sys, const Vector &U) {
  sys.validate();
  const size_t n = sys.grid->size();
  const size_t m = static_cast<size_t>(sys.system->unknown_count);
  if (static_cast<size_t>(U.size()) != n * m)
    throw ProblemError("system vector has " + std::to_string(U.size()) + " entries, expected " + std::to_string(n * m));
  ResidualAssembly out;
  out.F.resize(static_cast<Eigen::Index>(n * m));
  for (int32_t e = 0; e < sys.system->equation_count; ++e) {
    SpectralResidualProblem p = equationProblem(sys, e, U);
    const Vector u = unknownSlice(U, sys.system->equation_unknown[e], n);
    auto block = out.F.segment(static_cast<Eigen::Index>(e) * static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
    block = assembleSpectralResidual(p, u).F;
    applyBoundaryRows(sys, e, u, false, block);
  }
  out.l2 = rmsNorm(out.F);
  out.max = out.F.size() ? out.F.cwiseAbs().maxCoeff() : 0.0;
  return out;
}

std::vector<std::array<double, 10>> linearisedLogicalCoefficients(const SpectralResidualSystemProblem &sys,
                                                                  const Vector &U, int32_t equation) {
  sys.validate();
  if (equation < 0 || equation >= sys.system->equation_count)
    throw ProblemError("residual system '" + std::string(sys.system->block_name) + "' has no equation " +
                       std::to_string(equation));
  const size_t n = sys.grid->size();
  SpectralResidualProblem p = equationProblem(sys, equation, U);
  return linearisedLogicalCoefficients(p, unknownSlice(U, sys.system->equation_unknown[equation], n));
}

Vector evaluateSpectralResidualSystemJacobianVectorProduct(const SpectralResidualSystemProblem &sys, const Vector &U,
                                                           const Vector &dU) {
  sys.validate();
  const size_t n = sys.grid->size();
  if (dU.size() != U.size())
    throw ProblemError("direction and state sizes differ");
  Vector out(U.size());
  for (int32_t e = 0; e < sys.system->equation_count; ++e) {
    SpectralResidualProblem p = equationProblem(sys, e, U);
    std::map<std::string, std::vector<double>> auxDirections;
    for (int32_t a = sys.system->aux_offset[e]; a < sys.system->aux_offset[e + 1]; ++a)
      if (int32_t unknown = sys.system->aux_unknown_index[a]; unknown >= 0) {
        Vector d = unknownSlice(dU, unknown, n);
        auxDirections[sys.system->aux_field_names[a]] = std::vector<double>(d.data(), d.data() + d.size());
      }
    int32_t primary = sys.system->equation_unknown[e];
    auto block = out.segment(static_cast<Eigen::Index>(e) * static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
    block = evaluateSpectralJacobianVectorProduct(p, unknownSlice(U, primary, n), unknownSlice(dU, primary, n), auxDirections);
    applyBoundaryRows(sys, e, unknownSlice(dU, primary, n), true, block);
  }
  return out;
}

} // namespace tensorium_mlir::elliptic
