// The manufactured-solution suites and their solves (docs: convergence/README.md).
#include "tensorium_mlir/Verification/ManufacturedStudies.h"

#include "tensorium_mlir/Elliptic/Preconditioners.h"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

namespace tensorium_mlir::verification {

using namespace elliptic;

namespace {


// f = exp(x/2) sin(y) cos(z) has laplacian(f) = (1/4 - 1 - 1) f.
double bump(const std::array<double, 3> &x) { return std::exp(0.5 * x[0]) * std::sin(x[1]) * std::cos(x[2]); }
const double kBumpLaplacian = 0.25 - 2.0;
double interiorPerturbation(const std::array<double, 3> &x) {
  return 0.05 * (1 - x[0] * x[0]) * (1 - x[1] * x[1]) * (1 + 0.5 * std::sin(x[2]));
}

std::vector<ManufacturedSuite> buildSuites() {
  std::vector<ManufacturedSuite> s;
  {
    ManufacturedSuite m;
    m.name = "poisson";
    m.fixture = "poisson_spectral_3d";
    m.description = "laplacian(u) + source = 0, u* = exp(x/2) sin(y) cos(z)";
    m.exact = bump;
    m.aux = [](const std::string &, const std::array<double, 3> &x) { return -kBumpLaplacian * bump(x); };
    m.perturbation = interiorPerturbation;
    s.push_back(m);
  }
  {
    ManufacturedSuite m;
    m.name = "nonlinear-toy";
    m.fixture = "nonlinear_toy_3d";
    m.description = "laplacian(psi) + mass psi + alpha psi^5 + source = 0, psi* = 1 + 0.3 exp(x/2) sin(y) cos(z)";
    const double mass = -1.0, alpha = 0.1;
    m.params = {{"alpha", alpha}, {"mass", mass}};
    m.exact = [](const std::array<double, 3> &x) { return 1.0 + 0.3 * bump(x); };
    m.aux = [=](const std::string &, const std::array<double, 3> &x) {
      double psi = 1.0 + 0.3 * bump(x);
      return -(0.3 * kBumpLaplacian * bump(x) + mass * psi + alpha * std::pow(psi, 5));
    };
    m.perturbation = interiorPerturbation;
    s.push_back(m);
  }
  {
    ManufacturedSuite m;
    m.name = "lichnerowicz";
    m.fixture = "lichnerowicz_manufactured_3d";
    m.description = "laplacian(u) + A2/8 (background + u)^-7 + source = 0, u* = 0.2 exp(x/2) sin(y) cos(z)";
    m.exact = [](const std::array<double, 3> &x) { return 0.2 * bump(x); };
    auto background = [](const std::array<double, 3> &x) { return 1.0 + 0.1 * x[0] * x[0]; };
    auto a2 = [](const std::array<double, 3> &x) { return 0.5 * (1.0 + 0.1 * std::cos(x[2])); };
    m.aux = [=](const std::string &name, const std::array<double, 3> &x) {
      if (name == "A2")
        return a2(x);
      if (name == "background")
        return background(x);
      double u = 0.2 * bump(x);
      return -(0.2 * kBumpLaplacian * bump(x) + a2(x) / 8 * std::pow(background(x) + u, -7));
    };
    m.perturbation = interiorPerturbation;
    s.push_back(m);
  }
  {
    ManufacturedSuite m;
    m.name = "two-field";
    m.fixture = "two_field_system_3d";
    m.description = "Fu = lap(u) + beta lap(w) - u w^2 + su, Fw = lap(w) - beta lap(u) - w u^2 + sw, "
                    "u* = 0.3 exp(x/2) sin(y) cos(z), w* = 0.2 cos(x) cos(y) sin(z)";
    const double beta = 0.4;
    m.params = {{"beta", beta}};
    auto uStar = [](const std::array<double, 3> &x) { return 0.3 * bump(x); };
    auto wStar = [](const std::array<double, 3> &x) { return 0.2 * std::cos(x[0]) * std::cos(x[1]) * std::sin(x[2]); };
    m.unknowns = {{"u", uStar}, {"w", wStar}};
    m.exact = uStar;
    m.aux = [=](const std::string &name, const std::array<double, 3> &x) {
      double u = uStar(x), w = wStar(x), lapU = kBumpLaplacian * u, lapW = -3.0 * w;
      if (name == "su")
        return -(lapU + beta * lapW - u * w * w);
      return -(lapW - beta * lapU - w * u * u);
    };
    m.perturbation = interiorPerturbation;
    s.push_back(m);
  }
  return s;
}


SpectralNewtonOptions newtonOptions(const ManufacturedSolver &gSolver) {
  SpectralNewtonOptions options;
  options.tolerance = 1e-12;
  options.autoPreconditioner = false;
  options.preconditioner = gSolver.preconditioner;
  options.progress = gSolver.progress ? &std::cerr : nullptr;
  if (gSolver.preconditioner == SpectralPreconditionerKind::None) {
    options.linearSolve = SpectralLinearSolveKind::Dense;
  } else {
    options.linearSolve = SpectralLinearSolveKind::Gmres;
    options.gmresForcing = 1e-10;
    options.gmres.restart = 50;
    options.gmres.maxIterations = 2000;
  }
  return options;
}


/// n x n Chebyshev-Gauss-Lobatto points on [-1, 1]^2 times a Fourier period in z.
spectral::SpectralGrid3D studyGrid(int n, const ManufacturedSolver &gSolver) {
  return spectral::SpectralGrid3D(spectral::SpectralAxis::chebyshevGaussLobatto(n),
                                  spectral::SpectralAxis::chebyshevGaussLobatto(n),
                                  spectral::SpectralAxis::fourier(gSolver.fourierPoints ? gSolver.fourierPoints : n));
}

/// Solves from `u`, timing the solve with the preconditioner's set-up, and fills the row.
template <typename Problem>
ManufacturedRow solveAndMeasure(ManufacturedRow row, const Problem &problem, Vector &u, const Vector &exact,
                                const ManufacturedSolver &solver) {
  auto start = std::chrono::steady_clock::now();
  SpectralNewtonResult r = solveSpectralNewton(problem, u, newtonOptions(solver));
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  row.newton = r.iterations;
  row.krylov = r.krylovIterations;
  row.residual = r.residualNorm;
  row.status = newtonStatusName(r.status);
  row.error = (u - exact).cwiseAbs().maxCoeff();
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) == 0)
    row.peakKB = usage.ru_maxrss;
  return row;
}

ManufacturedRow solveAt(const ManufacturedSuite &m, const tensorium_module_tables &tables, int n,
                        const ManufacturedSolver &solver) {
  ManufacturedRow row;
  row.n = n;
  spectral::SpectralGrid3D grid = studyGrid(n, solver);
  const size_t N = grid.size();
  row.unknowns = N;
  SpectralResidualProblem problem;
  problem.grid = &grid;
  problem.kernel = &tables.spectral_kernels[0];
  problem.gridKernel = &tables.spectral_grid_kernels[0];
  problem.params.assign(static_cast<size_t>(problem.kernel->param_count), 0.0);
  for (auto &[name, value] : m.params)
    problem.setParameter(name, value);
  for (int32_t f = 1; f < problem.kernel->field_count; ++f) {
    std::vector<double> values(N);
    for (size_t p = 0; p < N; ++p)
      values[p] = m.aux(problem.kernel->field_names[f], grid.physicalPoint(p));
    problem.auxiliaryFields[problem.kernel->field_names[f]] = values;
  }
  problem.boundaryMask.assign(N, 0);
  problem.boundaryValues.assign(N, 0.0);
  Vector exact(static_cast<Eigen::Index>(N)), u(static_cast<Eigen::Index>(N));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < grid.extents()[2]; ++k) {
        size_t p = grid.index(i, j, k);
        auto x = grid.physicalPoint(p);
        exact(static_cast<Eigen::Index>(p)) = m.exact(x);
        u(static_cast<Eigen::Index>(p)) = m.exact(x) + m.perturbation(x);
        if (i == 0 || i == n - 1 || j == 0 || j == n - 1) {
          problem.boundaryMask[p] = 1;
          problem.boundaryValues[p] = m.exact(x);
        }
      }
  return solveAndMeasure(row, problem, u, exact, solver);
}

ManufacturedRow solveSystemAt(const ManufacturedSuite &m, const tensorium_module_tables &tables, int n,
                              const ManufacturedSolver &solver) {
  ManufacturedRow row;
  row.n = n;
  spectral::SpectralGrid3D grid = studyGrid(n, solver);
  const size_t N = grid.size();
  SpectralResidualSystemProblem problem;
  problem.grid = &grid;
  problem.system = &tables.spectral_systems[0];
  problem.kernels = tables.spectral_kernels;
  const int32_t unknowns = problem.system->unknown_count;
  row.unknowns = N * static_cast<size_t>(unknowns);
  problem.params.assign(static_cast<size_t>(problem.system->param_count), 0.0);
  for (auto &[name, value] : m.params)
    problem.setParameter(name, value);
  const auto &sys = *problem.system;
  for (int32_t a = 0; a < sys.aux_offset[sys.equation_count]; ++a)
    if (sys.aux_unknown_index[a] < 0) {
      std::vector<double> values(N);
      for (size_t p = 0; p < N; ++p)
        values[p] = m.aux(sys.aux_field_names[a], grid.physicalPoint(p));
      problem.staticFields[sys.aux_field_names[a]] = values;
    }
  problem.boundaryMask.assign(N, 0);
  problem.boundaryValues.assign(static_cast<size_t>(unknowns), std::vector<double>(N, 0.0));
  Vector exact(static_cast<Eigen::Index>(row.unknowns)), U(static_cast<Eigen::Index>(row.unknowns));
  for (int32_t q = 0; q < unknowns; ++q) {
    auto solution = m.unknowns.at(sys.unknown_names[q]);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < grid.extents()[2]; ++k) {
          size_t p = grid.index(i, j, k);
          auto x = grid.physicalPoint(p);
          Eigen::Index at = static_cast<Eigen::Index>(static_cast<size_t>(q) * N + p);
          exact(at) = solution(x);
          U(at) = solution(x) + m.perturbation(x);
          if (i == 0 || i == n - 1 || j == 0 || j == n - 1) {
            problem.boundaryMask[p] = 1;
            problem.boundaryValues[static_cast<size_t>(q)][p] = solution(x);
          }
        }
  }
  return solveAndMeasure(row, problem, U, exact, solver);
}

} // namespace

const std::vector<ManufacturedSuite> &manufacturedSuites() {
  static const std::vector<ManufacturedSuite> suites = buildSuites();
  return suites;
}

ManufacturedRow solveManufactured(const ManufacturedSuite &suite, const tensorium_module_tables &tables, int n,
                                  const ManufacturedSolver &solver) {
  return suite.unknowns.empty() ? solveAt(suite, tables, n, solver) : solveSystemAt(suite, tables, n, solver);
}

double manufacturedMemoryEstimate(int n, int unknownsPerPoint, int fourierPoints, bool dense) {
  const double unknowns = static_cast<double>(n) * n * (fourierPoints ? fourierPoints : n) * unknownsPerPoint;
  // 32 MB: the tool process with its libraries (PETSc, HDF5, MPI), measured.
  return 32e6 + (dense ? 3 * 8 * unknowns * unknowns : 2000 * unknowns);
}

ManufacturedVerdict judgeManufactured(const ManufacturedSuite &suite, const std::vector<ManufacturedRow> &rows,
                                      const ManufacturedSolver &solver) {
  // Verdict: exponential decay means log10(error) falls linearly with n. Fit the slope over
  // the resolutions above the round-off floor.
  const double floorError = 1e-12, requiredSlope = -0.5;
  std::vector<std::pair<double, double>> fit;
  for (const ManufacturedRow &r : rows)
    if (r.error > floorError)
      fit.push_back({static_cast<double>(r.n), std::log10(r.error)});
  double slope = 0.0;
  if (fit.size() >= 2) {
    double mx = 0, my = 0;
    for (auto &[x, y] : fit)
      mx += x, my += y;
    mx /= fit.size();
    my /= fit.size();
    double sxy = 0, sxx = 0;
    for (auto &[x, y] : fit)
      sxy += (x - mx) * (y - my), sxx += (x - mx) * (x - mx);
    slope = sxy / sxx;
  }
  bool allConverged = true;
  for (const ManufacturedRow &r : rows)
    allConverged = allConverged && r.status == "converged";
  const bool reachedFloor = rows.back().error < 1e-9;
  const bool pass = allConverged && fit.size() >= 3 && slope <= requiredSlope && reachedFloor;

  std::ostringstream table;
  table << "suite " << suite.name << ": " << suite.description << "\n"
        << "grid: Chebyshev-Gauss-Lobatto x Chebyshev-Gauss-Lobatto on [-1,1]^2 x Fourier on [0,2pi), "
           "Dirichlet rows on the Chebyshev faces\n"
        << "linear solve: " << (solver.preconditioner == elliptic::SpectralPreconditionerKind::None ? "dense Jacobian, pivoted LU"
                                                                                        : std::string("restarted GMRES, preconditioner ") +
                                                                                              elliptic::preconditionerName(solver.preconditioner))
        << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%6s %9s %14s %14s %8s %8s %9s %10s  %s\n", "n", "unknowns", "max error",
                "residual", "newton", "krylov", "seconds", "peak MB", "status");
  table << line;
  for (const ManufacturedRow &r : rows) {
    std::snprintf(line, sizeof line, "%6d %9zu %14.4e %14.4e %8d %8d %9.3f %10.1f  %s\n", r.n, r.unknowns, r.error,
                  r.residual, r.newton, r.krylov, r.seconds, static_cast<double>(r.peakKB) / 1024.0, r.status.c_str());
    table << line;
  }
  std::snprintf(line, sizeof line,
                "verdict: %s (exponential convergence: fitted slope of log10(error) per point %.3f over %zu "
                "resolutions above %.0e; required <= %.2f with at least 3 points, all solves converged, finest error "
                "< 1e-9)\n",
                pass ? "PASS" : "FAIL", slope, fit.size(), floorError, requiredSlope);
  table << line;
  ManufacturedVerdict v;
  v.slope = slope;
  v.fitted = fit.size();
  v.pass = pass;
  v.line = std::string(line).substr(0, std::strlen(line) - 1);
  if (fit.size() < 3)
    table << "note: fewer than three resolutions have an error above the round-off floor; choose coarser "
             "resolutions to observe the decay\n";
  v.table = table.str();
  return v;
}

std::string manufacturedCsv(const std::vector<ManufacturedRow> &rows) {
  std::ostringstream out;
  out << "n,unknowns,max_error,residual,newton,krylov,seconds,peak_kb,status\n";
  for (const ManufacturedRow &r : rows)
    out << r.n << ',' << r.unknowns << ',' << r.error << ',' << r.residual << ',' << r.newton << ',' << r.krylov << ','
        << r.seconds << ',' << r.peakKB << ',' << r.status << '\n';
  return out.str();
}

std::string manufacturedJson(const ManufacturedSuite &suite, const std::vector<ManufacturedRow> &rows,
                             const ManufacturedVerdict &verdict) {
  std::ostringstream out;
  out << "{\"suite\": \"" << suite.name << "\", \"pass\": " << (verdict.pass ? "true" : "false")
      << ", \"slope\": " << verdict.slope << ", \"rows\": [";
  for (size_t i = 0; i < rows.size(); ++i)
    out << (i ? ", " : "") << "{\"n\": " << rows[i].n << ", \"unknowns\": " << rows[i].unknowns
        << ", \"error\": " << rows[i].error << ", \"residual\": " << rows[i].residual << ", \"newton\": " << rows[i].newton
        << ", \"krylov\": " << rows[i].krylov << ", \"seconds\": " << rows[i].seconds << ", \"peak_kb\": " << rows[i].peakKB
        << ", \"status\": \"" << rows[i].status << "\"}";
  out << "]}";
  return out.str();
}

} // namespace tensorium_mlir::verification
