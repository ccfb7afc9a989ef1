// The C handoff interface against the C++ handoff: the C99 program tests/c/handoff_c_test.c
// (built with -std=c99 -Wall -Wextra -Werror) solves punctures and evaluates the fields at
// 1,000 points through tensorium_handoff.h; the same solve and TwoPunctureHandoff here must
// give the same values bit for bit.
#include "handoff_two_puncture_kernels.h"

#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"
#include "tensorium_mlir/Physics/TwoPunctures.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace tensorium_mlir;

namespace {

std::vector<double> readDoubles(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<double> out(bytes.size() / sizeof(double));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(double));
  return out;
}

} // namespace

TEST(HandoffCApi, CProgramMatchesTheCppHandoffBitwise) {
  std::string dir = (std::filesystem::temp_directory_path() / "tensorium-handoff-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const std::string command = std::string(TENSORIUM_HANDOFF_C_TEST) + " " + dir + " > " + dir + "/log.txt 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream log(dir + "/log.txt");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  ASSERT_EQ(status, 0) << text;
  EXPECT_NE(text.find("PASS"), std::string::npos) << text;
  EXPECT_NE(text.find("error path load a corrupted file"), std::string::npos) << text;

  const size_t n = 1000;
  const std::vector<double> points = readDoubles(dir + "/points.bin"), cBssn = readDoubles(dir + "/bssn.bin"),
                            cAdm = readDoubles(dir + "/adm.bin");
  ASSERT_EQ(points.size(), 3 * n);
  ASSERT_EQ(cBssn.size(), 27 * n);
  ASSERT_EQ(cAdm.size(), 17 * n);

  // The same data through the C++ interfaces.
  physics::TwoPunctureParameters p;
  p.P1 = {0.0, 0.2, 0.0};
  p.P2 = {0.0, -0.2, 0.0};
  p.S1 = {0.0, 0.0, 0.1};
  physics::TwoPunctureOptions o;
  o.nA = o.nB = 16;
  o.nPhi = 8;
  o.newton.tolerance = 1e-12;
  const physics::TwoPunctureSolution solution = physics::solveTwoPunctures(&handoff_tensorium_spectral_residual_kernels[0], p, o);
  ASSERT_TRUE(solution.result().converged());
  const physics::TwoPunctureHandoff handoff(solution);
  std::vector<double> bssn(27 * n);
  physics::BSSNFieldBuffers b;
  double *s = bssn.data();
  b.chi = {s, n};
  b.gammatilde = {s + 1 * n, 6 * n};
  b.K = {s + 7 * n, n};
  b.Atilde = {s + 8 * n, 6 * n};
  b.Gammatilde = {s + 14 * n, 3 * n};
  b.alpha = {s + 17 * n, n};
  b.beta = {s + 18 * n, 3 * n};
  b.B = {s + 21 * n, 3 * n};
  b.phi = {s + 24 * n, n};
  b.W = {s + 25 * n, n};
  handoff.write({points.data(), n}, {points.data() + n, n}, {points.data() + 2 * n, n}, b);
  // 25 of 27 rows are used (the last two are the C program's spare space, zero on both sides).
  EXPECT_EQ(std::memcmp(bssn.data(), cBssn.data(), 26 * n * sizeof(double)), 0);

  // ADM: psi from the C++ evaluation, bitwise; gamma_ij = psi^4 delta_ij, K_ij = psi^-2 Ahat_ij.
  for (size_t q = 0; q < n; ++q) {
    const physics::PunctureFieldValues v = handoff.evaluate({points[q], points[n + q], points[2 * n + q]});
    EXPECT_EQ(cAdm[16 * n + q], v.psi) << "point " << q;
    const double psi2 = v.psi * v.psi;
    EXPECT_EQ(cAdm[0 * n + q], psi2 * psi2);
    EXPECT_EQ(cAdm[1 * n + q], 0.0);
    EXPECT_EQ(cAdm[6 * n + q], v.Ahat[0] / (v.psi * v.psi));
    EXPECT_EQ(cAdm[12 * n + q], 1.0 / (v.psi * v.psi)); // pre-collapsed lapse, the default
  }
  std::filesystem::remove_all(dir);
}
