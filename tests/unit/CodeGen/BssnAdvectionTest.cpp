// The BSSN right-hand side of fixtures/gr/bssn_evolution_3d.tn with lopsided advection against
// the same fixture's centred kernel: both are fourth-order approximations of one operator, so on
// smooth data with a shift that changes sign their difference falls about 16x when h halves;
// without a shift nothing is advected and the two agree to round-off.
#include "tensorium_mlir/Runtime/HostStorage.h"
#include "advection_bssn_centred.h"
#include "advection_bssn_lopsided.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace tensorium_mlir::runtime;

namespace {

struct Module {
  GeneratedHostTables tables;
  std::span<const tensorium_host_kernel_adapter> adapters;
};

const Module kCentred{{centred_tensorium_host_kernels, CENTRED_TENSORIUM_HOST_KERNEL_COUNT,
                       centred_tensorium_host_buffers, CENTRED_TENSORIUM_HOST_BUFFER_COUNT,
                       centred_tensorium_param_names, CENTRED_TENSORIUM_PARAM_COUNT, CENTRED_TENSORIUM_DIMENSION},
                      {centred_tensorium_host_kernel_adapters, CENTRED_TENSORIUM_HOST_KERNEL_ADAPTER_COUNT}};
const Module kLopsided{{lopsided_tensorium_host_kernels, LOPSIDED_TENSORIUM_HOST_KERNEL_COUNT,
                        lopsided_tensorium_host_buffers, LOPSIDED_TENSORIUM_HOST_BUFFER_COUNT,
                        lopsided_tensorium_param_names, LOPSIDED_TENSORIUM_PARAM_COUNT, LOPSIDED_TENSORIUM_DIMENSION},
                       {lopsided_tensorium_host_kernel_adapters, LOPSIDED_TENSORIUM_HOST_KERNEL_ADAPTER_COUNT}};

/// A smooth state on [0, 1]^3: fields near flat space, each component its own smooth function;
/// the shift (amplitude `shift`) changes sign inside the cube on every axis.
double value(const std::string &name, size_t c, double x, double y, double z, double shift) {
  const double phase = static_cast<double>(c) + (name.size() % 5);
  const double wave = std::sin(2.1 * x + 1.3 * y - 0.7 * z + phase) * std::cos(1.1 * z + 0.5 * phase);
  if (name == "beta")
    return shift * (c == 0 ? std::sin(3 * y + 2 * z - 1.5) : c == 1 ? std::cos(2.5 * x) * (z - 0.45) : x - 0.55 + 0.2 * wave);
  const bool diagonal = (name == "gammatilde" || name == "gammatildeU") && (c == 0 || c == 4 || c == 8);
  const bool unit = name == "chi" || name == "alpha" || diagonal;
  return (unit ? 1.0 : 0.0) + 0.05 * wave;
}

/// eta, 1+log, Gamma-driver, KO sigma, advected Gamma-driver.
constexpr double kParams[5] = {2.0, 1.0, 0.75, 0.1, 1.0};

/// max |rhs_lopsided - rhs_centred| over points 3 or more from the faces, every derivative field;
/// `centredParams` (default: the same as the lopsided kernel's) lets a twin run another operator.
double largestDifference(int n, double shift, const double *centredParams = kParams) {
  const double h = 1.0 / (n - 1);
  GeneratedHostStorage centred(kCentred.tables, {n, n, n}), lopsided(kLopsided.tables, {n, n, n});
  const size_t N = static_cast<size_t>(n) * n * n;
  for (GeneratedHostStorage *s : {&centred, &lopsided})
    for (const auto &b : s->buffers()) {
      std::span<double> v = s->buffer(b.name);
      for (size_t q = 0; q < v.size(); ++q) {
        const size_t c = q / N, p = q % N;
        const double x = static_cast<double>(p / (N / n)) * h, y = static_cast<double>((p / n) % n) * h,
                     z = static_cast<double>(p % n) * h;
        v[q] = value(b.name, c, x, y, z, shift);
      }
    }
  centred.invoke(kCentred.adapters, "tensorium_rhs_grid_parallel", {centredParams, 5}, {h, h, h});
  lopsided.invoke(kLopsided.adapters, "tensorium_rhs_grid_parallel", kParams, {h, h, h});
  double largest = 0;
  for (const char *rhs : {"dchi", "dgammatilde", "dK", "dAtilde", "dGammatilde", "dalpha", "dbeta", "dB"}) {
    const std::span<const double> a = std::as_const(centred).buffer(rhs), b = std::as_const(lopsided).buffer(rhs);
    for (size_t q = 0; q < a.size(); ++q) {
      const size_t p = q % N;
      const int i = static_cast<int>(p / (N / n)), j = static_cast<int>((p / n) % n), l = static_cast<int>(p % n);
      if (std::min({i, j, l}) < 3 || std::max({i, j, l}) > n - 4)
        continue;
      largest = std::max(largest, std::abs(a[q] - b[q]));
    }
  }
  return largest;
}

} // namespace

TEST(BssnAdvection, LopsidedAgreesWithCentredAtFourthOrder) {
  const double coarse = largestDifference(25, 0.4), fine = largestDifference(49, 0.4);
  std::printf("max |lopsided - centred|: %.3e (n = 25), %.3e (n = 49), order %.2f\n", coarse, fine,
              std::log2(coarse / fine));
  EXPECT_GT(coarse, 1e-7); // the stencils differ
  EXPECT_GT(std::log2(coarse / fine), 3.5);
}

TEST(BssnAdvection, OrderVerdictRejectsAnotherOperator) {
  // The broken twin: the centred kernel without the advection terms of the Gamma-driver
  // (shift_advect = 0) is a different operator, so the difference stops falling with h.
  const double twin[5] = {2.0, 1.0, 0.75, 0.1, 0.0};
  const double coarse = largestDifference(25, 0.4, twin), fine = largestDifference(49, 0.4, twin);
  std::printf("twin: %.3e (n = 25), %.3e (n = 49), order %.2f\n", coarse, fine, std::log2(coarse / fine));
  EXPECT_LT(std::log2(coarse / fine), 3.5);
}

TEST(BssnAdvection, WithoutShiftBothKernelsAgree) {
  EXPECT_LT(largestDifference(21, 0.0), 1e-12);
}
