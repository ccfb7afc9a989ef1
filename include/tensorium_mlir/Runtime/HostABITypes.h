/* C types of the generated host tables (ABI v3). Generated host headers embed this block
 * verbatim, so runtime code and generated headers agree by construction; the guard lets both
 * be included in one translation unit. */
#ifndef TENSORIUM_HOST_ABI_TYPES_V3
#define TENSORIUM_HOST_ABI_TYPES_V3

#include <stddef.h>
#include <stdint.h>

/* One lowered memref<?xf64> argument: five C arguments in this order. */
typedef struct tensorium_memref1d_f64 {
  double *allocated;
  double *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
} tensorium_memref1d_f64;

enum { TENSORIUM_BUFFER_ROLE_COORDINATE = 0, TENSORIUM_BUFFER_ROLE_FIELD = 1, TENSORIUM_BUFFER_ROLE_OUTPUT = 2 };
enum {
  TENSORIUM_BUFFER_ACCESS_NONE = 0,
  TENSORIUM_BUFFER_ACCESS_READ = 1,
  TENSORIUM_BUFFER_ACCESS_WRITE = 2,
  TENSORIUM_BUFFER_ACCESS_READWRITE = 3
};

typedef struct tensorium_host_kernel_desc {
  const char *symbol;
  const char *kind;
  int32_t abi_version;
  int32_t arg_count;
  int32_t param_count;
  int32_t first_buffer;   /* index of the kernel's first entry in tensorium_host_buffers */
  int32_t buffer_count;
  int32_t stencil_radius; /* -1 when not a stencil kernel */
  int32_t residual_kernel;
} tensorium_host_kernel_desc;

typedef struct tensorium_host_buffer_desc {
  int32_t kernel_index;
  const char *name;
  const char *c_name;
  int32_t arg_index;
  int32_t role;
  int32_t access;
  int32_t rank;
  const char *variance;
  int32_t component_count;
} tensorium_host_buffer_desc;

/* Uniform invocation of grid kernels. extents: nx, ny, nz (stencil kernels) or n_points;
 * spacing: dx, dy, dz (stencil kernels, else unused); params in tensorium_param_names order;
 * buffers and buffer_sizes (in scalars) in the kernel's tensorium_host_buffers order. */
typedef void (*tensorium_host_kernel_adapter_fn)(const int64_t *extents, const double *spacing,
                                                 const double *params, double *const *buffers,
                                                 const int64_t *buffer_sizes);

typedef struct tensorium_host_kernel_adapter {
  const char *symbol;
  int32_t kernel_index;
  tensorium_host_kernel_adapter_fn invoke;
} tensorium_host_kernel_adapter;

#endif /* TENSORIUM_HOST_ABI_TYPES_V3 */

/* Spectral residual callback ABI (v3). */
#ifndef TENSORIUM_SPECTRAL_ABI_TYPES_V3
#define TENSORIUM_SPECTRAL_ABI_TYPES_V3

#define TENSORIUM_SPECTRAL_BUNDLE_SIZE 10 /* value, d1, d2, d3, d11, d12, d13, d22, d23, d33 */

/* One collocation point as a residual sees it: the primary unknown's bundle (after the
 * runtime's unknown and derivative maps), the physical coordinates, and the other referenced
 * fields: their values, and their full bundles at aux_derivatives[k * 10 + slot]. */
typedef struct tensorium_spectral_residual_point {
  double value;
  double d[3];
  double dd[6]; /* d11, d12, d13, d22, d23, d33 */
  double physical[3];
  int32_t aux_count;
  const double *aux_values;
  const double *aux_derivatives;
} tensorium_spectral_residual_point;

typedef double (*tensorium_spectral_residual_kernel_fn)(const tensorium_spectral_residual_point *point,
                                                        const double *params, void *user_data);
typedef double (*tensorium_spectral_residual_jvp_fn)(const tensorium_spectral_residual_point *point,
                                                     const tensorium_spectral_residual_point *direction,
                                                     const double *params, void *user_data);

typedef struct tensorium_spectral_residual_kernel_desc {
  const char *residual_name;
  const char *symbol_name;
  const char *jvp_symbol_name;
  int32_t field_count; /* primary unknown first */
  const char *const *field_names;
  int32_t param_count;
  const char *const *param_names;
  tensorium_spectral_residual_kernel_fn evaluate;
  tensorium_spectral_residual_jvp_fn evaluate_jvp; /* NULL: the runtime falls back to finite differences */
} tensorium_spectral_residual_kernel_desc;

/* Structure-of-arrays bundle of one field over n points: slot[s][p]. */
typedef struct tensorium_spectral_residual_derivative_fields {
  const double *slot[TENSORIUM_SPECTRAL_BUNDLE_SIZE];
} tensorium_spectral_residual_derivative_fields;

typedef void (*tensorium_spectral_residual_grid_fn)(int64_t n_points, const double *params,
                                                    const tensorium_spectral_residual_derivative_fields *fields,
                                                    const double *const *coordinates, double *residual_out);

typedef struct tensorium_spectral_residual_grid_kernel_desc {
  const char *residual_name;
  const char *symbol_name;
  int32_t field_count; /* fields[] order: primary unknown first, as field_names */
  const char *const *field_names;
  int32_t param_count;
  tensorium_spectral_residual_grid_fn evaluate;
} tensorium_spectral_residual_grid_kernel_desc;

/* A constraints block as a square system: unknowns field-major, equations in block order. */
typedef struct tensorium_spectral_residual_system_desc {
  const char *block_name;
  int32_t unknown_count;
  const char *const *unknown_names;
  int32_t equation_count;
  const char *const *residual_names;
  const int32_t *equation_unknown;   /* primary unknown of each equation */
  const int32_t *point_kernel_index; /* into tensorium_spectral_residual_kernels */
  const int32_t *grid_kernel_index;  /* into tensorium_spectral_residual_grid_kernels */
  int32_t param_count;
  const char *const *param_names;
  const int32_t *aux_offset;         /* equation e's auxiliaries: [aux_offset[e], aux_offset[e + 1]) */
  const char *const *aux_field_names;
  const int32_t *aux_unknown_index;  /* -1: static auxiliary field, else the unknown it follows */
} tensorium_spectral_residual_system_desc;

#endif /* TENSORIUM_SPECTRAL_ABI_TYPES_V3 */

/* Every table of one generated module, for runners that load modules with dlopen: a module
 * built by tensorium_add_kernel(... MODULE) exports tensorium_get_module_tables(). */
#ifndef TENSORIUM_MODULE_TABLES_V3
#define TENSORIUM_MODULE_TABLES_V3
typedef struct tensorium_module_tables {
  int32_t abi_version;
  int32_t dimension;
  const char *const *param_names;
  int32_t param_count;
  const tensorium_host_kernel_desc *kernels;
  int32_t kernel_count;
  const tensorium_host_buffer_desc *buffers;
  int32_t buffer_count;
  const tensorium_host_kernel_adapter *adapters;
  int32_t adapter_count;
  const tensorium_spectral_residual_kernel_desc *spectral_kernels;
  int32_t spectral_kernel_count;
  const tensorium_spectral_residual_grid_kernel_desc *spectral_grid_kernels;
  int32_t spectral_grid_kernel_count;
  const tensorium_spectral_residual_system_desc *spectral_systems;
  int32_t spectral_system_count;
} tensorium_module_tables;
typedef const tensorium_module_tables *(*tensorium_get_module_tables_fn)(void);
#endif /* TENSORIUM_MODULE_TABLES_V3 */
