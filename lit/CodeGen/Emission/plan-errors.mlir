// Plans written in MLIR that are not kernel plans get a located error, no crash.
// RUN: tensorium-opt --tensorium-emit-kernels --split-input-file --verify-diagnostics %s

// expected-error @+1 {{tensorium.plan names no kernel family}}
func.func @unknown(%x: f64) -> f64 attributes {tensorium.plan = "rhs"} {
  return %x : f64
}

// -----

func.func @foreign(%nx: index, %ny: index, %nz: index, %u: memref<?xf64>) attributes {tensorium.plan = "rhs_grid"} {
  %c0 = arith.constant 0 : index
  %a = memref.load %u[%c0] : memref<?xf64>
  // expected-error @+1 {{'arith.maximumf' is not an operation of kernel plans}}
  %b = arith.maximumf %a, %a : f64
  memref.store %b, %u[%c0] : memref<?xf64>
  return
}

// -----

func.func @computed_component(%nx: index, %ny: index, %nz: index, %u: memref<?xf64>) attributes {tensorium.plan = "rhs_grid"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a plan's buffer index is a non-negative constant component}}
  %a = memref.load %u[%nx] : memref<?xf64>
  return
}

// -----

func.func @far_shift(%nx: index, %ny: index, %nz: index, %u: memref<?xf64>, %o: memref<?xf64>) attributes {tensorium.plan = "rhs_grid"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{stencil shifts lie within -8..8}}
  %a = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 0, 9>} : memref<?xf64>
  memref.store %a, %o[%c0] : memref<?xf64>
  return
}

// -----

// expected-error @+1 {{stencil plans start with the extents nx, ny, nz (index)}}
func.func @no_extents(%u: memref<?xf64>, %o: memref<?xf64>) attributes {tensorium.plan = "rhs_grid"} {
  %c0 = arith.constant 0 : index
  %a = memref.load %u[%c0] : memref<?xf64>
  memref.store %a, %o[%c0] : memref<?xf64>
  return
}

// -----

// expected-error @+1 {{only rhs_grid and residual_grid plans read with stencil shifts}}
func.func @shifted_point(%u: memref<?xf64>) -> f64 attributes {tensorium.plan = "init_point"} {
  %c0 = arith.constant 0 : index
  %a = memref.load %u[%c0] {tensorium.offset = array<i64: 1, 0, 0>} : memref<?xf64>
  return %a : f64
}

// -----

// expected-error @+1 {{plan argument #0 has type 'i32'}}
func.func @bad_argument(%n: i32) attributes {tensorium.plan = "init_point"} {
  return
}

// -----

// expected-error @+1 {{tensorium.loop is scf, affine or parallel for grid families and none otherwise}}
func.func @bad_loop(%nx: index, %ny: index, %nz: index) attributes {tensorium.plan = "rhs_grid", tensorium.loop = "none"} {
  return
}

// -----

func.func @two_results(%u: memref<?xf64>) -> (f64, f64) attributes {tensorium.plan = "init_point"} {
  %c0 = arith.constant 0 : index
  %a = memref.load %u[%c0] : memref<?xf64>
  // expected-error @+1 {{a plan returns at most one f64}}
  return %a, %a : f64, f64
}
