#include "tensorium_mlir/Elliptic/Preconditioners.h"

#include <stdexcept>

namespace tensorium_mlir::elliptic {

const char *preconditionerName(SpectralPreconditionerKind kind) {
  switch (kind) {
  case SpectralPreconditionerKind::None: return "none";
  case SpectralPreconditionerKind::DiagonalJVP: return "diagonal-jvp";
  case SpectralPreconditionerKind::DenseLaplacianShift: return "dense-laplacian-shift";
  }
  return "none";
}

SpectralPreconditionerKind parsePreconditioner(const std::string &name) {
  for (SpectralPreconditionerKind k : {SpectralPreconditionerKind::None, SpectralPreconditionerKind::DiagonalJVP,
                                       SpectralPreconditionerKind::DenseLaplacianShift})
    if (name == preconditionerName(k))
      return k;
  throw std::invalid_argument("unknown preconditioner '" + name + "' (none, diagonal-jvp, dense-laplacian-shift)");
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

} // namespace tensorium_mlir::elliptic
