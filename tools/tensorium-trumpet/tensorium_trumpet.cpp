// tensorium-trumpet: compares radial profiles of evolved single-puncture slices (tensorium-evolve
// --profile) with the stationary 1+log trumpet, as functions of areal radius.
#include "command_line.h"

#include "tensorium_mlir/Physics/TrumpetSlice.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using namespace tensorium_cli;

namespace {

std::vector<std::string> cellsOf(const std::string &line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');)
    cells.push_back(cell);
  return cells;
}

/// The areal_radius, alpha and K columns of a profile table.
std::vector<physics::SliceSample> readProfile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw UsageError("cannot read profile '" + path + "'");
  std::string line;
  if (!std::getline(in, line))
    throw UsageError("profile '" + path + "' is empty");
  const std::vector<std::string> header = cellsOf(line);
  auto column = [&](const std::string &name) {
    for (size_t c = 0; c < header.size(); ++c)
      if (header[c] == name)
        return c;
    throw UsageError("profile '" + path + "' has no column '" + name + "' (written by tensorium-evolve --profile?)");
  };
  const size_t radius = column("areal_radius"), lapse = column("alpha"), curvature = column("K");
  std::vector<physics::SliceSample> samples;
  for (int row = 2; std::getline(in, line); ++row) {
    std::vector<double> values;
    for (const std::string &cell : cellsOf(line)) {
      try {
        values.push_back(parseNumber("a value", cell));
      } catch (const UsageError &) {
        throw UsageError(path + ":" + std::to_string(row) + ": not a number: '" + cell + "'");
      }
    }
    if (values.size() != header.size())
      throw UsageError(path + ":" + std::to_string(row) + ": " + std::to_string(values.size()) + " values, the header names " +
                       std::to_string(header.size()));
    samples.push_back({values[radius], values[lapse], values[curvature]});
  }
  return samples;
}

} // namespace

int main(int argc, char **argv) {
  double mass = 1, from = 2, to = 8;
  std::vector<std::string> profiles;
  CommandLine cli("tensorium-trumpet", "PROFILE.csv [PROFILE.csv ...]");
  cli.group("the stationary 1+log trumpet (d_t alpha = beta^k d_k alpha - 2 alpha K) of Schwarzschild")
      .option("--mass", "M", "the black hole's mass (default 1)", [&](const std::string &v) { mass = parseNumber("--mass", v); })
      .option("--from", "R", "smallest areal radius compared, in units of M (default 2)",
              [&](const std::string &v) { from = parseNumber("--from", v); })
      .option("--to", "R", "largest areal radius compared, in units of M (default 8)",
              [&](const std::string &v) { to = parseNumber("--to", v); })
      .operands("PROFILE.csv", [&](const std::string &v) { profiles.push_back(v); }, 1, 64)
      .notes("Profiles are tensorium-evolve --profile tables (columns areal_radius, alpha, K), e.g. of runs at\n"
             "several resolutions, coarsest first: each row after the first prints how much the difference\n"
             "fell. Exit status: 0 compared, 1 a profile that cannot be compared, 2 bad arguments.");
  std::vector<std::vector<physics::SliceSample>> tables;
  try {
    if (!cli.parse(argc, argv, std::cout))
      return 0;
    if (!(mass > 0))
      throw UsageError("--mass must be positive");
    if (!(from < to) || !(from > 0))
      throw UsageError("--from and --to need 0 < from < to");
    for (const std::string &p : profiles)
      tables.push_back(readProfile(p));
  } catch (const UsageError &e) {
    return cli.usageError(e.what(), std::cerr);
  }
  try {
    const physics::TrumpetSlice trumpet(mass, std::max(20.0, 1.5 * to) * mass);
    std::printf("1+log trumpet of M = %g: critical point R_c = %.6f M (alpha %.6f), throat R_0 = %.6f M\n", mass,
                trumpet.criticalRadius() / mass, trumpet.criticalLapse(), trumpet.throatRadius() / mass);
    std::printf("compared over %g M <= R <= %g M\n", from, to);
    std::printf("%-40s %7s %11s %11s %9s %11s %11s %9s %9s\n", "profile", "samples", "max|dalpha|", "rms|dalpha|",
                "at R/M", "max|dK|", "rms|dK|", "fell (a)", "fell (K)");
    physics::TrumpetDifference previous;
    for (size_t p = 0; p < profiles.size(); ++p) {
      const physics::TrumpetDifference d = physics::compareWithTrumpet(trumpet, tables[p], from * mass, to * mass);
      char fellLapse[32] = "", fellCurvature[32] = "";
      if (p > 0) {
        std::snprintf(fellLapse, sizeof fellLapse, "%.2fx", previous.maxLapse / d.maxLapse);
        std::snprintf(fellCurvature, sizeof fellCurvature, "%.2fx", previous.maxMeanCurvature / d.maxMeanCurvature);
      }
      std::printf("%-40s %7d %11.3e %11.3e %9.3f %11.3e %11.3e %9s %9s\n", profiles[p].c_str(), d.samples, d.maxLapse,
                  d.rmsLapse, d.worstLapseRadius / mass, d.maxMeanCurvature, d.rmsMeanCurvature, fellLapse,
                  fellCurvature);
      previous = d;
    }
  } catch (const physics::TrumpetError &e) {
    std::fprintf(stderr, "tensorium-trumpet: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
