// The lowering pipelines Tensorium_cc runs, from emitted kernels: --tensorium-lower-kernel-loops
// turns a parallel kernel's scf.parallel into an OpenMP worksharing loop (no alloca scope left
// around its body) and affine loops into scf; --tensorium-lower-to-llvm goes on to the LLVM
// dialect, leaving no other dialect's ops.
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=8 tile-y=2 tile-z=16" %S/../CodeGen/Emission/Inputs/laplacian-times-field.mlir | tensorium-opt --tensorium-lower-kernel-loops | FileCheck %s --check-prefix=LOOPS
// RUN: sed 's/"parallel"/"affine"/' %S/../CodeGen/Emission/Inputs/laplacian-times-field.mlir | tensorium-opt --tensorium-emit-kernels="tile-y=2 tile-z=16" --tensorium-lower-kernel-loops | FileCheck %s --check-prefix=AFFINE
// RUN: tensorium-opt --tensorium-emit-kernels="vector-width=8 shared-body-nodes=0 stencil-pass=1 lane-shifts=1" --tensorium-lower-to-llvm %S/../CodeGen/Emission/Inputs/laplacian-times-field.mlir | FileCheck %s --check-prefix=LLVM --implicit-check-not="{{(scf|memref|vector|arith|func|affine|cf)\.[a-z_]+ }}"

// LOOPS-LABEL: func.func @rhs(
// LOOPS: omp.parallel {
// LOOPS: omp.wsloop {
// LOOPS-NEXT: omp.loop_nest
// LOOPS-NOT: memref.alloca_scope
// LOOPS-NOT: scf.parallel
// LOOPS: vector.maskedstore

// AFFINE-LABEL: func.func @rhs(
// AFFINE-NOT: affine.
// AFFINE: scf.for

// LLVM-LABEL: llvm.func internal @__tensorium_rhs_grid_row(
// LLVM-SAME: passthrough = ["noinline", ["probe-stack", "inline-asm"]]
// LLVM: llvm.intr.masked.load
// LLVM: llvm.shufflevector
// LLVM-LABEL: llvm.func @rhs(
// LLVM: omp.parallel
// LLVM: llvm.return
