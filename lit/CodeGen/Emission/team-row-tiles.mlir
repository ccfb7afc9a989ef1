// LoopNests with TeamMapping: kernels with a shared row function, parallel variant. The team
// size comes from omp_get_max_threads; R rows of s P + m go to the P threads (s + 1 for the
// first m) in K = ceil(ceil(R / P) / ty) tiles each, and the scf.parallel runs over K P tiles
// (the integer formula is checked in tests/unit/CodeGen/EmissionStrategiesTest.cpp). Each tile
// calls the row function for its rows.
// RUN: tensorium-opt --tensorium-emit-kernels="shared-body-nodes=0 tile-y=4 tile-z=4096" %S/Inputs/laplacian-times-field.mlir | FileCheck %s
// RUN: sed 's/"parallel"/"scf"/' %S/Inputs/laplacian-times-field.mlir | tensorium-opt --tensorium-emit-kernels="shared-body-nodes=0 tile-y=4 tile-z=4096" | FileCheck %s --check-prefix=SEQUENTIAL

// CHECK: func.func private @omp_get_max_threads() -> i32
// CHECK-LABEL: func.func private @__tensorium_rhs_grid_row(
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// CHECK-SAME: passthrough = ["noinline"]
// CHECK-LABEL: func.func @rhs(
// CHECK: %[[UY:.*]] = arith.subi %arg1, %c1 : index
// CHECK: %[[UZ:.*]] = arith.subi %arg2, %c1 : index
// CHECK: %[[SPAN:.*]] = arith.subi %[[UY]], %c1 : index
// CHECK: %[[R:.*]] = arith.maxsi %[[SPAN]], %c0 : index
// CHECK: %[[THREADS:.*]] = call @omp_get_max_threads() : () -> i32
// CHECK: %[[T:.*]] = arith.index_cast %[[THREADS]] : i32 to index
// CHECK: %[[P:.*]] = arith.maxsi %[[T]], %c1 : index
// CHECK: %[[S:.*]] = arith.divsi %[[R]], %[[P]] : index
// CHECK: %[[LARGEST:.*]] = arith.divsi %{{.*}}, %[[P]] : index
// CHECK: %[[SUM:.*]] = arith.addi %[[LARGEST]], %c3 : index
// CHECK: %[[K:.*]] = arith.divsi %[[SUM]], %c4 : index
// CHECK: %[[TILES:.*]] = arith.muli %[[K]], %[[P]] : index
// CHECK: scf.parallel (%[[TILE:.*]], %[[KB:.*]]) = (%c0, %c1) to (%[[TILES]], %[[UZ]]) step (%c1, %c4096)
// CHECK: %[[THREAD:.*]] = arith.divsi %[[TILE]], %[[K]] : index
// CHECK: %[[ROUND:.*]] = arith.remsi %[[TILE]], %[[K]] : index
// CHECK: %[[UP:.*]] = arith.cmpi slt, %[[THREAD]], %{{.*}} : index
// CHECK: %[[HEIGHT:.*]] = arith.select %[[UP]], %{{.*}}, %{{.*}} : index
// CHECK: %[[JEND:.*]] = arith.addi %[[JB:.*]], %[[HEIGHT]] : index
// CHECK: scf.for %[[I:.*]] = %c1 to %{{.*}} step %c1
// CHECK: scf.for %[[J:.*]] = %[[JB]] to %[[JEND]] step %c1
// CHECK: func.call @__tensorium_rhs_grid_row(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %[[I]], %[[J]], %[[KB]], %{{.*}})

// The sequential variant tiles plainly and needs no team size.
// SEQUENTIAL-NOT: omp_get_max_threads
// SEQUENTIAL-LABEL: func.func @rhs(
// SEQUENTIAL: scf.for %{{.*}} = %c1 to %{{.*}} step %c4
// SEQUENTIAL: func.call @__tensorium_rhs_grid_row(
