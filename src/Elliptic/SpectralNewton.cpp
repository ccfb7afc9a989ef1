#include "tensorium_mlir/Elliptic/SpectralNewton.h"

#include <cmath>
#include <cstdio>

namespace tensorium_mlir::elliptic {

namespace {

bool maskConstantAlongAxis2(const spectral::SpectralGrid3D &grid, const std::vector<char> &mask) {
  if (mask.empty())
    return true;
  std::array<int, 3> n = grid.extents();
  for (int i = 0; i < n[0]; ++i)
    for (int j = 0; j < n[1]; ++j)
      for (int k = 1; k < n[2]; ++k)
        if (mask[grid.index(i, j, k)] != mask[grid.index(i, j, 0)])
          return false;
  return true;
}

using CoefficientProbe = std::function<std::vector<std::array<double, 10>>(const Vector &)>;

SpectralNewtonResult solve(const spectral::SpectralGrid3D &grid, const std::vector<char> &mask, int blocks,
                           NonlinearProblem nl, Vector &u, const SpectralNewtonOptions &options,
                           const CoefficientProbe &probe = {}) {
  SpectralNewtonResult result;
  const Eigen::Index n = u.size();
  NewtonOptions newton;
  newton.maxIterations = options.maxNewtonIterations;
  newton.lineSearch = options.lineSearch;
  newton.absoluteTolerance = options.tolerance;
  newton.linearSolve = options.linearSolve;
  newton.denseJacobianMaxUnknowns = options.denseJacobianMaxUnknowns;
  newton.gmres = options.gmres;
  newton.gmresForcing = options.gmresForcing;
  result.usedKrylov = options.linearSolve == LinearSolveKind::Gmres ||
                      (options.linearSolve == LinearSolveKind::Auto && n > options.denseJacobianMaxUnknowns);
  if (result.usedKrylov) {
    SpectralPreconditionerKind kind = options.preconditioner;
    if (options.autoPreconditioner) {
      if (grid.axis(2).isPeriodic() && maskConstantAlongAxis2(grid, mask))
        kind = SpectralPreconditionerKind::ModalLaplacianShift;
      else if (static_cast<Eigen::Index>(grid.size()) <= 8 * static_cast<Eigen::Index>(options.denseJacobianMaxUnknowns))
        kind = SpectralPreconditionerKind::DenseLaplacianShift;
      else
        kind = SpectralPreconditionerKind::DiagonalJVP;
    }
    result.preconditioner = kind;
    // Laplacian preconditioners approximate J = laplacian + reaction. J(u0) applied to a
    // constant is the reaction (the laplacian of a constant vanishes); computed at most once
    // for its two uses below: per point (multigrid) and its mean (the shift).
    double shift = options.preconditionerShift;
    Vector jacobianOnes;
    auto reactionAtStart = [&]() -> const Vector & {
      if (jacobianOnes.size() == 0) {
        jacobianOnes.resize(n);
        nl.jacobianVector(u, Vector::Ones(n), jacobianOnes);
      }
      return jacobianOnes;
    };
    // Local reaction dF/du per point of the first unknown, O(N).
    std::vector<double> localReaction;
    if (nl.jacobianVector && kind == SpectralPreconditionerKind::MappedFiniteDifferenceMultigrid &&
        options.preconditionerShift == 0.0) {
      const Vector &reaction = reactionAtStart();
      if (reaction.allFinite()) {
        localReaction.assign(reaction.data(), reaction.data() + grid.size());
        for (size_t p = 0; p < mask.size(); ++p)
          if (mask[p])
            localReaction[p] = 0.0;
      }
    }
    if (options.autoPreconditioner && shift == 0.0 && nl.jacobianVector) {
      const Vector &reaction = reactionAtStart();
      double sum = 0.0;
      Eigen::Index count = 0;
      for (Eigen::Index i = 0; i < n; ++i)
        if (mask.empty() || !mask[static_cast<size_t>(i % static_cast<Eigen::Index>(grid.size()))]) {
          sum += reaction(i);
          ++count;
        }
      if (count && std::isfinite(sum))
        shift = sum / static_cast<double>(count);
    }
    switch (kind) {
    case SpectralPreconditionerKind::None: break;
    case SpectralPreconditionerKind::FourierModeFiniteDifference: {
      if (!probe)
        throw ProblemError("the fourier-mode-fd preconditioner needs JVP kernels for every residual");
      // Rebuilt at every Newton iterate from the exact linearised coefficients there; a system
      // gets one per equation (its diagonal block), applied block-diagonally.
      const spectral::SpectralGrid3D *g = &grid;
      nl.preconditioner = [g, probe, blocks](const Vector &at) -> LinearOperator {
        const std::vector<std::array<double, 10>> all = probe(at);
        const size_t n = g->size();
        if (blocks == 1)
          return makeFourierModeFiniteDifferencePreconditioner(*g, all);
        std::vector<LinearOperator> diagonal;
        for (int b = 0; b < blocks; ++b)
          diagonal.push_back(makeFourierModeFiniteDifferencePreconditioner(
              *g, std::vector<std::array<double, 10>>(all.begin() + static_cast<std::ptrdiff_t>(b * n),
                                                      all.begin() + static_cast<std::ptrdiff_t>((b + 1) * n))));
        return [diagonal, n](const Vector &x, Vector &y) {
          y.resize(x.size());
          Vector xb, yb;
          for (size_t b = 0; b < diagonal.size(); ++b) {
            xb = x.segment(static_cast<Eigen::Index>(b * n), static_cast<Eigen::Index>(n));
            diagonal[b](xb, yb);
            y.segment(static_cast<Eigen::Index>(b * n), static_cast<Eigen::Index>(n)) = yb;
          }
        };
      };
      break;
    }
    case SpectralPreconditionerKind::DiagonalJVP: {
      auto jvp = nl.jacobianVector;
      nl.preconditioner = [jvp](const Vector &at) {
        return makeDiagonalJvpPreconditioner([&](const Vector &v, Vector &out) { jvp(at, v, out); }, at.size());
      };
      break;
    }
    case SpectralPreconditionerKind::MappedFiniteDifferenceLaplacianShift:
    case SpectralPreconditionerKind::MappedFiniteDifferenceMultigrid: {
      LinearOperator M = kind == SpectralPreconditionerKind::MappedFiniteDifferenceLaplacianShift
                             ? makeMappedFiniteDifferencePreconditioner(grid, shift, mask, blocks)
                             : makeMappedFiniteDifferenceMultigridPreconditioner(grid, localReaction.empty() ? shift : 0.0,
                                                                                 mask, blocks, MultigridOptions{},
                                                                                 localReaction);
      nl.preconditioner = [M](const Vector &) { return M; };
      break;
    }
    case SpectralPreconditionerKind::DenseLaplacianShift:
    case SpectralPreconditionerKind::ModalLaplacianShift: {
      LinearOperator M = kind == SpectralPreconditionerKind::DenseLaplacianShift
                             ? makeDenseLaplacianShiftPreconditioner(grid, shift, mask, blocks)
                             : makeModalLaplacianShiftPreconditioner(grid, shift, mask, blocks);
      nl.preconditioner = [M](const Vector &) { return M; };
      break;
    }
    }
  }
  if (options.progress) {
    std::ostream &os = *options.progress;
    newton.gmres.monitor = [&os](const KrylovProgress &p) {
      char line[96];
      std::snprintf(line, sizeof line, "    krylov %4d  |r| = %.3e\n", p.iteration, p.residualNorm);
      os << line;
    };
    newton.monitor = [&os](const NewtonProgress &p) {
      char line[128];
      std::snprintf(line, sizeof line, "  newton %3d  |F| = %.3e  step %.3g  krylov %d\n", p.iteration, p.residualNorm,
                    p.step, p.krylovIterations);
      os << line;
    };
  }
  NewtonResult r = solveNewton(nl, u, newton);
  static_cast<NewtonResult &>(result) = r;
  return result;
}

SpectralNewtonResult invalid(const std::exception &e) {
  SpectralNewtonResult r;
  r.status = NewtonStatus::InvalidProblem;
  r.message = e.what();
  return r;
}

} // namespace

SpectralNewtonResult solveSpectralNewton(const SpectralResidualProblem &problem, Vector &v,
                                         const SpectralNewtonOptions &options) {
  try {
    problem.validate();
    if (static_cast<size_t>(v.size()) != problem.grid->size())
      throw ProblemError("initial guess has " + std::to_string(v.size()) + " entries, the grid " +
                         std::to_string(problem.grid->size()));
    NonlinearProblem nl;
    nl.residual = [&](const Vector &x, Vector &F) { F = assembleSpectralResidual(problem, x).F; };
    nl.jacobianVector = [&](const Vector &x, const Vector &d, Vector &Jv) {
      Jv = evaluateSpectralJacobianVectorProduct(problem, x, d);
    };
    CoefficientProbe probe;
    if (problem.kernel->evaluate_jvp)
      probe = [&problem](const Vector &at) { return linearisedLogicalCoefficients(problem, at); };
    return solve(*problem.grid, problem.boundaryMask, 1, nl, v, options, probe);
  } catch (const std::invalid_argument &e) {
    return invalid(e);
  }
}

SpectralNewtonResult solveSpectralNewton(const SpectralResidualSystemProblem &problem, Vector &U,
                                         const SpectralNewtonOptions &options) {
  try {
    problem.validate();
    const size_t expected = problem.grid->size() * static_cast<size_t>(problem.system->unknown_count);
    if (static_cast<size_t>(U.size()) != expected)
      throw ProblemError("initial guess has " + std::to_string(U.size()) + " entries, expected " + std::to_string(expected));
    NonlinearProblem nl;
    nl.residual = [&](const Vector &x, Vector &F) { F = assembleSpectralResidualSystem(problem, x).F; };
    nl.jacobianVector = [&](const Vector &x, const Vector &d, Vector &Jv) {
      Jv = evaluateSpectralResidualSystemJacobianVectorProduct(problem, x, d);
    };
    CoefficientProbe probe;
    bool allJvp = true;
    for (int32_t e = 0; e < problem.system->equation_count; ++e)
      allJvp = allJvp && problem.kernels[problem.system->point_kernel_index[e]].evaluate_jvp;
    if (allJvp)
      probe = [&problem](const Vector &at) {
        std::vector<std::array<double, 10>> all;
        for (int32_t e = 0; e < problem.system->equation_count; ++e) {
          std::vector<std::array<double, 10>> block = linearisedLogicalCoefficients(problem, at, e);
          all.insert(all.end(), block.begin(), block.end());
        }
        return all;
      };
    return solve(*problem.grid, problem.boundaryMask, problem.system->unknown_count, nl, U, options, probe);
  } catch (const std::invalid_argument &e) {
    return invalid(e);
  }
}

} // namespace tensorium_mlir::elliptic
