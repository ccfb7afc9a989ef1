/* Storage layout of the buffers generated kernels read and write (ABI v3), as C99 functions
 * (docs/host-abi.md, "Storage layout"). Usable from C and C++; no library needed. */
#ifndef TENSORIUM_LAYOUT_H
#define TENSORIUM_LAYOUT_H

#include <stdint.h>

/* Linear index of grid point (i, j, k) of an nx x ny x nz grid: i along x, k along z, z
 * contiguous (nx does not enter). */
static inline int64_t tensorium_point_index(int64_t ny, int64_t nz, int64_t i, int64_t j, int64_t k) {
  return (i * ny + j) * nz + k;
}

/* Position of component c of point p in a buffer of n_points points per component: the
 * components are stored one after the other (structure of arrays, component-major). */
static inline int64_t tensorium_component_index(int64_t n_points, int64_t c, int64_t p) { return c * n_points + p; }

/* Component number of a tensor's entry, indices row-major (the last fastest); n = 3 for spatial
 * fields, 4 for spacetime fields (index 0 is time). Symmetric fields keep every entry. */
static inline int tensorium_tensor2_component(int n, int a, int b) { return a * n + b; }
static inline int tensorium_tensor3_component(int n, int a, int b, int c) { return (a * n + b) * n + c; }
static inline int tensorium_tensor4_component(int n, int a, int b, int c, int d) {
  return ((a * n + b) * n + c) * n + d;
}

#endif /* TENSORIUM_LAYOUT_H */
