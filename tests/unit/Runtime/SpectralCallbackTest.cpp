// The generated spectral callback tables (fixtures/codegen/spectral_nonlinear_3d.tn) against
// direct calls of the generated point, JVP and grid kernels.
#include "TensoriumSpectralCallbackTests_kernels.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {
struct Sample {
  double u[10], w[10], du[10], dw[10], x[3], params[2] = {0.4, -1.1};
};

Sample randomSample(std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> value(0.5, 1.5), slope(-1.0, 1.0);
  Sample s;
  for (int i = 0; i < 10; ++i) {
    s.u[i] = i == 0 ? value(rng) : slope(rng);
    s.w[i] = i == 0 ? value(rng) : slope(rng);
    s.du[i] = slope(rng);
    s.dw[i] = slope(rng);
  }
  for (double &c : s.x)
    c = slope(rng);
  return s;
}

tensorium_spectral_residual_point pointOf(const double *primary, const double *aux, const double *x) {
  tensorium_spectral_residual_point p{};
  p.value = primary[0];
  for (int a = 0; a < 3; ++a)
    p.d[a] = primary[1 + a];
  for (int a = 0; a < 6; ++a)
    p.dd[a] = primary[4 + a];
  for (int a = 0; a < 3; ++a)
    p.physical[a] = x[a];
  p.aux_count = 1;
  p.aux_values = aux;
  p.aux_derivatives = aux;
  return p;
}
} // namespace

TEST(SpectralCallbacks, TablesDescribeTheResidualAndItsSystem) {
  ASSERT_EQ(TENSORIUM_SPECTRAL_RESIDUAL_KERNEL_COUNT, 1);
  const tensorium_spectral_residual_kernel_desc &k = tensorium_spectral_residual_kernels[0];
  EXPECT_STREQ(k.residual_name, "F");
  EXPECT_STREQ(k.symbol_name, "tensorium_spectral_residual_F");
  EXPECT_STREQ(k.jvp_symbol_name, "tensorium_spectral_residual_jvp_F");
  ASSERT_EQ(k.field_count, 2);
  EXPECT_STREQ(k.field_names[0], "u"); // first differentiated field: the primary unknown
  EXPECT_STREQ(k.field_names[1], "w");
  ASSERT_EQ(TENSORIUM_SPECTRAL_RESIDUAL_SYSTEM_COUNT, 1);
  const tensorium_spectral_residual_system_desc &sys = tensorium_spectral_residual_systems[0];
  EXPECT_STREQ(sys.block_name, "Nonlinear");
  ASSERT_EQ(sys.unknown_count, 1);
  EXPECT_STREQ(sys.unknown_names[0], "u");
  ASSERT_EQ(sys.aux_offset[1] - sys.aux_offset[0], 1);
  EXPECT_STREQ(sys.aux_field_names[0], "w");
  EXPECT_EQ(sys.aux_unknown_index[0], -1); // w is a static auxiliary here
}

TEST(SpectralCallbacks, PointAndJvpCallbacksMatchDirectCalls) {
  std::mt19937_64 rng(17);
  const tensorium_spectral_residual_kernel_desc &k = tensorium_spectral_residual_kernels[0];
  for (int trial = 0; trial < 10; ++trial) {
    Sample s = randomSample(rng);
    tensorium_spectral_residual_point p = pointOf(s.u, s.w, s.x), d = pointOf(s.du, s.dw, s.x);
    double direct = tensorium_spectral_residual_F(
        s.u[0], s.u[1], s.u[2], s.u[3], s.u[4], s.u[5], s.u[6], s.u[7], s.u[8], s.u[9], s.w[0], s.w[1], s.w[2], s.w[3],
        s.w[4], s.w[5], s.w[6], s.w[7], s.w[8], s.w[9], s.x[0], s.x[1], s.x[2], s.params[0], s.params[1]);
    EXPECT_EQ(k.evaluate(&p, s.params, nullptr), direct);
    double jvp = tensorium_spectral_residual_jvp_F(
        s.u[0], s.u[1], s.u[2], s.u[3], s.u[4], s.u[5], s.u[6], s.u[7], s.u[8], s.u[9], s.w[0], s.w[1], s.w[2], s.w[3],
        s.w[4], s.w[5], s.w[6], s.w[7], s.w[8], s.w[9], s.du[0], s.du[1], s.du[2], s.du[3], s.du[4], s.du[5], s.du[6],
        s.du[7], s.du[8], s.du[9], s.dw[0], s.dw[1], s.dw[2], s.dw[3], s.dw[4], s.dw[5], s.dw[6], s.dw[7], s.dw[8],
        s.dw[9], s.x[0], s.x[1], s.x[2], s.params[0], s.params[1]);
    ASSERT_NE(k.evaluate_jvp, nullptr);
    EXPECT_EQ(k.evaluate_jvp(&p, &d, s.params, nullptr), jvp);
  }
}

TEST(SpectralCallbacks, GridCallbackMatchesPointCallback) {
  const int64_t n = 23;
  std::mt19937_64 rng(23);
  std::vector<Sample> samples;
  for (int64_t i = 0; i < n; ++i)
    samples.push_back(randomSample(rng));
  std::vector<std::vector<double>> slots(20, std::vector<double>(n)), coords(3, std::vector<double>(n));
  for (int64_t i = 0; i < n; ++i) {
    for (int s = 0; s < 10; ++s) {
      slots[s][i] = samples[i].u[s];
      slots[10 + s][i] = samples[i].w[s];
    }
    for (int a = 0; a < 3; ++a)
      coords[a][i] = samples[i].x[a];
  }
  tensorium_spectral_residual_derivative_fields fields[2];
  for (int f = 0; f < 2; ++f)
    for (int s = 0; s < 10; ++s)
      fields[f].slot[s] = slots[f * 10 + s].data();
  const double *coordinates[3] = {coords[0].data(), coords[1].data(), coords[2].data()};
  std::vector<double> out(n, 0.0);
  const double params[2] = {0.4, -1.1};
  tensorium_spectral_residual_grid_kernels[0].evaluate(n, params, fields, coordinates, out.data());
  for (int64_t i = 0; i < n; ++i) {
    tensorium_spectral_residual_point p = pointOf(samples[i].u, samples[i].w, samples[i].x);
    EXPECT_EQ(out[i], tensorium_spectral_residual_kernels[0].evaluate(&p, params, nullptr));
  }
}
