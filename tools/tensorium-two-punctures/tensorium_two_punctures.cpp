// tensorium-two-punctures: solves the puncture equation for two Bowen-York punctures on the
// compact (A, B, phi) domain and reports the ADM masses, residual norms and probe values.
#include "two_puncture_cli_kernels.h"
#include "command_line.h"

#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"
#include "tensorium_mlir/Physics/TwoPunctures.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using namespace tensorium_cli;

namespace {

std::string json(double v) {
  if (!std::isfinite(v))
    return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

} // namespace

int main(int argc, char **argv) {
  physics::TwoPunctureParameters params;
  physics::TwoPunctureOptions options;
  options.nA = options.nB = 24;
  options.nPhi = 12;
  std::vector<std::array<double, 3>> probes;
  bool asJson = false, quiet = false, targetsGiven = false, memoryEstimateOnly = false;
  std::array<double, 2> targets{};
  CommandLine cli("tensorium-two-punctures", "[options]");
  cli.group("two punctures (G = c = 1; puncture 1 at (+b, 0, 0), puncture 2 at (-b, 0, 0))")
      .option("--b", "B", "half-separation (default 1)", [&](const std::string &v) { params.b = parseNumber("--b", v); })
      .option("--m1", "M", "bare mass of puncture 1 (default 0.5)",
              [&](const std::string &v) { params.m1 = parseNumber("--m1", v); })
      .option("--m2", "M", "bare mass of puncture 2 (default 0.5)",
              [&](const std::string &v) { params.m2 = parseNumber("--m2", v); })
      .option("--p1", "x,y,z", "Bowen-York momentum of puncture 1 (default 0)",
              [&](const std::string &v) { params.P1 = vec3("--p1", v); })
      .option("--p2", "x,y,z", "Bowen-York momentum of puncture 2 (default 0)",
              [&](const std::string &v) { params.P2 = vec3("--p2", v); })
      .option("--s1", "x,y,z", "Bowen-York spin of puncture 1 (default 0)",
              [&](const std::string &v) { params.S1 = vec3("--s1", v); })
      .option("--s2", "x,y,z", "Bowen-York spin of puncture 2 (default 0)",
              [&](const std::string &v) { params.S2 = vec3("--s2", v); })
      .option("--target-masses", "M1,M2",
              "search bare masses whose puncture ADM masses match these to 1e-10 relative",
              [&](const std::string &v) {
                const std::vector<double> t = parseNumbers("--target-masses", v, 2);
                if (!(t[0] > 0) || !(t[1] > 0))
                  throw UsageError("--target-masses must be positive");
                targets = {t[0], t[1]};
                targetsGiven = true;
              })
      .group("solver")
      .option("--resolution", "nA,nB,nphi", "spectral collocation points (default 24,24,12; nA, nB >= 4)",
              [&](const std::string &v) {
                // The range only keeps products in double range; memory decides what runs.
                const std::vector<long> n = parseIntegers("--resolution", v, 1, 1000000, 3, 3);
                if (n[0] < 4 || n[1] < 4)
                  throw UsageError("--resolution needs nA, nB >= 4 and nphi >= 1, got '" + v + "'");
                options.nA = static_cast<int>(n[0]), options.nB = static_cast<int>(n[1]);
                options.nPhi = static_cast<int>(n[2]);
              })
      .option("--tolerance", "T", "Newton tolerance on the residual weighted to logical units (default 1e-12)",
              [&](const std::string &v) {
                options.newton.tolerance = parseNumber("--tolerance", v);
                if (!(options.newton.tolerance > 0))
                  throw UsageError("--tolerance must be positive");
              })
      .option("--preconditioner", "NAME",
              "GMRES preconditioner: fourier-mode-fd (default), none, diagonal-jvp,\n"
              "dense-laplacian-shift, modal-laplacian-shift, mapped-fd-laplacian-shift,\n"
              "mapped-fd-multigrid",
              [&](const std::string &v) {
                try {
                  options.newton.preconditioner = elliptic::parsePreconditioner(v);
                } catch (const std::invalid_argument &e) {
                  throw UsageError(e.what());
                }
              })
      .group("output")
      .option("--probe", "x,y,z", "print U and psi at this point (repeatable)",
              [&](const std::string &v) { probes.push_back(vec3("--probe", v)); })
      .flag("--json", "results as JSON", [&] { asJson = true; })
      .flag("--quiet", "no progress on standard error", [&] { quiet = true; })
      .flag("--memory-estimate", "print the estimated peak memory of the solve and exit",
            [&] { memoryEstimateOnly = true; })
      .renamed("--npoints", "--resolution")
      .notes("Units: G = c = 1 (docs/conventions.md); b is the half-separation, m1, m2 the bare masses.\n"
             "Progress goes to standard error, results to standard output.\n"
             "Exit status: 0 solved, 1 solver failure, 2 bad arguments or not enough memory.");
  try {
    if (!cli.parse(argc, argv, std::cout))
      return 0;
    if (!(params.b > 0))
      throw UsageError("--b must be positive (the punctures sit at x = +b and x = -b)");
    if (!(params.m1 > 0) || !(params.m2 > 0))
      throw UsageError("bare masses --m1 and --m2 must be positive");
  } catch (const UsageError &e) {
    return cli.usageError(e.what(), std::cerr);
  }
  const double estimate = physics::twoPunctureMemoryEstimate(options);
  if (memoryEstimateOnly) {
    std::printf("estimated peak memory: %s (%.0f bytes)\n", humanBytes(estimate).c_str(), estimate);
    return 0;
  }
  try {
    runtime::requireMemory("a solve at --resolution " + std::to_string(options.nA) + "," + std::to_string(options.nB) + "," +
                               std::to_string(options.nPhi),
                           estimate);
  } catch (const runtime::InsufficientMemory &e) {
    std::cerr << "tensorium-two-punctures: error: " << e.what() << "\n";
    return 2;
  }

  if (!quiet)
    options.newton.progress = &std::cerr;
  const tensorium_spectral_residual_kernel_desc *kernel = &tensorium_spectral_residual_kernels[0];
  auto start = std::chrono::steady_clock::now();
  int bareIterations = 0;
  try {
    if (targetsGiven) {
      physics::BareMassSearch search = physics::findBareMasses(kernel, params, targets, options, 1e-10);
      if (!search.converged) {
        std::cerr << "tensorium-two-punctures: error: " << search.message << "\n";
        return 1;
      }
      params = search.parameters;
      bareIterations = search.iterations;
    }
    physics::TwoPunctureSolution s = physics::solveTwoPunctures(kernel, params, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const elliptic::SpectralNewtonResult &r = s.result();
    if (!r.converged()) {
      std::cerr << "tensorium-two-punctures: error: solve did not converge (" << elliptic::newtonStatusName(r.status)
                << "): " << r.message << "\n";
      return 1;
    }
    const std::array<double, 2> masses = s.punctureAdmMasses();
    const std::array<double, 2> raw = s.rawResidualNorms();
    // ADM momenta: Bowen-York closed forms, cross-checked by the surface integrals at R = 1000
    // (the physical K_ij = psi^-2 Ahat_ij; they approach the closed forms as O(M / R)).
    const physics::AdmMomenta momenta = physics::bowenYorkAdmMomenta(params);
    const physics::AdmMomenta surface = physics::surfaceAdmMomenta(s, 1000.0);
    auto vec = [](const std::array<double, 3> &v) {
      return "[" + json(v[0]) + ", " + json(v[1]) + ", " + json(v[2]) + "]";
    };
    if (asJson) {
      std::cout << "{\"adm_linear_momentum\": " << vec(momenta.P) << ", \"adm_angular_momentum\": " << vec(momenta.J)
                << ", \"surface_linear_momentum_r1000\": " << vec(surface.P)
                << ", \"surface_angular_momentum_r1000\": " << vec(surface.J) << ", ";
      std::cout << "\"b\": " << json(params.b) << ", \"m1\": " << json(params.m1) << ", \"m2\": " << json(params.m2)
                << ", \"npoints\": [" << options.nA << ", " << options.nB << ", " << options.nPhi << "]"
                << ", \"adm_mass\": " << json(s.admMass()) << ", \"puncture_adm_masses\": [" << json(masses[0]) << ", "
                << json(masses[1]) << "], \"residual_rms\": " << json(r.residualNorm)
                << ", \"raw_residual_rms\": " << json(raw[0]) << ", \"raw_residual_max\": " << json(raw[1])
                << ", \"newton_iterations\": " << r.iterations << ", \"krylov_iterations\": " << r.krylovIterations
                << ", \"no_iterations_needed\": " << (r.iterations == 0 ? "true" : "false")
                << ", \"bare_mass_iterations\": " << bareIterations << ", \"seconds\": " << json(seconds)
                << ", \"probes\": [";
      for (size_t i = 0; i < probes.size(); ++i)
        std::cout << (i ? ", " : "") << "{\"x\": [" << json(probes[i][0]) << ", " << json(probes[i][1]) << ", "
                  << json(probes[i][2]) << "], \"U\": " << json(s.U(probes[i])) << ", \"psi\": " << json(s.psi(probes[i]))
                  << "}";
      std::cout << "]}\n";
    } else {
      std::printf("two punctures: b = %.10g, bare masses m1 = %.15g, m2 = %.15g\n", params.b, params.m1, params.m2);
      std::printf("grid: %d x %d Chebyshev-Gauss (A, B) x %d Fourier (phi) = %zu unknowns\n", options.nA, options.nB,
                  options.nPhi, s.grid().size());
      if (targetsGiven) {
        // Judged relative to each target mass; a start that already meets them says so.
        const double e1 = std::abs(masses[0] - targets[0]) / targets[0], e2 = std::abs(masses[1] - targets[1]) / targets[1];
        if (bareIterations == 0)
          std::printf("bare-mass search: no iterations needed: the given bare masses already give the targets "
                      "(relative errors %.1e, %.1e)\n", e1, e2);
        else
          std::printf("bare-mass search: %d iterations, puncture ADM masses within %.1e, %.1e of the targets "
                      "(relative; tolerance 1e-10)\n", bareIterations, e1, e2);
      }
      if (r.iterations == 0)
        std::printf("solve: no iterations needed: the initial guess already meets the tolerance %.3g (weighted "
                    "residual %.3e), %.3f s\n",
                    options.newton.tolerance, r.residualNorm, seconds);
      else
        std::printf("solve: %d Newton, %d Krylov iterations, %.3f s\n", r.iterations, r.krylovIterations, seconds);
      std::printf("residual: weighted RMS %.3e; unweighted RMS %.3e, max %.3e\n", r.residualNorm, raw[0], raw[1]);
      std::printf("ADM mass: %.15f\n", s.admMass());
      std::printf("puncture ADM masses: M1 = %.15f, M2 = %.15f\n", masses[0], masses[1]);
      std::printf("ADM linear momentum: (%.15g, %.15g, %.15g); surface integral at R = 1000: (%.6g, %.6g, %.6g)\n",
                  momenta.P[0], momenta.P[1], momenta.P[2], surface.P[0], surface.P[1], surface.P[2]);
      std::printf("ADM angular momentum: (%.15g, %.15g, %.15g); surface integral at R = 1000: (%.6g, %.6g, %.6g)\n",
                  momenta.J[0], momenta.J[1], momenta.J[2], surface.J[0], surface.J[1], surface.J[2]);
      for (const auto &x : probes)
        std::printf("probe (%g, %g, %g): U = %.15e, psi = %.15e\n", x[0], x[1], x[2], s.U(x), s.psi(x));
    }
  } catch (const std::invalid_argument &e) {
    std::cerr << "tensorium-two-punctures: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
