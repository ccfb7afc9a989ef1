/* A C99 program on the installed handoff library: boosted equal-mass punctures (b = 1,
 * m1 = m2 = 0.5, P1 = -P2 = (0, 0.2, 0), the default 24 x 24 x 12 grid), the ADM mass and psi
 * at (0.3, 0.2, 0.1), printed as `tensorium-two-punctures --probe` prints them. */
#include "tensorium_handoff.h"
#include "tensorium_version.h"

#if TENSORIUM_ABI_VERSION != 3
#error "this example is written for the generated-kernel ABI v3"
#endif

#include <stdio.h>
#include <string.h>

int main(void) {
  tensorium_two_puncture_parameters parameters;
  tensorium_handoff_options options;
  tensorium_handoff_error error;
  tensorium_handoff_adm_buffers buffers;
  tensorium_handoff_solution *solution = NULL;
  double x = 0.3, y = 0.2, z = 0.1, gamma[6], K[6], alpha, beta[3], psi, mass;

  tensorium_two_puncture_parameters_init(&parameters);
  tensorium_handoff_options_init(&options);
  tensorium_handoff_error_init(&error);
  parameters.P1[1] = 0.2;
  parameters.P2[1] = -0.2;
  if (tensorium_handoff_solve_two_punctures(&parameters, &solution, &error) != TENSORIUM_HANDOFF_OK ||
      tensorium_handoff_adm_mass(solution, &mass, &error) != TENSORIUM_HANDOFF_OK) {
    fprintf(stderr, "handoff_probe: %s\n", error.message);
    tensorium_handoff_free(solution);
    return 1;
  }
  memset(&buffers, 0, sizeof buffers);
  buffers.struct_size = sizeof buffers;
  buffers.gamma = gamma;
  buffers.K = K;
  buffers.alpha = &alpha;
  buffers.beta = beta;
  buffers.psi = &psi;
  if (tensorium_handoff_evaluate_adm(solution, &options, 1, &x, &y, &z, &buffers, &error) != TENSORIUM_HANDOFF_OK) {
    fprintf(stderr, "handoff_probe: %s\n", error.message);
    tensorium_handoff_free(solution);
    return 1;
  }
  printf("ADM mass: %.15f\n", mass);
  printf("psi = %.15e\n", psi);
  tensorium_handoff_free(solution);
  return 0;
}
