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
  }
  return "none";
}

SpectralPreconditionerKind parsePreconditioner(const std::string &name) {
  for (SpectralPreconditionerKind k : {SpectralPreconditionerKind::None, SpectralPreconditionerKind::DiagonalJVP,
                                       SpectralPreconditionerKind::DenseLaplacianShift,
                                       SpectralPreconditionerKind::ModalLaplacianShift,
                                       SpectralPreconditionerKind::MappedFiniteDifferenceLaplacianShift})
    if (name == preconditionerName(k))
      return k;
  throw std::invalid_argument("unknown preconditioner '" + name +
                              "' (none, diagonal-jvp, dense-laplacian-shift, modal-laplacian-shift, "
                              "mapped-fd-laplacian-shift)");
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
                                                               const std::vector<char> &boundaryMask) {
  const size_t N = grid.size();
  if (!boundaryMask.empty() && boundaryMask.size() != N)
    throw std::invalid_argument("boundary mask size differs from the grid size");
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
        double center = shift;
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
  const size_t N = size();
  x = Vector::Zero(static_cast<Eigen::Index>(N));
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

} // namespace tensorium_mlir::elliptic
