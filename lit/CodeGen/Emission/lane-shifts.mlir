// LaneShifts: in the first pass of two-pass rows with 8-wide steps, the reads of u shifted
// along z by -1 and +1 are lane shifts of line-wide vectors of 64-bit integers (the vector at
// the step and the ones before and after it, masked loads from the buffer's aligned pointer)
// instead of unaligned loads. Every read of the row goes through those vectors (the reads at
// x -+ 1 and y -+ 1 first, then the row at the point, before it and after it). lane-shifts=0
// reads every shift with a masked load, and 4-wide steps never use lane shifts.
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=8 shared-body-nodes=0 stencil-pass=1 lane-shifts=1" %S/Inputs/laplacian-times-field.mlir | FileCheck %s
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=8 shared-body-nodes=0 stencil-pass=1 lane-shifts=0" %S/Inputs/laplacian-times-field.mlir | FileCheck %s --check-prefix=OFF
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=4 shared-body-nodes=0 stencil-pass=1 lane-shifts=1" %S/Inputs/laplacian-times-field.mlir | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func private @__tensorium_rhs_grid_row(
// CHECK: %[[CAST:.*]] = builtin.unrealized_conversion_cast %arg4 : memref<?xf64> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK-NEXT: %[[BASE:.*]] = llvm.extractvalue %[[CAST]][1]
// CHECK-COUNT-4: llvm.intr.masked.load
// CHECK: %[[AT:.*]] = llvm.intr.masked.load %{{.*}} {alignment = 8 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xi64>) -> vector<8xi64>
// CHECK: %[[BEFORE:.*]] = llvm.intr.masked.load %{{.*}} {alignment = 8 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xi64>) -> vector<8xi64>
// CHECK-NEXT: %{{.*}} = vector.shuffle %[[BEFORE]], %[[AT]] [7, 8, 9, 10, 11, 12, 13, 14] : vector<8xi64>, vector<8xi64>
// CHECK: %[[AFTER:.*]] = llvm.intr.masked.load %{{.*}} {alignment = 8 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xi64>) -> vector<8xi64>
// CHECK-NEXT: %{{.*}} = vector.shuffle %[[AT]], %[[AFTER]] [1, 2, 3, 4, 5, 6, 7, 8] : vector<8xi64>, vector<8xi64>
// CHECK: vector.store
// CHECK-LABEL: func.func @rhs(

// OFF-LABEL: func.func private @__tensorium_rhs_grid_row(
// OFF-NOT: vector.shuffle
// OFF-NOT: llvm.intr.masked.load
// The first pass reads u with masked vector loads instead, then stores to the scratch block.
// OFF: vector.maskedload %arg4
// OFF-NOT: vector.shuffle
// OFF-NOT: llvm.intr.masked.load
// OFF: vector.store
// OFF-LABEL: func.func @rhs(
