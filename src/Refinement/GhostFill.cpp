#include "tensorium_mlir/Refinement/GhostFill.h"

#include <algorithm>
#include <climits>
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

int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// A stretch of one axis (global indices of some level) and how it maps into the domain:
/// shifted by a multiple of the period, or (beyond a non-periodic face) onto the face point.
struct Piece {
  int64_t lo = 0, hi = 0;
  int64_t shift = 0;
  bool constant = false;
  int64_t value = 0;
  int64_t mappedLo() const { return constant ? value : lo + shift; }
  int64_t mappedHi() const { return constant ? value + 1 : hi + shift; }
  int64_t map(int64_t t) const { return constant ? value : t + shift; }
};

std::vector<Piece> splitAxis(int64_t lo, int64_t hi, int64_t total, bool periodic) {
  std::vector<Piece> out;
  for (int64_t a = lo; a < hi;) {
    const int64_t k = floorDiv(a, total), b = std::min(hi, (k + 1) * total);
    Piece p;
    p.lo = a;
    p.hi = b;
    if (k != 0 && !periodic) {
      p.constant = true;
      p.value = k < 0 ? 0 : total - 1;
    } else {
      p.shift = -k * total;
    }
    out.push_back(p);
    a = b;
  }
  return out;
}

struct Box3 {
  int64_t lo[3], hi[3];
};

class Planner {
public:
  Planner(const ForestSpec &spec, const std::vector<Leaf> &leaves, int g, int p)
      : spec_(spec), leaves_(leaves), n_(spec.blockPoints), g_(g), p_(p) {
    for (size_t l = 0; l < leaves.size(); ++l)
      where_[{leaves[l].level, {leaves[l].first[0] / n_, leaves[l].first[1] / n_, leaves[l].first[2] / n_}}] =
          static_cast<uint32_t>(l);
  }

  /// The leaf holding point I of `level` (inside the domain), or -1.
  int64_t locate(int level, const int64_t I[3]) const {
    for (int dl : {0, -1, 1, -2, 2}) {
      const int lv = level + dl;
      if (lv < 0 || lv > spec_.maxLevel)
        continue;
      LeafKey key{lv, {}};
      for (int a = 0; a < 3; ++a)
        key.c[a] = lv >= level ? floorDiv(I[a] << (lv - level), n_) : floorDiv(I[a] >> (level - lv), n_);
      if (auto it = where_.find(key); it != where_.end())
        return it->second;
    }
    return -1;
  }
  /// Extent of a leaf in indices of `level` (exact: n is a multiple of 4).
  Box3 extent(size_t leaf, int level) const {
    const Leaf &l = leaves_[leaf];
    Box3 b;
    for (int a = 0; a < 3; ++a) {
      if (l.level <= level) {
        b.lo[a] = l.first[a] << (level - l.level);
        b.hi[a] = (l.first[a] + n_) << (level - l.level);
      } else {
        b.lo[a] = l.first[a] >> (l.level - level);
        b.hi[a] = (l.first[a] + n_) >> (l.level - level);
      }
    }
    return b;
  }
  /// A box of in-domain indices of `level` cut along leaf boundaries: (leaf or -1, part).
  std::vector<std::pair<int64_t, Box3>> decompose(int level, Box3 box) const {
    std::vector<std::pair<int64_t, Box3>> out;
    std::vector<Box3> stack{box};
    while (!stack.empty()) {
      Box3 b = stack.back();
      stack.pop_back();
      const int64_t leaf = locate(level, b.lo);
      if (leaf < 0) {
        out.push_back({-1, b});
        continue;
      }
      const Box3 e = extent(static_cast<size_t>(leaf), level);
      for (int a = 0; a < 3; ++a)
        if (b.hi[a] > e.hi[a]) {
          Box3 rest = b;
          rest.lo[a] = e.hi[a];
          stack.push_back(rest);
          b.hi[a] = e.hi[a];
        }
      out.push_back({leaf, b});
    }
    return out;
  }
  /// The box [lo, hi) of global indices of `level` (it may cross the domain's faces) cut into
  /// stretches that map into the domain and then along leaf boundaries: fn(pieces per axis, the
  /// leaf or -1, the part in in-domain indices) for each part.
  template <class Fn> void forEachPart(int level, const int64_t lo[3], const int64_t hi[3], Fn &&fn) const {
    std::array<std::vector<Piece>, 3> pieces;
    for (int a = 0; a < 3; ++a)
      pieces[a] = splitAxis(lo[a], hi[a], spec_.pointsAt(level, a), spec_.periodic);
    for (const Piece &px : pieces[0])
      for (const Piece &py : pieces[1])
        for (const Piece &pz : pieces[2]) {
          const Piece *pc[3] = {&px, &py, &pz};
          Box3 mapped;
          for (int a = 0; a < 3; ++a)
            mapped.lo[a] = pc[a]->mappedLo(), mapped.hi[a] = pc[a]->mappedHi();
          for (const auto &[found, part] : decompose(level, mapped))
            fn(pc, found, part);
        }
  }
  /// Whether two leaves' closed boxes meet (across periodic faces too).
  bool touches(size_t a, size_t b) const {
    const int level = std::max(leaves_[a].level, leaves_[b].level);
    const Box3 x = extent(a, level), y = extent(b, level);
    for (int d = 0; d < 3; ++d) {
      const int64_t total = spec_.pointsAt(level, d);
      bool meet = false;
      for (int64_t s : {int64_t{0}, total, -total}) {
        if (s != 0 && !spec_.periodic)
          continue;
        meet = meet || (y.lo[d] + s <= x.hi[d] && x.lo[d] <= y.hi[d] + s);
      }
      if (!meet)
        return false;
    }
    return true;
  }
  /// Window inside `leaf` for global index I (in-domain) of `level`, along axis a.
  AxisWindow inLeaf(size_t leaf, int level, int a, int64_t I) const {
    const Leaf &from = leaves_[leaf];
    AxisWindow w;
    if (from.level == level) {
      w.first = static_cast<int32_t>(I - from.first[a]);
      return w;
    }
    const double u =
        (static_cast<double>(I) + 0.5) * std::ldexp(1.0, from.level - level) - 0.5 - static_cast<double>(from.first[a]);
    const LagrangeWindow l = lagrangeWindow(u, n_, p_);
    w.first = l.first;
    w.points = static_cast<uint8_t>(l.points);
    std::copy_n(l.weights, 8, w.weights);
    return w;
  }

  const ForestSpec &spec_;
  const std::vector<Leaf> &leaves_;
  int n_, g_, p_;
  std::unordered_map<LeafKey, uint32_t, LeafKeyHash> where_;
};

void finishBox(FillBox &box) {
  box.copy = true;
  for (int a = 0; a < 3; ++a)
    for (const AxisWindow &w : box.windows[a])
      box.copy = box.copy && w.points == 1 && w.weights[0] == 1.0;
}

size_t boxPoints(const FillBox &b) {
  return static_cast<size_t>(b.extent[0]) * static_cast<size_t>(b.extent[1]) * static_cast<size_t>(b.extent[2]);
}

} // namespace

GhostFillPlan::GhostFillPlan(const ForestSpec &spec, const std::vector<Leaf> &leaves, size_t localCount, int g, int p) {
  const Planner plan(spec, leaves, g, p);
  const int n = spec.blockPoints;
  const int reach = (g + 1) / 2 + p / 2 + 1;
  const int side = n / 2 + 2 * reach;
  for (size_t b = 0; b < localCount; ++b) {
    const Leaf &k = leaves[b];
    const int level = k.level;
    int64_t bufferId = -1;
    int64_t origin[3] = {0, 0, 0};
    struct Prolonged {
      size_t box;                                 // in blocks_.boxes
      size_t coarse;                              // the coarse leaf
      std::array<std::vector<int64_t>, 3> mapped; // in-domain index per target point, per axis
    };
    std::vector<Prolonged> prolonged;
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          if (dx == 0 && dy == 0 && dz == 0)
            continue;
          const int d[3] = {dx, dy, dz};
          int64_t lo[3], hi[3];
          for (int a = 0; a < 3; ++a) {
            lo[a] = k.first[a] + (d[a] < 0 ? -g : d[a] == 0 ? 0 : n);
            hi[a] = k.first[a] + (d[a] < 0 ? 0 : d[a] == 0 ? n : n + g);
          }
          plan.forEachPart(level, lo, hi, [&](const Piece *const *pc, int64_t found, const Box3 &part) {
            if (found < 0)
              throw RefinementError("internal: no leaf this rank sees holds a ghost point of a level-" +
                                    std::to_string(level) +
                                    " block (the forest is not balanced or the ghost "
                                    "layer is incomplete)");
            const size_t source = static_cast<size_t>(found);
            const int sourceLevel = leaves[source].level;
            FillBox box;
            box.target = static_cast<uint32_t>(b);
            box.source = static_cast<uint32_t>(source);
            Prolonged pro;
            for (int a = 0; a < 3; ++a) {
              // Target points of this part: the preimage of the mapped part.
              const int64_t tlo = pc[a]->constant ? pc[a]->lo : part.lo[a] - pc[a]->shift;
              const int64_t thi = pc[a]->constant ? pc[a]->hi : part.hi[a] - pc[a]->shift;
              box.lower[a] = static_cast<int32_t>(tlo - k.first[a]);
              box.extent[a] = static_cast<int32_t>(thi - tlo);
              for (int64_t t = tlo; t < thi; ++t) {
                const int64_t I = pc[a]->map(t);
                if (sourceLevel >= level) {
                  box.windows[a].push_back(plan.inLeaf(source, level, a, I));
                  continue;
                }
                pro.mapped[a].push_back(I);
                // Prolongation: centred window on the coarse lattice around the block.
                const int64_t unwrapped = pc[a]->constant ? I : t;
                if (bufferId < 0) {
                  bufferId = static_cast<int64_t>(bufferSide_.size());
                  bufferSide_.push_back(side);
                  for (int c = 0; c < 3; ++c)
                    origin[c] = k.first[c] / 2 - reach;
                }
                const double u = (static_cast<double>(unwrapped) + 0.5) / 2 - 0.5 - static_cast<double>(origin[a]);
                int first = static_cast<int>(std::floor(u - (p - 1) / 2.0 + 0.5));
                if (!spec.periodic) // stay inside the domain
                  first = static_cast<int>(
                      std::clamp<int64_t>(first, -origin[a], spec.pointsAt(level - 1, a) - origin[a] - p));
                first = std::clamp(first, 0, side - p);
                AxisWindow w;
                w.first = first;
                w.points = static_cast<uint8_t>(p);
                lagrangeWeightsAt(u, first, p, w.weights);
                box.windows[a].push_back(w);
              }
            }
            if (sourceLevel < level) {
              box.source = static_cast<uint32_t>(leaves.size() + static_cast<size_t>(bufferId));
              pro.box = blocks_.boxes.size();
              pro.coarse = source;
              prolonged.push_back(std::move(pro));
            }
            finishBox(box);
            (sourceLevel == level  ? counts_.copied
             : sourceLevel > level ? counts_.restricted
                                   : counts_.prolonged) += boxPoints(box);
            blocks_.boxes.push_back(std::move(box));
          });
        }
    // The coarse buffer: the points the prolongation windows read (covered by disjoint boxes),
    // cut along leaf boundaries; each part copied from a coarse leaf or restricted from a finer
    // one. A point in a leaf that does not touch the block sends the boxes that read it back to
    // one-sided windows inside the coarse leaf.
    if (prolonged.empty())
      continue;
    auto at = [&](int64_t i, int64_t j, int64_t kk) { return static_cast<size_t>((i * side + j) * side + kk); };
    std::vector<uint8_t> mask(static_cast<size_t>(side) * side * side, 0); // 1 needed, 2 covered, 3 unavailable
    std::vector<Box3> needed;
    for (const Prolonged &pro : prolonged) {
      const FillBox &box = blocks_.boxes[pro.box];
      Box3 r;
      for (int a = 0; a < 3; ++a) {
        r.lo[a] = INT64_MAX;
        r.hi[a] = INT64_MIN;
        for (const AxisWindow &w : box.windows[a]) {
          r.lo[a] = std::min<int64_t>(r.lo[a], w.first);
          r.hi[a] = std::max<int64_t>(r.hi[a], w.first + w.points);
        }
      }
      for (int64_t i = r.lo[0]; i < r.hi[0]; ++i)
        for (int64_t j = r.lo[1]; j < r.hi[1]; ++j)
          for (int64_t kk = r.lo[2]; kk < r.hi[2]; ++kk)
            mask[at(i, j, kk)] = 1;
      needed.push_back(r);
    }
    std::vector<Box3> cover;
    for (int64_t i = 0; i < side; ++i)
      for (int64_t j = 0; j < side; ++j)
        for (int64_t kk = 0; kk < side; ++kk) {
          if (mask[at(i, j, kk)] != 1)
            continue;
          Box3 c{{i, j, kk}, {i + 1, j + 1, kk + 1}};
          while (c.hi[2] < side && mask[at(i, j, c.hi[2])] == 1)
            ++c.hi[2];
          auto rowFree = [&](int64_t x, int64_t y) {
            for (int64_t z = c.lo[2]; z < c.hi[2]; ++z)
              if (mask[at(x, y, z)] != 1)
                return false;
            return true;
          };
          while (c.hi[1] < side && rowFree(i, c.hi[1]))
            ++c.hi[1];
          auto planeFree = [&](int64_t x) {
            for (int64_t y = c.lo[1]; y < c.hi[1]; ++y)
              if (!rowFree(x, y))
                return false;
            return true;
          };
          while (c.hi[0] < side && planeFree(c.hi[0]))
            ++c.hi[0];
          for (int64_t x = c.lo[0]; x < c.hi[0]; ++x)
            for (int64_t y = c.lo[1]; y < c.hi[1]; ++y)
              for (int64_t z = c.lo[2]; z < c.hi[2]; ++z)
                mask[at(x, y, z)] = 2;
          cover.push_back(c);
        }
    for (const Box3 &r : cover) {
      int64_t lo[3], hi[3];
      for (int a = 0; a < 3; ++a)
        lo[a] = origin[a] + r.lo[a], hi[a] = origin[a] + r.hi[a];
      plan.forEachPart(level - 1, lo, hi, [&](const Piece *const *pc, int64_t found, const Box3 &part) {
        int64_t tlo[3], thi[3];
        for (int a = 0; a < 3; ++a)
          tlo[a] = part.lo[a] - pc[a]->shift - origin[a], thi[a] = part.hi[a] - pc[a]->shift - origin[a];
        if (found < 0 || !plan.touches(b, static_cast<size_t>(found))) {
          for (int64_t x = tlo[0]; x < thi[0]; ++x)
            for (int64_t y = tlo[1]; y < thi[1]; ++y)
              for (int64_t z = tlo[2]; z < thi[2]; ++z)
                mask[at(x, y, z)] = 3;
          return;
        }
        FillBox c;
        c.target = static_cast<uint32_t>(bufferId);
        c.source = static_cast<uint32_t>(found);
        for (int a = 0; a < 3; ++a) {
          c.lower[a] = static_cast<int32_t>(tlo[a]);
          c.extent[a] = static_cast<int32_t>(thi[a] - tlo[a]);
          for (int64_t t = tlo[a]; t < thi[a]; ++t)
            c.windows[a].push_back(plan.inLeaf(static_cast<size_t>(found), level - 1, a, pc[a]->map(t + origin[a])));
        }
        finishBox(c);
        coarse_.boxes.push_back(std::move(c));
      });
    }
    for (size_t q = 0; q < prolonged.size(); ++q) {
      const Box3 &r = needed[q];
      bool available = true;
      for (int64_t i = r.lo[0]; i < r.hi[0] && available; ++i)
        for (int64_t j = r.lo[1]; j < r.hi[1] && available; ++j)
          for (int64_t kk = r.lo[2]; kk < r.hi[2]; ++kk)
            if (mask[at(i, j, kk)] == 3) {
              available = false;
              break;
            }
      if (available)
        continue;
      const Prolonged &pro = prolonged[q];
      FillBox &box = blocks_.boxes[pro.box];
      box.source = static_cast<uint32_t>(pro.coarse);
      for (int a = 0; a < 3; ++a)
        for (size_t t = 0; t < box.windows[a].size(); ++t)
          box.windows[a][t] = plan.inLeaf(pro.coarse, level, a, pro.mapped[a][t]);
      const size_t points = boxPoints(box);
      counts_.prolonged -= points;
      counts_.oneSided += points;
    }
  }
  // Boxes of one target stay together (the coarse phase's may overlap: one thread per target).
  std::stable_sort(coarse_.boxes.begin(), coarse_.boxes.end(),
                   [](const FillBox &x, const FillBox &y) { return x.target < y.target; });
}

namespace {

/// Source nodes a box reads along each axis: [lo, lo + span).
void sourceSpan(const FillBox &x, int lo[3], int span[3]) {
  for (int a = 0; a < 3; ++a) {
    int first = INT32_MAX, last = INT32_MIN;
    for (const AxisWindow &w : x.windows[a])
      first = std::min(first, w.first), last = std::max(last, w.first + w.points);
    lo[a] = first;
    span[a] = last - first;
  }
}

void copyBox(const FillBox &x, const double *src, int64_t ss0, int64_t ss1, double *dst, int64_t ts0, int64_t ts1) {
  const int ni = x.extent[0], nj = x.extent[1], nk = x.extent[2];
  const AxisWindow *wx = x.windows[0].data(), *wy = x.windows[1].data(), *wz = x.windows[2].data();
  const int z0 = wz[0].first;
  bool contiguous = true;
  for (int k = 1; k < nk; ++k)
    contiguous = contiguous && wz[k].first == z0 + k;
  for (int i = 0; i < ni; ++i) {
    const double *plane = src + wx[i].first * ss0;
    double *outPlane = dst + (x.lower[0] + i) * ts0 + x.lower[1] * ts1 + x.lower[2];
    for (int j = 0; j < nj; ++j) {
      const double *row = plane + wy[j].first * ss1;
      double *out = outPlane + j * ts1;
      if (contiguous) {
        const double *in = row + z0;
        for (int k = 0; k < nk; ++k)
          out[k] = in[k];
      } else {
        for (int k = 0; k < nk; ++k)
          out[k] = row[wz[k].first];
      }
    }
  }
}

/// out[k] = sum_c w_k[c] in[first_k - shift + c]: each target its own window (a gather); `in`
/// holds the source nodes from index `shift` on.
inline void windowsAlongRow(const AxisWindow *w, int n, const double *in, double *out, int shift = 0) {
  for (int k = 0; k < n; ++k) {
    const AxisWindow &a = w[k];
    const double *p = in + (a.first - shift);
    double sum = a.weights[0] * p[0];
    switch (a.points) { // the common window sizes unrolled, in the same order of additions
    case 6:
      sum += a.weights[1] * p[1];
      sum += a.weights[2] * p[2];
      sum += a.weights[3] * p[3];
      sum += a.weights[4] * p[4];
      sum += a.weights[5] * p[5];
      break;
    case 4:
      sum += a.weights[1] * p[1];
      sum += a.weights[2] * p[2];
      sum += a.weights[3] * p[3];
      break;
    default:
      for (int c = 1; c < a.points; ++c)
        sum += a.weights[c] * p[c];
    }
    out[k] = sum;
  }
}

/// out[k] = sum_c w[c] rows[c * stride + k] for k < n: one window for a whole row (vectorises).
inline void windowAcrossRows(const AxisWindow &w, const double *rows, int64_t stride, int n, double *out) {
  for (int k = 0; k < n; ++k)
    out[k] = w.weights[0] * rows[k];
  for (int c = 1; c < w.points; ++c) {
    const double *row = rows + c * stride;
    const double weight = w.weights[c];
    for (int k = 0; k < n; ++k)
      out[k] += weight * row[k];
  }
}

/// Interpolation along z first (a gather per source row), then y, then x (whole rows).
void interpolateZFirst(const FillBox &x, const int lo[3], const int span[3], const double *src, int64_t ss0, int64_t ss1,
                       double *dst, int64_t ts0, int64_t ts1, std::vector<double> &tmp1, std::vector<double> &tmp2) {
  const int ni = x.extent[0], nj = x.extent[1], nk = x.extent[2];
  const AxisWindow *wx = x.windows[0].data(), *wy = x.windows[1].data(), *wz = x.windows[2].data();
  const int nx = span[0], ny = span[1];
  tmp1.resize(static_cast<size_t>(nx) * ny * nk);
  for (int a = 0; a < nx; ++a)
    for (int b = 0; b < ny; ++b)
      windowsAlongRow(wz, nk, src + (lo[0] + a) * ss0 + (lo[1] + b) * ss1,
                      tmp1.data() + (static_cast<size_t>(a) * ny + b) * nk);
  tmp2.resize(static_cast<size_t>(nx) * nj * nk);
  for (int a = 0; a < nx; ++a)
    for (int j = 0; j < nj; ++j)
      windowAcrossRows(wy[j], tmp1.data() + (static_cast<size_t>(a) * ny + (wy[j].first - lo[1])) * nk, nk, nk,
                       tmp2.data() + (static_cast<size_t>(a) * nj + j) * nk);
  const int64_t plane = static_cast<int64_t>(nj) * nk;
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < nj; ++j)
      windowAcrossRows(wx[i], tmp2.data() + (wx[i].first - lo[0]) * plane + static_cast<int64_t>(j) * nk, plane, nk,
                       dst + (x.lower[0] + i) * ts0 + (x.lower[1] + j) * ts1 + x.lower[2]);
}

/// Interpolation along x first and y next (whole source rows along z, which vectorise), the
/// gather along z last, on the targets only: cheaper for every box that is not thin along z.
void interpolateXFirst(const FillBox &x, const int lo[3], const int span[3], const double *src, int64_t ss0, int64_t ss1,
                       double *dst, int64_t ts0, int64_t ts1, std::vector<double> &tmp1, std::vector<double> &tmp2) {
  const int ni = x.extent[0], nj = x.extent[1], nk = x.extent[2];
  const AxisWindow *wx = x.windows[0].data(), *wy = x.windows[1].data(), *wz = x.windows[2].data();
  const int ny = span[1], nz = span[2];
  tmp1.resize(static_cast<size_t>(ni) * ny * nz);
  for (int i = 0; i < ni; ++i)
    for (int b = 0; b < ny; ++b)
      windowAcrossRows(wx[i], src + wx[i].first * ss0 + (lo[1] + b) * ss1 + lo[2], ss0, nz,
                       tmp1.data() + (static_cast<size_t>(i) * ny + b) * nz);
  tmp2.resize(static_cast<size_t>(nz));
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < nj; ++j) {
      windowAcrossRows(wy[j], tmp1.data() + (static_cast<size_t>(i) * ny + (wy[j].first - lo[1])) * nz, nz, nz,
                       tmp2.data());
      // The z windows index the source; tmp2 starts at source node lo[2].
      double *out = dst + (x.lower[0] + i) * ts0 + (x.lower[1] + j) * ts1 + x.lower[2];
      windowsAlongRow(wz, nk, tmp2.data(), out, lo[2]);
    }
}

void applyBox(const FillBox &x, const double *src, int64_t ss0, int64_t ss1, double *dst, int64_t ts0, int64_t ts1,
              std::vector<double> &tmp1, std::vector<double> &tmp2, FillPassOrder order) {
  if (x.copy) {
    copyBox(x, src, ss0, ss1, dst, ts0, ts1);
    return;
  }
  int lo[3], span[3];
  sourceSpan(x, lo, span);
  bool xFirst = false;
  if (order == FillPassOrder::ByShape) {
    // Multiply-adds of each order, the gathers (scalar) counted twice against whole rows.
    const double ni = x.extent[0], nj = x.extent[1], nk = x.extent[2];
    const double zFirst = 2 * span[0] * span[1] * nk + span[0] * nj * nk + ni * nj * nk;
    const double xFirstCost = ni * span[1] * span[2] + ni * nj * span[2] + 2 * ni * nj * nk;
    xFirst = xFirstCost < zFirst;
  }
  if (xFirst)
    interpolateXFirst(x, lo, span, src, ss0, ss1, dst, ts0, ts1, tmp1, tmp2);
  else
    interpolateZFirst(x, lo, span, src, ss0, ss1, dst, ts0, ts1, tmp1, tmp2);
}

} // namespace

void executeFill(const FillPhase &phase, const FillAddress &targets, const FillAddress &sources, size_t dof,
                 FillPassOrder order) {
  // Boxes of one target are contiguous: one thread takes them all, one component at a time.
  std::vector<size_t> groups;
  for (size_t i = 0; i < phase.boxes.size(); ++i)
    if (i == 0 || phase.boxes[i].target != phase.boxes[i - 1].target)
      groups.push_back(i);
  groups.push_back(phase.boxes.size());
  const long count = static_cast<long>(groups.size()) - 1;
#pragma omp parallel
  {
    std::vector<double> tmp1, tmp2;
#pragma omp for schedule(dynamic)
    for (long g = 0; g < count; ++g)
      for (size_t d = 0; d < dof; ++d)
        for (size_t i = groups[static_cast<size_t>(g)]; i < groups[static_cast<size_t>(g) + 1]; ++i) {
          const FillBox &x = phase.boxes[i];
          const double *src = sources.base[x.source * dof + d] + sources.offset[x.source];
          double *dst = targets.base[x.target * dof + d] + targets.offset[x.target];
          applyBox(x, src, sources.stride0[x.source], sources.stride1[x.source], dst, targets.stride0[x.target],
                   targets.stride1[x.target], tmp1, tmp2, order);
        }
  }
}

} // namespace tensorium_mlir::refinement
