// TwoPassRows: a shared row function computes its row in chunks of 16 vector steps (128
// points at width 8), each in two passes: the stencil values (here the Laplacian of u, times
// its loop-invariant factor) of every step into a 64-byte aligned scratch block on the stack,
// one value per 136 doubles (128 rounded up to an odd number of 64-byte lines), then the
// equations reading them back. The frame is probed page by page. Vector steps start on
// multiples of the width where that costs no extra step (remui, select). stencil-pass=0
// keeps one pass.
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=8 shared-body-nodes=0 stencil-pass=1" %S/Inputs/laplacian-times-field.mlir | FileCheck %s
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=8 shared-body-nodes=0 stencil-pass=0" %S/Inputs/laplacian-times-field.mlir | FileCheck %s --check-prefix=ONE-PASS
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=8 stencil-pass=1" %S/Inputs/laplacian-times-field.mlir | FileCheck %s --check-prefix=SMALL

// CHECK-LABEL: func.func private @__tensorium_rhs_grid_row(
// CHECK-SAME: passthrough = ["noinline", ["probe-stack", "inline-asm"]]
// CHECK: %[[MISALIGNED:.*]] = arith.remui %{{.*}}, %c8 : index
// CHECK: %[[FROM:.*]] = arith.select %{{.*}}, %{{.*}}, %arg9 : index
// CHECK: %[[SCRATCH:.*]] = memref.alloca() {alignment = 64 : i64} : memref<136xf64>
// CHECK: scf.for %[[CHUNK:.*]] = %[[FROM]] to %arg10 step %c128
// First pass: u's stencil values into the scratch block.
// CHECK: scf.for %{{.*}} = %[[CHUNK]] to %{{.*}} step %c8
// CHECK-COUNT-7: vector.maskedload %arg4
// CHECK: vector.store %{{.*}}, %[[SCRATCH]][%{{.*}}] : memref<136xf64>, vector<8xf64>
// CHECK-NEXT: }
// Second pass: read back, times v, stored.
// CHECK: scf.for %{{.*}} = %[[CHUNK]] to %{{.*}} step %c8
// CHECK-NOT: vector.maskedload %arg4
// CHECK: %[[LAP:.*]] = vector.load %[[SCRATCH]][%{{.*}}] : memref<136xf64>, vector<8xf64>
// CHECK-NEXT: %[[V:.*]] = vector.maskedload %arg5
// CHECK-NEXT: %[[R:.*]] = arith.mulf %[[LAP]], %[[V]]
// CHECK-NEXT: vector.maskedstore %arg6[%{{.*}}], %{{.*}}, %[[R]]
// CHECK-LABEL: func.func @rhs(

// ONE-PASS-LABEL: func.func private @__tensorium_rhs_grid_row(
// ONE-PASS-SAME: passthrough = ["noinline"]
// ONE-PASS-NOT: memref.alloca
// ONE-PASS: scf.for %{{.*}} = %{{.*}} to %arg10 step %c8
// ONE-PASS-NOT: scf.for
// ONE-PASS: vector.maskedstore %arg6
// ONE-PASS-LABEL: func.func @rhs(

// Below the shared-body size the kernel keeps its body and one pass.
// SMALL-NOT: __tensorium_rhs_grid_row
// SMALL-LABEL: func.func @rhs(
// SMALL-NOT: memref.alloca
// SMALL-NOT: func.call
// SMALL: vector.maskedstore %arg6
