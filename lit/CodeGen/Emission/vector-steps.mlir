// VectorSteps: grid loops step `vector-width` points along z. The last step of a line starts
// width points before its end (clamped with minsi, kept only where the line fits a whole step),
// and the mask covers the points left on the line: masked loads and stores, parameters
// broadcast once before the loops. Width 1 emits scalar loads and stores.
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=8 cache-blocking=0 prefetch=0" %s | FileCheck %s --check-prefix=W8
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=4 cache-blocking=0 prefetch=0" %s | FileCheck %s --check-prefix=W4
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=1 cache-blocking=0 prefetch=0" %s | FileCheck %s --check-prefix=SCALAR

// W8-LABEL: func.func @rhs(
// W8: %[[P:.*]] = vector.broadcast %arg3 : f64 to vector<8xf64>
// W8: %[[UPPER:.*]] = arith.subi %arg2, %c1 : index
// W8: %[[LAST:.*]] = arith.subi %[[UPPER]], %c8 : index
// W8: %[[FITS:.*]] = arith.cmpi sge, %[[LAST]], %c1 : index
// W8: scf.for %[[K:.*]] = %c1 to %[[UPPER]] step %c8
// W8: %[[CLAMPED:.*]] = arith.minsi %[[K]], %[[LAST]] : index
// W8: %[[START:.*]] = arith.select %[[FITS]], %[[CLAMPED]], %[[K]] : index
// W8: %[[LEFT:.*]] = arith.subi %[[UPPER]], %[[START]] : index
// W8: %[[MASK:.*]] = vector.create_mask %[[LEFT]] : vector<8xi1>
// W8: vector.maskedload %arg4[%{{.*}}], %[[MASK]]
// W8: vector.maskedload %arg4[%{{.*}}], %[[MASK]]
// W8: arith.mulf %[[P]],
// W8: vector.maskedstore %arg5[%{{.*}}], %[[MASK]]

// W4-LABEL: func.func @rhs(
// W4: scf.for %{{.*}} = %c1 to %{{.*}} step %c4
// W4: vector.create_mask %{{.*}} : vector<4xi1>
// W4: vector.maskedstore {{.*}} vector<4xf64>

// SCALAR-LABEL: func.func @rhs(
// SCALAR-NOT: vector.
// SCALAR: scf.for %{{.*}} = %c1 to %{{.*}} step %c1
// SCALAR: memref.load %arg4
// SCALAR: memref.store
func.func @rhs(%nx: index, %ny: index, %nz: index, %idz: f64,
               %u: memref<?xf64> {tensorium.name = "u"},
               %out: memref<?xf64> {tensorium.role = "output", tensorium.name = "rhs_u"})
    attributes {tensorium.plan = "rhs_grid"} {
  %c0 = arith.constant 0 : index
  %um = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 0, -1>} : memref<?xf64>
  %up = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 0, 1>} : memref<?xf64>
  %d = arith.subf %up, %um : f64
  %r = arith.mulf %d, %idz : f64
  memref.store %r, %out[%c0] : memref<?xf64>
  return
}
