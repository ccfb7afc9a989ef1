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
