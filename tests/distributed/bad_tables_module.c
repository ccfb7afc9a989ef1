/* A kernel module whose tables fail validation: a stencil radius outside [0, 8] and a buffer
 * whose argument index is out of range. Runners must refuse it with a message, not run it. */
#include "tensorium_mlir/Runtime/HostABITypes.h"

static const char *const param_names[] = {"eta"};
static const tensorium_host_kernel_desc kernels[] = {
    {"tensorium_rhs_grid_parallel", "rhs_grid_parallel", 3, 4, 1, 0, 2, 9, 0},
};
static const tensorium_host_buffer_desc buffers[] = {
    {0, "u", "u", 0, TENSORIUM_BUFFER_ROLE_FIELD, TENSORIUM_BUFFER_ACCESS_READ, 0, "", 1},
    {0, "du", "du", 7, TENSORIUM_BUFFER_ROLE_OUTPUT, TENSORIUM_BUFFER_ACCESS_WRITE, 0, "", 1},
};
static const tensorium_module_tables tables = {3, 3, param_names, 1, kernels, 1, buffers, 2, 0, 0, 0, 0, 0, 0, 0, 0};

const tensorium_module_tables *tensorium_get_module_tables(void) { return &tables; }
