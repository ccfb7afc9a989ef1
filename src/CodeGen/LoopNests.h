#pragma once
// The interior loops of stencil kernels: plain i, j, k loops (scf, affine, or scf.parallel
// over the outer axes) and cache-blocked tiles in (y, z) with an x-sweep inside each tile; the
// parallel variant of kernels with a row function maps row tiles to the team (TeamMapping.h).
#include "VectorSteps.h"

#include "tensorium_mlir/CodeGen/MLIRGen.h"

#include <array>

namespace tensorium_mlir::codegen::emission {

/// The z extent of a tile that does not split rows of up to 4096 interior points (the largest
/// explicit tile size), and the rows of a two-pass kernel's tile.
inline constexpr int64_t kMaxTileZ = 4096, kTwoPassTileRows = 4;

/// Tile sizes (y, z) of the cache-blocked loops, or {0, 0} for plain loops. Automatic tiles
/// are 64 points long in z (long enough for the hardware prefetchers to follow each row) and
/// as tall in y as keeps the 2r + 1 x-planes of one tile, over every buffer component the
/// kernel reads, within options.blockingBudgetBytes (at least 4 rows). Kernels with two-pass
/// rows get tiles of 4 whole rows instead.
std::array<int64_t, 2> chooseTile(const KernelPlan &plan, const EmitOptions &options, unsigned width, bool twoPassRows);

/// Where a row of points along z starts and ends: the loops stop at j and a row function is
/// called with (i, j, kBegin, kEnd) when the kernel body lives in a shared row function.
struct RowBounds {
  Value kBegin, kEnd;
};

class LoopNests {
public:
  LoopNests(BodyEmitter &body, VectorSteps &steps, std::array<int64_t, 2> tile)
      : body_(body), steps_(steps), tile_(tile) {}

  bool tiled() const { return tile_[0] > 0; }

  /// The kernel's interior loops over extents (nx, ny, nz): tiled or plain as chosen. Sets ivs
  /// (the step's start on z in vector loops); with `rows`, loops over i and j only and sets
  /// the row's bounds. Returns the outermost loop; the insertion point is inside the innermost.
  mlir::Operation *emit(const Value extents[3], Value ivs[3], RowBounds *rows) {
    return tiled() ? emitTiled(extents, ivs, rows) : emitPlain(extents, ivs, rows);
  }

private:
  mlir::Operation *emitPlain(const Value extents[3], Value ivs[3], RowBounds *rows);
  mlir::Operation *emitTiled(const Value extents[3], Value ivs[3], RowBounds *rows);
  /// The parallel loop over the team's row tiles; sets the tile's first and end (exclusive)
  /// row and its z origin.
  mlir::Operation *emitTeamRowTiles(Value upperY, Value upperZ, int64_t ty, int64_t tz, Value &jb, Value &jEnd,
                                    Value &kb);

  BodyEmitter &body_;
  VectorSteps &steps_;
  std::array<int64_t, 2> tile_;
};

} // namespace tensorium_mlir::codegen::emission
