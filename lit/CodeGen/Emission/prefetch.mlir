// StencilAddressing: software prefetch. For every buffer component read, the x-plane the
// stencils reach at the next i (r_x + 1 planes ahead); components read across rows also at
// rows j -+ r_y. Kernels with a shared row function also prefetch every output's next line
// along z for writing. prefetch=0 emits none.
// RUN: sed 's/"parallel"/"scf"/' %S/Inputs/laplacian-times-field.mlir | tensorium-opt --tensorium-emit-kernels="cache-blocking=0" | FileCheck %s
// RUN: sed 's/"parallel"/"scf"/' %S/Inputs/laplacian-times-field.mlir | tensorium-opt --tensorium-emit-kernels="cache-blocking=0 shared-body-nodes=0" | FileCheck %s --check-prefix=ROWS
// RUN: sed 's/"parallel"/"scf"/' %S/Inputs/laplacian-times-field.mlir | tensorium-opt --tensorium-emit-kernels="cache-blocking=0 prefetch=0 shared-body-nodes=0" | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @rhs(
// CHECK: %[[SX:.*]] = arith.muli %arg1, %arg2 : index
// The plane two x steps ahead (r_x + 1), and that plane one row before and after (r_y = 1).
// CHECK: %[[AHEAD:.*]] = arith.muli %c2, %[[SX]] : index
// CHECK: %[[BEFORE:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[AFTER:.*]] = arith.addi %{{.*}}, %arg2 : index
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[K:.*]] = %c1
// CHECK: %[[LINEAR:.*]] = arith.addi %{{.*}}, %[[K]] : index
// CHECK-NEXT: %[[A1:.*]] = arith.addi %[[LINEAR]], %[[AHEAD]] : index
// CHECK-NEXT: memref.prefetch %arg4[%[[A1]]], read, locality<3>, data
// CHECK-NEXT: %[[A2:.*]] = arith.addi %[[LINEAR]], %[[AHEAD]] : index
// CHECK-NEXT: memref.prefetch %arg5[%[[A2]]], read, locality<3>, data
// CHECK-NEXT: %[[A3:.*]] = arith.addi %[[LINEAR]], %[[BEFORE]] : index
// CHECK-NEXT: memref.prefetch %arg4[%[[A3]]], read, locality<3>, data
// CHECK-NEXT: %[[A4:.*]] = arith.addi %[[LINEAR]], %[[AFTER]] : index
// CHECK-NEXT: memref.prefetch %arg4[%[[A4]]], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: return

// ROWS-LABEL: func.func private @__tensorium_rhs_grid_row(
// ROWS-COUNT-4: memref.prefetch %{{.*}}, read, locality<3>, data
// ROWS: %[[NEXT:.*]] = arith.addi %{{.*}}, %c8 : index
// ROWS-NEXT: memref.prefetch %arg6[%[[NEXT]]], write, locality<3>, data
// ROWS-LABEL: func.func @rhs(

// NONE-LABEL: func.func private @__tensorium_rhs_grid_row(
// NONE-NOT: memref.prefetch
// NONE: memref.store %{{.*}}, %arg6
// NONE-LABEL: func.func @rhs(
// NONE-NOT: memref.prefetch
// NONE: return
