/* C types of declared elliptic problems (additive to ABI v3). A generated host header embeds
 * this block verbatim only when one of its constraints blocks declares a problem (unknowns,
 * boundary conditions, domain, solve policy); programs without one are unchanged. */
#ifndef TENSORIUM_SPECTRAL_PROBLEM_TYPES_V3
#define TENSORIUM_SPECTRAL_PROBLEM_TYPES_V3

#include <stdint.h>

/* One boundary condition of one unknown (a vector unknown: one per component) on one face:
 * a u + b du/dn = value with n the outward normal; Dirichlet rows have a = 1, b = 0. The
 * coefficients come from a generated flat grid kernel (kind "spectral_boundary_grid") that
 * writes buffers a, b and value at the points whose coordinates x, y, z it is given. */
typedef struct tensorium_spectral_boundary_desc {
  const char *unknown;
  int32_t unknown_index; /* into the problem's unknown_names */
  const char *face;
  int32_t axis;
  int32_t side;          /* 0: the face at the axis minimum, 1: at its maximum */
  const char *kind;      /* "dirichlet" or "robin" */
  const char *kernel_symbol;
  int32_t kernel_index;  /* into tensorium_host_kernels; invoke it through its adapter */
} tensorium_spectral_boundary_desc;

typedef struct tensorium_spectral_problem_desc {
  int32_t struct_size;   /* sizeof(tensorium_spectral_problem_desc) of the generating compiler */
  const char *block_name;
  int32_t system_index;  /* into tensorium_spectral_residual_systems */
  const char *map;       /* "box" or "two_puncture_compact" */
  int32_t resolution[3];
  double bounds[6];      /* box: xmin, xmax, ymin, ymax, zmin, zmax */
  int32_t unknown_count;
  const char *const *unknown_names; /* scalar unknowns; vector components as W_0, W_1, W_2 */
  int32_t boundary_count;
  const tensorium_spectral_boundary_desc *boundaries;
  double tolerance;      /* Newton: root-mean-square residual */
  int32_t max_iterations;
  const char *linear;    /* "auto", "dense" or "gmres" */
  int32_t restart;
  const char *preconditioner;
  int32_t line_search;
  double forcing;        /* GMRES relative tolerance per Newton step */
  int32_t param_default_count; /* `params { name = value }` defaults */
  const char *const *param_default_names;
  const double *param_default_values;
} tensorium_spectral_problem_desc;

/* Exported by loadable modules that declare problems: the table and its length. */
typedef const tensorium_spectral_problem_desc *(*tensorium_get_spectral_problems_fn)(int32_t *count);

#endif /* TENSORIUM_SPECTRAL_PROBLEM_TYPES_V3 */
