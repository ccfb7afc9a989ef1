#pragma once
// The parallel team's mapping of row tiles to threads (kernels with a shared row function).
// The tiles are few and heavy (58 rows at 64^3), so fixed tiles leave one thread more rows
// than another; instead every thread of the team gets K tiles of at most ty rows and a share
// of the rows as even as rows allow (of R = s P + m rows, the first m threads get s + 1). The
// tiles go round by round, round r holding every thread's r-th tile side by side in y, so that
// the threads sweep neighbouring rows together and the rows between their tiles come from
// memory once for both (measurements in docs/codegen.md). Tile t is thread t / K's tile t % K
// under the static schedule; any other assignment still computes every row once.
//
// One formula serves two arithmetics: `IntegerTeamArithmetic` computes it (tests, tools), and
// the emitter's arithmetic emits it as index operations, one operation per statement, so that
// the emitted order does not depend on the C++ compiler's order of evaluating arguments.
#include <algorithm>
#include <cstdint>

namespace tensorium_mlir::codegen {

/// The team-wide quantities, computed once before the loop over tiles.
template <typename Index> struct TeamRowTiling {
  Index team;      // threads, at least 1
  Index share;     // s = floor(R / P)
  Index extra;     // m = R - s P: threads with s + 1 rows
  Index perThread; // K = ceil(ceil(R / P) / ty)
  Index tiles;     // K P, the parallel loop's trip count
};

/// One tile: rows [first, end).
template <typename Index> struct TeamRowTile {
  Index first, end;
};

/// The tiling of `rowCount` rows (R >= 0) for `threads` threads in tiles of at most `ty` rows.
template <typename Arithmetic>
TeamRowTiling<typename Arithmetic::Index> teamRowTiling(Arithmetic &o, typename Arithmetic::Index rowCount,
                                                        typename Arithmetic::Index threads, int64_t ty) {
  using Index = typename Arithmetic::Index;
  Index team = o.max(threads, o.constant(1));
  Index share = o.div(rowCount, team);
  Index shared = o.mul(share, team);
  Index extra = o.sub(rowCount, shared);
  // K = ceil(ceil(R / P) / ty): the largest share in tiles of at most ty rows.
  Index roundUp = o.sub(team, o.constant(1));
  Index largestSum = o.add(rowCount, roundUp);
  Index largest = o.div(largestSum, team);
  Index tileSum = o.add(largest, o.constant(ty - 1));
  Index perThread = o.div(tileSum, o.constant(ty));
  Index tiles = o.mul(perThread, team);
  return {team, share, extra, perThread, tiles};
}

/// The rows of tile `t` (0 <= t < tiles), the first row of the range being `firstRow`.
template <typename Arithmetic>
TeamRowTile<typename Arithmetic::Index> teamRowTile(Arithmetic &o, const TeamRowTiling<typename Arithmetic::Index> &m,
                                                    typename Arithmetic::Index firstRow,
                                                    typename Arithmetic::Index t) {
  using Index = typename Arithmetic::Index;
  Index thread = o.div(t, m.perThread);
  Index round = o.rem(t, m.perThread);
  Index nextRound = o.add(round, o.constant(1));
  Index shareUp = o.add(m.share, o.constant(1));
  // Rows of a thread's share of `rows` before round `r`: floor(r rows / K).
  auto before = [&](Index rows, Index r) {
    Index scaled = o.mul(r, rows);
    return o.div(scaled, m.perThread);
  };
  Index upStart = before(shareUp, round);
  Index upEnd = before(shareUp, nextRound);
  Index upHeight = o.sub(upEnd, upStart);
  Index start = before(m.share, round);
  Index end = before(m.share, nextRound);
  Index height = o.sub(end, start);
  // Round r starts after every thread's rows of the rounds before it.
  Index upRows = o.mul(m.extra, upStart);
  Index otherTeam = o.sub(m.team, m.extra);
  Index otherRows = o.mul(otherTeam, start);
  Index roundRows = o.add(upRows, otherRows);
  Index roundStart = o.add(firstRow, roundRows);
  // Within the round, the tiles of the threads before this one.
  Index upBefore = o.min(thread, m.extra);
  Index otherCount = o.sub(thread, m.extra);
  Index otherBefore = o.max(otherCount, o.constant(0));
  Index upOffset = o.mul(upBefore, upHeight);
  Index otherOffset = o.mul(otherBefore, height);
  Index offset = o.add(upOffset, otherOffset);
  Index first = o.add(roundStart, offset);
  Index ownHeight = o.selectLess(thread, m.extra, upHeight, height);
  Index last = o.add(first, ownHeight);
  return {first, last};
}

/// The formula on integers (signed division truncating toward zero, as arith.divsi).
struct IntegerTeamArithmetic {
  using Index = int64_t;
  Index constant(int64_t v) const { return v; }
  Index add(Index x, Index y) const { return x + y; }
  Index sub(Index x, Index y) const { return x - y; }
  Index mul(Index x, Index y) const { return x * y; }
  Index div(Index x, Index y) const { return x / y; }
  Index rem(Index x, Index y) const { return x % y; }
  Index max(Index x, Index y) const { return std::max(x, y); }
  Index min(Index x, Index y) const { return std::min(x, y); }
  /// x < y ? ifLess : otherwise
  Index selectLess(Index x, Index y, Index ifLess, Index otherwise) const { return x < y ? ifLess : otherwise; }
};

} // namespace tensorium_mlir::codegen
