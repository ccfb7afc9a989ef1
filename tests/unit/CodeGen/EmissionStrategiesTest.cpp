// The emission strategies' decisions, computed without MLIR: the team's row tiles (the same
// formula the parallel kernels emit), tile sizes, scratch blocks of two-pass rows, what the
// first pass computes, and which points are prefetched. Expectations are derived by hand from
// the strategies' documented rules.
#include "KernelEmitter.h"
#include "RhsPlanFromSource.h"
#include "TeamMapping.h"

#include "tensorium_mlir/CodeGen/KernelPlan.h"
#include "tensorium_mlir/Frontend/Frontend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace tensorium_mlir;
using namespace tensorium_mlir::codegen;
using namespace tensorium_mlir::codegen::emission;

namespace {

struct Tile {
  int64_t thread, round, first, end;
};

/// Every tile of the team's loop, in loop order.
template <typename Arithmetic> std::vector<Tile> teamTiles(int64_t firstRow, int64_t rows, int64_t threads, int64_t ty) {
  Arithmetic o;
  const TeamRowTiling<int64_t> m = teamRowTiling(o, rows, threads, ty);
  std::vector<Tile> tiles;
  for (int64_t t = 0; t < m.tiles; ++t) {
    const TeamRowTile<int64_t> tile = teamRowTile(o, m, firstRow, t);
    tiles.push_back({t / m.perThread, t % m.perThread, tile.first, tile.end});
  }
  return tiles;
}

/// What the mapping promises (TeamMapping.h), checked from the tiles alone: every row of
/// [firstRow, firstRow + rows) in exactly one tile; tiles of at most ty rows; the first m of P
/// threads (R = s P + m) get s + 1 rows, the others s; and round r's tiles lie side by side in
/// thread order, right after round r - 1's. Returns what is violated ("" when nothing).
std::string mappingErrors(const std::vector<Tile> &tiles, int64_t firstRow, int64_t rows, int64_t threads, int64_t ty) {
  const int64_t team = std::max<int64_t>(threads, 1);
  std::vector<int> covered(static_cast<size_t>(rows), 0);
  std::vector<int64_t> perThread(static_cast<size_t>(team), 0);
  int64_t rounds = 0;
  for (const Tile &t : tiles) {
    if (t.end < t.first || t.end - t.first > ty)
      return "a tile of " + std::to_string(t.end - t.first) + " rows";
    for (int64_t r = t.first; r < t.end; ++r) {
      if (r < firstRow || r >= firstRow + rows)
        return "row " + std::to_string(r) + " outside the range";
      ++covered[static_cast<size_t>(r - firstRow)];
    }
    if (t.thread < 0 || t.thread >= team)
      return "thread " + std::to_string(t.thread);
    perThread[static_cast<size_t>(t.thread)] += t.end - t.first;
    rounds = std::max(rounds, t.round + 1);
  }
  for (int64_t r = 0; r < rows; ++r)
    if (covered[static_cast<size_t>(r)] != 1)
      return "row " + std::to_string(firstRow + r) + " computed " + std::to_string(covered[static_cast<size_t>(r)]) +
             " times";
  for (int64_t q = 0; q < team; ++q)
    if (perThread[static_cast<size_t>(q)] != rows / team + (q < rows % team ? 1 : 0))
      return "thread " + std::to_string(q) + " has " + std::to_string(perThread[static_cast<size_t>(q)]) + " rows";
  int64_t next = firstRow;
  for (int64_t round = 0; round < rounds; ++round)
    for (int64_t q = 0; q < team; ++q)
      for (const Tile &t : tiles)
        if (t.round == round && t.thread == q) {
          if (t.first != next)
            return "round " + std::to_string(round) + " of thread " + std::to_string(q) + " starts at " +
                   std::to_string(t.first) + ", not " + std::to_string(next);
          next = t.end;
        }
  return "";
}

TEST(TeamMapping, EveryRowOnceInEvenSharesAndSideBySideRounds) {
  for (int64_t rows : {0, 1, 3, 7, 58, 61, 124, 250})
    for (int64_t threads : {1, 2, 3, 5, 8, 16, 64})
      for (int64_t ty : {1, 2, 4, 7}) {
        const auto tiles = teamTiles<IntegerTeamArithmetic>(3, rows, threads, ty);
        EXPECT_EQ(mappingErrors(tiles, 3, rows, threads, ty), "")
            << rows << " rows, " << threads << " threads, tiles of " << ty;
        // K = ceil(ceil(R / P) / ty) tiles per thread.
        const int64_t largest = (rows + threads - 1) / threads;
        EXPECT_EQ(static_cast<int64_t>(tiles.size()), threads * ((largest + ty - 1) / ty));
      }
}

TEST(TeamMapping, SixtyFourCubedOnEightThreads) {
  // 64^3 with radius 3: rows 3..60 (58), 8 threads: 7 each, the first 2 get 8; tiles of 4 rows
  // make 2 per thread, the first round 4 rows each.
  const auto tiles = teamTiles<IntegerTeamArithmetic>(3, 58, 8, 4);
  ASSERT_EQ(tiles.size(), 16u);
  EXPECT_EQ(tiles[0].first, 3);
  EXPECT_EQ(tiles[0].end, 7);   // thread 0, round 0: 4 of its 8 rows
  EXPECT_EQ(tiles[2].first, 7); // thread 1, round 0 follows thread 0's
  EXPECT_EQ(tiles[2].end, 11);
  EXPECT_EQ(tiles[4].first, 11); // thread 2 (7 rows: 3 in round 0)
  EXPECT_EQ(tiles[4].end, 14);
}

/// The formula with one deliberate error (every thread given the smaller height): the
/// property check must reject it.
struct SmallerHeightArithmetic : IntegerTeamArithmetic {
  Index selectLess(Index, Index, Index, Index otherwise) const { return otherwise; }
};

TEST(TeamMapping, ABrokenMappingIsRejected) {
  EXPECT_NE(mappingErrors(teamTiles<SmallerHeightArithmetic>(3, 58, 8, 4), 3, 58, 8, 4), "");
  EXPECT_NE(mappingErrors(teamTiles<SmallerHeightArithmetic>(0, 61, 5, 2), 0, 61, 5, 2), "");
}

/// d_i(f) * g at finite-difference order `order` (radius order / 2).
KernelPlan rhsPlan(unsigned order) {
  const std::string text = "field scalar f\n"
                           "field scalar g\n"
                           "field covector v[i]\n"
                           "simulation {\n"
                           "  coordinates = cartesian\n"
                           "  dimension = 3\n"
                           "  resolution = [16, 16, 16]\n"
                           "  time { dt = 0.01  integrator = rk4 }\n"
                           "  spatial { scheme = fd  derivative = centered  order = " +
                           std::to_string(order) +
                           " }\n"
                           "}\n"
                           "evolution E {\n"
                           "  dt f = g\n"
                           "  dt g = f\n"
                           "  dt v[i] = d_i(f) * g\n"
                           "}\n";
  return rhsPlanFromSource(text, {});
}

int fieldArg(const KernelPlan &plan, const std::string &name) {
  for (size_t i = 0; i < plan.args.size(); ++i)
    if (plan.args[i].role == ArgRole::Field && plan.args[i].name == name)
      return static_cast<int>(i);
  ADD_FAILURE() << "no field argument " << name;
  return -1;
}

TEST(LoopNests, TileSizes) {
  const KernelPlan plan = rhsPlan(4); // radius 2 on every axis; reads f and g
  ASSERT_EQ(plan.radius, (std::array<int, 3>{2, 2, 2}));
  EmitOptions options;
  // 1 MiB over (2 r + 1) planes of (64 + 2 r) points of 2 components: 1048576 / (5 * 68 * 2 * 8)
  // = 192 rows, less the 2 r rows the stencils reach beyond the tile.
  EXPECT_EQ(chooseTile(plan, options, 8, false), (std::array<int64_t, 2>{188, 64}));
  EXPECT_EQ(chooseTile(plan, options, 1, false), (std::array<int64_t, 2>{188, 64}));
  EXPECT_EQ(chooseTile(plan, options, 8, true), (std::array<int64_t, 2>{kTwoPassTileRows, kMaxTileZ}));
  options.blockingBudgetBytes = 1024; // never fewer than 4 rows
  EXPECT_EQ(chooseTile(plan, options, 8, false), (std::array<int64_t, 2>{4, 64}));
  options.tileY = 3;
  options.tileZ = 32;
  EXPECT_EQ(chooseTile(plan, options, 8, true), (std::array<int64_t, 2>{3, 32}));
  options.tileY = options.tileZ = 0;
  options.cacheBlocking = false;
  EXPECT_EQ(chooseTile(plan, options, 8, false), (std::array<int64_t, 2>{0, 0}));
}

TEST(TwoPassRows, ScratchBlocks) {
  // Chunks rounded up to an odd number of 64-byte lines.
  EXPECT_EQ(scratchStride(8), 8);
  EXPECT_EQ(scratchStride(16), 24);
  EXPECT_EQ(scratchStride(128), 136);
  // 256 KiB: 200 values of 136 doubles fit (16 steps); 300 values fit 13 steps of 8 (stride
  // 104), not 14 (stride 120); 5000 values not even one step.
  EXPECT_EQ(scratchSteps(200, 8), 16);
  EXPECT_EQ(scratchSteps(300, 8), 13);
  EXPECT_EQ(scratchSteps(5000, 8), 0);
}

TEST(TwoPassRows, FirstPassComputesEachFieldsStencilsOnly) {
  const KernelPlan plan = rhsPlan(4);
  const int f = fieldArg(plan, "f");
  const StencilValues stencil = findStencilValues(plan);
  // d_x f, d_y f, d_z f: each multiplied by g, so each is a stencil of f alone.
  ASSERT_EQ(stencil.values.size(), 3u);
  ASSERT_EQ(stencil.sources.size(), 3u);
  for (size_t v = 0; v < stencil.values.size(); ++v) {
    EXPECT_EQ(stencil.sources[v], std::make_pair(f, 0));
    std::set<std::pair<int, int>> read;
    bool shifted = false;
    for (NodeId id : plan.graph.topologicalOrder({stencil.values[v]})) {
      const Node &n = plan.graph.node(id);
      if (n.op == NodeOp::Leaf && plan.args[static_cast<size_t>(n.leaf.a)].type == ArgType::Buffer) {
        read.insert({n.leaf.a, n.leaf.b});
        shifted = shifted || n.leaf.offset != std::array<int8_t, 3>{0, 0, 0};
      }
    }
    EXPECT_EQ(read, (std::set<std::pair<int, int>>{{f, 0}}));
    EXPECT_TRUE(shifted);
  }
}

TEST(StencilAddressing, PrefetchedPlanes) {
  const KernelPlan plan = rhsPlan(4);
  const int f = fieldArg(plan, "f"), g = fieldArg(plan, "g");
  // r_x + 1 = 3 planes ahead for f and g; f is read across rows (d_y), so also at y -+ 2.
  std::vector<PrefetchTarget> expected{{f, 0, {3, 0, 0}}, {g, 0, {3, 0, 0}}, {f, 0, {3, -2, 0}}, {f, 0, {3, 2, 0}}};
  if (g < f)
    std::swap(expected[0], expected[1]);
  EXPECT_EQ(readPrefetches(plan, true), expected);
  EXPECT_TRUE(readPrefetches(plan, false).empty());
}

TEST(KernelEmitter, SharedRowBodiesFromTheirSize) {
  const KernelPlan plan = rhsPlan(2);
  EmitOptions options;
  EXPECT_FALSE(wantsRowFunction(plan, options));
  // The boundary: a body of exactly sharedBodyNodes nodes keeps its body, one more shares it.
  std::vector<NodeId> roots;
  for (const KernelStore &s : plan.stores)
    roots.push_back(s.value);
  const size_t nodes = plan.graph.topologicalOrder(roots).size();
  options.sharedBodyNodes = nodes;
  EXPECT_FALSE(wantsRowFunction(plan, options));
  options.sharedBodyNodes = nodes - 1;
  EXPECT_TRUE(wantsRowFunction(plan, options));
}

} // namespace
