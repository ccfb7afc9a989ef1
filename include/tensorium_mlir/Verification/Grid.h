#pragma once
// Uniform grids of the verification studies: a rank's part of a grid keeps the whole grid's
// origin and its global index offset, so that every rank computes the same coordinates.
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace tensorium_mlir::verification {

/// n points per axis at lo + (offset + i) h, stored with the last axis fastest.
struct Grid {
  int n[3];
  double lo[3], h[3];
  int offset[3] = {0, 0, 0};
  size_t points() const { return static_cast<size_t>(n[0]) * n[1] * n[2]; }
  size_t index(int i, int j, int k) const { return (static_cast<size_t>(i) * n[1] + j) * n[2] + k; }
  std::array<double, 3> at(int i, int j, int k) const {
    return {lo[0] + (offset[0] + i) * h[0], lo[1] + (offset[1] + j) * h[1], lo[2] + (offset[2] + k) * h[2]};
  }
};

/// [-L, L]^3 with n points per side (both faces on the grid).
inline Grid cube(int n, double L) {
  if (n < 2 || !(L > 0))
    throw std::invalid_argument("a cube needs n >= 2 points per side and a positive half-width");
  Grid g{{n, n, n}, {-L, -L, -L}, {}};
  for (double &h : g.h)
    h = 2 * L / (n - 1);
  return g;
}

/// The unit cube with n cells per side plus r ghost layers on each face (periodic evolutions).
inline Grid periodicUnitCube(int n, int r) {
  if (n < 1 || r < 0)
    throw std::invalid_argument("a periodic cube needs n >= 1 cells and r >= 0 ghost layers");
  Grid g{{n + 2 * r, n + 2 * r, n + 2 * r}, {}, {}};
  for (int a = 0; a < 3; ++a) {
    g.h[a] = 1.0 / n;
    g.lo[a] = -r * g.h[a];
  }
  return g;
}

} // namespace tensorium_mlir::verification
