// Flat grid kernels (init_grid: one loop over a list of points, outputs at c n + p, the count
// n taken from the coordinate buffer) and stencil kernels that write a buffer they read (a copy
// made before the loop is what they read, freed after it).
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=1" --split-input-file %s | FileCheck %s
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=4" --split-input-file %s | FileCheck %s --check-prefix=W4

// CHECK-LABEL: func.func @init(
// CHECK-SAME: tensorium.abi.kind = "init_grid"
// CHECK: %[[N:.*]] = memref.dim %arg1, %{{.*}} : memref<?xf64>
// CHECK: %[[BASE:.*]] = arith.muli %c1, %[[N]] : index
// CHECK: scf.for %[[P:.*]] = %c0 to %[[N]] step %c1
// CHECK: %[[X:.*]] = memref.load %arg1[%[[P]]]
// CHECK: %[[AX:.*]] = arith.mulf %arg0, %[[X]]
// CHECK: memref.store %[[AX]], %arg2[%[[P]]]
// CHECK: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %[[P]] : index
// CHECK: memref.store %[[SQ]], %arg2[%[[AT]]]
// W4-LABEL: func.func @init(
// W4: scf.for %{{.*}} = %c0 to %{{.*}} step %c4
// W4: vector.maskedstore %arg2
func.func @init(%a: f64, %x: memref<?xf64> {tensorium.role = "coordinate"},
                %out: memref<?xf64> {tensorium.role = "output", tensorium.components = 2})
    attributes {tensorium.plan = "init_grid"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xv = memref.load %x[%c0] : memref<?xf64>
  %ax = arith.mulf %a, %xv : f64
  %sq = arith.mulf %xv, %xv : f64
  memref.store %ax, %out[%c0] : memref<?xf64>
  memref.store %sq, %out[%c1] : memref<?xf64>
  return
}

// -----

// CHECK-LABEL: func.func @in_place(
// CHECK: %[[SIZE:.*]] = memref.dim %arg3, %{{.*}} : memref<?xf64>
// CHECK: %[[COPY:.*]] = memref.alloc(%[[SIZE]]) : memref<?xf64>
// CHECK: memref.copy %arg3, %[[COPY]]
// CHECK: scf.for
// CHECK-NOT: memref.load %arg3
// CHECK: memref.load %[[COPY]]
// CHECK: memref.store %{{.*}}, %arg3
// CHECK: memref.dealloc %[[COPY]]
func.func @in_place(%nx: index, %ny: index, %nz: index, %u: memref<?xf64>) attributes {tensorium.plan = "rhs_grid"} {
  %c0 = arith.constant 0 : index
  %um = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 0, -1>} : memref<?xf64>
  %up = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 0, 1>} : memref<?xf64>
  %s = arith.addf %um, %up : f64
  memref.store %s, %u[%c0] : memref<?xf64>
  return
}
