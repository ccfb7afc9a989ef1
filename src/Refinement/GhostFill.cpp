#include "tensorium_mlir/Refinement/GhostFill.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace tensorium_mlir::refinement {

namespace {

/// Leaves by level and position (in leaf widths at that level), for point location.
struct LeafKey {
  int level;
  int64_t c[3];
  bool operator==(const LeafKey &o) const {
    return level == o.level && c[0] == o.c[0] && c[1] == o.c[1] && c[2] == o.c[2];
  }
};
struct LeafKeyHash {
  size_t operator()(const LeafKey &k) const {
    uint64_t h = static_cast<uint64_t>(k.level) * 0x9E3779B97F4A7C15ull;
    for (int64_t v : k.c)
      h = (h ^ static_cast<uint64_t>(v)) * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull;
    return static_cast<size_t>(h ^ (h >> 31));
  }
};

int64_t wrap(int64_t i, int64_t n) { return ((i % n) + n) % n; }

void weightsAt(double u, int first, int points, double *w) {
  for (int j = 0; j < points; ++j) {
    double product = 1;
    for (int i = 0; i < points; ++i)
      if (i != j)
        product *= (u - (first + i)) / static_cast<double>(j - i);
    w[j] = product;
  }
}

} // namespace

GhostFillPlan::GhostFillPlan(const ForestSpec &spec, const std::vector<Leaf> &leaves, size_t localCount, int g, int p) {
  const int n = spec.blockPoints;
  const int64_t e = n + 2 * g;
  std::unordered_map<LeafKey, uint32_t, LeafKeyHash> where;
  for (size_t l = 0; l < leaves.size(); ++l)
    where[{leaves[l].level, {leaves[l].first[0] / n, leaves[l].first[1] / n, leaves[l].first[2] / n}}] =
        static_cast<uint32_t>(l);
  // The leaf holding point I of `level` (I inside the domain), searched from `level` outwards.
  auto locate = [&](int level, const int64_t I[3]) -> int64_t {
    const double cells = static_cast<double>(int64_t{n} << level);
    for (int dl : {0, -1, 1, -2, 2}) {
      const int lv = level + dl;
      if (lv < 0 || lv > spec.maxLevel)
        continue;
      LeafKey key{lv, {}};
      for (int a = 0; a < 3; ++a)
        key.c[a] = static_cast<int64_t>(std::floor((static_cast<double>(I[a]) + 0.5) / cells * std::ldexp(1.0, lv)));
      if (auto it = where.find(key); it != where.end())
        return it->second;
    }
    return -1;
  };
  auto stride = [&](size_t leaf, int axis) -> uint32_t {
    const int64_t side = leaf < localCount ? e : n;
    return static_cast<uint32_t>(axis == 0 ? side * side : side);
  };
  auto copyFrom = [&](uint32_t target, size_t targetIndex, size_t leaf, const int64_t I[3]) {
    const Leaf &from = leaves[leaf];
    FillEntry c;
    c.target = target;
    c.source = static_cast<uint32_t>(leaf);
    c.targetIndex = targetIndex;
    c.sourceIndex = static_cast<size_t>((I[0] - from.first[0]) * stride(leaf, 0) + (I[1] - from.first[1]) * stride(leaf, 1) +
                                        (I[2] - from.first[2]));
    return c;
  };
  // Point I of `level` from a window inside `leaf` (any level), shifted to fit the leaf.
  auto windowInLeaf = [&](uint32_t target, size_t targetIndex, size_t leaf, int level, const int64_t I[3]) {
    const Leaf &from = leaves[leaf];
    FillEntry q;
    q.target = target;
    q.source = static_cast<uint32_t>(leaf);
    q.targetIndex = targetIndex;
    q.stride[0] = stride(leaf, 0);
    q.stride[1] = stride(leaf, 1);
    const double scale = std::ldexp(1.0, from.level - level);
    size_t first[3];
    for (int a = 0; a < 3; ++a) {
      const double u = (static_cast<double>(I[a]) + 0.5) * scale - 0.5 - static_cast<double>(from.first[a]);
      const LagrangeWindow w = lagrangeWindow(u, n, p);
      q.points[a] = static_cast<uint8_t>(w.points);
      std::copy_n(w.weights, 8, q.weights[a]);
      first[a] = static_cast<size_t>(w.first);
    }
    q.sourceIndex = first[0] * q.stride[0] + first[1] * q.stride[1] + first[2];
    return q;
  };

  // Coarse buffers reach this far (coarse points) beyond the block: half the ghost width plus
  // half a window, with one to spare.
  const int reach = (g + 1) / 2 + p / 2 + 1;
  const int side = n / 2 + 2 * reach;
  for (size_t b = 0; b < localCount; ++b) {
    const Leaf &k = leaves[b];
    const int level = k.level;
    int64_t bufferId = -1;
    int64_t origin[3] = {0, 0, 0};
    std::vector<int8_t> status; // per buffer point: 0 not needed yet, 1 planned, 2 not available
    for (int i = -g; i < n + g; ++i)
      for (int j = -g; j < n + g; ++j)
        for (int kk = -g; kk < n + g; ++kk) {
          const int m[3] = {i, j, kk};
          if (i >= 0 && i < n && j >= 0 && j < n && kk >= 0 && kk < n)
            continue;
          const size_t targetIndex = static_cast<size_t>(((i + g) * e + (j + g)) * e + (kk + g));
          // The point wrapped across periodic faces or clamped to the nearest point inside the
          // domain (ghosts beyond an outer face copy it, as on the uniform grid); `unwrapped`
          // keeps it beside the block for the coarse buffer.
          int64_t I[3], unwrapped[3];
          for (int a = 0; a < 3; ++a) {
            const int64_t total = spec.pointsAt(level, a);
            I[a] = k.first[a] + m[a];
            I[a] = spec.periodic ? wrap(I[a], total) : std::clamp<int64_t>(I[a], 0, total - 1);
            unwrapped[a] = spec.periodic ? k.first[a] + m[a] : I[a];
          }
          const int64_t found = locate(level, I);
          if (found < 0)
            throw RefinementError("internal: no leaf this rank sees holds a ghost point of a level-" + std::to_string(level) +
                                  " block (the forest is not balanced or the ghost layer is incomplete)");
          const size_t source = static_cast<size_t>(found);
          const int sourceLevel = leaves[source].level;
          if (sourceLevel == level) {
            blocks_.copies.push_back(copyFrom(static_cast<uint32_t>(b), targetIndex, source, I));
            ++counts_.copied;
            continue;
          }
          if (sourceLevel > level) {
            blocks_.interpolations.push_back(windowInLeaf(static_cast<uint32_t>(b), targetIndex, source, level, I));
            ++counts_.restricted;
            continue;
          }
          // Prolongation: a centred window on the coarser lattice, from the block's coarse buffer.
          if (bufferId < 0) {
            bufferId = static_cast<int64_t>(bufferSide_.size());
            bufferSide_.push_back(side);
            for (int a = 0; a < 3; ++a)
              origin[a] = k.first[a] / 2 - reach;
            status.assign(static_cast<size_t>(side) * side * side, 0);
          }
          FillEntry q;
          q.target = static_cast<uint32_t>(b);
          q.source = static_cast<uint32_t>(leaves.size() + static_cast<size_t>(bufferId));
          q.targetIndex = targetIndex;
          q.stride[0] = static_cast<uint32_t>(side * side);
          q.stride[1] = static_cast<uint32_t>(side);
          int first[3];
          for (int a = 0; a < 3; ++a) {
            const double u = (static_cast<double>(unwrapped[a]) + 0.5) / 2 - 0.5 - static_cast<double>(origin[a]);
            first[a] = static_cast<int>(std::floor(u - (p - 1) / 2.0 + 0.5));
            if (!spec.periodic) // stay inside the domain
              first[a] = static_cast<int>(std::clamp<int64_t>(first[a], -origin[a],
                                                              spec.pointsAt(level - 1, a) - origin[a] - p));
            first[a] = std::clamp(first[a], 0, side - p);
            q.points[a] = static_cast<uint8_t>(p);
            weightsAt(u, first[a], p, q.weights[a]);
          }
          bool available = true;
          for (int a = 0; a < p && available; ++a)
            for (int bb = 0; bb < p && available; ++bb)
              for (int c = 0; c < p; ++c) {
                const int node[3] = {first[0] + a, first[1] + bb, first[2] + c};
                const size_t nodeIndex = (static_cast<size_t>(node[0]) * side + static_cast<size_t>(node[1])) * side +
                                         static_cast<size_t>(node[2]);
                int8_t &s = status[nodeIndex];
                if (s == 0) {
                  int64_t J[3];
                  for (int d = 0; d < 3; ++d) {
                    const int64_t total = spec.pointsAt(level - 1, d);
                    J[d] = origin[d] + node[d];
                    J[d] = spec.periodic ? wrap(J[d], total) : J[d];
                  }
                  const int64_t holder = locate(level - 1, J);
                  if (holder < 0) {
                    s = 2;
                  } else {
                    const size_t h = static_cast<size_t>(holder);
                    coarse_.interpolations.push_back(
                        leaves[h].level == level - 1
                            ? copyFrom(static_cast<uint32_t>(bufferId), nodeIndex, h, J)
                            : windowInLeaf(static_cast<uint32_t>(bufferId), nodeIndex, h, level - 1, J));
                    if (leaves[h].level == level - 1) {
                      coarse_.copies.push_back(coarse_.interpolations.back());
                      coarse_.interpolations.pop_back();
                    }
                    s = 1;
                  }
                }
                if (s == 2) {
                  available = false;
                  break;
                }
              }
          if (available) {
            q.sourceIndex = (static_cast<size_t>(first[0]) * side + static_cast<size_t>(first[1])) * side +
                            static_cast<size_t>(first[2]);
            blocks_.interpolations.push_back(q);
            ++counts_.prolonged;
          } else {
            blocks_.interpolations.push_back(windowInLeaf(static_cast<uint32_t>(b), targetIndex, source, level, I));
            ++counts_.oneSided;
          }
        }
  }
}

void executeFill(const FillPhase &phase, std::span<double *const> targets, std::span<const double *const> sources,
                 size_t dof) {
  const long copies = static_cast<long>(phase.copies.size());
  const long interpolations = static_cast<long>(phase.interpolations.size());
  for (size_t d = 0; d < dof; ++d) {
#pragma omp parallel for schedule(static)
    for (long e = 0; e < copies; ++e) {
      const FillEntry &c = phase.copies[static_cast<size_t>(e)];
      targets[c.target * dof + d][c.targetIndex] = sources[c.source * dof + d][c.sourceIndex];
    }
#pragma omp parallel for schedule(static)
    for (long e = 0; e < interpolations; ++e) {
      const FillEntry &q = phase.interpolations[static_cast<size_t>(e)];
      const double *base = sources[q.source * dof + d] + q.sourceIndex;
      double sum = 0;
      for (int a = 0; a < q.points[0]; ++a)
        for (int b = 0; b < q.points[1]; ++b) {
          const double *row = base + a * q.stride[0] + b * q.stride[1];
          double line = 0;
          for (int c = 0; c < q.points[2]; ++c)
            line += q.weights[2][c] * row[c];
          sum += q.weights[0][a] * q.weights[1][b] * line;
        }
      targets[q.target * dof + d][q.targetIndex] = sum;
    }
  }
}

} // namespace tensorium_mlir::refinement
