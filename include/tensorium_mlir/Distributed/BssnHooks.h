#pragma once
// Host-side pieces of a BSSN evolution around the generated right-hand side: the inverse
// conformal metric the kernel reads, the algebraic constraints re-imposed after each step, and
// the floors on chi and the lapse.
#include "tensorium_mlir/Distributed/DistributedEvolution.h"

namespace tensorium_mlir::distributed {

/// What the `gammatilde` buffer holds: the conformal metric itself, or its deviation from the
/// flat metric (gammatilde_ij - delta_ij), as a BSSN program in deviation form evolves it
/// (fixtures/gr/bssn_harmonic_deviation_3d.tn).
enum class ConformalMetricForm { Full, Deviation };

/// det(delta + h) - 1 of a symmetric deviation h (row-major) from h itself (trace, principal
/// 2x2 minors, det h), so that a deviation of 1e-8 keeps its digits.
double conformalDeterminantMinusOne(const double h[9]);

/// gammatildeU = inverse(gammatilde) at every point of the storage (9 components each); in
/// deviation form the inverse of delta + gammatilde.
void computeInverseConformalMetric(runtime::UniformGridStorage &storage,
                                   ConformalMetricForm form = ConformalMetricForm::Full);

/// The algebraic constraints at one point: gammatilde (or its deviation) and Atilde, 9
/// components each, row-major, changed in place as bssnAlgebraicConstraints describes.
void imposeBssnAlgebraicConstraints(double gammatilde[9], double Atilde[9], ConformalMetricForm form);

/// det gammatilde = 1 (gammatilde scaled by det^(-1/3)) and trace-free Atilde
/// (Atilde -= gammatilde tr(Atilde) / 3, trace with the inverse of the rescaled metric). In
/// deviation form the stored deviation h becomes (1 + s) h + s delta with 1 + s = det^(-1/3),
/// det - 1 and s formed from h without the rounding of 1 + h.
DistributedEvolution::StateHook bssnAlgebraicConstraints(ConformalMetricForm form = ConformalMetricForm::Full);

/// Floors of moving-puncture runs, applied to the owned points after each step: chi >= chi
/// (chi ~ r^2 near a puncture on a trumpet slice, about 1.7e-3 at the nearest points of a grid
/// with h = M/16, so 1e-4 only catches an overshoot through zero) and alpha >= lapse (the lapse
/// kept positive where it collapses). 0 turns a floor off.
struct BssnFloors {
  double chi = 1e-4, lapse = 1e-8;
};
/// Throws DistributedError for a negative or non-numeric floor.
DistributedEvolution::StateHook bssnFloors(const BssnFloors &floors);

} // namespace tensorium_mlir::distributed
