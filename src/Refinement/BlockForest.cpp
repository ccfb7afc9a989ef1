#include "tensorium_mlir/Refinement/BlockForest.h"
#include "tensorium_mlir/Horizons/SpatialGeometry.h"

#include <p8est_bits.h>
#include <p8est_communication.h>
#include <p8est_extended.h>
#include <p8est_ghost.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace tensorium_mlir::refinement {

namespace {

void initializeLibraries(MPI_Comm comm) {
  static bool done = false;
  if (done)
    return;
  // Quiet: errors come back to us as exceptions, not as p4est's log lines.
  sc_init(comm, 0, 0, nullptr, SC_LP_SILENT);
  p4est_init(nullptr, SC_LP_SILENT);
  done = true;
}

int64_t &slotOf(p8est_quadrant_t *q) { return *static_cast<int64_t *>(q->p.user_data); }

} // namespace

std::array<double, 3> Leaf::lowerRoot() const {
  const double cells = static_cast<double>(int64_t{blockPoints} << level);
  return {static_cast<double>(first[0]) / cells, static_cast<double>(first[1]) / cells,
          static_cast<double>(first[2]) / cells};
}

void lagrangeWeightsAt(double u, int first, int points, double *w) {
  // The uniform-grid weights of the horizon finder's interpolation: its nodes sit at
  // i - (points / 2 - 1), so the position relative to them is u - first - (points / 2 - 1).
  double derivatives[8];
  horizons::lagrangeWeights(points, u - first - (points / 2 - 1), w, derivatives);
}

LagrangeWindow lagrangeWindow(double u, int n, int points) {
  LagrangeWindow w;
  w.points = points;
  w.first = std::clamp(static_cast<int>(std::floor(u - (points - 1) / 2.0 + 0.5)), 0, n - points);
  lagrangeWeightsAt(u, w.first, points, w.weights);
  return w;
}

void validate(const ForestSpec &spec, std::span<const RefinementRegion> regions, int ghostWidth, int interpolationPoints) {
  auto fail = [](const std::string &m) { throw RefinementError(m); };
  const int n = spec.blockPoints;
  if (n < 4 || n % 4 != 0 || n > 128)
    fail("block size " + std::to_string(n) + " must be a multiple of 4 between 4 and 128 points (blocks two levels "
         "apart must share point boundaries)");
  if (ghostWidth < 1 || 2 * ghostWidth > n)
    fail("block size " + std::to_string(n) + " is below twice the ghost width " + std::to_string(ghostWidth) +
         " (the kernel's stencil): a block's ghost layers must lie in its neighbours");
  if (interpolationPoints < 2 || interpolationPoints > 8 || interpolationPoints > n)
    fail("interpolation needs 2 to 8 points per axis and no more than the block size " + std::to_string(n) + "; got " +
         std::to_string(interpolationPoints));
  if (!(spec.rootWidth > 0) || !std::isfinite(spec.rootWidth))
    fail("the root block width must be positive and finite");
  for (int a = 0; a < 3; ++a) {
    if (spec.roots[a] < 1 || spec.roots[a] > 1024)
      fail("root blocks per axis must be between 1 and 1024");
    if (!std::isfinite(spec.lower[a]))
      fail("the domain's lower corner must be finite");
  }
  if (spec.maxLevel < 0 || spec.maxLevel > P8EST_QMAXLEVEL - 1)
    fail("the finest level must be between 0 and " + std::to_string(P8EST_QMAXLEVEL - 1) + "; got " +
         std::to_string(spec.maxLevel));
  const std::array<double, 3> upper = spec.upper();
  for (size_t r = 0; r < regions.size(); ++r) {
    const RefinementRegion &g = regions[r];
    const std::string name = "refinement region " + std::to_string(r + 1);
    if (g.level < 0 || g.level > spec.maxLevel)
      fail(name + " asks for level " + std::to_string(g.level) + ", outside 0.." + std::to_string(spec.maxLevel) +
           " (the finest level of the grid)");
    if (!(g.radius > 0) || !std::isfinite(g.radius))
      fail(name + " needs a positive, finite radius");
    for (int a = 0; a < 3; ++a)
      if (!(g.center[a] > spec.lower[a] && g.center[a] < upper[a])) {
        char text[160];
        std::snprintf(text, sizeof text, " is centred outside the domain [%g, %g] along %c", spec.lower[a], upper[a],
                      "xyz"[a]);
        fail(name + text);
      }
  }
}

double estimatedLeaves(const ForestSpec &spec, std::span<const RefinementRegion> regions) {
  const double roots = static_cast<double>(spec.roots[0]) * spec.roots[1] * spec.roots[2];
  double leaves = roots;
  for (const RefinementRegion &g : regions)
    for (int l = 1; l <= g.level; ++l) {
      const double w = spec.rootWidth / std::ldexp(1.0, l), r = g.radius + 0.5 * w;
      const double inSphere = 4.0 / 3.0 * M_PI * r * r * r / (w * w * w), inDomain = roots * std::ldexp(1.0, 3 * l);
      leaves += std::min(inSphere, inDomain);
    }
  return leaves;
}

struct BlockForest::Impl {
  p8est_connectivity_t *connectivity = nullptr;
  p8est_t *forest = nullptr;
  p8est_ghost_t *ghost = nullptr;
  std::vector<std::array<int64_t, 3>> treeOrigin; // brick position of each tree
  // Rebuilding from a leaf list: every strict ancestor of a listed leaf (level, block index).
  std::set<std::array<int64_t, 4>> ancestors;

  // Regridding state, live only inside adapt().
  std::vector<std::vector<double>> slots;
  int dof = 0, points = 0;
  bool changed = false;
  BlockForest *owner = nullptr;

  Leaf leafOf(p4est_topidx_t tree, const p8est_quadrant_t *q, int n) const {
    Leaf l;
    l.level = q->level;
    l.blockPoints = n;
    const int shift = P8EST_MAXLEVEL - q->level;
    const p4est_qcoord_t c[3] = {q->x, q->y, q->z};
    for (int a = 0; a < 3; ++a)
      l.first[a] = ((treeOrigin[static_cast<size_t>(tree)][a] << q->level) + (c[a] >> shift)) * n;
    return l;
  }
  ~Impl() {
    if (ghost)
      p8est_ghost_destroy(ghost);
    if (forest)
      p8est_destroy(forest);
    if (connectivity)
      p8est_connectivity_destroy(connectivity);
  }
};

namespace {

int refineCallback(p8est_t *p, p4est_topidx_t tree, p8est_quadrant_t *q) {
  auto *impl = static_cast<BlockForest::Impl *>(p->user_pointer);
  const Leaf l = impl->leafOf(tree, q, impl->owner->spec().blockPoints);
  return q->level < impl->owner->requiredLevel(l.lowerRoot(), l.widthRoot()) ? 1 : 0;
}

int refineToLeavesCallback(p8est_t *p, p4est_topidx_t tree, p8est_quadrant_t *q) {
  auto *impl = static_cast<BlockForest::Impl *>(p->user_pointer);
  const int n = impl->owner->spec().blockPoints;
  const Leaf l = impl->leafOf(tree, q, n);
  return impl->ancestors.count({l.level, l.first[0] / n, l.first[1] / n, l.first[2] / n}) ? 1 : 0;
}

int coarsenCallback(p8est_t *p, p4est_topidx_t tree, p8est_quadrant_t *children[]) {
  auto *impl = static_cast<BlockForest::Impl *>(p->user_pointer);
  p8est_quadrant_t parent;
  p8est_quadrant_parent(children[0], &parent);
  const Leaf l = impl->leafOf(tree, &parent, impl->owner->spec().blockPoints);
  return impl->owner->requiredLevel(l.lowerRoot(), l.widthRoot()) <= parent.level ? 1 : 0;
}

/// Fills the points of `to` that lie inside `from` by Lagrange windows of `points` inside
/// `from` (a copy where the levels agree). Data: dof components of n^3 points, z fastest.
void resample(const Leaf &from, const double *source, const Leaf &to, double *target, int dof, int points) {
  const int n = from.blockPoints;
  const double scale = std::ldexp(1.0, from.level - to.level);
  std::array<std::vector<int>, 3> inside;
  std::array<std::vector<LagrangeWindow>, 3> windows;
  for (int a = 0; a < 3; ++a)
    for (int m = 0; m < n; ++m) {
      // Node index of target point m in the source block (source nodes at 0..n-1).
      const double u = (static_cast<double>(to.first[a] + m) + 0.5) * scale - 0.5 - static_cast<double>(from.first[a]);
      if (u < -0.5 || u >= n - 0.5)
        continue;
      inside[a].push_back(m);
      windows[a].push_back(lagrangeWindow(u, n, from.level == to.level ? 1 : points));
    }
  const size_t block = static_cast<size_t>(n) * n * n;
  for (int d = 0; d < dof; ++d) {
    const double *s = source + d * block;
    double *t = target + d * block;
    for (size_t ii = 0; ii < inside[0].size(); ++ii)
      for (size_t jj = 0; jj < inside[1].size(); ++jj)
        for (size_t kk = 0; kk < inside[2].size(); ++kk) {
          const LagrangeWindow &wi = windows[0][ii], &wj = windows[1][jj], &wk = windows[2][kk];
          double sum = 0;
          for (int a = 0; a < wi.points; ++a)
            for (int b = 0; b < wj.points; ++b) {
              const double *row = s + (static_cast<size_t>(wi.first + a) * n + static_cast<size_t>(wj.first + b)) * n;
              double line = 0;
              for (int c = 0; c < wk.points; ++c)
                line += wk.weights[c] * row[wk.first + c];
              sum += wi.weights[a] * wj.weights[b] * line;
            }
          t[(static_cast<size_t>(inside[0][ii]) * n + static_cast<size_t>(inside[1][jj])) * n +
            static_cast<size_t>(inside[2][kk])] = sum;
        }
  }
}

void replaceCallback(p8est_t *p, p4est_topidx_t tree, int outgoingCount, p8est_quadrant_t *outgoing[],
                     int incomingCount, p8est_quadrant_t *incoming[]) {
  auto *impl = static_cast<BlockForest::Impl *>(p->user_pointer);
  const int n = impl->owner->spec().blockPoints;
  const size_t values = static_cast<size_t>(impl->dof) * n * n * n;
  impl->changed = true;
  for (int i = 0; i < incomingCount; ++i) {
    std::vector<double> data(values, 0.0);
    const Leaf to = impl->leafOf(tree, incoming[i], n);
    for (int o = 0; o < outgoingCount; ++o)
      resample(impl->leafOf(tree, outgoing[o], n), impl->slots[static_cast<size_t>(slotOf(outgoing[o]))].data(), to,
               data.data(), impl->dof, impl->points);
    slotOf(incoming[i]) = static_cast<int64_t>(impl->slots.size());
    impl->slots.push_back(std::move(data));
  }
  for (int o = 0; o < outgoingCount; ++o)
    std::vector<double>().swap(impl->slots[static_cast<size_t>(slotOf(outgoing[o]))]);
}

template <class Fn> void forEachLocalQuadrant(p8est_t *p, Fn &&fn) {
  for (p4est_topidx_t t = p->first_local_tree; t <= p->last_local_tree; ++t) {
    p8est_tree_t *tree = p8est_tree_array_index(p->trees, t);
    for (size_t i = 0; i < tree->quadrants.elem_count; ++i)
      fn(t, p8est_quadrant_array_index(&tree->quadrants, i));
  }
}

} // namespace

BlockForest::BlockForest(MPI_Comm comm, const ForestSpec &spec, std::vector<RefinementRegion> regions)
    : comm_(comm), spec_(spec), regions_(std::move(regions)), impl_(std::make_unique<Impl>()) {
  createBrick();
  p8est_refine_ext(impl_->forest, 1, spec_.maxLevel, refineCallback, nullptr, nullptr);
  p8est_balance(impl_->forest, P8EST_CONNECT_FULL, nullptr);
  p8est_partition_ext(impl_->forest, 1, nullptr);
  rebuildLeaves();
}

BlockForest::BlockForest(MPI_Comm comm, const ForestSpec &spec, std::vector<RefinementRegion> regions,
                         std::span<const Leaf> leaves)
    : comm_(comm), spec_(spec), regions_(std::move(regions)), impl_(std::make_unique<Impl>()) {
  const int n = spec_.blockPoints;
  // Every rank holds the same list: a leaf that cannot belong to the spec is refused everywhere.
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Leaf &l = leaves[i];
    bool fits = l.level >= 0 && l.level <= spec_.maxLevel;
    for (int a = 0; a < 3 && fits; ++a)
      fits = l.first[a] >= 0 && l.first[a] % n == 0 && l.first[a] < spec_.pointsAt(l.level, a);
    if (!fits)
      throw RefinementError("leaf " + std::to_string(i) + " (level " + std::to_string(l.level) +
                            ") does not lie on this grid's levels and blocks");
    for (int m = 0; m < l.level; ++m) {
      const int shift = l.level - m;
      impl_->ancestors.insert({m, (l.first[0] / n) >> shift, (l.first[1] / n) >> shift, (l.first[2] / n) >> shift});
    }
  }
  createBrick();
  p8est_refine_ext(impl_->forest, 1, spec_.maxLevel, refineToLeavesCallback, nullptr, nullptr);
  impl_->ancestors.clear();
  p8est_balance(impl_->forest, P8EST_CONNECT_FULL, nullptr);
  p8est_partition_ext(impl_->forest, 1, nullptr);
  rebuildLeaves();
  // The forest must hold exactly the listed leaves (balance may not have added any).
  int same = globalCount_ == static_cast<int64_t>(leaves.size()) ? 1 : 0;
  for (size_t i = 0; same && i < localCount_; ++i) {
    const Leaf &want = leaves[static_cast<size_t>(globalOffset_) + i], &got = leaves_[i];
    same = want.level == got.level && want.first == got.first;
  }
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, comm_);
  if (!same)
    throw RefinementError("the " + std::to_string(leaves.size()) +
                          " leaves listed are not the leaves of a 2:1-balanced forest on this grid (in forest order)");
}

BlockForest::~BlockForest() = default;

void BlockForest::createBrick() {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  initializeLibraries(comm_);
  impl_->owner = this;
  impl_->connectivity = p8est_connectivity_new_brick(spec_.roots[0], spec_.roots[1], spec_.roots[2], spec_.periodic,
                                                     spec_.periodic, spec_.periodic);
  const p8est_connectivity_t *c = impl_->connectivity;
  for (p4est_topidx_t t = 0; t < c->num_trees; ++t) {
    const double *v = c->vertices + 3 * c->tree_to_vertex[8 * t];
    impl_->treeOrigin.push_back({std::llround(v[0]), std::llround(v[1]), std::llround(v[2])});
  }
  impl_->forest = p8est_new_ext(comm_, impl_->connectivity, 0, 0, 1, sizeof(int64_t), nullptr, impl_.get());
}

int BlockForest::requiredLevel(const std::array<double, 3> &lowerRoot, double widthRoot) const {
  int level = 0;
  for (const RefinementRegion &g : regions_) {
    if (g.level <= level)
      continue;
    // Distance from the sphere's centre to the box, in physical units.
    double distance2 = 0;
    for (int a = 0; a < 3; ++a) {
      const double lo = spec_.lower[a] + lowerRoot[a] * spec_.rootWidth, hi = lo + widthRoot * spec_.rootWidth;
      const double d = g.center[a] < lo ? lo - g.center[a] : g.center[a] > hi ? g.center[a] - hi : 0.0;
      distance2 += d * d;
    }
    if (distance2 < g.radius * g.radius)
      level = g.level;
  }
  return level;
}

void BlockForest::rebuildLeaves() {
  if (impl_->ghost)
    p8est_ghost_destroy(impl_->ghost);
  impl_->ghost = p8est_ghost_new(impl_->forest, P8EST_CONNECT_FULL);
  leaves_.clear();
  const int n = spec_.blockPoints;
  forEachLocalQuadrant(impl_->forest, [&](p4est_topidx_t t, p8est_quadrant_t *q) {
    Leaf l = impl_->leafOf(t, q, n);
    l.owner = rank_;
    leaves_.push_back(l);
  });
  localCount_ = leaves_.size();
  const p8est_ghost_t *g = impl_->ghost;
  for (int r = 0; r < size_; ++r)
    for (p4est_locidx_t i = g->proc_offsets[r]; i < g->proc_offsets[r + 1]; ++i) {
      const auto *q = static_cast<const p8est_quadrant_t *>(sc_array_index(const_cast<sc_array_t *>(&g->ghosts), static_cast<size_t>(i)));
      Leaf l = impl_->leafOf(q->p.piggy3.which_tree, q, n);
      l.owner = r;
      l.local = false;
      leaves_.push_back(l);
    }
  globalCount_ = impl_->forest->global_num_quadrants;
  globalOffset_ = impl_->forest->global_first_quadrant[rank_];
}

std::vector<int64_t> BlockForest::leavesPerLevel() const {
  std::vector<int64_t> mine(static_cast<size_t>(spec_.maxLevel) + 1, 0), all(mine.size(), 0);
  for (size_t i = 0; i < localCount_; ++i)
    ++mine[static_cast<size_t>(leaves_[i].level)];
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_SUM, comm_);
  return all;
}

std::vector<size_t> BlockForest::mirrorLeaves() const {
  std::vector<size_t> out;
  const sc_array_t &m = impl_->ghost->mirrors;
  for (size_t i = 0; i < m.elem_count; ++i)
    out.push_back(static_cast<size_t>(
        static_cast<const p8est_quadrant_t *>(sc_array_index(const_cast<sc_array_t *>(&m), i))->p.piggy3.local_num));
  return out;
}

void BlockForest::exchange(const std::vector<const double *> &mirrors, size_t valuesPerLeaf, std::vector<double> &ghosts) {
  ghosts.resize(valuesPerLeaf * (leaves_.size() - localCount_));
  if (size_ == 1)
    return;
  p8est_ghost_exchange_custom(impl_->forest, impl_->ghost, valuesPerLeaf * sizeof(double),
                              reinterpret_cast<void **>(const_cast<double **>(mirrors.data())), ghosts.data());
}

bool BlockForest::adapt(std::vector<RefinementRegion> regions, std::vector<double> &payload, int dof, int interpolationPoints) {
  regions_ = std::move(regions);
  const int n = spec_.blockPoints;
  const size_t values = static_cast<size_t>(dof) * n * n * n;
  if (payload.size() != values * localCount_)
    throw RefinementError("adapt: the payload holds " + std::to_string(payload.size()) + " values, not " +
                          std::to_string(values * localCount_));
  Impl &impl = *impl_;
  impl.dof = dof;
  impl.points = interpolationPoints;
  impl.changed = false;
  impl.slots.clear();
  int64_t slot = 0;
  forEachLocalQuadrant(impl.forest, [&](p4est_topidx_t, p8est_quadrant_t *q) {
    impl.slots.emplace_back(payload.begin() + static_cast<std::ptrdiff_t>(slot * values),
                            payload.begin() + static_cast<std::ptrdiff_t>((slot + 1) * values));
    slotOf(q) = slot++;
  });
  std::vector<double>().swap(payload);
  // One level per call each way: coarsening first (whole families only), then refinement and
  // the balance that refinement may ask for.
  p8est_coarsen_ext(impl.forest, 0, 0, coarsenCallback, nullptr, replaceCallback);
  p8est_refine_ext(impl.forest, 1, spec_.maxLevel, refineCallback, nullptr, replaceCallback);
  p8est_balance_ext(impl.forest, P8EST_CONNECT_FULL, nullptr, replaceCallback);
  std::vector<double> adapted;
  adapted.reserve(values * static_cast<size_t>(impl.forest->local_num_quadrants));
  forEachLocalQuadrant(impl.forest, [&](p4est_topidx_t, p8est_quadrant_t *q) {
    const std::vector<double> &d = impl.slots[static_cast<size_t>(slotOf(q))];
    adapted.insert(adapted.end(), d.begin(), d.end());
  });
  impl.slots.clear();
  int changedHere = impl.changed ? 1 : 0, changed = 0;
  MPI_Allreduce(&changedHere, &changed, 1, MPI_INT, MPI_MAX, comm_);
  const std::vector<p4est_gloidx_t> before(impl.forest->global_first_quadrant,
                                           impl.forest->global_first_quadrant + size_ + 1);
  p8est_partition_ext(impl.forest, 1, nullptr);
  payload.assign(values * static_cast<size_t>(impl.forest->local_num_quadrants), 0.0);
  if (size_ > 1)
    p8est_transfer_fixed(impl.forest->global_first_quadrant, before.data(), comm_, 7301, payload.data(), adapted.data(),
                         values * sizeof(double));
  else
    payload.swap(adapted);
  rebuildLeaves();
  return changed != 0;
}

} // namespace tensorium_mlir::refinement
