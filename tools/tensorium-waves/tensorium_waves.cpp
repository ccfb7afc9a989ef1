// tensorium-waves: reads the Psi4 modes tensorium-evolve --waves wrote, and for one radius and
// mode writes the strain by fixed-frequency integration and fits the ringdown with a damped
// sinusoid, printed beside the fundamental quasinormal mode.
#include "command_line.h"

#include "tensorium_mlir/Waves/Ringdown.h"
#include "tensorium_mlir/Waves/Strain.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using namespace tensorium_cli;

namespace {

struct Series {
  std::vector<double> t;
  std::vector<std::complex<double>> psi4;
};

/// The (l, m) mode at radius R (the first radius in the file when R is not given).
Series readMode(const std::string &path, std::optional<double> &radius, int l, int m) {
  std::ifstream in(path);
  if (!in)
    throw UsageError("cannot read '" + path + "'");
  std::string line;
  if (!std::getline(in, line) || line != "time,step,radius,l,m,psi4_re,psi4_im")
    throw UsageError("'" + path + "' is not a tensorium-evolve --waves table (header time,step,radius,l,m,psi4_re,psi4_im)");
  Series s;
  std::map<double, std::complex<double>> byTime;
  for (int row = 2; std::getline(in, line); ++row) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');)
      cells.push_back(c);
    if (cells.size() != 7)
      throw UsageError(path + ":" + std::to_string(row) + ": " + std::to_string(cells.size()) + " values, the header names 7");
    double v[7];
    for (int i = 0; i < 7; ++i) {
      try {
        v[i] = parseNumber("a value", cells[static_cast<size_t>(i)]);
      } catch (const UsageError &) {
        throw UsageError(path + ":" + std::to_string(row) + ": not a number: '" + cells[static_cast<size_t>(i)] + "'");
      }
    }
    if (!radius)
      radius = v[2];
    if (v[2] != *radius || static_cast<int>(v[3]) != l || static_cast<int>(v[4]) != m)
      continue;
    byTime[v[0]] = {v[5], v[6]};
  }
  for (const auto &[t, p] : byTime)
    s.t.push_back(t), s.psi4.push_back(p);
  if (s.t.empty())
    throw UsageError("'" + path + "' has no (" + std::to_string(l) + ", " + std::to_string(m) + ") mode at radius " +
                     std::to_string(*radius));
  return s;
}

} // namespace

int main(int argc, char **argv) {
  std::string wavesPath, strainPath;
  std::optional<double> radius;
  int l = 2, m = 2;
  double omega0 = 0, mass = 1;
  std::optional<std::array<double, 2>> window;
  bool imaginary = false;
  CommandLine cli("tensorium-waves", "WAVES.csv [options]");
  cli.group("the mode")
      .option("--radius", "R", "the extraction radius (default: the table's first)",
              [&](const std::string &v) { radius = parseNumber("--radius", v); })
      .option("--mode", "L,M", "the (l, m) mode (default 2,2)",
              [&](const std::string &v) {
                const std::vector<long> lm = parseIntegers("--mode", v, -16, 16, 2, 2);
                l = static_cast<int>(lm[0]), m = static_cast<int>(lm[1]);
                if (l < 2 || std::abs(m) > l)
                  throw UsageError("--mode needs l >= 2 and |m| <= l, got '" + v + "'");
              })
      .group("strain")
      .option("--strain", "FILE.csv", "write R h = R (h_+ - i h_x) by fixed-frequency integration (needs --omega0)",
              [&](const std::string &v) { strainPath = v; })
      .option("--omega0", "W", "the integration's cut-off frequency, below the signal's lowest",
              [&](const std::string &v) { omega0 = parseNumber("--omega0", v); })
      .group("ringdown")
      .option("--ringdown", "T0,T1", "fit A e^{-gamma t} cos(omega t + phi) to the mode over T0 <= t <= T1",
              [&](const std::string &v) {
                const std::vector<double> w = parseNumbers("--ringdown", v, 2);
                if (!(w[0] < w[1]))
                  throw UsageError("--ringdown needs T0 < T1, got '" + v + "'");
                window = std::array<double, 2>{w[0], w[1]};
              })
      .option("--mass", "M", "the remnant's mass for the comparison (default 1)",
              [&](const std::string &v) { mass = parseNumber("--mass", v); })
      .flag("--imaginary", "fit the imaginary part (default the real part)", [&] { imaginary = true; })
      .operands("WAVES.csv", [&](const std::string &v) { wavesPath = v; }, 1, 1)
      .notes("WAVES.csv is a tensorium-evolve --waves table. The l = 2 fundamental quasinormal frequency of a\n"
             "Schwarzschild hole, M omega = 0.3737 - 0.0890 i (Leaver 1985), is printed beside the fit.\n"
             "Exit status: 0 done, 1 a fit that did not converge or an output not written, 2 bad arguments.");
  Series s;
  try {
    if (!cli.parse(argc, argv, std::cout))
      return 0;
    if (!strainPath.empty() && !(omega0 > 0))
      throw UsageError("--strain needs --omega0 W > 0");
    if (!(mass > 0))
      throw UsageError("--mass must be positive");
    if (strainPath.empty() && !window)
      throw UsageError("nothing to do: give --strain or --ringdown");
    s = readMode(wavesPath, radius, l, m);
  } catch (const UsageError &e) {
    return cli.usageError(e.what(), std::cerr);
  }
  std::printf("mode (%d, %d) at R = %g: %zu samples, t = %g to %g\n", l, m, *radius, s.t.size(), s.t.front(), s.t.back());
  int status = 0;
  if (!strainPath.empty()) {
    const double dt = s.t.size() > 1 ? s.t[1] - s.t[0] : 0;
    for (size_t k = 1; k < s.t.size(); ++k)
      if (std::abs(s.t[k] - s.t[k - 1] - dt) > 1e-9 * std::max(1.0, std::abs(s.t[k]))) {
        std::fprintf(stderr, "tensorium-waves: error: the samples are not equally spaced (t = %g, %g, %g)\n", s.t[k - 1],
                     s.t[k], s.t[k - 1] + dt);
        return 1;
      }
    const std::vector<std::complex<double>> h = waves::strainFromPsi4(s.psi4, dt, omega0);
    std::ofstream out(strainPath);
    out << "time,r_h_plus,r_h_cross\n";
    char line[128];
    for (size_t k = 0; k < h.size(); ++k) {
      std::snprintf(line, sizeof line, "%.17g,%.17g,%.17g\n", s.t[k], *radius * h[k].real(), -*radius * h[k].imag());
      out << line;
    }
    if (!out.flush()) {
      std::fprintf(stderr, "tensorium-waves: error: cannot write '%s'\n", strainPath.c_str());
      return 1;
    }
    std::printf("strain: %zu samples (dt = %g, omega0 = %g) in %s\n", h.size(), dt, omega0, strainPath.c_str());
  }
  if (window) {
    std::vector<double> t, y;
    for (size_t k = 0; k < s.t.size(); ++k)
      if (s.t[k] >= (*window)[0] && s.t[k] <= (*window)[1])
        t.push_back(s.t[k]), y.push_back(imaginary ? s.psi4[k].imag() : s.psi4[k].real());
    if (t.size() < 8) {
      std::fprintf(stderr, "tensorium-waves: error: %zu samples in the ringdown window, at least 8 needed\n", t.size());
      return 1;
    }
    const waves::DampedSinusoid f = waves::fitDampedSinusoid(t, y, 0.3737 / mass, 0.0890 / mass);
    std::printf("ringdown fit over t = %g to %g (%zu samples, %s part): M omega = %.4f, M gamma = %.4f, amplitude %.3e, "
                "rms residual %.2e%s\n",
                t.front(), t.back(), t.size(), imaginary ? "imaginary" : "real", mass * f.omega, mass * f.gamma, f.amplitude,
                f.rmsResidual, f.converged ? "" : (" (" + f.message + ")").c_str());
    std::printf("fundamental l = 2 quasinormal mode (Leaver 1985): M omega = 0.3737, M gamma = 0.0890; differences %.4f, %.4f\n",
                mass * f.omega - 0.3737, mass * f.gamma - 0.0890);
    if (!f.converged)
      status = 1;
  }
  return status;
}
