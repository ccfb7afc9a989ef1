#include "tensorium_mlir/Refinement/RefinedEvolution.h"
#include "tensorium_mlir/Support/Stopwatch.h"
#include "tensorium_mlir/HostABI/GeneratedKernelABI.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace tensorium_mlir::refinement {

namespace {

using support::Stopwatch;

} // namespace

RefinedEvolution::RefinedEvolution(MPI_Comm comm, const KernelModuleTables &module, Options options)
    : comm_(comm), options_(std::move(options)), module_(module) {
  const runtime::GeneratedHostTables &t = module.tables;
  runtime::GeneratedHostStorage probe(t, {1, 1, 1});
  const runtime::KernelBinding *binding = nullptr;
  try {
    binding = &distributed::rhsGridBinding(probe, options_.rhsKernel, options_.params.size());
  } catch (const distributed::DistributedError &e) {
    throw RefinementError(e.what());
  } catch (const runtime::StorageError &e) {
    throw RefinementError(e.what());
  }
  const runtime::KernelBinding &rhs = *binding;
  radius_ = rhs.stencilRadius;
  if (options_.ghostWidth == 0)
    options_.ghostWidth = std::max(radius_, options_.forest.periodic ? 1 : 2);
  if (options_.ghostWidth < radius_)
    throw RefinementError("ghost width " + std::to_string(options_.ghostWidth) + " is smaller than the stencil radius " +
                          std::to_string(radius_) + " of '" + options_.rhsKernel + "'");
  validate(options_.forest, options_.regions, options_.ghostWidth, options_.interpolationPoints);

  try {
    fields_ = distributed::evolvedFields(probe, rhs);
    for (const EvolvedField &f : fields_)
      dof_ += static_cast<int>(f.components);
    distributed::radiativeTables(options_.radiative, fields_, dof_, farValues_, speeds_);
  } catch (const distributed::DistributedError &e) {
    throw RefinementError(e.what());
  }

  // Memory, twice: an estimate of the whole forest's blocks against all the nodes' memory before
  // the forest exists (so that levels that cannot fit never start refining), then the local
  // blocks against each node's. Per block: every buffer of the module per ghosted point, and
  // the RK4 start and accumulator per interior point.
  size_t storageComponents = 0;
  for (const runtime::StorageBuffer &b : probe.buffers())
    storageComponents += b.componentCount;
  const double n = options_.forest.blockPoints, e = n + 2.0 * options_.ghostWidth;
  const double perBlock = 8.0 * (static_cast<double>(storageComponents) * e * e * e + 3.0 * dof_ * n * n * n);
  {
    MPI_Comm node;
    MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nodeRank = 0, leaders = 0;
    MPI_Comm_rank(node, &nodeRank);
    MPI_Comm_free(&node);
    const int leader = nodeRank == 0 ? 1 : 0;
    MPI_Allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, comm_);
    double available = runtime::availableMemoryBytes();
    MPI_Bcast(&available, 1, MPI_DOUBLE, 0, comm_);
    const double leaves = options_.leaves.empty() ? estimatedLeaves(options_.forest, options_.regions)
                                                  : static_cast<double>(options_.leaves.size());
    if (leaves * perBlock > available * leaders) {
      char text[320];
      std::snprintf(text, sizeof text,
                    "the refinement regions ask for about %.3g blocks of %d^3 points, about %.3g GiB, and %d node(s) "
                    "have %.1f GiB each: fewer levels, smaller regions or more nodes",
                    leaves, options_.forest.blockPoints, leaves * perBlock / (1 << 30), leaders,
                    available / (1 << 30));
      throw RefinementError(text);
    }
  }
  forest_ = options_.leaves.empty()
                ? std::make_unique<BlockForest>(comm_, options_.forest, options_.regions)
                : std::make_unique<BlockForest>(comm_, options_.forest, options_.regions, options_.leaves);
  std::vector<Leaf>().swap(options_.leaves); // the forest holds them now
  memoryEstimate_ = static_cast<double>(forest_->localCount()) * perBlock;
  double nodeEstimate = 0;
  MPI_Comm node;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Allreduce(&memoryEstimate_, &nodeEstimate, 1, MPI_DOUBLE, MPI_SUM, node);
  MPI_Comm_free(&node);
  int shortHere = nodeEstimate > runtime::availableMemoryBytes() ? 1 : 0, shortAnywhere = 0;
  MPI_Allreduce(&shortHere, &shortAnywhere, 1, MPI_INT, MPI_MAX, comm_);
  if (shortAnywhere) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "the refined grid (%lld blocks of %d^3 points) needs about %.1f GiB on a node that has %.1f GiB "
                  "available: fewer levels, smaller regions or more nodes",
                  static_cast<long long>(forest_->globalCount()), options_.forest.blockPoints,
                  nodeEstimate / (1 << 30), runtime::availableMemoryBytes() / (1 << 30));
    throw RefinementError(text);
  }
  buildBlocks(nullptr);
}

RefinedEvolution::~RefinedEvolution() = default;

double *RefinedEvolution::packBlock(const Block &k, double *out) const {
  const int n = k.n;
  const size_t points = static_cast<size_t>(k.extent() * k.extent() * k.extent());
  for (const EvolvedField &f : fields_) {
    const double *x = std::as_const(*k.storage).buffer(f.name).data();
    for (unsigned c = 0; c < f.components; ++c)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j, out += n)
          std::copy_n(x + c * points + k.index(i, j, 0), n, out);
  }
  return out;
}

const double *RefinedEvolution::unpackBlock(const double *in, Block &k) const {
  const int n = k.n;
  const size_t points = static_cast<size_t>(k.extent() * k.extent() * k.extent());
  for (const EvolvedField &f : fields_) {
    double *x = k.storage->buffer(f.name).data();
    for (unsigned c = 0; c < f.components; ++c)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j, in += n)
          std::copy_n(in, n, x + c * points + k.index(i, j, 0));
  }
  return in;
}

void RefinedEvolution::setLocalState(std::span<const double> values, double time, long step) {
  const size_t n = static_cast<size_t>(options_.forest.blockPoints);
  if (values.size() != blocks_.size() * static_cast<size_t>(dof_) * n * n * n)
    throw RefinementError("a state of " + std::to_string(values.size()) + " values for " +
                          std::to_string(blocks_.size()) + " local blocks of " + std::to_string(dof_) + " x " +
                          std::to_string(n) + "^3");
  const double *p = values.data();
  for (Block &k : blocks_)
    p = unpackBlock(p, k);
  time_ = time;
  step_ = step;
}

const EvolvedField &RefinedEvolution::field(const std::string &name) const {
  for (const EvolvedField &f : fields_)
    if (f.name == name)
      return f;
  throw RefinementError("no evolved field '" + name + "' in kernel '" + options_.rhsKernel + "'");
}

void RefinedEvolution::buildBlocks(const std::vector<double> *payload) {
  const ForestSpec &s = options_.forest;
  const int n = s.blockPoints, g = options_.ghostWidth;
  const size_t interior = static_cast<size_t>(n) * n * n;
  blocks_.clear();
  blocks_.resize(forest_->localCount());
  for (size_t b = 0; b < blocks_.size(); ++b) {
    Block &k = blocks_[b];
    k.leaf = forest_->leaves()[b];
    k.n = n;
    k.ghost = g;
    k.spacing = s.spacing(k.leaf.level);
    for (int a = 0; a < 3; ++a) {
      k.lower[a] = s.lower[a] + (static_cast<double>(k.leaf.first[a]) + 0.5) * k.spacing;
      if (!s.periodic && (k.leaf.first[a] == 0 || k.leaf.first[a] + n == s.pointsAt(k.leaf.level, a)))
        k.outerFace = true;
    }
    k.storage = std::make_unique<runtime::GeneratedHostStorage>(module_.tables,
                                                                runtime::GridShape{k.extent(), k.extent(), k.extent()});
    if (payload)
      unpackBlock(payload->data() + b * interior * static_cast<size_t>(dof_), k);
  }
  start_.assign(blocks_.size(), std::vector<double>(interior * static_cast<size_t>(dof_)));
  accumulated_.assign(blocks_.size(), std::vector<double>(interior * static_cast<size_t>(dof_)));
  planFill();
}

void RefinedEvolution::planFill() {
  const ForestSpec &s = options_.forest;
  const int n = s.blockPoints, g = options_.ghostWidth;
  plan_ = std::make_unique<GhostFillPlan>(s, forest_->leaves(), forest_->localCount(), g, options_.interpolationPoints);
  size_t bufferValues = 0;
  for (size_t c = 0; c < plan_->coarseBufferCount(); ++c)
    bufferValues += static_cast<size_t>(dof_) * static_cast<size_t>(std::pow(plan_->coarseBufferSide(c), 3));
  coarseValues_.assign(bufferValues, 0.0);
  layers_.clear();
  for (size_t b = 0; b < blocks_.size(); ++b) {
    const Block &k = blocks_[b];
    const int level = k.leaf.level;
    // Outer layers: interior points within the ghost width of a non-periodic face.
    if (!k.outerFace)
      continue;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int kk = 0; kk < n; ++kk) {
          const int m[3] = {i, j, kk};
          LayerPoint r;
          bool layer = false;
          const std::array<double, 3> x = k.coordinate(i, j, kk);
          const double radius = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
          for (int a = 0; a < 3; ++a) {
            const int64_t I = k.leaf.first[a] + m[a], total = s.pointsAt(level, a);
            layer = layer || I < g || I >= total - g;
            r.direction[a] = static_cast<int8_t>(I == 0 ? 1 : I == total - 1 ? -1 : 0);
            r.slope[a] = x[a] / (radius * 2 * k.spacing);
          }
          if (!layer)
            continue;
          r.block = static_cast<uint32_t>(b);
          r.index = k.index(i, j, kk);
          r.inverseRadius = 1 / radius;
          layers_.push_back(r);
        }
  }
}

void RefinedEvolution::initialize(const BlockHook &fill) {
  for (Block &b : blocks_)
    fill(*b.storage, b);
  time_ = 0;
  step_ = 0;
}

void RefinedEvolution::fillGhosts() {
  const int n = options_.forest.blockPoints;
  const size_t interior = static_cast<size_t>(n) * n * n, perLeaf = interior * static_cast<size_t>(dof_);
  const std::vector<Leaf> &leaves = forest_->leaves();
  const size_t ghostLeaves = leaves.size() - forest_->localCount();
  {
    Stopwatch w{timers_.exchange};
    if (forest_->size() > 1) {
      // Mirrors: the interiors of local leaves that other ranks see, packed leaf by leaf.
      const std::vector<size_t> mirrors = forest_->mirrorLeaves();
      mirrorValues_.resize(mirrors.size() * perLeaf);
      std::vector<const double *> pointers;
      for (size_t m = 0; m < mirrors.size(); ++m) {
        pointers.push_back(mirrorValues_.data() + m * perLeaf);
        packBlock(blocks_[mirrors[m]], mirrorValues_.data() + m * perLeaf);
      }
      forest_->exchange(pointers, perLeaf, ghostValues_);
    } else {
      ghostValues_.clear();
    }
  }
  Stopwatch w{timers_.fill};
  // Sources: the leaves' interiors (local blocks in their storage, ghost leaves packed), then
  // the coarse buffers; targets: the coarse buffers (phase 1), the blocks (phase 2).
  const size_t dof = static_cast<size_t>(dof_), buffers = plan_->coarseBufferCount();
  const int g = options_.ghostWidth;
  const int64_t e = n + 2 * g;
  FillAddress source, blockTarget, bufferTarget;
  auto add = [&](FillAddress &a, int64_t offset, int64_t s0, int64_t s1) {
    a.offset.push_back(offset);
    a.stride0.push_back(s0);
    a.stride1.push_back(s1);
  };
  source.base.resize((leaves.size() + buffers) * dof);
  blockTarget.base.resize(blocks_.size() * dof);
  bufferTarget.base.resize(buffers * dof);
  for (size_t b = 0; b < blocks_.size(); ++b) {
    const Block &k = blocks_[b];
    const size_t points = static_cast<size_t>(e * e * e);
    for (const EvolvedField &f : fields_) {
      double *x = k.storage->buffer(f.name).data();
      for (unsigned c = 0; c < f.components; ++c)
        blockTarget.base[b * dof + f.offset + c] = source.base[b * dof + f.offset + c] = x + c * points;
    }
    add(blockTarget, (g * e + g) * e + g, e * e, e);
    add(source, (g * e + g) * e + g, e * e, e);
  }
  for (size_t l = 0; l < ghostLeaves; ++l) {
    for (size_t d = 0; d < dof; ++d)
      source.base[(forest_->localCount() + l) * dof + d] = ghostValues_.data() + (l * dof + d) * interior;
    add(source, 0, static_cast<int64_t>(n) * n, n);
  }
  double *buffer = coarseValues_.data();
  for (size_t c = 0; c < buffers; ++c) {
    const int64_t side = plan_->coarseBufferSide(c);
    for (size_t d = 0; d < dof; ++d, buffer += side * side * side)
      bufferTarget.base[c * dof + d] = source.base[(leaves.size() + c) * dof + d] = buffer;
    add(bufferTarget, 0, side * side, side);
    add(source, 0, side * side, side);
  }
  executeFill(plan_->coarsePhase(), bufferTarget, source, dof, options_.fillOrder);
  executeFill(plan_->blockPhase(), blockTarget, source, dof, options_.fillOrder);
}

void RefinedEvolution::applyRadiative() {
  if (layers_.empty())
    return;
  Stopwatch w{timers_.radiative};
  // The blocks' buffers looked up once, not per point.
  std::vector<const double *> state(blocks_.size());
  std::vector<double *> rate(blocks_.size());
  for (const EvolvedField &f : fields_) {
    for (size_t b = 0; b < blocks_.size(); ++b) {
      state[b] = std::as_const(*blocks_[b].storage).buffer(f.name).data();
      rate[b] = blocks_[b].storage->buffer(f.rhs).data();
    }
    for (unsigned c = 0; c < f.components; ++c) {
      const size_t d = static_cast<size_t>(f.offset) + c;
      const double far = farValues_[d], speed = speeds_[d];
      for (const LayerPoint &r : layers_) {
        const int64_t e = blocks_[r.block].extent(), stride[3] = {e * e, e, 1};
        const size_t at = c * static_cast<size_t>(e * e * e) + r.index;
        const double *u = state[r.block] + at;
        double radial = 0;
        for (int a = 0; a < 3; ++a) {
          const int64_t s1 = stride[a];
          const int dir = r.direction[a];
          radial += r.slope[a] * (dir == 0 ? u[s1] - u[-s1] : dir * (-3 * u[0] + 4 * u[dir * s1] - u[2 * dir * s1]));
        }
        rate[r.block][at] = -speed * (radial + (u[0] - far) * r.inverseRadius);
      }
    }
  }
}

void RefinedEvolution::evaluateRhs(double) {
  fillGhosts();
  {
    Stopwatch w{timers_.kernel};
    const long count = static_cast<long>(blocks_.size());
    std::string failure;
#pragma omp parallel for schedule(dynamic)
    for (long b = 0; b < count; ++b) {
      Block &k = blocks_[static_cast<size_t>(b)];
      try {
        if (preRhs_)
          preRhs_(*k.storage, k);
        k.storage->invoke(module_.adapters, options_.rhsKernel, options_.params, {k.spacing, k.spacing, k.spacing});
      } catch (const std::exception &e) {
#pragma omp critical
        failure = e.what();
      }
    }
    if (!failure.empty())
      throw RefinementError(failure);
  }
  applyRadiative();
  ++timers_.rhsEvaluations;
}

void RefinedEvolution::advance(long steps, double dt) {
  if (!(dt > 0) || !std::isfinite(dt))
    throw RefinementError("time step must be positive and finite");
  const int n = options_.forest.blockPoints;
  // Classical RK4: k_s at u_s = u_0 + a_s dt k_{s-1}; u_1 = u_0 + dt sum b_s k_s.
  const double a[4] = {0, 0.5, 0.5, 1}, weight[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  for (long s = 0; s < steps; ++s) {
    for (int stage = 0; stage < 4; ++stage) {
      if (stage == 0) {
        Stopwatch w{timers_.update};
        const long count = static_cast<long>(blocks_.size());
#pragma omp parallel for schedule(static)
        for (long b = 0; b < count; ++b)
          packBlock(blocks_[static_cast<size_t>(b)], start_[static_cast<size_t>(b)].data());
      }
      evaluateRhs(time_ + a[stage] * dt);
      Stopwatch w{timers_.update};
      const long count = static_cast<long>(blocks_.size());
#pragma omp parallel for schedule(static)
      for (long b = 0; b < count; ++b) {
        Block &k = blocks_[static_cast<size_t>(b)];
        const size_t points = static_cast<size_t>(k.extent() * k.extent() * k.extent());
        const double *u0 = start_[static_cast<size_t>(b)].data();
        double *acc = accumulated_[static_cast<size_t>(b)].data();
        for (const EvolvedField &f : fields_) {
          double *x = k.storage->buffer(f.name).data();
          const double *dx = k.storage->buffer(f.rhs).data();
          for (unsigned c = 0; c < f.components; ++c)
            for (int i = 0; i < n; ++i)
              for (int j = 0; j < n; ++j, u0 += n, acc += n) {
                const size_t row = c * points + k.index(i, j, 0);
                for (int z = 0; z < n; ++z) {
                  const double rate = dx[row + z];
                  acc[z] = stage == 0 ? weight[0] * rate : acc[z] + weight[stage] * rate;
                  x[row + z] = stage < 3 ? u0[z] + a[stage + 1] * dt * rate : u0[z] + dt * acc[z];
                }
              }
        }
      }
    }
    time_ += dt;
    ++step_;
    ++timers_.steps;
    if (postStep_) {
      Stopwatch w{timers_.postStep};
      const long count = static_cast<long>(blocks_.size());
#pragma omp parallel for schedule(static)
      for (long b = 0; b < count; ++b)
        postStep_(blocks_[static_cast<size_t>(b)]);
    }
    checkFinite();
  }
}

void RefinedEvolution::checkFinite() const {
  // The first non-finite value in global leaf order: the lowest rank that has one describes it.
  std::string found;
  for (const Block &k : blocks_) {
    const size_t points = static_cast<size_t>(k.extent() * k.extent() * k.extent());
    for (const EvolvedField &f : fields_) {
      const double *x = std::as_const(*k.storage).buffer(f.name).data();
      for (unsigned c = 0; c < f.components && found.empty(); ++c)
        for (int i = 0; i < k.n && found.empty(); ++i)
          for (int j = 0; j < k.n && found.empty(); ++j)
            for (int z = 0; z < k.n; ++z)
              if (!std::isfinite(x[c * points + k.index(i, j, z)])) {
                const std::array<double, 3> p = k.coordinate(i, j, z);
                char text[256];
                std::snprintf(text, sizeof text, "field %s (component %u) at (%.6g, %.6g, %.6g) on level %d", f.name.c_str(),
                              c, p[0], p[1], p[2], k.leaf.level);
                found = text;
                break;
              }
      if (!found.empty())
        break;
    }
    if (!found.empty())
      break;
  }
  int rank = forest_->rank(), mine = found.empty() ? forest_->size() : rank, first = 0;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_);
  if (first == forest_->size())
    return;
  int length = static_cast<int>(found.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm_);
  found.resize(static_cast<size_t>(length));
  MPI_Bcast(found.data(), length, MPI_CHAR, first, comm_);
  char text[512];
  std::snprintf(text, sizeof text, "the state turned non-finite at t = %.6g (step %ld): %s", time_, step_, found.c_str());
  throw NonFiniteRefinedState(text);
}

std::vector<double> RefinedEvolution::packState() const {
  const size_t n = static_cast<size_t>(options_.forest.blockPoints);
  std::vector<double> out(blocks_.size() * static_cast<size_t>(dof_) * n * n * n);
  double *p = out.data();
  for (const Block &k : blocks_)
    p = packBlock(k, p);
  return out;
}

bool RefinedEvolution::regrid(std::vector<RefinementRegion> regions) {
  validate(options_.forest, regions, options_.ghostWidth, options_.interpolationPoints);
  Stopwatch w{timers_.regrid};
  std::vector<double> payload = packState();
  const bool changed = forest_->adapt(regions, payload, dof_, options_.interpolationPoints);
  options_.regions = std::move(regions);
  ++timers_.regrids;
  if (changed)
    buildBlocks(&payload);
  return changed;
}

namespace {

/// Every rank's values concatenated in rank order on rank 0 (empty elsewhere).
template <class T> std::vector<T> gatherToRoot(const std::vector<T> &mine, MPI_Datatype type, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size)), displacements(static_cast<size_t>(size));
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<T> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r)
      displacements[static_cast<size_t>(r)] = total, total += counts[static_cast<size_t>(r)];
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(mine.data(), count, type, all.data(), counts.data(), displacements.data(), type, 0, comm);
  return all;
}

} // namespace

std::vector<double> RefinedEvolution::gatherOnRoot() const { return gatherToRoot(packState(), MPI_DOUBLE, comm_); }

std::vector<Leaf> RefinedEvolution::gatherLeavesOnRoot() const {
  std::vector<int64_t> mine;
  for (const Block &k : blocks_)
    mine.insert(mine.end(), {k.leaf.level, k.leaf.first[0], k.leaf.first[1], k.leaf.first[2]});
  const std::vector<int64_t> all = gatherToRoot(mine, MPI_INT64_T, comm_);
  std::vector<Leaf> out;
  for (size_t i = 0; i + 3 < all.size(); i += 4) {
    Leaf l;
    l.level = static_cast<int>(all[i]);
    l.first = {all[i + 1], all[i + 2], all[i + 3]};
    l.blockPoints = options_.forest.blockPoints;
    out.push_back(l);
  }
  return out;
}

} // namespace tensorium_mlir::refinement
