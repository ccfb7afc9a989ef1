// LoopNests: the interior loops of stencil kernels. Plain loops run from r to n - r on each
// axis; cache-blocked loops sweep x inside tiles of tile-y x tile-z points in (y, z), the tile
// ends clamped with minsi; the parallel variant shares out (y, z) tiles, the affine variant
// clamps the tile ends with min maps.
// RUN: tensorium-opt --tensorium-emit-kernels="cache-blocking=0 prefetch=0" %s | FileCheck %s --check-prefix=PLAIN
// RUN: tensorium-opt --tensorium-emit-kernels="tile-y=2 tile-z=16 prefetch=0" %s | FileCheck %s --check-prefix=TILED
// RUN: sed 's/"scf"/"parallel"/' %s | tensorium-opt --tensorium-emit-kernels="tile-y=2 tile-z=16 prefetch=0" | FileCheck %s --check-prefix=PARALLEL
// RUN: sed 's/"scf"/"affine"/' %s | tensorium-opt --tensorium-emit-kernels="tile-y=2 tile-z=16 prefetch=0" | FileCheck %s --check-prefix=AFFINE
// RUN: sed 's/"scf"/"parallel"/' %s | tensorium-opt --tensorium-emit-kernels="cache-blocking=0 prefetch=0" | FileCheck %s --check-prefix=PARALLEL-PLAIN

// PLAIN-LABEL: func.func @rhs(
// PLAIN: %[[UX:.*]] = arith.subi %arg0, %c1 : index
// PLAIN: %[[UY:.*]] = arith.subi %arg1, %c2 : index
// PLAIN: %[[UZ:.*]] = arith.subi %arg2, %c1 : index
// PLAIN: scf.for %{{.*}} = %c1 to %[[UX]] step %c1
// PLAIN-NEXT: scf.for %{{.*}} = %c2 to %[[UY]] step %c1
// PLAIN-NEXT: scf.for %{{.*}} = %c1 to %[[UZ]] step %c1
// PLAIN-NOT: arith.minsi

// TILED-LABEL: func.func @rhs(
// TILED: scf.for %[[JB:.*]] = %c2 to %[[UY:.*]] step %c2
// TILED-NEXT: scf.for %[[KB:.*]] = %c1 to %[[UZ:.*]] step %c16
// TILED-NEXT: %[[J2:.*]] = arith.addi %[[JB]], %c2 : index
// TILED-NEXT: %[[JE:.*]] = arith.minsi %[[J2]], %[[UY]] : index
// TILED-NEXT: %[[K2:.*]] = arith.addi %[[KB]], %c16 : index
// TILED-NEXT: %[[KE:.*]] = arith.minsi %[[K2]], %[[UZ]] : index
// TILED-NEXT: scf.for %{{.*}} = %c1 to %{{.*}} step %c1
// TILED-NEXT: scf.for %{{.*}} = %[[JB]] to %[[JE]] step %c1
// TILED-NEXT: scf.for %{{.*}} = %[[KB]] to %[[KE]] step %c1

// PARALLEL-LABEL: func.func @rhs(
// PARALLEL: scf.parallel (%{{.*}}, %{{.*}}) = (%c2, %c1) to (%{{.*}}, %{{.*}}) step (%c2, %c16)

// AFFINE-LABEL: func.func @rhs(
// AFFINE: affine.for %{{.*}} = 2 to #map{{.*}}()[%arg1] step 2
// AFFINE: affine.for %{{.*}} = 1 to #map{{.*}}()[%arg2] step 16
// AFFINE: affine.for %{{.*}} = 1 to #map{{.*}}()[%arg0]
// AFFINE: affine.for %{{.*}} = #map{{.*}}(%{{.*}}) to min #map{{.*}}(%{{.*}})[%arg1]

// PARALLEL-PLAIN-LABEL: func.func @rhs(
// PARALLEL-PLAIN: scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c1, %c2, %c1)
func.func @rhs(%nx: index, %ny: index, %nz: index,
               %u: memref<?xf64> {tensorium.name = "u"},
               %out: memref<?xf64> {tensorium.role = "output", tensorium.name = "rhs_u"})
    attributes {tensorium.plan = "rhs_grid", tensorium.loop = "scf"} {
  %c0 = arith.constant 0 : index
  %a = memref.load %u[%c0] {tensorium.offset = array<i64: -1, 0, 0>} : memref<?xf64>
  %b = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 2, 0>} : memref<?xf64>
  %c = memref.load %u[%c0] {tensorium.offset = array<i64: 0, 0, 1>} : memref<?xf64>
  %s = arith.addf %a, %b : f64
  %r = arith.addf %s, %c : f64
  memref.store %r, %out[%c0] : memref<?xf64>
  return
}
