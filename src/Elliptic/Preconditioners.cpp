#include "tensorium_mlir/Elliptic/Preconditioners.h"

#include <stdexcept>

namespace tensorium_mlir::elliptic {

const char *preconditionerName(SpectralPreconditionerKind kind) {
  switch (kind) {
  case SpectralPreconditionerKind::None: return "none";
  case SpectralPreconditionerKind::DiagonalJVP: return "diagonal-jvp";
  case SpectralPreconditionerKind::DenseLaplacianShift: return "dense-laplacian-shift";
  case SpectralPreconditionerKind::ModalLaplacianShift: return "modal-laplacian-shift";
  case SpectralPreconditionerKind::MappedFiniteDifferenceLaplacianShift: return "mapped-fd-laplacian-shift";
  case SpectralPreconditionerKind::MappedFiniteDifferenceMultigrid: return "mapped-fd-multigrid";
  case SpectralPreconditionerKind::FourierModeFiniteDifference: return "fourier-mode-fd";
  }
  return "none";
}

SpectralPreconditionerKind parsePreconditioner(const std::string &name) {
  for (SpectralPreconditionerKind k : {SpectralPreconditionerKind::None, SpectralPreconditionerKind::DiagonalJVP,
                                       SpectralPreconditionerKind::DenseLaplacianShift,
                                       SpectralPreconditionerKind::ModalLaplacianShift,
                                       SpectralPreconditionerKind::MappedFiniteDifferenceLaplacianShift,
                                       SpectralPreconditionerKind::MappedFiniteDifferenceMultigrid,
                                       SpectralPreconditionerKind::FourierModeFiniteDifference})
    if (name == preconditionerName(k))
      return k;
  throw std::invalid_argument("unknown preconditioner '" + name +
                              "' (none, diagonal-jvp, dense-laplacian-shift, modal-laplacian-shift, "
                              "mapped-fd-laplacian-shift, mapped-fd-multigrid, fourier-mode-fd)");
}

LinearOperator makeDiagonalJvpPreconditioner(const std::function<void(const Vector &, Vector &)> &jvp, Eigen::Index n) {
  auto diagonal = std::make_shared<Vector>(n);
  Vector e = Vector::Zero(n), column(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    e(i) = 1.0;
    jvp(e, column);
    e(i) = 0.0;
    double d = column(i);
    (*diagonal)(i) = d != 0.0 && std::isfinite(d) ? d : 1.0;
  }
  return [diagonal](const Vector &x, Vector &y) { y = x.cwiseQuotient(*diagonal); };
}

LinearOperator makeDenseLaplacianShiftPreconditioner(const spectral::SpectralGrid3D &grid, double shift,
                                                     const std::vector<char> &boundaryMask, int blocks) {
  const Eigen::Index N = static_cast<Eigen::Index>(grid.size());
  if (!boundaryMask.empty() && static_cast<Eigen::Index>(boundaryMask.size()) != N)
    throw std::invalid_argument("boundary mask size differs from the grid size");
  // laplacian = D2_0 (x) I (x) I + I (x) D2_1 (x) I + I (x) I (x) D2_2 for row-major flat indices.
  std::array<int, 3> n = grid.extents();
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(N, N);
  for (int i = 0; i < n[0]; ++i)
    for (int j = 0; j < n[1]; ++j)
      for (int k = 0; k < n[2]; ++k) {
        Eigen::Index row = static_cast<Eigen::Index>(grid.index(i, j, k));
        for (int m = 0; m < n[0]; ++m)
          L(row, static_cast<Eigen::Index>(grid.index(m, j, k))) += grid.axis(0).secondDerivative()(i, m);
        for (int m = 0; m < n[1]; ++m)
          L(row, static_cast<Eigen::Index>(grid.index(i, m, k))) += grid.axis(1).secondDerivative()(j, m);
        for (int m = 0; m < n[2]; ++m)
          L(row, static_cast<Eigen::Index>(grid.index(i, j, m))) += grid.axis(2).secondDerivative()(k, m);
        L(row, row) += shift;
      }
  for (Eigen::Index p = 0; p < static_cast<Eigen::Index>(boundaryMask.size()); ++p)
    if (boundaryMask[static_cast<size_t>(p)]) {
      L.row(p).setZero();
      L(p, p) = 1.0;
    }
  auto lu = std::make_shared<Eigen::PartialPivLU<Eigen::MatrixXd>>(L);
  return [lu, N, blocks](const Vector &x, Vector &y) {
    y.resize(x.size());
    for (int b = 0; b < blocks; ++b)
      y.segment(b * N, N) = lu->solve(x.segment(b * N, N));
  };
}

LinearOperator makeModalLaplacianShiftPreconditioner(const spectral::SpectralGrid3D &grid, double shift,
                                                     const std::vector<char> &boundaryMask, int blocks) {
  const spectral::SpectralAxis &z = grid.axis(2);
  if (!z.isPeriodic())
    throw std::invalid_argument("the modal Laplacian preconditioner needs a Fourier third axis");
  const std::array<int, 3> n = grid.extents();
  const Eigen::Index plane = static_cast<Eigen::Index>(n[0]) * n[1], N = plane * n[2];
  if (!boundaryMask.empty() && static_cast<Eigen::Index>(boundaryMask.size()) != N)
    throw std::invalid_argument("boundary mask size differs from the grid size");
  std::vector<char> planeMask(static_cast<size_t>(plane), 0);
  for (int i = 0; i < n[0]; ++i)
    for (int j = 0; j < n[1]; ++j) {
      size_t q = static_cast<size_t>(i) * static_cast<size_t>(n[1]) + static_cast<size_t>(j);
      char first = boundaryMask.empty() ? 0 : boundaryMask[grid.index(i, j, 0)];
      for (int k = 1; k < n[2] && !boundaryMask.empty(); ++k)
        if (boundaryMask[grid.index(i, j, k)] != first)
          throw std::invalid_argument("the modal Laplacian preconditioner needs a boundary mask constant along axis 2");
      planeMask[q] = first;
    }
  // Eigenvalue of d^2/dz^2 for each real Fourier coefficient (layout a0, a1, b1, ..., [a_{n/2}]).
  const double wave = 2.0 * 3.14159265358979323846 / z.period();
  std::vector<double> lambda(static_cast<size_t>(n[2]));
  for (int m = 0; m < n[2]; ++m) {
    int k = (m + 1) / 2;
    lambda[static_cast<size_t>(m)] = -(wave * k) * (wave * k);
  }
  // The 2-D collocation Laplacian over axes 0 and 1 on one z-plane.
  Eigen::MatrixXd L2 = Eigen::MatrixXd::Zero(plane, plane);
  for (int i = 0; i < n[0]; ++i)
    for (int j = 0; j < n[1]; ++j) {
      Eigen::Index row = static_cast<Eigen::Index>(i) * n[1] + j;
      for (int m = 0; m < n[0]; ++m)
        L2(row, static_cast<Eigen::Index>(m) * n[1] + j) += grid.axis(0).secondDerivative()(i, m);
      for (int m = 0; m < n[1]; ++m)
        L2(row, static_cast<Eigen::Index>(i) * n[1] + m) += grid.axis(1).secondDerivative()(j, m);
    }
  auto factors = std::make_shared<std::vector<Eigen::PartialPivLU<Eigen::MatrixXd>>>();
  for (int m = 0; m < n[2]; ++m) {
    Eigen::MatrixXd A = L2;
    A.diagonal().array() += lambda[static_cast<size_t>(m)] + shift;
    for (Eigen::Index q = 0; q < plane; ++q)
      if (planeMask[static_cast<size_t>(q)]) {
        A.row(q).setZero();
        A(q, q) = 1.0;
      }
    factors->emplace_back(A);
  }
  const Eigen::MatrixXd analysis = z.analysisMatrix(), synthesis = z.synthesisMatrix();
  const int nz = n[2];
  return [factors, analysis, synthesis, plane, N, nz, blocks](const Vector &x, Vector &y) {
    y.resize(x.size());
    for (int b = 0; b < blocks; ++b) {
      // Flat storage is (plane index) * nz + k: view one block as a plane x nz matrix.
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> in(x.data() + b * N, plane, nz);
      Eigen::MatrixXd modes = in * analysis.transpose(); // plane x nz coefficients
      for (int m = 0; m < nz; ++m)
        modes.col(m) = (*factors)[static_cast<size_t>(m)].solve(modes.col(m));
      Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> out(y.data() + b * N, plane, nz);
      out = modes * synthesis.transpose();
    }
  };
}

MappedFiniteDifferenceOperator::MappedFiniteDifferenceOperator(const spectral::SpectralGrid3D &grid, double shift,
                                                               const std::vector<char> &boundaryMask,
                                                               const std::vector<double> &reaction) {
  const size_t N = grid.size();
  if (!boundaryMask.empty() && boundaryMask.size() != N)
    throw std::invalid_argument("boundary mask size differs from the grid size");
  if (!reaction.empty() && reaction.size() != N)
    throw std::invalid_argument("reaction term size differs from the grid size");
  diagonal_.assign(N, 0.0);
  offDiagonal_.assign(6 * N, 0.0);
  neighbour_.assign(6 * N, -1);
  const std::array<int, 3> n = grid.extents();
  for (int i = 0; i < n[0]; ++i)
    for (int j = 0; j < n[1]; ++j)
      for (int k = 0; k < n[2]; ++k) {
        const size_t p = grid.index(i, j, k);
        if (!boundaryMask.empty() && boundaryMask[p]) {
          diagonal_[p] = 1.0;
          continue;
        }
        const int idx[3] = {i, j, k};
        // Metric of the map at this point, probed through the derivative map: for the logical
        // coordinate q_a, the physical bundle of q_a gives grad q_a and laplacian q_a.
        double g[3], h[3];
        for (int a = 0; a < 3; ++a) {
          std::array<double, 10> bundle{};
          bundle[0] = grid.logicalPoint(p)[static_cast<size_t>(a)];
          bundle[1 + static_cast<size_t>(a)] = 1.0;
          grid.applyDerivativeMap(p, bundle);
          g[a] = bundle[1] * bundle[1] + bundle[2] * bundle[2] + bundle[3] * bundle[3];
          h[a] = bundle[4] + bundle[7] + bundle[9];
        }
        double center = shift + (reaction.empty() ? 0.0 : reaction[p]);
        for (int a = 0; a < 3; ++a) {
          const spectral::SpectralAxis &axis = grid.axis(a);
          const std::vector<double> &x = axis.points();
          const int m = n[a], at = idx[a];
          int lo = at - 1, hi = at + 1;
          double xl, xh;
          if (axis.isPeriodic()) {
            if (m < 3)
              continue;
            xl = x[static_cast<size_t>(at)] - (x[1] - x[0]);
            xh = x[static_cast<size_t>(at)] + (x[1] - x[0]);
            lo = (lo + m) % m;
            hi = hi % m;
          } else {
            if (lo < 0 || hi >= m)
              continue; // an unmasked end point: drop this axis (no ghost values)
            xl = x[static_cast<size_t>(lo)];
            xh = x[static_cast<size_t>(hi)];
          }
          const double xc = x[static_cast<size_t>(at)], hm = xc - xl, hp = xh - xc;
          // Three-point second and first derivative weights on a non-uniform grid.
          const double w2m = 2 / (hm * (hm + hp)), w2c = -2 / (hm * hp), w2p = 2 / (hp * (hm + hp));
          const double w1m = -hp / (hm * (hm + hp)), w1c = (hp - hm) / (hm * hp), w1p = hm / (hp * (hm + hp));
          int nbLo[3] = {i, j, k}, nbHi[3] = {i, j, k};
          nbLo[a] = lo;
          nbHi[a] = hi;
          offDiagonal_[6 * p + 2 * static_cast<size_t>(a)] = g[a] * w2m + h[a] * w1m;
          offDiagonal_[6 * p + 2 * static_cast<size_t>(a) + 1] = g[a] * w2p + h[a] * w1p;
          neighbour_[6 * p + 2 * static_cast<size_t>(a)] = static_cast<int64_t>(grid.index(nbLo[0], nbLo[1], nbLo[2]));
          neighbour_[6 * p + 2 * static_cast<size_t>(a) + 1] = static_cast<int64_t>(grid.index(nbHi[0], nbHi[1], nbHi[2]));
          center += g[a] * w2c + h[a] * w1c;
        }
        diagonal_[p] = center != 0.0 ? center : 1.0;
      }
}

void MappedFiniteDifferenceOperator::apply(const Vector &x, Vector &y) const {
  const size_t N = size();
  y.resize(static_cast<Eigen::Index>(N));
  for (size_t p = 0; p < N; ++p) {
    double sum = diagonal_[p] * x(static_cast<Eigen::Index>(p));
    for (size_t s = 0; s < 6; ++s)
      if (neighbour_[6 * p + s] >= 0)
        sum += offDiagonal_[6 * p + s] * x(neighbour_[6 * p + s]);
    y(static_cast<Eigen::Index>(p)) = sum;
  }
}

void MappedFiniteDifferenceOperator::relax(const Vector &b, Vector &x, int sweeps) const {
  x = Vector::Zero(static_cast<Eigen::Index>(size()));
  smooth(b, x, sweeps);
}

void MappedFiniteDifferenceOperator::lineSmooth(const spectral::SpectralGrid3D &grid, const Vector &b, Vector &x,
                                                int sweeps) const {
  const std::array<int, 3> n = grid.extents();
  std::vector<double> lower, diag, upper, rhs;
  auto solveLine = [&](int axis, int f0, int f1) {
    // The line along `axis` through the other two indices (f0, f1), in axis-index order.
    const int m = n[static_cast<size_t>(axis)];
    lower.assign(static_cast<size_t>(m), 0.0);
    diag.assign(static_cast<size_t>(m), 0.0);
    upper.assign(static_cast<size_t>(m), 0.0);
    rhs.assign(static_cast<size_t>(m), 0.0);
    std::vector<size_t> rows(static_cast<size_t>(m));
    for (int t = 0; t < m; ++t) {
      int idx[3];
      idx[axis] = t;
      idx[(axis + 1) % 3] = f0;
      idx[(axis + 2) % 3] = f1;
      rows[static_cast<size_t>(t)] = grid.index(idx[0], idx[1], idx[2]);
    }
    for (int t = 0; t < m; ++t) {
      const size_t p = rows[static_cast<size_t>(t)];
      double r = b(static_cast<Eigen::Index>(p));
      for (size_t slot = 0; slot < 6; ++slot) {
        int64_t q = neighbour_[6 * p + slot];
        if (q < 0)
          continue;
        bool onLine = slot / 2 == static_cast<size_t>(axis);
        if (onLine && slot % 2 == 0 && t > 0 && static_cast<size_t>(q) == rows[static_cast<size_t>(t - 1)])
          lower[static_cast<size_t>(t)] = offDiagonal_[6 * p + slot];
        else if (onLine && slot % 2 == 1 && t + 1 < m && static_cast<size_t>(q) == rows[static_cast<size_t>(t + 1)])
          upper[static_cast<size_t>(t)] = offDiagonal_[6 * p + slot];
        else
          r -= offDiagonal_[6 * p + slot] * x(q);
      }
      diag[static_cast<size_t>(t)] = diagonal_[p];
      rhs[static_cast<size_t>(t)] = r;
    }
    // Thomas algorithm.
    for (int t = 1; t < m; ++t) {
      double w = lower[static_cast<size_t>(t)] / diag[static_cast<size_t>(t - 1)];
      diag[static_cast<size_t>(t)] -= w * upper[static_cast<size_t>(t - 1)];
      rhs[static_cast<size_t>(t)] -= w * rhs[static_cast<size_t>(t - 1)];
    }
    double next = 0.0;
    for (int t = m - 1; t >= 0; --t) {
      double v = (rhs[static_cast<size_t>(t)] - (t + 1 < m ? upper[static_cast<size_t>(t)] * next : 0.0)) /
                 diag[static_cast<size_t>(t)];
      x(static_cast<Eigen::Index>(rows[static_cast<size_t>(t)])) = v;
      next = v;
    }
  };
  for (int sweep = 0; sweep < sweeps; ++sweep)
    for (int direction = 0; direction < 2; ++direction)
      for (int axis = 0; axis < 3; ++axis) {
        if (grid.axis(axis).isPeriodic())
          continue;
        const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
        for (int s0 = 0; s0 < n[static_cast<size_t>(a1)]; ++s0)
          for (int s1 = 0; s1 < n[static_cast<size_t>(a2)]; ++s1) {
            int f0 = direction == 0 ? s0 : n[static_cast<size_t>(a1)] - 1 - s0;
            int f1 = direction == 0 ? s1 : n[static_cast<size_t>(a2)] - 1 - s1;
            solveLine(axis, f0, f1);
          }
      }
}

void MappedFiniteDifferenceOperator::smooth(const Vector &b, Vector &x, int sweeps) const {
  const size_t N = size();
  auto update = [&](size_t p) {
    double sum = b(static_cast<Eigen::Index>(p));
    for (size_t s = 0; s < 6; ++s)
      if (neighbour_[6 * p + s] >= 0)
        sum -= offDiagonal_[6 * p + s] * x(neighbour_[6 * p + s]);
    x(static_cast<Eigen::Index>(p)) = sum / diagonal_[p];
  };
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (size_t p = 0; p < N; ++p)
      update(p);
    for (size_t p = N; p-- > 0;)
      update(p);
  }
}

LinearOperator makeMappedFiniteDifferencePreconditioner(const spectral::SpectralGrid3D &grid, double shift,
                                                        const std::vector<char> &boundaryMask, int blocks, int sweeps) {
  auto op = std::make_shared<MappedFiniteDifferenceOperator>(grid, shift, boundaryMask);
  const Eigen::Index N = static_cast<Eigen::Index>(op->size());
  return [op, N, blocks, sweeps](const Vector &x, Vector &y) {
    y.resize(x.size());
    Vector block;
    for (int b = 0; b < blocks; ++b) {
      op->relax(x.segment(b * N, N), block, sweeps);
      y.segment(b * N, N) = block;
    }
  };
}

namespace {

bool canHalve(const spectral::SpectralAxis &axis) {
  int n = axis.size();
  if (axis.kind() == spectral::AxisKind::Fourier)
    return n % 2 == 0 && n >= 4;
  return axis.kind() == spectral::AxisKind::ChebyshevGaussLobatto && n % 2 == 1 && n >= 5;
}

spectral::SpectralAxis halved(const spectral::SpectralAxis &axis) {
  if (axis.kind() == spectral::AxisKind::Fourier)
    return spectral::SpectralAxis::fourier(axis.size() / 2, axis.period(), axis.lower());
  return spectral::SpectralAxis::chebyshevGaussLobatto((axis.size() + 1) / 2, axis.lower(), axis.upper());
}

/// y = (M0 (x) M1 (x) M2) x for a row-major (n0, n1, n2) array, axis by axis.
Vector applyTensor(const std::array<Eigen::MatrixXd, 3> &M, const Vector &x) {
  std::array<Eigen::Index, 3> dims{M[0].cols(), M[1].cols(), M[2].cols()};
  Vector cur = x;
  for (int a = 0; a < 3; ++a) {
    std::array<Eigen::Index, 3> outDims = dims;
    outDims[static_cast<size_t>(a)] = M[static_cast<size_t>(a)].rows();
    Vector next = Vector::Zero(outDims[0] * outDims[1] * outDims[2]);
    for (Eigen::Index i = 0; i < outDims[0]; ++i)
      for (Eigen::Index j = 0; j < outDims[1]; ++j)
        for (Eigen::Index k = 0; k < outDims[2]; ++k) {
          Eigen::Index o[3] = {i, j, k};
          double sum = 0.0;
          for (Eigen::Index m = 0; m < dims[static_cast<size_t>(a)]; ++m) {
            Eigen::Index s[3] = {i, j, k};
            s[a] = m;
            sum += M[static_cast<size_t>(a)](o[a], m) * cur((s[0] * dims[1] + s[1]) * dims[2] + s[2]);
          }
          next((i * outDims[1] + j) * outDims[2] + k) = sum;
        }
    cur = std::move(next);
    dims = outDims;
  }
  return cur;
}

struct MultigridLevel {
  spectral::SpectralGrid3D grid;
  std::shared_ptr<MappedFiniteDifferenceOperator> op;
  std::array<Eigen::MatrixXd, 3> prolong; // to this level from the next coarser one
  std::array<Eigen::MatrixXd, 3> restriction;
};

struct MultigridHierarchy {
  std::vector<MultigridLevel> levels;
  Eigen::PartialPivLU<Eigen::MatrixXd> coarse;
  MultigridOptions options;

  Vector vcycle(size_t l, const Vector &b) const {
    const MultigridLevel &level = levels[l];
    if (l + 1 == levels.size())
      return coarse.solve(b);
    Vector x = Vector::Zero(b.size()), Ax;
    level.op->lineSmooth(level.grid, b, x, options.preSmoothing);
    level.op->apply(x, Ax);
    Vector coarseResidual = applyTensor(level.restriction, b - Ax);
    x += applyTensor(level.prolong, vcycle(l + 1, coarseResidual));
    level.op->lineSmooth(level.grid, b, x, options.postSmoothing);
    return x;
  }
};

std::vector<spectral::SpectralGrid3D> hierarchyGrids(const spectral::SpectralGrid3D &grid, const MultigridOptions &options) {
  std::vector<spectral::SpectralGrid3D> grids{grid};
  while (grids.back().size() > options.coarsestMaxUnknowns) {
    const spectral::SpectralGrid3D &g = grids.back();
    bool any = false;
    std::array<spectral::SpectralAxis, 3> axes{g.axis(0), g.axis(1), g.axis(2)};
    for (int a = 0; a < 3; ++a)
      if (canHalve(axes[static_cast<size_t>(a)])) {
        axes[static_cast<size_t>(a)] = halved(axes[static_cast<size_t>(a)]);
        any = true;
      }
    if (!any)
      break;
    spectral::SpectralGrid3D coarse(axes[0], axes[1], axes[2]);
    coarse.setCoordinateMap(grid.coordinateMap());
    coarse.setDerivativeMap(grid.derivativeMap());
    grids.push_back(std::move(coarse));
  }
  return grids;
}

} // namespace

int multigridLevelCount(const spectral::SpectralGrid3D &grid, const MultigridOptions &options) {
  return static_cast<int>(hierarchyGrids(grid, options).size());
}

LinearOperator makeMappedFiniteDifferenceMultigridPreconditioner(const spectral::SpectralGrid3D &grid, double shift,
                                                                 const std::vector<char> &boundaryMask, int blocks,
                                                                 const MultigridOptions &options,
                                                                 const std::vector<double> &reaction) {
  if (!boundaryMask.empty() && boundaryMask.size() != grid.size())
    throw std::invalid_argument("boundary mask size differs from the grid size");
  if (!reaction.empty() && reaction.size() != grid.size())
    throw std::invalid_argument("reaction term size differs from the grid size");
  auto h = std::make_shared<MultigridHierarchy>();
  h->options = options;
  std::vector<spectral::SpectralGrid3D> grids = hierarchyGrids(grid, options);
  std::vector<char> mask = boundaryMask;
  std::vector<double> local = reaction;
  for (size_t l = 0; l < grids.size(); ++l) {
    if (l > 0) {
      // Coarse points are the fine points with even indices along each halved axis: inject.
      const spectral::SpectralGrid3D &fine = grids[l - 1], &coarse = grids[l];
      std::vector<char> coarseMask(mask.empty() ? 0 : coarse.size(), 0);
      std::vector<double> coarseLocal(local.empty() ? 0 : coarse.size(), 0.0);
      std::array<int, 3> nc = coarse.extents(), nf = fine.extents();
      for (int i = 0; i < nc[0]; ++i)
        for (int j = 0; j < nc[1]; ++j)
          for (int k = 0; k < nc[2]; ++k) {
            int fi = nf[0] == nc[0] ? i : 2 * i, fj = nf[1] == nc[1] ? j : 2 * j, fk = nf[2] == nc[2] ? k : 2 * k;
            if (!mask.empty())
              coarseMask[coarse.index(i, j, k)] = mask[fine.index(fi, fj, fk)];
            if (!local.empty())
              coarseLocal[coarse.index(i, j, k)] = local[fine.index(fi, fj, fk)];
          }
      mask = std::move(coarseMask);
      local = std::move(coarseLocal);
    }
    h->levels.push_back({grids[l], std::make_shared<MappedFiniteDifferenceOperator>(grids[l], shift, mask, local), {}, {}});
  }
  for (size_t l = 0; l + 1 < h->levels.size(); ++l) {
    MultigridLevel &fine = h->levels[l];
    const spectral::SpectralGrid3D &coarse = h->levels[l + 1].grid;
    for (int a = 0; a < 3; ++a) {
      const spectral::SpectralAxis &fa = fine.grid.axis(a), &ca = coarse.axis(a);
      Eigen::MatrixXd P(fa.size(), ca.size());
      for (int i = 0; i < fa.size(); ++i) {
        std::vector<double> row = ca.interpolationRow(fa.points()[static_cast<size_t>(i)]);
        for (int m = 0; m < ca.size(); ++m)
          P(i, m) = row[static_cast<size_t>(m)];
      }
      Eigen::MatrixXd R = P.transpose();
      for (Eigen::Index r = 0; r < R.rows(); ++r) {
        double sum = R.row(r).sum();
        if (sum != 0.0)
          R.row(r) /= sum;
      }
      fine.prolong[static_cast<size_t>(a)] = std::move(P);
      fine.restriction[static_cast<size_t>(a)] = std::move(R);
    }
  }
  const MultigridLevel &last = h->levels.back();
  const Eigen::Index nc = static_cast<Eigen::Index>(last.op->size());
  Eigen::MatrixXd A(nc, nc);
  Vector e = Vector::Zero(nc), col;
  const bool galerkin = h->levels.size() == 2;
  for (Eigen::Index j = 0; j < nc; ++j) {
    e(j) = 1.0;
    if (galerkin) {
      // Two levels: the coarse operator is R A P of the fine operator (exact coarse correction
      // of the fine discretisation); deeper hierarchies rediscretise instead.
      const MultigridLevel &fine = h->levels[0];
      Vector fineColumn;
      fine.op->apply(applyTensor(fine.prolong, e), fineColumn);
      col = applyTensor(fine.restriction, fineColumn);
    } else {
      last.op->apply(e, col);
    }
    A.col(j) = col;
    e(j) = 0.0;
  }
  h->coarse.compute(A);
  const Eigen::Index N = static_cast<Eigen::Index>(grid.size());
  return [h, N, blocks](const Vector &x, Vector &y) {
    y.resize(x.size());
    for (int b = 0; b < blocks; ++b)
      y.segment(b * N, N) = h->vcycle(0, x.segment(b * N, N));
  };
}

} // namespace tensorium_mlir::elliptic
