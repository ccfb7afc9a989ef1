// tensorium-two-punctures: solves the puncture equation for two Bowen-York punctures on the
// compact (A, B, phi) domain and reports the ADM masses, residual norms and probe values.
#include "two_puncture_cli_kernels.h"
#include "cli_numbers.h"

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

const char *kUsage =
    "usage: tensorium-two-punctures [--b B] [--m1 M] [--m2 M] [--p1 x,y,z] [--p2 x,y,z]\n"
    "                               [--s1 x,y,z] [--s2 x,y,z] [--npoints nA,nB,nphi]\n"
    "                               [--tolerance T] [--probe x,y,z]... [--target-masses M1,M2]\n"
    "                               [--preconditioner NAME] [--json] [--quiet] [--memory-estimate]\n"
    "Units: G = c = 1 (docs/conventions.md); b is the half-separation, m1, m2 the bare masses.\n"
    "Punctures sit at (+b, 0, 0) (puncture 1) and (-b, 0, 0) (puncture 2); p and s are the\n"
    "Bowen-York momentum and spin of each. Defaults: b = 1, m1 = m2 = 0.5, no momentum or spin,\n"
    "npoints 24,24,12, tolerance 1e-12 on the residual weighted to logical units.\n"
    "--preconditioner picks the GMRES preconditioner (default fourier-mode-fd; also none,\n"
    "diagonal-jvp, dense-laplacian-shift, modal-laplacian-shift, mapped-fd-laplacian-shift,\n"
    "mapped-fd-multigrid).\n"
    "--target-masses searches bare masses whose per-puncture ADM masses match to 1e-10 relative.\n"
    "Progress goes to stderr (--quiet silences it); results to stdout. Exit status: 0 solved,\n"
    "1 solver failure, 2 bad arguments.\n";

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
  try {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::cout << kUsage;
        return 0;
      }
      if (arg == "--json") {
        asJson = true;
        continue;
      }
      if (arg == "--quiet") {
        quiet = true;
        continue;
      }
      if (arg == "--memory-estimate") {
        memoryEstimateOnly = true;
        continue;
      }
      if (i + 1 >= argc)
        throw UsageError("unknown option or missing value: '" + arg + "'");
      std::string value = argv[++i];
      if (arg == "--b")
        params.b = parseNumber(arg, value);
      else if (arg == "--m1")
        params.m1 = parseNumber(arg, value);
      else if (arg == "--m2")
        params.m2 = parseNumber(arg, value);
      else if (arg == "--p1")
        params.P1 = vec3(arg, value);
      else if (arg == "--p2")
        params.P2 = vec3(arg, value);
      else if (arg == "--s1")
        params.S1 = vec3(arg, value);
      else if (arg == "--s2")
        params.S2 = vec3(arg, value);
      else if (arg == "--preconditioner") {
        try {
          options.newton.preconditioner = elliptic::parsePreconditioner(value);
        } catch (const std::invalid_argument &e) {
          throw UsageError(e.what());
        }
      } else if (arg == "--probe")
        probes.push_back(vec3(arg, value));
      else if (arg == "--tolerance") {
        options.newton.tolerance = parseNumber(arg, value);
        if (!(options.newton.tolerance > 0))
          throw UsageError("--tolerance must be positive");
      } else if (arg == "--npoints") {
        // The range only keeps products in double range; memory decides what runs.
        std::vector<long> n = parseIntegers(arg, value, 1, 1000000, 3, 3);
        if (n[0] < 4 || n[1] < 4)
          throw UsageError("--npoints needs nA, nB >= 4 and nphi >= 1, got '" + value + "'");
        options.nA = static_cast<int>(n[0]);
        options.nB = static_cast<int>(n[1]);
        options.nPhi = static_cast<int>(n[2]);
      } else if (arg == "--target-masses") {
        std::vector<double> t = parseNumbers(arg, value, 2);
        if (!(t[0] > 0) || !(t[1] > 0))
          throw UsageError("--target-masses must be positive");
        targets = {t[0], t[1]};
        targetsGiven = true;
      } else {
        throw UsageError("unknown option '" + arg + "'");
      }
    }
    if (!(params.b > 0))
      throw UsageError("--b must be positive (the punctures sit at x = +b and x = -b)");
    if (!(params.m1 > 0) || !(params.m2 > 0))
      throw UsageError("bare masses --m1 and --m2 must be positive");
  } catch (const UsageError &e) {
    std::cerr << "tensorium-two-punctures: error: " << e.what() << "\n" << kUsage;
    return 2;
  }
  const double estimate = physics::twoPunctureMemoryEstimate(options);
  if (memoryEstimateOnly) {
    std::printf("estimated peak memory: %.0f bytes\n", estimate);
    return 0;
  }
  try {
    runtime::requireMemory("a solve at --npoints " + std::to_string(options.nA) + "," + std::to_string(options.nB) + "," +
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
