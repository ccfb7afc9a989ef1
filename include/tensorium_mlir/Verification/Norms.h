#pragma once
// Weighted norms over (a rank's part of) a grid, reduced over an MPI communicator, and the
// smooth weights that select the norm region. Hard masks sample a slightly different set of
// points near a sphere at every resolution, which shows up as noise in the observed order;
// smooth weights turn the norms into quadratures of a smooth integrand.
#include "tensorium_mlir/Verification/Grid.h"

#include <mpi.h>

#include <array>
#include <span>
#include <vector>

namespace tensorium_mlir::verification {

/// Weight of each point in the norms (0 excludes it).
using Mask = std::vector<double>;

struct Norms {
  double l2 = 0, max = 0;
  size_t count = 0;
};

/// Weighted RMS sqrt(sum w v^2 / sum w) and max |w v| over points with w > 0, summed over every
/// rank of `comm` (masks weight only the points a rank owns). `sqrtOf`: the values are squares
/// (v = sqrt(max(value, 0))). Throws std::invalid_argument when the sizes differ.
Norms weightedNorms(std::span<const double> values, std::span<const double> mask, MPI_Comm comm, bool sqrtOf = false);

/// The maximum of v over every rank of `comm`.
double allMax(double v, MPI_Comm comm);

/// Pointwise product of two masks of the same size.
Mask operator*(Mask a, const Mask &b);

/// A C-infinity step: 0 for t <= 0, 1 for t >= 1.
double smoothStep(double t);

/// A norm region: the box |x_a - centre_a| <= box (tapered smoothly from 1 at box - taper to 0
/// at box along each axis) without balls of radius `excision` around each excision centre (the
/// weight rises smoothly from 0 at the radius to 1 at radius + `rise`).
struct NormRegion {
  std::array<double, 3> centre{0, 0, 0};
  double box = 0, taper = 0.4;
  std::vector<std::array<double, 3>> excisionCentres;
  double excision = 0, rise = 0.3;
  /// The weight at x.
  double weight(const std::array<double, 3> &x) const;
  /// The weight at every point of `g`.
  Mask mask(const Grid &g) const;
  /// Whether some point of `g` has a positive weight, in O(n^2) time.
  bool holdsPointOf(const Grid &g) const;

private:
  /// The box's factor along axis a at coordinate x.
  double axisWeight(size_t a, double x) const;
};

} // namespace tensorium_mlir::verification
