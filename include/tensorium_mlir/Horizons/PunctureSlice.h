#pragma once
// The slice of two-puncture (Bowen-York) initial data for the horizon finder:
// gamma_ij = psi^4 delta_ij and K_ij = psi^-2 Ahat_ij, with psi from the spectral solution and
// Ahat_ij in closed form, at arbitrary points (the handoff's evaluation, puncture floor included).
#include "tensorium_mlir/Horizons/SpatialGeometry.h"
#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"

namespace tensorium_mlir::horizons {

/// The handoff must outlive the sampler.
MetricSampler twoPunctureSlice(const physics::TwoPunctureHandoff &handoff);

} // namespace tensorium_mlir::horizons
