// Two-puncture solve timing: wall time, peak resident memory, Newton and Krylov counts of the
// equal-mass boosted configuration per resolution. Each solve runs in a child process so its
// peak memory is its own; prints a table.
//
//   build/bin/TensoriumTwoPunctureBenchmark [nA,nB,nphi ...]
#include "bench_two_puncture.h"

#include "tensorium_mlir/Physics/TwoPunctures.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tensorium_mlir;

namespace {

struct Result {
  double seconds = 0, residual = 0, adm = 0;
  int newton = 0, krylov = 0, converged = 0;
};

Result solveOnce(int nA, int nB, int nPhi, double tolerance) {
  physics::TwoPunctureParameters p;
  p.b = 1.0;
  p.m1 = p.m2 = 0.5;
  p.P1 = {0.0, 0.2, 0.0};
  p.P2 = {0.0, -0.2, 0.0};
  physics::TwoPunctureOptions o;
  o.nA = nA, o.nB = nB, o.nPhi = nPhi;
  o.newton.tolerance = tolerance;
  auto start = std::chrono::steady_clock::now();
  physics::TwoPunctureSolution s = physics::solveTwoPunctures(&tensorium_spectral_residual_kernels[0], p, o);
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.residual = s.result().residualNorm;
  r.newton = s.result().iterations;
  r.krylov = s.result().krylovIterations;
  r.converged = s.result().converged();
  r.adm = s.admMass();
  return r;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::array<int, 3>> sizes;
  for (int i = 1; i < argc; ++i) {
    std::array<int, 3> n{};
    if (std::sscanf(argv[i], "%d,%d,%d", &n[0], &n[1], &n[2]) != 3 || n[0] < 4 || n[1] < 4 || n[2] < 1) {
      std::fprintf(stderr, "usage: TensoriumTwoPunctureBenchmark [nA,nB,nphi ...]\n");
      return 2;
    }
    sizes.push_back(n);
  }
  if (sizes.empty())
    sizes = {{16, 16, 8}, {24, 24, 12}, {30, 30, 16}, {40, 40, 20}, {48, 48, 24}};
  std::printf("equal-mass boosted punctures: b = 1, m1 = m2 = 0.5, P1 = -P2 = (0, 0.2, 0); one child process per solve\n");
  std::printf("%12s %9s %10s %9s %7s %7s %11s %10s %10s %8s %18s\n", "npoints", "unknowns", "tolerance", "seconds",
              "newton", "krylov", "residual", "peak MB", "kB/unknown", "status", "M_ADM");
  for (const auto &n : sizes)
    for (double tolerance : {1e-10, 1e-12}) {
      int pipeFd[2];
      if (pipe(pipeFd) != 0)
        return 1;
      pid_t child = fork();
      if (child == 0) {
        close(pipeFd[0]);
        Result r = solveOnce(n[0], n[1], n[2], tolerance);
        ssize_t written = write(pipeFd[1], &r, sizeof r);
        _exit(written == static_cast<ssize_t>(sizeof r) ? 0 : 1);
      }
      close(pipeFd[1]);
      Result r;
      ssize_t got = read(pipeFd[0], &r, sizeof r);
      close(pipeFd[0]);
      int status = 0;
      struct rusage usage {};
      wait4(child, &status, 0, &usage);
      if (got != static_cast<ssize_t>(sizeof r) || status != 0) {
        std::fprintf(stderr, "solve at %d,%d,%d failed\n", n[0], n[1], n[2]);
        return 1;
      }
      const double unknowns = static_cast<double>(n[0]) * n[1] * n[2];
      const double peakMB = static_cast<double>(usage.ru_maxrss) / 1024.0;
      char label[32];
      std::snprintf(label, sizeof label, "%d,%d,%d", n[0], n[1], n[2]);
      std::printf("%12s %9.0f %10.0e %9.3f %7d %7d %11.3e %10.1f %10.2f %8s %18.15f\n", label, unknowns, tolerance,
                  r.seconds, r.newton, r.krylov, r.residual, peakMB, usage.ru_maxrss / unknowns,
                  r.converged ? "ok" : "FAILED", r.adm);
      std::fflush(stdout);
    }
  return 0;
}
