// --tensorium-inline-alloca-scopes dissolves memref.alloca_scope ops whose single block
// allocates nothing (what the OpenMP conversion wraps parallel bodies in) and keeps those that
// allocate (a two-pass row's scratch block must stay scoped).
// RUN: tensorium-opt --tensorium-inline-alloca-scopes %s | FileCheck %s

// CHECK-LABEL: func.func @dissolved(
// CHECK-NOT: memref.alloca_scope
// CHECK: %[[S:.*]] = arith.addf %arg0, %arg0 : f64
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[S]], %arg0 : f64
// CHECK-NEXT: return %[[P]] : f64
func.func @dissolved(%x: f64) -> f64 {
  %r = memref.alloca_scope -> f64 {
    %s = arith.addf %x, %x : f64
    memref.alloca_scope.return %s : f64
  }
  %p = arith.mulf %r, %x : f64
  return %p : f64
}

// CHECK-LABEL: func.func @kept(
// CHECK: memref.alloca_scope
// CHECK-NEXT: memref.alloca()
func.func @kept(%x: f64) {
  memref.alloca_scope {
    %m = memref.alloca() : memref<4xf64>
    %c0 = arith.constant 0 : index
    memref.store %x, %m[%c0] : memref<4xf64>
  }
  return
}
