/* C type of evolved fields' boundary conditions (additive to ABI v3). A generated host header
 * embeds this block verbatim only when one of its evolution blocks declares a boundary
 * condition; programs without one are unchanged. */
#ifndef TENSORIUM_EVOLUTION_BOUNDARY_TYPES_V3
#define TENSORIUM_EVOLUTION_BOUNDARY_TYPES_V3

#include <stdint.h>

/* `boundary u KIND` of an evolution block, applied at every outer face of the grid:
 *   "periodic"  the grid is periodic (every evolved field then is);
 *   "radiative" d_t u = -speed (x^i / r) d_i u - speed (u - value) / r on the outer layers;
 *   "exact"     the field's initial_data expression at the present time (tensorium_init_fields_*
 *               kernels, with the reserved time t among their parameters). */
typedef struct tensorium_evolution_boundary_desc {
  int32_t struct_size; /* sizeof(tensorium_evolution_boundary_desc) of the generating compiler */
  const char *field;
  const char *kind;
  double value; /* radiative: the field's value at infinity (every component) */
  double speed; /* radiative: the wave speed */
} tensorium_evolution_boundary_desc;

typedef const tensorium_evolution_boundary_desc *(*tensorium_get_evolution_boundaries_fn)(int32_t *count);
/* The parameters' declared defaults (`params { c = 1 }`) of such a module: returns the values and
 * sets *names to their names (absent in modules without defaults). */
typedef const double *(*tensorium_get_system_param_defaults_fn)(int32_t *count, const char *const **names);

#endif /* TENSORIUM_EVOLUTION_BOUNDARY_TYPES_V3 */
