// tensorium-converge: manufactured-solution resolution studies of the generated spectral
// residuals. Each suite solves F(u) = 0 from a non-exact guess with Newton's method, measures
// the error against the analytic solution at every resolution, and judges the decay.
#include "tensorium_mlir/Runtime/KernelModule.h"
#include "output_paths.h"
#include "two_puncture_study.h"
#include "tensorium_mlir/Physics/TwoPunctures.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"
#include "tensorium_mlir/Verification/StudyFile.h"

#include "tensorium_mlir/Elliptic/SpectralNewton.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sys/resource.h>
#include <fstream>
#include <functional>
#include <map>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using namespace tensorium_mlir::elliptic;
using Module = runtime::KernelModule;

namespace {

struct Manufactured {
  std::string name, fixture, description;
  /// Systems: the analytic solution of every unknown, by name (empty for single residuals).
  std::map<std::string, std::function<double(const std::array<double, 3> &)>> unknowns;
  std::vector<std::pair<std::string, double>> params;
  std::function<double(const std::array<double, 3> &)> exact;
  /// Auxiliary field values at a point, by name (source included).
  std::function<double(const std::string &, const std::array<double, 3> &)> aux;
  std::function<double(const std::array<double, 3> &)> perturbation; // vanishes on the Chebyshev faces
};

// f = exp(x/2) sin(y) cos(z) has laplacian(f) = (1/4 - 1 - 1) f.
double bump(const std::array<double, 3> &x) { return std::exp(0.5 * x[0]) * std::sin(x[1]) * std::cos(x[2]); }
const double kBumpLaplacian = 0.25 - 2.0;
double interiorPerturbation(const std::array<double, 3> &x) {
  return 0.05 * (1 - x[0] * x[0]) * (1 - x[1] * x[1]) * (1 + 0.5 * std::sin(x[2]));
}

std::vector<Manufactured> suites() {
  std::vector<Manufactured> s;
  {
    Manufactured m;
    m.name = "poisson";
    m.fixture = "poisson_spectral_3d";
    m.description = "laplacian(u) + source = 0, u* = exp(x/2) sin(y) cos(z)";
    m.exact = bump;
    m.aux = [](const std::string &, const std::array<double, 3> &x) { return -kBumpLaplacian * bump(x); };
    m.perturbation = interiorPerturbation;
    s.push_back(m);
  }
  {
    Manufactured m;
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
    Manufactured m;
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
    Manufactured m;
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

/// Linear solver set-up shared by the studies: dense Jacobian without a preconditioner,
/// restarted GMRES with one.
struct SolverChoice {
  SpectralPreconditionerKind preconditioner = SpectralPreconditionerKind::None;
  bool progress = false;
  int fourierPoints = 0; // 0: as many as the Chebyshev axes
};
SolverChoice gSolver;

SpectralNewtonOptions newtonOptions() {
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

struct Row {
  int n = 0;
  size_t unknowns = 0;
  double error = 0.0, residual = 0.0, seconds = 0.0;
  long peakKB = 0; // the process's peak resident size after this solve (monotone)
  int newton = 0, krylov = 0;
  std::string status;
};

/// n x n Chebyshev-Gauss-Lobatto points on [-1, 1]^2 times a Fourier period in z.
spectral::SpectralGrid3D studyGrid(int n) {
  return spectral::SpectralGrid3D(spectral::SpectralAxis::chebyshevGaussLobatto(n),
                                  spectral::SpectralAxis::chebyshevGaussLobatto(n),
                                  spectral::SpectralAxis::fourier(gSolver.fourierPoints ? gSolver.fourierPoints : n));
}

/// Solves from `u`, timing the solve with the preconditioner's set-up, and fills the row.
template <typename Problem> Row solveAndMeasure(Row row, const Problem &problem, Vector &u, const Vector &exact) {
  auto start = std::chrono::steady_clock::now();
  SpectralNewtonResult r = solveSpectralNewton(problem, u, newtonOptions());
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

Row solveAt(const Manufactured &m, const Module &module, int n) {
  Row row;
  row.n = n;
  spectral::SpectralGrid3D grid = studyGrid(n);
  const size_t N = grid.size();
  row.unknowns = N;
  SpectralResidualProblem problem;
  problem.grid = &grid;
  problem.kernel = &module.tables().spectral_kernels[0];
  problem.gridKernel = &module.tables().spectral_grid_kernels[0];
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
  return solveAndMeasure(row, problem, u, exact);
}

Row solveSystemAt(const Manufactured &m, const Module &module, int n) {
  Row row;
  row.n = n;
  spectral::SpectralGrid3D grid = studyGrid(n);
  const size_t N = grid.size();
  SpectralResidualSystemProblem problem;
  problem.grid = &grid;
  problem.system = &module.tables().spectral_systems[0];
  problem.kernels = module.tables().spectral_kernels;
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
  return solveAndMeasure(row, problem, U, exact);
}

/// Three or more increasing resolutions (the range keeps n^3 in range; memory decides what runs).
std::vector<int> parseResolutions(const std::string &text) {
  std::vector<int> out;
  for (long n : tensorium_cli::parseIntegers("--resolutions", text, 3, 100000, 3, 64))
    out.push_back(static_cast<int>(n));
  for (size_t i = 1; i < out.size(); ++i)
    if (out[i] <= out[i - 1])
      throw tensorium_cli::UsageError("--resolutions must increase, got '" + text + "'");
  return out;
}

/// Peak memory of a manufactured-solution solve at the largest resolution (docs/memory.md): the
/// dense Newton path holds the Jacobian, its LU factors and a work copy (3 x unknowns^2 doubles);
/// the preconditioned GMRES path about 2 kB per unknown, like the two-puncture solves.
double manufacturedMemoryEstimate(int n, int unknownsPerPoint, int fourierPoints, bool dense) {
  const double unknowns = static_cast<double>(n) * n * (fourierPoints ? fourierPoints : n) * unknownsPerPoint;
  return 15e6 + (dense ? 3 * 8 * unknowns * unknowns : 2000 * unknowns);
}

int usage(const char *message) {
  if (message)
    std::cerr << "tensorium-converge: error: " << message << "\n";
  std::cerr << "usage: tensorium-converge STUDY.toml [--set key=value]... [--csv FILE] [--json] [--plot FILE.png]\n"
               "       tensorium-converge SUITE [--resolutions a,b,c,...] [--csv FILE] [--json]\n"
               "                          [--preconditioner none|diagonal-jvp|dense-laplacian-shift|\n"
               "                                            modal-laplacian-shift|mapped-fd-laplacian-shift|\n"
               "                                            mapped-fd-multigrid]\n"
               "                          [--plot FILE.png] [--progress] [--fourier-points N]\n"
               "                          [--kernel-dir DIR] [--memory-estimate]\n"
               "Exit status: 0 pass, 1 fail or run error, 2 bad arguments or not enough memory.\n"
               "none (default) solves each Newton step with the dense Jacobian; a preconditioner\n"
               "selects restarted GMRES with it as a right preconditioner.\n"
               "suites: poisson, nonlinear-toy, lichnerowicz, two-field (manufactured solutions),\n"
               "        two-puncture (boosted and spinning puncture data: successive-resolution\n"
               "        differences of the ADM masses and probe values; default resolutions 12,16,24,32,40;\n"
               "        --configuration boosted|spinning|both)\n";
  return 2;
}

} // namespace

int runSuite(int argc, char **argv);

/// A study file (docs/studies.md, kind "elliptic"): its keys become the suite's options; the
/// command line's other options (--csv, --json, --plot, ...) follow them.
int runStudyFile(int argc, char **argv) {
  std::vector<std::string> overrides, rest;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--set" && i + 1 < argc)
      overrides.push_back(argv[++i]);
    else
      rest.push_back(argv[i]);
  }
  std::vector<std::string> args{argv[0]};
  try {
    const verification::StudyFile study = verification::loadStudyFile(argv[1], overrides);
    if (study.kind != "elliptic")
      study.fail("study.kind", "tensorium-converge runs studies of kind 'elliptic' (tensorium-verify runs '" + study.kind +
                                   "')");
    const std::vector<std::string> suites{"poisson", "nonlinear-toy", "lichnerowicz", "two-field", "two-puncture"};
    if (std::find(suites.begin(), suites.end(), study.suite) == suites.end())
      study.fail("study.suite", "'" + study.suite + "' is not a suite (poisson, nonlinear-toy, lichnerowicz, two-field, "
                                                    "two-puncture)");
    try {
      parsePreconditioner(study.preconditioner);
    } catch (const std::exception &e) {
      study.fail("solver.preconditioner", e.what());
    }
    if (study.configuration != "boosted" && study.configuration != "spinning" && study.configuration != "both")
      study.fail("solver.configuration", "expected boosted, spinning or both");
    if (study.suite != "two-puncture" && study.configuration != "both")
      study.fail("solver.configuration", "only the two-puncture suite has configurations");
    std::string resolutions;
    for (int n : study.resolutions)
      resolutions += (resolutions.empty() ? "" : ",") + std::to_string(n);
    args.insert(args.end(), {study.suite, "--resolutions", resolutions, "--preconditioner", study.preconditioner});
    if (study.suite == "two-puncture")
      args.insert(args.end(), {"--configuration", study.configuration});
    if (study.fourierPoints > 0)
      args.insert(args.end(), {"--fourier-points", std::to_string(study.fourierPoints)});
  } catch (const verification::StudyFileError &e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  args.insert(args.end(), rest.begin(), rest.end());
  std::vector<char *> pointers;
  for (std::string &a : args)
    pointers.push_back(a.data());
  return runSuite(static_cast<int>(pointers.size()), pointers.data());
}

int main(int argc, char **argv) {
  if (argc >= 2) {
    const std::string first = argv[1];
    if (first.size() > 5 && first.substr(first.size() - 5) == ".toml")
      return runStudyFile(argc, argv);
  }
  return runSuite(argc, argv);
}

int runSuite(int argc, char **argv) {
  if (argc < 2)
    return usage("no suite given");
  std::string suiteName = argv[1];
  if (suiteName == "--help" || suiteName == "-h") {
    usage(nullptr);
    return 0;
  }
  std::vector<int> resolutions{6, 8, 10, 12, 14};
  bool resolutionsGiven = false;
  std::string csv, plot, kernelDir = TENSORIUM_CONVERGENCE_KERNEL_DIR, configuration = "both";
  bool json = false, memoryEstimateOnly = false;
  try {
    for (int i = 2; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--resolutions" && i + 1 < argc) {
        resolutions = parseResolutions(argv[++i]);
        resolutionsGiven = true;
      } else if (arg == "--configuration" && i + 1 < argc)
        configuration = argv[++i];
      else if (arg == "--csv" && i + 1 < argc)
        csv = argv[++i];
      else if (arg == "--plot" && i + 1 < argc)
        plot = argv[++i];
      else if (arg == "--kernel-dir" && i + 1 < argc)
        kernelDir = argv[++i];
      else if (arg == "--json")
        json = true;
      else if (arg == "--progress")
        gSolver.progress = true;
      else if (arg == "--fourier-points" && i + 1 < argc)
        gSolver.fourierPoints = static_cast<int>(tensorium_cli::parseInteger("--fourier-points", argv[++i], 1, 100000));
      else if (arg == "--memory-estimate")
        memoryEstimateOnly = true;
      else if (arg == "--preconditioner" && i + 1 < argc)
        gSolver.preconditioner = parsePreconditioner(argv[++i]);
      else
        return usage(("unknown or incomplete option '" + arg + "'").c_str());
    }
    if (!plot.empty())
      tensorium_cli::requireWritableOutput("--plot", plot);
    if (!plot.empty() && csv.empty())
      csv = plot + ".csv";
    if (!csv.empty())
      tensorium_cli::requireWritableOutput("--csv", csv);
  } catch (const std::exception &e) {
    return usage(e.what());
  }
  if (suiteName == "two-puncture") {
    TwoPunctureStudyOptions study;
    if (resolutionsGiven)
      study.resolutions = resolutions;
    study.configuration = configuration;
    study.fourierPoints = gSolver.fourierPoints;
    study.progress = gSolver.progress;
    study.json = json;
    study.csv = csv;
    study.modulePath = kernelDir + "/libconverge_two_puncture_hamiltonian_3d.so";
    if (!plot.empty())
      return usage("--plot draws manufactured-solution errors; use --csv for the two-puncture study");
    if (configuration != "boosted" && configuration != "spinning" && configuration != "both")
      return usage(("unknown configuration '" + configuration + "' (boosted, spinning, both)").c_str());
    physics::TwoPunctureOptions largest;
    largest.nA = largest.nB = study.resolutions.back();
    largest.nPhi = study.fourierPoints ? study.fourierPoints : std::max(4, 2 * ((largest.nA / 2 + 1) / 2));
    const double estimate = physics::twoPunctureMemoryEstimate(largest);
    if (memoryEstimateOnly) {
      std::printf("estimated peak memory: %.0f bytes\n", estimate);
      return 0;
    }
    try {
      runtime::requireMemory("the two-puncture study at n = " + std::to_string(largest.nA), estimate);
    } catch (const runtime::InsufficientMemory &e) {
      std::cerr << "tensorium-converge: error: " << e.what() << "\n";
      return 2;
    }
    return runTwoPunctureStudy(study);
  }
  const Manufactured *suite = nullptr;
  std::vector<Manufactured> all = suites();
  for (const Manufactured &m : all)
    if (m.name == suiteName)
      suite = &m;
  if (!suite)
    return usage(("unknown suite '" + suiteName + "'").c_str());
  {
    const int unknownsPerPoint = suite->unknowns.empty() ? 1 : static_cast<int>(suite->unknowns.size());
    const bool dense = gSolver.preconditioner == elliptic::SpectralPreconditionerKind::None;
    const double estimate =
        manufacturedMemoryEstimate(resolutions.back(), unknownsPerPoint, gSolver.fourierPoints, dense);
    if (memoryEstimateOnly) {
      std::printf("estimated peak memory: %.0f bytes\n", estimate);
      return 0;
    }
    try {
      runtime::requireMemory("suite " + suiteName + " at n = " + std::to_string(resolutions.back()) +
                                 (dense ? " with the dense Jacobian (give --preconditioner for GMRES)" : ""),
                             estimate);
    } catch (const runtime::InsufficientMemory &e) {
      std::cerr << "tensorium-converge: error: " << e.what() << "\n";
      return 2;
    }
  }

  std::vector<Row> rows;
  try {
    Module module(kernelDir + "/libconverge_" + suite->fixture + ".so");
    if (module.tables().spectral_kernel_count < 1 || module.tables().spectral_grid_kernel_count < 1 ||
        module.tables().spectral_system_count < 1)
      throw std::runtime_error("the module has no spectral residual kernel");
    for (int n : resolutions) {
      rows.push_back(suite->unknowns.empty() ? solveAt(*suite, module, n) : solveSystemAt(*suite, module, n));
      const Row &r = rows.back();
      std::fprintf(stderr, "  n=%d: %s after %d Newton iterations, error %.3e (%.2f s)\n", n, r.status.c_str(), r.newton,
                   r.error, r.seconds);
    }
  } catch (const std::exception &e) {
    std::cerr << "tensorium-converge: error: " << e.what() << "\n";
    return 1;
  }

  // Verdict: exponential decay means log10(error) falls linearly with n. Fit the slope over
  // the resolutions above the round-off floor.
  const double floorError = 1e-12, requiredSlope = -0.5;
  std::vector<std::pair<double, double>> fit;
  for (const Row &r : rows)
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
  for (const Row &r : rows)
    allConverged = allConverged && r.status == "converged";
  const bool reachedFloor = rows.back().error < 1e-9;
  const bool pass = allConverged && fit.size() >= 3 && slope <= requiredSlope && reachedFloor;

  std::ostringstream table;
  table << "suite " << suite->name << ": " << suite->description << "\n"
        << "grid: Chebyshev-Gauss-Lobatto x Chebyshev-Gauss-Lobatto on [-1,1]^2 x Fourier on [0,2pi), "
           "Dirichlet rows on the Chebyshev faces\n"
        << "linear solve: " << (gSolver.preconditioner == SpectralPreconditionerKind::None ? "dense Jacobian, pivoted LU"
                                                                                        : std::string("restarted GMRES, preconditioner ") +
                                                                                              preconditionerName(gSolver.preconditioner))
        << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%6s %9s %14s %14s %8s %8s %9s %10s  %s\n", "n", "unknowns", "max error",
                "residual", "newton", "krylov", "seconds", "peak MB", "status");
  table << line;
  for (const Row &r : rows) {
    std::snprintf(line, sizeof line, "%6d %9zu %14.4e %14.4e %8d %8d %9.3f %10.1f  %s\n", r.n, r.unknowns, r.error,
                  r.residual, r.newton, r.krylov, r.seconds, static_cast<double>(r.peakKB) / 1024.0, r.status.c_str());
    table << line;
  }
  std::snprintf(line, sizeof line,
                "verdict: %s (fitted slope of log10(error) per point: %.3f over %zu resolutions above %.0e; "
                "required <= %.2f with at least 3 points, all solves converged, finest error < 1e-9)\n",
                pass ? "EXPONENTIAL CONVERGENCE" : "FAIL", slope, fit.size(), floorError, requiredSlope);
  table << line;
  if (fit.size() < 3)
    table << "note: fewer than three resolutions have an error above the round-off floor; choose coarser "
             "resolutions to observe the decay\n";
  if (json) {
    std::cout << "{\"suite\": \"" << suite->name << "\", \"pass\": " << (pass ? "true" : "false")
              << ", \"slope\": " << slope << ", \"rows\": [";
    for (size_t i = 0; i < rows.size(); ++i)
      std::cout << (i ? ", " : "") << "{\"n\": " << rows[i].n << ", \"unknowns\": " << rows[i].unknowns
                << ", \"error\": " << rows[i].error << ", \"residual\": " << rows[i].residual
                << ", \"newton\": " << rows[i].newton << ", \"krylov\": " << rows[i].krylov
                << ", \"seconds\": " << rows[i].seconds << ", \"peak_kb\": " << rows[i].peakKB
                << ", \"status\": \"" << rows[i].status << "\"}";
    std::cout << "]}\n";
  } else {
    std::cout << table.str();
  }
  if (!csv.empty()) {
    std::ostringstream out;
    out << "n,unknowns,max_error,residual,newton,krylov,seconds,peak_kb,status\n";
    for (const Row &r : rows)
      out << r.n << ',' << r.unknowns << ',' << r.error << ',' << r.residual << ',' << r.newton << ',' << r.krylov << ','
          << r.seconds << ',' << r.peakKB << ',' << r.status << '\n';
    if (!tensorium_cli::writeFileAtomically(csv, out.str())) {
      std::cerr << "tensorium-converge: error: cannot write '" << csv << "'\n";
      return 1;
    }
  }
  if (!plot.empty()) {
    // matplotlib from Debian (python3-matplotlib), Agg backend, through the system interpreter.
    const std::string partial = tensorium_cli::partialName(plot);
    std::string command = std::string("'") + TENSORIUM_PLOT_PYTHON + "' '" + TENSORIUM_PLOT_SCRIPT + "' '" + csv +
                          "' '" + partial + "' '" + suite->name + "'";
    if (std::system(command.c_str()) != 0 || std::rename(partial.c_str(), plot.c_str()) != 0) {
      std::remove(partial.c_str());
      std::cerr << "tensorium-converge: error: plotting failed (needs " << TENSORIUM_PLOT_PYTHON
                << " with matplotlib: apt-get install python3-matplotlib)\n";
      return 1;
    }
    std::cerr << "wrote " << plot << "\n";
  }
  return pass ? 0 : 1;
}
