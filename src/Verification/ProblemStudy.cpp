// Studies of kind "problem" (docs/studies.md): a problem declared in a .tn file solved at several
// resolutions, judged by the self-convergence of its solution and, where the program declares
// exact solutions, by the error against them.
#include "tensorium_mlir/Verification/ProblemStudy.h"

#include "tensorium_mlir/Problems/DeclaredProblem.h"
#include "tensorium_mlir/Problems/ExactSolution.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tensorium_mlir::verification {

namespace {

std::string sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3e", v);
  return b;
}

/// Largest difference between a finer solution, interpolated spectrally at a coarser grid's
/// collocation points, and the coarser solution, over every unknown.
double difference(const elliptic::DeclaredProblemSolution &coarse, const elliptic::DeclaredProblemSolution &fine) {
  double d = 0.0;
  for (const std::string &name : coarse.unknownNames) {
    const std::vector<double> c = coarse.values(name), f = fine.values(name);
    for (size_t p = 0; p < coarse.grid->size(); ++p)
      d = std::max(d, std::abs(fine.grid->interpolate(f, coarse.grid->logicalPoint(p)) - c[p]));
  }
  return d;
}

/// When the program declares exact solutions: the largest error against them (every unknown,
/// collocation points and points between them) at each resolution must fall like the
/// differences (min_ratio per two points) until it is below verdict.exact_tolerance, and the
/// finest must be below it.
void judgeExactErrors(const StudyFile &study, const tensorium_module_tables &tables,
                      const std::vector<elliptic::DeclaredProblemSolution> &solutions, Report &report) {
  std::vector<double> errors;
  std::string worstUnknown;
  for (const elliptic::DeclaredProblemSolution &s : solutions) {
    double worst = 0;
    for (const elliptic::UnknownExactError &e : elliptic::exactSolutionErrors(tables, s)) {
      const double m = std::max(e.collocation.max, e.between.max);
      if (!(m <= worst))
        worst = m, worstUnknown = e.unknown;
    }
    if (worstUnknown.empty())
      return; // no exact solution declared
    errors.push_back(worst);
  }
  report.text << "error against the declared exact solution (max over unknowns, collocation and between points):\n";
  bool falls = true;
  std::string ratios;
  for (size_t k = 0; k < errors.size(); ++k) {
    char line[128];
    std::snprintf(line, sizeof line, "%6d %14.3e\n", study.resolutions[k], errors[k]);
    report.text << line;
    if (k == 0)
      continue;
    const double ratio = errors[k] > 0 ? errors[k - 1] / errors[k] : INFINITY;
    const double required = std::pow(study.minRatio, (study.resolutions[k] - study.resolutions[k - 1]) / 2.0);
    std::snprintf(line, sizeof line, "%.3g (needs %.3g)", ratio, required);
    ratios += (ratios.empty() ? "" : ", ") + std::string(line);
    if (!(ratio >= required || errors[k] <= study.exactTolerance))
      falls = false;
  }
  report.verdict("exact error converges", falls,
                 "error ratios " + ratios + " until the error is below " + sci(study.exactTolerance));
  report.verdict("finest exact error", errors.back() <= study.exactTolerance,
                 sci(errors.back()) + " (largest in " + worstUnknown + "; tolerance " + sci(study.exactTolerance) + ")");
}

} // namespace

void runProblemStudy(const StudyFile &study, const runtime::KernelModule &module, std::ostream *progress,
                     Report &report) {
  int32_t count = 0;
  const tensorium_spectral_problem_desc *problems = module.spectralProblems(count);
  const tensorium_spectral_problem_desc &problem = elliptic::findDeclaredProblem(problems, count, study.problemBlock);

  // The first axis takes the study's resolutions; the others keep the declared proportions.
  auto resolutionFor = [&](int n) {
    std::array<int, 3> r{};
    const int minimum = std::string(problem.map) == "box" ? 3 : 1;
    for (int a = 0; a < 3; ++a)
      r[static_cast<size_t>(a)] =
          a == 0 ? n
                 : std::max(minimum, static_cast<int>(std::lround(static_cast<double>(n) * problem.resolution[a] /
                                                                   problem.resolution[0])));
    return r;
  };
  // The study's parameters against the problem's, located in the study file.
  const std::vector<std::pair<std::string, bool>> declared = elliptic::declaredProblemParameters(module.tables(), problem);
  std::string known;
  for (const auto &[name, hasDefault] : declared)
    known += (known.empty() ? "" : ", ") + name;
  for (const auto &[name, value] : study.problemParameters)
    if (std::none_of(declared.begin(), declared.end(), [&](const auto &d) { return d.first == name; }))
      study.fail("problem.parameters." + name, "problem '" + std::string(problem.block_name) + "' has no parameter '" +
                                                   name + "' (its parameters: " + (known.empty() ? "none" : known) + ")");
  for (const auto &[name, hasDefault] : declared)
    if (!hasDefault && std::none_of(study.problemParameters.begin(), study.problemParameters.end(),
                                    [&](const auto &p) { return p.first == name; }))
      study.fail("problem.parameters", "parameter '" + name + "' has no declared default: give it a value here");
  try {
    runtime::requireMemory("the finest solve of study '" + study.name + "'",
                           elliptic::estimateDeclaredProblemBytes(problem, resolutionFor(study.resolutions.back())));
  } catch (const runtime::InsufficientMemory &e) {
    study.fail("grid.resolutions", e.what());
  }

  report.text << "study " << study.name << ": problem " << problem.block_name << " (" << problem.map << " map) from "
              << study.problemFixture << "\n";
  std::vector<elliptic::DeclaredProblemSolution> solutions;
  bool allConverged = true;
  double solveSeconds = 0.0;
  for (int n : study.resolutions) {
    elliptic::DeclaredProblemOptions options;
    options.resolution = resolutionFor(n);
    for (const auto &[name, v] : study.problemParameters)
      options.params[name] = v;
    options.progress = progress;
    solutions.push_back(elliptic::solveDeclaredProblem(module.tables(), problem, options));
    const elliptic::DeclaredProblemSolution &s = solutions.back();
    solveSeconds += s.seconds;
    if (!s.result.converged()) {
      allConverged = false;
      report.text << "  solve at " << n << " did not converge: " << s.result.message << "\n";
    } else if (s.result.iterations == 0) {
      report.text << "  at " << n << " no iterations needed: the initial guess already meets the tolerance (|F| = "
                  << s.result.residualNorm << ")\n";
    }
  }

  // Table: resolution, solver work, residual, difference to the next resolution.
  std::vector<double> differences;
  for (size_t k = 0; k + 1 < solutions.size(); ++k)
    differences.push_back(difference(solutions[k], solutions[k + 1]));
  char line[256];
  std::snprintf(line, sizeof line, "%6s %14s %7s %7s %10s %10s %14s %8s", "n", "points", "Newton", "Krylov", "|F|",
                "seconds", "diff to next", "ratio");
  report.text << line;
  for (const auto &[name, v] : solutions.front().diagnostics)
    report.text << "  " << name;
  report.text << "\n";
  {
    report.csv << "n,points,newton,krylov,residual,seconds,difference";
    for (const auto &[name, v] : solutions.front().diagnostics)
      report.csv << "," << name;
    report.csv << "\n";
  }
  for (size_t k = 0; k < solutions.size(); ++k) {
    const elliptic::DeclaredProblemSolution &s = solutions[k];
    const std::array<int, 3> r = resolutionFor(study.resolutions[k]);
    const std::string points = std::to_string(r[0]) + "x" + std::to_string(r[1]) + "x" + std::to_string(r[2]);
    const std::string diff = k < differences.size() ? sci(differences[k]) : "-";
    char ratioText[32] = "-";
    if (k >= 1 && k < differences.size() && differences[k] > 0)
      std::snprintf(ratioText, sizeof ratioText, "%.3g", differences[k - 1] / differences[k]);
    const std::string ratio = ratioText;
    std::snprintf(line, sizeof line, "%6d %14s %7d %7d %10.2e %10.3f %14s %8s", study.resolutions[k], points.c_str(),
                  s.result.iterations, s.result.krylovIterations, s.result.residualNorm, s.seconds, diff.c_str(),
                  ratio.c_str());
    report.text << line;
    for (const auto &[name, v] : s.diagnostics) {
      std::snprintf(line, sizeof line, "  %.15f", v);
      report.text << line;
    }
    report.text << "\n";
    {
      report.csv << study.resolutions[k] << "," << points << "," << s.result.iterations << "," << s.result.krylovIterations
                 << "," << s.result.residualNorm << "," << s.seconds << ","
                 << (k < differences.size() ? differences[k] : NAN);
      for (const auto &[name, v] : s.diagnostics)
        report.csv << "," << v;
      report.csv << "\n";
    }
  }

  report.verdict("solves converge", allConverged,
                 allConverged ? "every resolution reached the declared Newton tolerance" : "a solve did not converge",
                 solveSeconds);
  // Spectral convergence: the difference at resolution n falls like rho^-n, so two successive
  // differences differ by rho^(n_k - n_k-1); the study asks rho^2 >= min_ratio.
  bool geometric = true;
  std::string ratios;
  for (size_t k = 1; k < differences.size(); ++k) {
    const double ratio = differences[k] > 0 ? differences[k - 1] / differences[k] : INFINITY;
    const double step = study.resolutions[k] - study.resolutions[k - 1];
    const double required = std::pow(study.minRatio, step / 2.0);
    char item[96];
    std::snprintf(item, sizeof item, "%.3g (needs %.3g)", ratio, required);
    ratios += (ratios.empty() ? "" : ", ") + std::string(item);
    if (!(ratio >= required || differences[k] <= study.tolerance))
      geometric = false;
  }
  report.verdict("exponential self-convergence", geometric,
                 "successive-difference ratios " + ratios + ": at least " + sci(study.minRatio) +
                     " per two points until the difference is below the tolerance");
  const bool small = !differences.empty() && differences.back() <= study.tolerance;
  report.verdict("finest difference", small,
                 sci(differences.empty() ? NAN : differences.back()) + " (tolerance " + sci(study.tolerance) + ")");
  if (allConverged)
    judgeExactErrors(study, module.tables(), solutions, report);
}

} // namespace tensorium_mlir::verification
