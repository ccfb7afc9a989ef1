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

// expected-error @+1 {{tensorium.loop is scf, affine or parallel for rhs_grid and residual_grid}}
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

// -----

// expected-error @+1 {{grid plans store their outputs; only point plans return a value}}
func.func @grid_returns(%nx: index, %ny: index, %nz: index, %u: memref<?xf64>) -> f64 attributes {tensorium.plan = "rhs_grid"} {
  %c0 = arith.constant 0 : index
  %a = memref.load %u[%c0] : memref<?xf64>
  return %a : f64
}

// -----

// expected-error @+1 {{grid plans read and write memref<?xf64> buffers, not 'arg3' of fixed size}}
func.func @fixed_in_grid(%nx: index, %ny: index, %nz: index, %c: memref<3xf64>, %o: memref<?xf64> {tensorium.role = "output"}) attributes {tensorium.plan = "rhs_grid"} {
  %c0 = arith.constant 0 : index
  %a = memref.load %c[%c0] : memref<3xf64>
  memref.store %a, %o[%c0] : memref<?xf64>
  return
}

// -----

func.func @component_beyond(%nx: index, %ny: index, %nz: index, %u: memref<?xf64> {tensorium.components = 3}) attributes {tensorium.plan = "rhs_grid"} {
  %c3 = arith.constant 3 : index
  // expected-error @+1 {{component 3 of 'arg3', which has 3 (declare more with tensorium.components)}}
  %a = memref.load %u[%c3] : memref<?xf64>
  return
}

// -----

func.func @second_store(%nx: index, %ny: index, %nz: index, %u: memref<?xf64>, %o: memref<?xf64>) attributes {tensorium.plan = "rhs_grid"} {
  %c0 = arith.constant 0 : index
  %a = memref.load %u[%c0] : memref<?xf64>
  memref.store %a, %o[%c0] : memref<?xf64>
  // expected-error @+1 {{a second store to component 0 of 'arg4' (a plan stores each component once)}}
  memref.store %a, %o[%c0] : memref<?xf64>
  return
}

// -----

// expected-error @+1 {{plan argument #0 of type 'f64' cannot have that role}}
func.func @role_type(%p: f64 {tensorium.role = "output"}) attributes {tensorium.plan = "init_point"} {
  return
}

// -----

// expected-error @+1 {{tensorium.components is an integer from 1 to 4096, on a memref<?xf64>}}
func.func @components_type(%nx: index, %ny: index, %nz: index, %u: memref<?xf64> {tensorium.components = 0}) attributes {tensorium.plan = "rhs_grid"} {
  return
}

// -----

func.func @offset_type(%nx: index, %ny: index, %nz: index, %u: memref<?xf64>, %o: memref<?xf64>) attributes {tensorium.plan = "rhs_grid"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tensorium.offset is an array<i64: dx, dy, dz>}}
  %a = memref.load %u[%c0] {tensorium.offset = array<i32: 0, 0, 1>} : memref<?xf64>
  memref.store %a, %o[%c0] : memref<?xf64>
  return
}

// -----

// expected-error @+1 {{'arg0' is read and written: flat grid plans write other buffers than they read}}
func.func @flat_in_place(%u: memref<?xf64>) attributes {tensorium.plan = "init_grid"} {
  %c0 = arith.constant 0 : index
  %a = memref.load %u[%c0] : memref<?xf64>
  %b = arith.mulf %a, %a : f64
  memref.store %b, %u[%c0] : memref<?xf64>
  return
}

// -----

// expected-error @+1 {{a plan has a body}}
func.func private @declaration(f64) attributes {tensorium.plan = "init_point"}

// -----

// expected-error @+1 {{tensorium.loop is scf, affine or parallel for rhs_grid and residual_grid, scf or affine for init_grid and spectral_grid, and none otherwise}}
func.func @parallel_flat(%x: memref<?xf64> {tensorium.role = "coordinate"}, %o: memref<?xf64> {tensorium.role = "output"}) attributes {tensorium.plan = "init_grid", tensorium.loop = "parallel"} {
  return
}
