#include "tensorium_mlir/Frontend/ASTDumper.h"

#include <iomanip>
#include <set>

namespace tensorium_mlir::frontend {

namespace {
void collectFields(const Expr &e, std::set<std::string> &out) {
  if (e.kind == ExprKind::Ref && e.field)
    out.insert(e.field->name);
  for (const ExprPtr &op : e.operands)
    collectFields(*op, out);
}

std::string join(const std::set<std::string> &names) {
  std::string s;
  for (const std::string &n : names)
    s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "-" : s;
}
} // namespace

void printModuleSummary(const Module &m, std::ostream &os) {
  const SimulationInfo &sim = m.sim;
  size_t points = 1;
  for (unsigned n : sim.resolution)
    points *= n;
  os << "Tensorium module " << m.path << '\n';
  os << "  simulation: " << (sim.coordinates == CoordinateSystem::Cartesian ? "cartesian" : "spherical")
     << " (";
  for (size_t i = 0; i < sim.coordinateNames.size(); ++i)
    os << (i ? "," : "") << sim.coordinateNames[i];
  os << "), dimension " << sim.dimension << ", resolution ";
  for (size_t i = 0; i < sim.resolution.size(); ++i)
    os << (i ? "x" : "") << sim.resolution[i];
  os << " = " << points << " points\n";
  if (sim.scheme == Scheme::Spectral)
    os << "  spatial: spectral collocation (derivative bundles supplied by the runtime)\n";
  else
    os << "  spatial: fd centered order " << sim.order << ", stencil radius " << sim.order / 2 << '\n';
  os << "  time: " << sim.integrator << ", dt = " << sim.dt << '\n';

  os << "  params (" << m.params.size() << ", ABI order):";
  for (const ParamDecl &p : m.params)
    os << ' ' << p.name;
  os << '\n';

  size_t totalComponents = 0;
  os << "  fields (" << m.fields.size() << "), SoA component-major:\n";
  for (const auto &f : m.fields) {
    totalComponents += f->componentCount;
 os << "    " << std::left << std::setw(15) << f->name << ' ' << std::setw(15)
       << tensorTypeSpelling(f->type) << " rank " << tensorTypeRank(f->type) << "  "
       << std::right << std::setw(3) << f->componentCount << (f->componentCount == 1 ? " component   " : " components  ")
       << f->componentCount * points << " scalars\n";
  }
  os << "    total: " << totalComponents << " components per point, "
     << totalComponents * points * sizeof(double) << " bytes on this grid\n";

  os << "  kernels:\n";
  for (const InitialDataBlock &b : m.initialData) {
    std::vector<std::string> assigned;
    for (const Stmt &s : b.temporaries)
      if (s.kind == StmtKind::FieldValue)
        assigned.push_back(s.target);
    if (!assigned.empty()) {
      os << "    initial_data fields: tensorium_init_fields_point, tensorium_init_fields_grid_scf, "
            "tensorium_init_fields_grid_affine\n";
      os << "      writes: " << join(std::set<std::string>(assigned.begin(), assigned.end())) << '\n';
    }
    if (!b.metric4 || !b.hasSplit)
      continue;
    std::set<std::string> writes, slice;
    for (const SplitEntry &e : b.split) {
      slice.insert(e.target);
      if (e.quantity == "alpha" || e.quantity == "gamma" || e.quantity == "gammaU")
        writes.insert(e.target);
    }
    os << "    initial_data: tensorium_init_point, tensorium_init_grid_scf, "
          "tensorium_init_grid_affine\n";
    os << "      writes: " << join(writes) << '\n';
    if (slice != writes) {
      os << "    initial_data slice: tensorium_init_slice_point, tensorium_init_slice_grid_scf, "
            "tensorium_init_slice_grid_affine\n";
      os << "      writes: " << join(slice) << '\n';
    }
  }
  for (const ComputeBlock &b : m.blocks) {
    std::set<std::string> reads, writes;
    for (const Stmt &s : b.statements) {
      if (s.value)
        collectFields(*s.value, reads);
      if (s.field)
        writes.insert(b.kind == ComputeKind::Evolution ? "d" + s.field->name : s.field->name);
    }
    if (b.kind == ComputeKind::Evolution) {
      os << "    evolution " << b.name << ": tensorium_rhs_grid_scf, tensorium_rhs_grid_affine, "
         << "tensorium_rhs_grid_parallel\n";
    } else if (sim.scheme == Scheme::Spectral) {
      os << "    constraints " << b.name << ':';
      for (const std::string &w : writes)
        os << " tensorium_spectral_residual_" << w << ", tensorium_spectral_residual_jvp_" << w
           << ", tensorium_spectral_residual_grid_" << w << ';';
      os << '\n';
    } else {
      os << "    constraints " << b.name << ": tensorium_residual_grid_scf, "
         << "tensorium_residual_grid_affine, tensorium_residual_grid_parallel\n";
    }
    os << "      reads: " << join(reads) << "\n      writes: " << join(writes) << '\n';
  }
}

} // namespace tensorium_mlir::frontend
