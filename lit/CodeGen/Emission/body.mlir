// BodyEmitter: the plan's graph as values. Loop invariants (products of parameters) are
// computed once before the loops, constants sit at the top of the function, a + (-b) is a
// subtraction, and a point kernel returns its result.
// RUN: tensorium-opt --tensorium-emit-kernels="cache-blocking=0 prefetch=0" --split-input-file %s | FileCheck %s
// RUN: tensorium-opt --tensorium-emit-kernels="cache-blocking=0 prefetch=0 fp-contract=0" --split-input-file %s | FileCheck %s --check-prefix=STRICT

// CHECK-LABEL: func.func @rhs(
// CHECK-SAME: tensorium.abi.kind = "rhs_grid"
// CHECK-SAME: tensorium.abi.stencil_radius = 1
// CHECK: arith.constant 2.000000e+00 : f64
// CHECK: %[[INV:.*]] = arith.mulf %arg3, %arg3 fastmath<arcp,contract> : f64
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[HI:.*]] = memref.load %arg4
// CHECK: %[[LO:.*]] = memref.load %arg4
// CHECK: %[[D:.*]] = arith.subf %[[HI]], %[[LO]]
// CHECK: arith.mulf %[[D]], %[[INV]]
// CHECK: memref.store
// STRICT-LABEL: func.func @rhs(
// STRICT-NOT: fastmath
// STRICT: return
func.func @rhs(%nx: index, %ny: index, %nz: index, %idz: f64,
               %u: memref<?xf64> {tensorium.name = "u"},
               %out: memref<?xf64> {tensorium.role = "output", tensorium.name = "rhs_u"})
    attributes {tensorium.plan = "rhs_grid"} {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f64
  %um = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 0, -1>} : memref<?xf64>
  %up = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 0, 1>} : memref<?xf64>
  %d = arith.subf %up, %um : f64
  %s = arith.mulf %idz, %idz : f64
  %r = arith.mulf %d, %s : f64
  %r2 = arith.mulf %r, %two : f64
  memref.store %r2, %out[%c0] : memref<?xf64>
  return
}

// -----

// CHECK-LABEL: func.func @point(%arg0: f64, %arg1: memref<3xf64>) -> f64
// CHECK-SAME: tensorium.abi.kind = "init_point"
// CHECK-NOT: scf.for
// CHECK: %[[X:.*]] = memref.load %arg1[%c2] : memref<3xf64>
// CHECK: %[[S:.*]] = math.sqrt %[[X]] : f64
// CHECK: %[[P:.*]] = arith.mulf %arg0, %[[S]]
// CHECK: return %[[P]] : f64
func.func @point(%a: f64, %x: memref<3xf64> {tensorium.role = "coordinate"}) -> f64
    attributes {tensorium.plan = "init_point"} {
  %c2 = arith.constant 2 : index
  %x2 = memref.load %x[%c2] : memref<3xf64>
  %s = math.sqrt %x2 : f64
  %r = arith.mulf %a, %s : f64
  return %r : f64
}
