/* A C99 program using the handoff interface as an evolution code would: solve boosted and
 * spinning punctures, evaluate BSSN and ADM fields at 1,000 points, save and reload the solution
 * (the reloaded data must reproduce the values bit for bit), and go through every error path.
 * Usage: handoff_c_test OUTPUT_DIR. Writes OUTPUT_DIR/points.bin, bssn.bin and adm.bin for the
 * C++ side of the test (tests/unit/Handoff/HandoffCApiTest.cpp) to compare. */
/* symlink() for the loop of symbolic links below. */
#define _POSIX_C_SOURCE 200112L
#include "tensorium_handoff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 1000
#define BSSN_COMPONENTS 27 /* chi 1, gammatilde 6, K 1, Atilde 6, Gammatilde 3, alpha 1, beta 3, B 3, phi 1, W 1 */
#define ADM_COMPONENTS 17  /* gamma 6, K 6, alpha 1, beta 3, psi 1 */

static int failures = 0;

static void check(int condition, const char *what) {
  if (!condition) {
    fprintf(stderr, "FAIL: %s\n", what);
    ++failures;
  }
}

/* A call that must fail with `code` and say why. */
static void expect_error(int status, int code, const tensorium_handoff_error *error, const char *what) {
  if (status != code || error->code != code || error->message[0] == '\0') {
    fprintf(stderr, "FAIL: %s: status %d, expected %d, message '%s'\n", what, status, code, error->message);
    ++failures;
  } else {
    printf("error path %-40s -> %d: %s\n", what, status, error->message);
  }
}

static void bssn_buffers(double *storage, tensorium_handoff_bssn_buffers *b) {
  memset(b, 0, sizeof *b);
  b->struct_size = sizeof *b;
  b->chi = storage;
  b->gammatilde = storage + 1 * N;
  b->K = storage + 7 * N;
  b->Atilde = storage + 8 * N;
  b->Gammatilde = storage + 14 * N;
  b->alpha = storage + 17 * N;
  b->beta = storage + 18 * N;
  b->B = storage + 21 * N;
  b->phi = storage + 24 * N;
  b->W = storage + 25 * N;
}

static int write_file(const char *dir, const char *name, const void *data, size_t bytes) {
  char path[1024];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "wb");
  if (!f)
    return 0;
  if (fwrite(data, 1, bytes, f) != bytes) {
    fclose(f);
    return 0;
  }
  return fclose(f) == 0;
}

int main(int argc, char **argv) {
  static double x[N], y[N], z[N], bssn[BSSN_COMPONENTS * N], bssn_loaded[BSSN_COMPONENTS * N], adm[ADM_COMPONENTS * N];
  static double points[3 * N];
  tensorium_two_puncture_parameters params, bad;
  tensorium_handoff_options options;
  tensorium_handoff_error error;
  tensorium_handoff_solution *solution = NULL, *loaded = NULL, *none = NULL;
  tensorium_handoff_bssn_buffers buffers;
  tensorium_handoff_adm_buffers adm_buffers;
  char path[1024], bad_path[1024];
  double mass = 0.0, mass_loaded = 0.0;
  int i, status;
  FILE *f;

  if (argc != 2) {
    fprintf(stderr, "usage: handoff_c_test OUTPUT_DIR\n");
    return 2;
  }
  check(tensorium_handoff_api_version() == TENSORIUM_HANDOFF_API_VERSION, "API version");
  tensorium_handoff_error_init(&error);
  tensorium_handoff_options_init(&options);
  tensorium_two_puncture_parameters_init(&params);
  params.P1[1] = 0.2;
  params.P2[1] = -0.2;
  params.S1[2] = 0.1;
  params.npoints[0] = params.npoints[1] = 16;
  params.npoints[2] = 8;

  /* 1,000 points in [-4, 4]^3 with both punctures among them (the radius floor applies). */
  for (i = 0; i < N; ++i) {
    x[i] = -4.0 + 8.0 * (double)((i * 37) % 1000) / 1000.0;
    y[i] = -4.0 + 8.0 * (double)((i * 91 + 13) % 1000) / 1000.0;
    z[i] = -4.0 + 8.0 * (double)((i * 53 + 7) % 1000) / 1000.0;
  }
  x[0] = 1.0, y[0] = 0.0, z[0] = 0.0;
  x[1] = -1.0, y[1] = 0.0, z[1] = 0.0;
  for (i = 0; i < N; ++i) {
    points[i] = x[i];
    points[N + i] = y[i];
    points[2 * N + i] = z[i];
  }

  status = tensorium_handoff_solve_two_punctures(&params, &solution, &error);
  check(status == TENSORIUM_HANDOFF_OK && solution != NULL, error.message);
  if (!solution)
    return 1;
  check(tensorium_handoff_adm_mass(solution, &mass, &error) == TENSORIUM_HANDOFF_OK, "ADM mass");
  check(mass > 1.0 && mass < 1.1, "ADM mass of boosted, spinning punctures of bare mass 0.5 each");
  printf("ADM mass: %.15f\n", mass);

  bssn_buffers(bssn, &buffers);
  check(tensorium_handoff_evaluate_bssn(solution, &options, N, x, y, z, &buffers, &error) == TENSORIUM_HANDOFF_OK,
        error.message);
  memset(&adm_buffers, 0, sizeof adm_buffers);
  adm_buffers.struct_size = sizeof adm_buffers;
  adm_buffers.gamma = adm;
  adm_buffers.K = adm + 6 * N;
  adm_buffers.alpha = adm + 12 * N;
  adm_buffers.beta = adm + 13 * N;
  adm_buffers.psi = adm + 16 * N;
  check(tensorium_handoff_evaluate_adm(solution, &options, N, x, y, z, &adm_buffers, &error) == TENSORIUM_HANDOFF_OK,
        error.message);
  for (i = 0; i < N; ++i) {
    check(isfinite(bssn[i]) && bssn[i] >= 0.0, "chi finite and non-negative");
    /* chi = psi^-4 and gamma_xx = psi^4 from the two interfaces. */
    check(fabs(bssn[i] * adm[i] - 1.0) < 1e-12, "chi * gamma_xx = 1");
  }

  /* Save, reload: the same values bit for bit, and the same ADM mass. */
  snprintf(path, sizeof path, "%s/solution.tns", argv[1]);
  check(tensorium_handoff_save(solution, path, &error) == TENSORIUM_HANDOFF_OK, error.message);
  check(tensorium_handoff_load(path, &loaded, &error) == TENSORIUM_HANDOFF_OK && loaded != NULL, error.message);
  if (loaded) {
    bssn_buffers(bssn_loaded, &buffers);
    check(tensorium_handoff_evaluate_bssn(loaded, NULL, N, x, y, z, &buffers, &error) == TENSORIUM_HANDOFF_OK,
          error.message);
    check(memcmp(bssn, bssn_loaded, sizeof bssn) == 0, "reloaded solution reproduces the BSSN fields bitwise");
    check(tensorium_handoff_adm_mass(loaded, &mass_loaded, &error) == TENSORIUM_HANDOFF_OK && mass_loaded == mass,
          "reloaded ADM mass");
    bad = params;
    check(tensorium_handoff_parameters(loaded, &bad, &error) == TENSORIUM_HANDOFF_OK && bad.P1[1] == 0.2 &&
              bad.S1[2] == 0.1 && bad.npoints[0] == 16,
          "parameters of the reloaded solution");
  }

  check(write_file(argv[1], "points.bin", points, sizeof points), "write points.bin");
  check(write_file(argv[1], "bssn.bin", bssn, sizeof bssn), "write bssn.bin");
  check(write_file(argv[1], "adm.bin", adm, sizeof adm), "write adm.bin");

  /* Error paths: each returns its code and a message, and writes no handle. */
  expect_error(tensorium_handoff_solve_two_punctures(NULL, &none, &error), TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error,
               "solve without parameters");
  bad = params;
  bad.struct_size = 8;
  expect_error(tensorium_handoff_solve_two_punctures(&bad, &none, &error), TENSORIUM_HANDOFF_VERSION_MISMATCH, &error,
               "solve with a short struct_size");
  bad = params;
  bad.npoints[0] = 2;
  expect_error(tensorium_handoff_solve_two_punctures(&bad, &none, &error), TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error,
               "solve with npoints 2,16,8");
  bad = params;
  bad.m1 = -1.0;
  expect_error(tensorium_handoff_solve_two_punctures(&bad, &none, &error), TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error,
               "solve with a negative mass");
  bad = params;
  bad.tolerance = 0.0;
  expect_error(tensorium_handoff_solve_two_punctures(&bad, &none, &error), TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error,
               "solve with tolerance 0");
  bad = params;
  bad.npoints[0] = bad.npoints[1] = 512;
  bad.npoints[2] = 512;
  status = tensorium_handoff_solve_two_punctures(&bad, &none, &error);
  expect_error(status, TENSORIUM_HANDOFF_OUT_OF_MEMORY, &error, "solve at 512^3 (memory estimate)");
  check(none == NULL, "no handle after failures");
  expect_error(tensorium_handoff_solve_two_punctures(&params, NULL, &error), TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error,
               "solve without an output handle");

  snprintf(bad_path, sizeof bad_path, "%s/no_such_file.tns", argv[1]);
  expect_error(tensorium_handoff_load(bad_path, &none, &error), TENSORIUM_HANDOFF_IO_ERROR, &error, "load a missing file");
  snprintf(bad_path, sizeof bad_path, "%s/points.bin", argv[1]);
  expect_error(tensorium_handoff_load(bad_path, &none, &error), TENSORIUM_HANDOFF_BAD_FILE, &error,
               "load a file of another kind");
  /* A device (read without end) and a loop of symbolic links: refused before any read. */
  expect_error(tensorium_handoff_load("/dev/zero", &none, &error), TENSORIUM_HANDOFF_IO_ERROR, &error, "load a device");
  check(strstr(error.message, "not a regular file") != NULL, error.message);
  {
    char loop_a[1200], loop_b[1200];
    snprintf(loop_a, sizeof loop_a, "%s/loop_a.tns", argv[1]);
    snprintf(loop_b, sizeof loop_b, "%s/loop_b.tns", argv[1]);
    remove(loop_a);
    remove(loop_b);
    check(symlink(loop_b, loop_a) == 0 && symlink(loop_a, loop_b) == 0, "make a loop of symbolic links");
    expect_error(tensorium_handoff_load(loop_a, &none, &error), TENSORIUM_HANDOFF_IO_ERROR, &error,
                 "load a loop of symbolic links");
    check(strstr(error.message, "symbolic links") != NULL, error.message);
  }
  {
    /* A truncated copy and a copy with one flipped byte. */
    static char bytes[1 << 20];
    size_t size;
    f = fopen(path, "rb");
    size = f ? fread(bytes, 1, sizeof bytes, f) : 0;
    if (f)
      fclose(f);
    check(size > 200, "read the saved solution");
    check(write_file(argv[1], "truncated.tns", bytes, size / 2), "write truncated.tns");
    snprintf(bad_path, sizeof bad_path, "%s/truncated.tns", argv[1]);
    expect_error(tensorium_handoff_load(bad_path, &none, &error), TENSORIUM_HANDOFF_BAD_FILE, &error,
                 "load a truncated file");
    bytes[size / 2] ^= 0x40;
    check(write_file(argv[1], "flipped.tns", bytes, size), "write flipped.tns");
    snprintf(bad_path, sizeof bad_path, "%s/flipped.tns", argv[1]);
    expect_error(tensorium_handoff_load(bad_path, &none, &error), TENSORIUM_HANDOFF_BAD_FILE, &error,
                 "load a corrupted file");
  }
  expect_error(tensorium_handoff_save(solution, "/nonexistent/folder/solution.tns", &error), TENSORIUM_HANDOFF_IO_ERROR,
               &error, "save into a missing folder");
  expect_error(tensorium_handoff_save(NULL, path, &error), TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error,
               "save without a solution");

  bssn_buffers(bssn_loaded, &buffers);
  /* A rank with no points: success, nothing written, NULL arrays allowed; bad options still refused. */
  check(tensorium_handoff_evaluate_bssn(solution, NULL, 0, NULL, NULL, NULL, NULL, &error) == TENSORIUM_HANDOFF_OK,
        "evaluate BSSN at no points");
  check(tensorium_handoff_evaluate_adm(solution, NULL, 0, NULL, NULL, NULL, NULL, &error) == TENSORIUM_HANDOFF_OK,
        "evaluate ADM at no points");
  options.lapse = 7;
  expect_error(tensorium_handoff_evaluate_bssn(solution, &options, 0, NULL, NULL, NULL, NULL, &error),
               TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error, "evaluate no points with lapse 7");
  tensorium_handoff_options_init(&options);
  expect_error(tensorium_handoff_evaluate_bssn(NULL, NULL, 0, NULL, NULL, NULL, NULL, &error),
               TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error, "evaluate no points without a solution");
  expect_error(tensorium_handoff_evaluate_bssn(solution, NULL, N, x, NULL, z, &buffers, &error),
               TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error, "evaluate without y");
  buffers.chi = NULL;
  expect_error(tensorium_handoff_evaluate_bssn(solution, NULL, N, x, y, z, &buffers, &error),
               TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error, "evaluate without the chi buffer");
  bssn_buffers(bssn_loaded, &buffers);
  options.lapse = 7;
  expect_error(tensorium_handoff_evaluate_bssn(solution, &options, N, x, y, z, &buffers, &error),
               TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error, "evaluate with lapse 7");
  tensorium_handoff_options_init(&options);
  options.puncture_radius_floor = -1.0;
  expect_error(tensorium_handoff_evaluate_adm(solution, &options, N, x, y, z, &adm_buffers, &error),
               TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error, "evaluate with a negative radius floor");
  tensorium_handoff_options_init(&options);
  z[5] = NAN;
  expect_error(tensorium_handoff_evaluate_bssn(solution, &options, N, x, y, z, &buffers, &error),
               TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error, "evaluate at a NaN coordinate");
  expect_error(tensorium_handoff_evaluate_adm(solution, &options, N, x, y, z, &adm_buffers, &error),
               TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error, "evaluate ADM at a NaN coordinate");
  expect_error(tensorium_handoff_adm_mass(solution, NULL, &error), TENSORIUM_HANDOFF_INVALID_ARGUMENT, &error,
               "ADM mass without an output");
  {
    tensorium_handoff_error short_error;
    tensorium_handoff_error_init(&short_error);
    short_error.struct_size = 4;
    check(tensorium_handoff_adm_mass(solution, &mass, &short_error) == TENSORIUM_HANDOFF_VERSION_MISMATCH,
          "a short error struct is refused");
  }
  check(tensorium_handoff_adm_mass(solution, &mass, NULL) == TENSORIUM_HANDOFF_OK, "NULL error struct is allowed");

  tensorium_handoff_free(loaded);
  tensorium_handoff_free(solution);
  tensorium_handoff_free(NULL);
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
