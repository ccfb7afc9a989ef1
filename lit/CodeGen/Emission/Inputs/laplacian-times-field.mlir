// A stencil plan: rhs_u = (second-order Laplacian of u) * v, loop style parallel (tests
// substitute others). The Laplacian reads one component through a stencil: the value a
// two-pass row computes in its first pass.
func.func @rhs(%nx: index, %ny: index, %nz: index, %idh2: f64,
               %u: memref<?xf64> {tensorium.name = "u"}, %v: memref<?xf64> {tensorium.name = "v"},
               %out: memref<?xf64> {tensorium.role = "output", tensorium.name = "rhs_u"})
    attributes {tensorium.plan = "rhs_grid", tensorium.loop = "parallel"} {
  %c0 = arith.constant 0 : index
  %six = arith.constant -6.0 : f64
  %u0 = memref.load %u[%c0] : memref<?xf64>
  %xm = memref.load %u[%c0] {tensorium.offset = array<i64: -1, 0, 0>} : memref<?xf64>
  %xp = memref.load %u[%c0] {tensorium.offset = array<i64: 1, 0, 0>} : memref<?xf64>
  %ym = memref.load %u[%c0] {tensorium.offset = array<i64: 0, -1, 0>} : memref<?xf64>
  %yp = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 1, 0>} : memref<?xf64>
  %zm = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 0, -1>} : memref<?xf64>
  %zp = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 0, 1>} : memref<?xf64>
  %s1 = arith.addf %xm, %xp : f64
  %s2 = arith.addf %ym, %yp : f64
  %s3 = arith.addf %zm, %zp : f64
  %s4 = arith.addf %s1, %s2 : f64
  %s5 = arith.addf %s4, %s3 : f64
  %c = arith.mulf %six, %u0 : f64
  %s6 = arith.addf %s5, %c : f64
  %lap = arith.mulf %s6, %idh2 : f64
  %v0 = memref.load %v[%c0] : memref<?xf64>
  %r = arith.mulf %lap, %v0 : f64
  memref.store %r, %out[%c0] : memref<?xf64>
  return
}
