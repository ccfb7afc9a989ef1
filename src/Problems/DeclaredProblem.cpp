#include "tensorium_mlir/Problems/DeclaredProblem.h"
#include "tensorium_mlir/Physics/TwoPunctureGeometry.h"
#include "tensorium_mlir/Problems/DomainMaps.h"
#include "tensorium_mlir/Runtime/KernelModule.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <span>

namespace tensorium_mlir::elliptic {

namespace {
constexpr const char *kBoxFaces[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};

std::string joinedBlocks(const tensorium_spectral_problem_desc *problems, int32_t count) {
  std::string out;
  for (int32_t i = 0; i < count; ++i)
    out += (i ? ", " : "") + std::string(problems[i].block_name);
  return out.empty() ? "none" : out;
}
} // namespace

std::vector<double> DeclaredProblemSolution::values(const std::string &name) const {
  auto it = std::find(unknownNames.begin(), unknownNames.end(), name);
  if (it == unknownNames.end())
    throw ProblemError("the solution has no unknown '" + name + "'");
  const size_t n = grid->size(), k = static_cast<size_t>(it - unknownNames.begin());
  return std::vector<double>(U.data() + k * n, U.data() + (k + 1) * n);
}

double DeclaredProblemSolution::interpolate(const std::string &name, const std::array<double, 3> &x) const {
  auto it = std::find(unknownNames.begin(), unknownNames.end(), name);
  if (it == unknownNames.end())
    throw ProblemError("the solution has no unknown '" + name + "'");
  const std::optional<std::array<double, 3>> q = toLogical(x);
  if (!q)
    return NAN;
  const size_t n = grid->size(), k = static_cast<size_t>(it - unknownNames.begin());
  return unknownFactor(*q) * grid->interpolate(std::span<const double>(solverVariable.data() + k * n, n), *q);
}

const tensorium_spectral_problem_desc &findDeclaredProblem(const tensorium_spectral_problem_desc *problems,
                                                           int32_t count, const std::string &block) {
  if (!problems || count <= 0)
    throw ProblemError("the module declares no elliptic problem (a spectral constraints block with 'unknown', "
                       "'boundary', 'domain' and 'solve' declarations)");
  if (block.empty()) {
    if (count == 1)
      return problems[0];
    throw ProblemError("the module declares several problems; choose one of: " + joinedBlocks(problems, count));
  }
  for (int32_t i = 0; i < count; ++i)
    if (block == problems[i].block_name)
      return problems[i];
  throw ProblemError("the module declares no problem in block '" + block + "' (declared: " + joinedBlocks(problems, count) +
                     ")");
}

double estimateDeclaredProblemBytes(const tensorium_spectral_problem_desc &problem, const std::array<int, 3> &resolution) {
  const double points = static_cast<double>(resolution[0]) * resolution[1] * resolution[2];
  const double unknowns = points * problem.unknown_count;
  // Per point: derivative bundles of every unknown (10 slots, primal and direction), boundary
  // rows, ~40 solver vectors of the whole system; the axes' dense operators are negligible.
  double bytes = 8.0 * (points * problem.unknown_count * 30.0 + unknowns * 40.0);
  const bool dense = std::strcmp(problem.linear, "dense") == 0 ||
                     (std::strcmp(problem.linear, "auto") == 0 && unknowns <= SpectralNewtonOptions{}.denseJacobianMaxUnknowns);
  if (dense)
    bytes += 8.0 * unknowns * unknowns * 3.0; // Jacobian, its LU factors and a work copy (measured)
  else
    bytes += 8.0 * unknowns * (problem.restart + 2);
  if (std::strcmp(problem.map, "box") != 0)
    bytes += 200.0 * points; // the map's tabulated chain rule and coordinates (measured)
  if (!dense && std::strcmp(problem.preconditioner, "fourier_mode_fd") == 0 &&
      std::strcmp(problem.map, "two_puncture_compact") != 0)
    // Sparse LU factors of one (axis 0 x axis 1) block per Fourier mode and unknown: their
    // fill grows with the block (measured: 2.2 bytes per block point per unknown).
    bytes += 2.2 * unknowns * resolution[0] * static_cast<double>(resolution[1]);
  return bytes;
}

namespace {

/// Newton options of the declared policy (and the command line's overrides).
SpectralNewtonOptions newtonOptions(const tensorium_spectral_problem_desc &problem, const DeclaredProblemOptions &options,
                                    Eigen::Index totalUnknowns, std::string &linearSolver) {
  SpectralNewtonOptions newton;
  newton.tolerance = options.tolerance.value_or(problem.tolerance);
  newton.maxNewtonIterations = options.maxIterations.value_or(problem.max_iterations);
  newton.lineSearch = problem.line_search != 0;
  newton.gmres.restart = problem.restart;
  newton.gmresForcing = problem.forcing;
  newton.progress = options.progress;
  const std::string linear = problem.linear;
  newton.linearSolve = linear == "dense" ? LinearSolveKind::Dense : linear == "gmres" ? LinearSolveKind::Gmres : LinearSolveKind::Auto;
  if (linear == "dense")
    newton.denseJacobianMaxUnknowns = static_cast<int>(totalUnknowns);
  std::string preconditioner = problem.preconditioner;
  std::replace(preconditioner.begin(), preconditioner.end(), '_', '-');
  try {
    newton.preconditioner = parsePreconditioner(preconditioner);
  } catch (const std::invalid_argument &e) {
    throw ProblemError(e.what());
  }
  newton.autoPreconditioner = false;
  linearSolver = newton.linearSolve == LinearSolveKind::Gmres ||
                         (newton.linearSolve == LinearSolveKind::Auto && totalUnknowns > newton.denseJacobianMaxUnknowns)
                     ? "gmres"
                     : "dense";
  return newton;
}

/// Parameters in the system's order: declared defaults, then the caller's values by name.
std::vector<double> resolveParameters(const tensorium_spectral_problem_desc &problem,
                                      const tensorium_spectral_residual_system_desc &system,
                                      const DeclaredProblemOptions &options, std::map<std::string, double> &used) {
  std::vector<double> params(static_cast<size_t>(system.param_count), 0.0);
  std::vector<char> given(params.size(), 0);
  auto find = [&](const std::string &name) -> int {
    for (int32_t i = 0; i < system.param_count; ++i)
      if (name == system.param_names[i])
        return i;
    return -1;
  };
  for (int32_t d = 0; d < problem.param_default_count; ++d)
    if (int i = find(problem.param_default_names[d]); i >= 0) {
      params[static_cast<size_t>(i)] = problem.param_default_values[d];
      given[static_cast<size_t>(i)] = 1;
    }
  for (const auto &[name, value] : options.params) {
    const int i = find(name);
    if (i < 0) {
      std::string known;
      for (int32_t k = 0; k < system.param_count; ++k)
        known += (k ? ", " : "") + std::string(system.param_names[k]);
      throw ProblemError("problem '" + std::string(problem.block_name) + "' has no parameter '" + name + "' (its parameters: " +
                         (known.empty() ? std::string("none") : known) + ")");
    }
    if (!std::isfinite(value))
      throw ProblemError("parameter '" + name + "' must be finite");
    params[static_cast<size_t>(i)] = value;
    given[static_cast<size_t>(i)] = 1;
  }
  for (int32_t i = 0; i < system.param_count; ++i) {
    if (!given[static_cast<size_t>(i)])
      throw ProblemError("parameter '" + std::string(system.param_names[i]) + "' has no value: declare a default "
                         "('params { " + system.param_names[i] + " = ... }') or set it ('--set " + system.param_names[i] +
                         "=VALUE')");
    used[system.param_names[i]] = params[static_cast<size_t>(i)];
  }
  return params;
}

/// Static auxiliary fields have no values in a declared problem: every field is an unknown.
void requireOnlyUnknowns(const tensorium_spectral_residual_system_desc &system) {
  for (int32_t e = 0; e < system.equation_count; ++e)
    for (int32_t a = system.aux_offset[e]; a < system.aux_offset[e + 1]; ++a)
      if (system.aux_unknown_index[a] < 0)
        throw ProblemError("residual '" + std::string(system.residual_names[e]) + "' reads the field '" +
                           system.aux_field_names[a] + "', which is not an unknown of the problem; write it as an "
                           "expression of the coordinates and parameters");
}

std::array<double, 6> boundsOf(const tensorium_spectral_problem_desc &problem) {
  std::array<double, 6> b{};
  for (size_t i = 0; i < 6; ++i)
    b[i] = problem.bounds[i];
  return b;
}

/// The grid of a map with its coordinate and derivative maps, the inverse map and the unknown
/// factor, shared by solves and by restored solutions.
void setUpMap(DeclaredProblemSolution &out, const std::string &map, const std::array<int, 3> &n,
              const std::array<double, 6> &b, double punctureB);

/// setUpMap with a map that is singular on the grid, or one that cannot be built from its
/// bounds, reported as a ProblemError.
void setUpDomain(DeclaredProblemSolution &out, const std::string &map, const std::array<int, 3> &n,
                 const std::array<double, 6> &b, double punctureB) {
  try {
    setUpMap(out, map, n, b, punctureB);
  } catch (const ProblemError &) {
    throw;
  } catch (const std::domain_error &e) {
    throw ProblemError("domain map '" + map + "': " + e.what());
  } catch (const std::invalid_argument &e) {
    throw ProblemError("domain map '" + map + "': " + e.what());
  }
}

void setUpMap(DeclaredProblemSolution &out, const std::string &map, const std::array<int, 3> &n,
              const std::array<double, 6> &b, double punctureB) {
  out.map = map;
  out.resolution = n;
  out.bounds = b;
  out.punctureB = punctureB;
  out.unknownFactor = [](const std::array<double, 3> &) { return 1.0; };
  if (map == "box") {
    out.grid = std::make_unique<spectral::SpectralGrid3D>(spectral::SpectralAxis::chebyshevGaussLobatto(n[0], b[0], b[1]),
                                                          spectral::SpectralAxis::chebyshevGaussLobatto(n[1], b[2], b[3]),
                                                          spectral::SpectralAxis::chebyshevGaussLobatto(n[2], b[4], b[5]));
    out.toLogical = [b](const std::array<double, 3> &x) -> std::optional<std::array<double, 3>> {
      for (size_t a = 0; a < 3; ++a) {
        const double slack = 1e-12 * (b[2 * a + 1] - b[2 * a]);
        if (!(x[a] >= b[2 * a] - slack && x[a] <= b[2 * a + 1] + slack))
          return std::nullopt;
      }
      return x;
    };
  } else if (map == "spherical_shell" || map == "compactified_shell") {
    const SphericalShellMap shell(b[0], b[1],
                                  map == "spherical_shell" ? SphericalShellMap::Radial::Linear : SphericalShellMap::Radial::Inverse);
    out.grid = std::make_unique<spectral::SpectralGrid3D>(
        spectral::SpectralAxis::chebyshevGaussLobatto(n[0], shell.logicalRadius(shell.innerRadius()),
                                                      shell.logicalRadius(shell.outerRadius())),
        spectral::SpectralAxis::chebyshevGauss(n[1], 0.0, M_PI), spectral::SpectralAxis::fourier(n[2]));
    out.grid->setCoordinateMap([shell](const std::array<double, 3> &q) { return shell.toCartesian(q); });
    out.grid->setDerivativeMap(
        [shell](const std::array<double, 3> &q, std::array<double, 10> &bundle) { shell.toCartesianBundle(q, bundle); });
    out.grid->tabulateDerivativeMap();
    out.toLogical = [shell](const std::array<double, 3> &x) -> std::optional<std::array<double, 3>> {
      const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
      // Relative slack at each sphere (a far outer radius must not widen the inner one).
      if (!(r >= shell.innerRadius() * (1 - 1e-12) && r <= shell.outerRadius() * (1 + 1e-12)))
        return std::nullopt;
      double phi = std::atan2(x[1], x[0]);
      if (phi < 0)
        phi += 2.0 * M_PI;
      return std::array<double, 3>{shell.logicalRadius(r), std::acos(std::clamp(x[2] / r, -1.0, 1.0)), phi};
    };
  } else if (map == "two_puncture_compact") {
    if (!(punctureB > 0))
      throw ProblemError("the puncture half-separation b must be positive");
    const physics::TwoPunctureGeometry geometry(punctureB);
    out.grid = std::make_unique<spectral::SpectralGrid3D>(spectral::SpectralAxis::chebyshevGauss(n[0], 0.0, 1.0),
                                                          spectral::SpectralAxis::chebyshevGauss(n[1], -1.0, 1.0),
                                                          spectral::SpectralAxis::fourier(n[2]));
    out.grid->setCoordinateMap([geometry](const std::array<double, 3> &q) { return geometry.toCartesian(q); });
    out.grid->setDerivativeMap(
        [geometry](const std::array<double, 3> &q, std::array<double, 10> &bundle) { geometry.toCartesianBundle(q, bundle); });
    out.grid->tabulateDerivativeMap();
    out.toLogical = [geometry](const std::array<double, 3> &x) -> std::optional<std::array<double, 3>> {
      return geometry.toCompact(x);
    };
    out.unknownFactor = [](const std::array<double, 3> &q) { return q[0] - 1.0; };
  } else {
    throw ProblemError("domain map '" + map + "' is not implemented by this runtime (known: box, spherical_shell, "
                       "compactified_shell, two_puncture_compact)");
  }
}

/// A face of a map: the logical axis and side it sits on, and its name in boundary conditions.
struct Face {
  const char *name;
  int axis, side;
};

/// Solves the block's residual system on `grid` with a boundary row for every unknown at every
/// point of each face (the first face in `faces` owns points shared with later ones). `normal`
/// gives the outward unit normal of the physical domain at a face point.
void solveWithFaces(const tensorium_module_tables &tables, const tensorium_spectral_problem_desc &problem,
                    const tensorium_spectral_residual_system_desc &system, const std::vector<Face> &faces,
                    const std::function<std::array<double, 3>(size_t point, const Face &face)> &normal,
                    const std::vector<double> &params, const DeclaredProblemOptions &options, DeclaredProblemSolution &out) {
  const spectral::SpectralGrid3D &grid = *out.grid;
  const size_t points = grid.size();
  const std::array<int, 3> n = grid.extents();

  SpectralResidualSystemProblem sys;
  sys.grid = &grid;
  sys.system = &system;
  sys.kernels = tables.spectral_kernels;
  sys.params = params;

  std::vector<std::vector<size_t>> facePoints(faces.size());
  for (int i = 0; i < n[0]; ++i)
    for (int j = 0; j < n[1]; ++j)
      for (int k = 0; k < n[2]; ++k) {
        const int idx[3] = {i, j, k};
        for (size_t f = 0; f < faces.size(); ++f) {
          const int axis = faces[f].axis;
          if (idx[axis] == (faces[f].side ? n[static_cast<size_t>(axis)] - 1 : 0)) {
            facePoints[f].push_back(grid.index(i, j, k));
            break;
          }
        }
      }
  if (!faces.empty()) {
    sys.boundaryMask.assign(points, 0);
    for (const auto &face : facePoints)
      for (size_t p : face)
        sys.boundaryMask[p] = 1;
    sys.boundaryRows.assign(static_cast<size_t>(system.unknown_count),
                            std::vector<SpectralResidualSystemProblem::BoundaryRow>(points));
  }
  for (int32_t u = 0; u < system.unknown_count; ++u)
    for (size_t f = 0; f < faces.size(); ++f) {
      const std::vector<size_t> &face = facePoints[f];
      const char *faceName = faces[f].name;
      if (face.empty())
        continue;
      const tensorium_spectral_boundary_desc *bc = nullptr;
      for (int32_t i = 0; i < problem.boundary_count; ++i)
        if (std::strcmp(problem.boundaries[i].unknown, system.unknown_names[u]) == 0 &&
            std::strcmp(problem.boundaries[i].face, faceName) == 0)
          bc = &problem.boundaries[i];
      if (!bc)
        throw ProblemError("unknown '" + std::string(system.unknown_names[u]) + "' has no boundary condition on face " +
                           faceName);
      const tensorium_host_kernel_adapter *adapter = runtime::adapterOf(tables, bc->kernel_index);
      if (!adapter)
        throw ProblemError("the module has no kernel '" + std::string(bc->kernel_symbol) + "' for the boundary of '" +
                           system.unknown_names[u] + "' on " + faceName);
      const size_t m = face.size();
      std::vector<double> x(m), y(m), z(m), a(m), bb(m), value(m);
      for (size_t q = 0; q < m; ++q) {
        const std::array<double, 3> r = grid.physicalPoint(face[q]);
        x[q] = r[0];
        y[q] = r[1];
        z[q] = r[2];
      }
      double *buffers[6] = {x.data(), y.data(), z.data(), a.data(), bb.data(), value.data()};
      const int64_t sizes[6] = {static_cast<int64_t>(m), static_cast<int64_t>(m), static_cast<int64_t>(m),
                                static_cast<int64_t>(m), static_cast<int64_t>(m), static_cast<int64_t>(m)};
      const int64_t extents[3] = {static_cast<int64_t>(m), 1, 1};
      const double spacing[3] = {0.0, 0.0, 0.0};
      adapter->invoke(extents, spacing, sys.params.data(), buffers, sizes);
      for (size_t q = 0; q < m; ++q) {
        const std::string where = "(" + std::to_string(x[q]) + ", " + std::to_string(y[q]) + ", " + std::to_string(z[q]) + ")";
        if (!std::isfinite(a[q]) || !std::isfinite(bb[q]) || !std::isfinite(value[q]))
          throw ProblemError("the boundary condition of '" + std::string(system.unknown_names[u]) + "' on " + faceName +
                             " is not finite at " + where);
        if (a[q] == 0.0 && bb[q] == 0.0)
          throw ProblemError("the Robin condition of '" + std::string(system.unknown_names[u]) + "' on " + faceName +
                             " has a = b = 0 at " + where + ": the row determines nothing");
        SpectralResidualSystemProblem::BoundaryRow &row = sys.boundaryRows[static_cast<size_t>(u)][face[q]];
        const std::array<double, 3> nrm = normal(face[q], faces[f]);
        row.a = a[q];
        row.gradient = {bb[q] * nrm[0], bb[q] * nrm[1], bb[q] * nrm[2]};
        row.value = value[q];
      }
    }

  const Eigen::Index total = static_cast<Eigen::Index>(points) * system.unknown_count;
  SpectralNewtonOptions newton = newtonOptions(problem, options, total, out.linearSolver);
  out.solverVariable = Vector::Zero(total);
  out.result = solveSpectralNewton(sys, out.solverVariable, newton);
  out.U = out.solverVariable;
}

void solveBox(const tensorium_module_tables &tables, const tensorium_spectral_problem_desc &problem,
              const tensorium_spectral_residual_system_desc &system, const std::array<int, 3> &n,
              const std::vector<double> &params, const DeclaredProblemOptions &options, DeclaredProblemSolution &out) {
  setUpDomain(out, "box", n, boundsOf(problem), 0.0);
  std::vector<Face> faces;
  for (int f = 0; f < 6; ++f)
    faces.push_back({kBoxFaces[f], f / 2, f % 2});
  solveWithFaces(
      tables, problem, system, faces,
      [](size_t, const Face &face) {
        std::array<double, 3> nrm{0.0, 0.0, 0.0};
        nrm[static_cast<size_t>(face.axis)] = face.side ? 1.0 : -1.0;
        return nrm;
      },
      params, options, out);
}

/// Chebyshev-Gauss-Lobatto in r, or in -1/r for the compactified shell (the faces inner and
/// outer), Chebyshev-Gauss in theta (no points on the axis, where the map is singular), Fourier
/// in phi.
void solveSphericalShell(const tensorium_module_tables &tables, const tensorium_spectral_problem_desc &problem,
                         const tensorium_spectral_residual_system_desc &system, const std::array<int, 3> &n,
                         const std::vector<double> &params, const DeclaredProblemOptions &options,
                         DeclaredProblemSolution &out) {
  setUpDomain(out, problem.map, n, boundsOf(problem), 0.0);
  const spectral::SpectralGrid3D &grid = *out.grid;
  const std::vector<Face> faces{{"inner", 0, 0}, {"outer", 0, 1}};
  solveWithFaces(
      tables, problem, system, faces,
      [&grid](size_t p, const Face &face) {
        const std::array<double, 3> x = grid.physicalPoint(p);
        const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        const double s = face.side ? 1.0 / r : -1.0 / r; // outward: away from the hole inside, outwards outside
        return std::array<double, 3>{s * x[0], s * x[1], s * x[2]};
      },
      params, options, out);
}

double parameter(const std::map<std::string, double> &params, const char *name, const char *why) {
  auto it = params.find(name);
  if (it == params.end())
    throw ProblemError(std::string("the two_puncture_compact map needs the parameter '") + name + "' (" + why + ")");
  return it->second;
}

void solveTwoPunctureCompact(const tensorium_module_tables &tables, const tensorium_spectral_problem_desc &problem,
                             const tensorium_spectral_residual_system_desc &system, const std::array<int, 3> &n,
                             const std::vector<double> &params, const DeclaredProblemOptions &options,
                             DeclaredProblemSolution &out) {
  if (system.unknown_count != 1 || system.equation_count != 1)
    throw ProblemError("the two_puncture_compact map solves one scalar equation for one unknown");
  if (n[0] < 4 || n[1] < 4 || n[2] < 1)
    throw ProblemError("the two_puncture_compact map needs at least 4 points in A and B");
  const double b = parameter(out.parameters, "b", "the punctures sit at (+b, 0, 0) and (-b, 0, 0)");
  if (!(b > 0))
    throw ProblemError("the puncture half-separation b must be positive");
  const physics::TwoPunctureGeometry geometry(b);
  setUpDomain(out, "two_puncture_compact", n, boundsOf(problem), b);
  const spectral::SpectralGrid3D &grid = *out.grid;

  SpectralResidualProblem p;
  p.grid = &grid;
  p.kernel = &tables.spectral_kernels[system.point_kernel_index[0]];
  p.params = params;
  p.unknownMap = makeLinearBoundaryFactorUnknownMap(0, 1.0, 1.0); // U = (A - 1) v: zero at infinity
  p.rowScale.resize(grid.size());
  for (size_t q = 0; q < grid.size(); ++q)
    p.rowScale[q] = geometry.residualScale(grid.logicalPoint(q));

  SpectralNewtonOptions newton = newtonOptions(problem, options, static_cast<Eigen::Index>(grid.size()), out.linearSolver);
  out.solverVariable = Vector::Zero(static_cast<Eigen::Index>(grid.size()));
  out.result = solveSpectralNewton(p, out.solverVariable, newton);
  out.U.resize(out.solverVariable.size());
  for (size_t q = 0; q < grid.size(); ++q)
    out.U(static_cast<Eigen::Index>(q)) = (grid.logicalPoint(q)[0] - 1.0) * out.solverVariable(static_cast<Eigen::Index>(q));
  if (out.parameters.count("m1") && out.parameters.count("m2")) {
    // U ~ -b v_inf / r at large r, so the ADM mass of psi = 1 + m1/(2 r1) + m2/(2 r2) + U is
    // m1 + m2 - 2 b v_inf.
    const double vInf = grid.interpolate(std::span<const double>(out.solverVariable.data(), grid.size()), {1.0, 0.0, 0.0});
    out.diagnostics.push_back({"ADM mass", out.parameters["m1"] + out.parameters["m2"] - 2.0 * b * vInf});
  }
}

} // namespace

std::vector<std::pair<std::string, bool>> declaredProblemParameters(const tensorium_module_tables &tables,
                                                                    const tensorium_spectral_problem_desc &problem) {
  if (problem.system_index < 0 || problem.system_index >= tables.spectral_system_count)
    throw ProblemError("problem '" + std::string(problem.block_name) + "' names no residual system of the module");
  const tensorium_spectral_residual_system_desc &system = tables.spectral_systems[problem.system_index];
  std::vector<std::pair<std::string, bool>> out;
  for (int32_t i = 0; i < system.param_count; ++i) {
    bool declared = false;
    for (int32_t d = 0; d < problem.param_default_count; ++d)
      declared = declared || std::string(problem.param_default_names[d]) == system.param_names[i];
    out.push_back({system.param_names[i], declared});
  }
  return out;
}

DeclaredProblemSolution solveDeclaredProblem(const tensorium_module_tables &tables,
                                             const tensorium_spectral_problem_desc &problem,
                                             const DeclaredProblemOptions &options) {
  const auto start = std::chrono::steady_clock::now();
  if (problem.struct_size < static_cast<int32_t>(sizeof(tensorium_spectral_problem_desc)))
    throw ProblemError("problem descriptor of block '" + std::string(problem.block_name) +
                       "' comes from an older compiler (struct_size " + std::to_string(problem.struct_size) + ")");
  const std::string map = problem.map;
  if (map != "box" && map != "spherical_shell" && map != "compactified_shell" && map != "two_puncture_compact")
    throw ProblemError("domain map '" + map + "' is not implemented by this runtime (known: box, spherical_shell, "
                       "compactified_shell, two_puncture_compact)");
  if (problem.system_index < 0 || problem.system_index >= tables.spectral_system_count)
    throw ProblemError("problem '" + std::string(problem.block_name) + "' names no residual system of the module");
  const tensorium_spectral_residual_system_desc &system = tables.spectral_systems[problem.system_index];
  requireOnlyUnknowns(system);

  std::array<int, 3> n{problem.resolution[0], problem.resolution[1], problem.resolution[2]};
  if (options.resolution)
    n = *options.resolution;
  for (int a = 0; a < 3; ++a)
    if (n[static_cast<size_t>(a)] < (map == "box" || a == 0 ? 3 : 1) || n[static_cast<size_t>(a)] > 512)
      throw ProblemError("resolution of axis " + std::to_string(a + 1) + " must be " +
                         (map == "box" || a == 0 ? "3" : "1") + " to 512 points, got " +
                         std::to_string(n[static_cast<size_t>(a)]));

  DeclaredProblemSolution out;
  const std::vector<double> params = resolveParameters(problem, system, options, out.parameters);
  for (int32_t u = 0; u < system.unknown_count; ++u)
    out.unknownNames.push_back(system.unknown_names[u]);
  if (map == "box")
    solveBox(tables, problem, system, n, params, options, out);
  else if (map == "spherical_shell" || map == "compactified_shell")
    solveSphericalShell(tables, problem, system, n, params, options, out);
  else
    solveTwoPunctureCompact(tables, problem, system, n, params, options, out);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

DeclaredProblemSolution restoreDeclaredSolution(const std::string &map, const std::array<int, 3> &resolution,
                                                const std::array<double, 6> &bounds, double punctureB,
                                                const std::vector<std::string> &unknownNames, const Vector &solverVariable) {
  for (int n : resolution)
    if (n < 1 || n > 512)
      throw ProblemError("a stored resolution is out of range");
  DeclaredProblemSolution out;
  try {
    setUpDomain(out, map, resolution, bounds, punctureB);
  } catch (const ProblemError &e) {
    throw ProblemError(std::string("stored domain: ") + e.what());
  }
  if (unknownNames.empty() || static_cast<size_t>(solverVariable.size()) != out.grid->size() * unknownNames.size())
    throw ProblemError("stored solution has " + std::to_string(solverVariable.size()) + " values for " +
                       std::to_string(unknownNames.size()) + " unknowns on " + std::to_string(out.grid->size()) + " points");
  out.unknownNames = unknownNames;
  out.solverVariable = solverVariable;
  out.U = solverVariable;
  for (size_t k = 0; k < unknownNames.size(); ++k)
    for (size_t p = 0; p < out.grid->size(); ++p)
      out.U(static_cast<Eigen::Index>(k * out.grid->size() + p)) *= out.unknownFactor(out.grid->logicalPoint(p));
  out.result.status = NewtonStatus::Converged;
  return out;
}

} // namespace tensorium_mlir::elliptic
