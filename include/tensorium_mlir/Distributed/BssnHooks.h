#pragma once
// Host-side pieces of a BSSN evolution around the generated right-hand side: the inverse
// conformal metric the kernel reads, and the algebraic constraints re-imposed after each step.
#include "tensorium_mlir/Distributed/DistributedEvolution.h"

namespace tensorium_mlir::distributed {

/// gammatildeU = inverse(gammatilde) at every point of the storage (9 components each).
void computeInverseConformalMetric(runtime::UniformGridStorage &storage);

/// det gammatilde = 1 (gammatilde scaled by det^(-1/3)) and trace-free Atilde
/// (Atilde -= gammatilde tr(Atilde) / 3, trace with the inverse of the rescaled metric).
DistributedEvolution::StateHook bssnAlgebraicConstraints();

} // namespace tensorium_mlir::distributed
