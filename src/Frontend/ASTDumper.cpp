#include "tensorium_mlir/Frontend/ASTDumper.h"

#include <charconv>
#include <string>

namespace tensorium_mlir::frontend {

namespace {
class Dumper {
public:
  Dumper(const SourceManager &sources, std::ostream &os) : sources_(sources), os_(os) {}

  void module(const Module &m) {
    os_ << "Module \"" << m.path << "\"\n";
    simulation(m.sim);
    for (const auto &f : m.fields) {
      line(1) << "Field " << f->name << ' ' << tensorTypeSpelling(f->type);
      if (!f->indices.empty()) {
        os_ << " [";
        for (size_t i = 0; i < f->indices.size(); ++i) {
          TypedIndex t{f->indices[i].name, f->variances.size() > i ? f->variances[i] : Variance::Down,
                       f->space, {}};
          os_ << (i ? "," : "") << typedIndexSpelling(t);
        }
        os_ << "] " << (f->space == IndexSpace::Spatial ? "spatial" : "spacetime");
      }
      if (fieldIsSymmetric(*f))
        os_ << " symmetric";
      os_ << " components=" << f->componentCount << loc(f->nameRange) << '\n';
    }
    if (m.hasParams) {
      line(1) << "Params";
      for (const ParamDecl &p : m.params) {
        os_ << ' ' << p.name;
        if (p.defaultValue)
          os_ << '=' << number(*p.defaultValue);
      }
      os_ << '\n';
    }
    for (const auto &e : m.externs) {
      line(1) << "Extern " << e->name << " : " << tensorTypeSpelling(e->resultType) << '(';
      for (size_t i = 0; i < e->argTypes.size(); ++i)
        os_ << (i ? ", " : "") << tensorTypeSpelling(e->argTypes[i]);
      os_ << ')' << (e->shadowsBuiltin ? " builtin" : "") << loc(e->nameRange) << '\n';
    }
    for (const InitialDataBlock &b : m.initialData)
      initialData(b);
    for (const ComputeBlock &b : m.blocks) {
      line(1) << (b.kind == ComputeKind::Evolution ? "Evolution " : "Constraints ") << b.name
              << loc(b.nameRange) << '\n';
      for (const UnknownDecl &u : b.unknowns) {
        line(2) << "Unknown " << (u.vector ? "vector " : "") << u.name;
        for (const IndexName &i : u.indices)
          os_ << (&i == &u.indices.front() ? "[" : ",") << i.name;
        os_ << (u.indices.empty() ? "" : "]") << loc(u.nameRange) << '\n';
      }
      for (const Stmt &s : b.statements)
        statement(s, 2);
      for (const BoundaryCondition &bc : b.boundaries) {
        line(2) << "Boundary " << bc.unknown;
        for (const IndexName &i : bc.unknownIndices)
          os_ << (&i == &bc.unknownIndices.front() ? "[" : ",") << i.name;
        os_ << (bc.unknownIndices.empty() ? "" : "]") << ' ' << bc.face << ' '
            << (bc.kind == BoundaryKind::Dirichlet ? "dirichlet" : "robin") << loc(bc.faceRange) << '\n';
        if (bc.kind == BoundaryKind::Robin) {
          for (auto [label, e] : {std::pair{"a", bc.a.get()}, {"b", bc.b.get()}, {"value", bc.value.get()}})
            if (e) {
              line(3) << label << '\n';
              expr(*e, 4);
            }
        } else if (bc.value) {
          expr(*bc.value, 3);
        }
      }
      for (const EvolutionBoundary &bc : b.evolutionBoundaries) {
        line(2) << "Boundary " << bc.field << ' '
                << (bc.kind == EvolutionBoundaryKind::Periodic ? "periodic"
                    : bc.kind == EvolutionBoundaryKind::Exact  ? "exact"
                                                               : "radiative");
        if (bc.kind == EvolutionBoundaryKind::Radiative)
          os_ << " value=" << bc.value << " speed=" << bc.speed;
        os_ << loc(bc.fieldRange) << '\n';
      }
      for (const ExactSolution &ex : b.exacts) {
        line(2) << "Exact " << ex.unknown;
        for (const IndexName &i : ex.unknownIndices)
          os_ << (&i == &ex.unknownIndices.front() ? "[" : ",") << i.name;
        os_ << (ex.unknownIndices.empty() ? "" : "]") << loc(ex.unknownRange) << '\n';
        expr(*ex.value, 3);
        if (ex.tolerance) {
          line(3) << "tolerance\n";
          expr(*ex.tolerance, 4);
        }
      }
      if (b.domain) {
        line(2) << "Domain";
        if (b.domain->map.present)
          os_ << " map=" << b.domain->map.value;
        if (b.domain->resolution.present)
          os_ << " resolution=" << numbers(b.domain->resolution.value);
        if (b.domain->bounds.present)
          os_ << " bounds=" << numbers(b.domain->bounds.value);
        os_ << '\n';
      }
      if (b.solve) {
        const SolveDecl &sv = *b.solve;
        line(2) << "Solve";
        if (sv.tolerance.present)
          os_ << " tolerance=" << number(sv.tolerance.value);
        if (sv.maxIterations.present)
          os_ << " max_iterations=" << number(sv.maxIterations.value);
        if (sv.linear.present)
          os_ << " linear=" << sv.linear.value;
        if (sv.restart.present)
          os_ << " restart=" << number(sv.restart.value);
        if (sv.preconditioner.present)
          os_ << " preconditioner=" << sv.preconditioner.value;
        if (sv.lineSearch.present)
          os_ << " line_search=" << sv.lineSearch.value;
        if (sv.forcing.present)
          os_ << " forcing=" << number(sv.forcing.value);
        os_ << '\n';
      }
    }
  }

private:
  std::ostream &line(unsigned depth) {
    for (unsigned i = 0; i < depth; ++i)
      os_ << "  ";
    return os_;
  }

  std::string loc(SourceRange r) const {
    LineColumn lc = sources_.lineColumn(r.begin);
    if (!lc.line)
      return "";
    return " <" + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ">";
  }

  static std::string indices(const std::vector<TypedIndex> &list) {
    if (list.empty())
      return "";
    std::string s = " [";
    for (size_t i = 0; i < list.size(); ++i)
      s += (i ? "," : "") + typedIndexSpelling(list[i]);
    return s + "]";
  }

  static std::string number(double v) {
    // Shortest text that reads back to the same double.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
  }

  std::string numbers(const std::vector<double> &values) const {
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i)
      out += (i ? "," : "") + number(values[i]);
    return out + "]";
  }

  void simulation(const SimulationInfo &s) {
    line(1) << "Simulation coordinates="
            << (s.coordinates == CoordinateSystem::Cartesian ? "cartesian" : "spherical")
            << " dimension=" << s.dimension << " resolution=[";
    for (size_t i = 0; i < s.resolution.size(); ++i)
      os_ << (i ? "," : "") << s.resolution[i];
    os_ << "]" << (s.fromSource ? "" : " default") << '\n';
    line(2) << "Coordinates";
    for (const std::string &c : s.coordinateNames)
      os_ << ' ' << c;
    os_ << '\n';
    line(2) << "Time dt=" << number(s.dt) << " integrator=" << s.integrator << '\n';
    line(2) << "Spatial scheme=" << (s.scheme == Scheme::Spectral ? "spectral" : "fd")
            << " derivative=" << s.derivative << " order=" << s.order
            << (s.stencilOfExpressions ? " expression_derivatives=stencil" : "")
            << (s.lopsidedAdvection ? "" : " advection=centered") << '\n';
  }

  void initialData(const InitialDataBlock &b) {
    line(1) << "InitialData enforce_symmetry="
            << (b.enforceSymmetry.present && b.enforceSymmetry.value ? "true" : "false")
            << loc(b.range) << '\n';
    for (const Stmt &s : b.temporaries)
      statement(s, 2);
    if (b.metric4) {
      const Metric4 &m = *b.metric4;
      line(2) << "Metric4 " << m.name << '[';
      for (size_t i = 0; i < m.indices.size(); ++i)
        os_ << (i ? "," : "") << m.indices[i].name;
      os_ << "] " << m.rows.size() << 'x' << (m.rows.empty() ? 0 : m.rows[0].size())
          << (m.symmetricAsWritten ? " symmetric" : " asymmetric") << loc(m.nameRange) << '\n';
      for (size_t r = 0; r < m.rows.size(); ++r)
        for (size_t c = 0; c < m.rows[r].size(); ++c) {
          line(3) << "Entry (" << r << ',' << c << ")\n";
          expr(*m.rows[r][c], 4);
        }
    }
    if (b.hasSplit) {
      line(2) << "Split3p1\n";
      for (const SplitEntry &e : b.split) {
        line(3) << e.quantity << " -> " << e.target;
        if (e.field)
          os_ << " (" << tensorTypeSpelling(e.field->type) << ", components="
              << e.field->componentCount << ")";
        os_ << '\n';
      }
    }
  }

  /// The target's indices with the field's variances.
  static std::vector<TypedIndex> typedTarget(const Stmt &s) {
    std::vector<TypedIndex> typed;
    for (size_t i = 0; i < s.targetIndices.size() && i < s.field->variances.size(); ++i)
      typed.push_back({s.targetIndices[i].name, s.field->variances[i], s.field->space, {}});
    return typed;
  }

  void statement(const Stmt &s, unsigned depth) {
    switch (s.kind) {
    case StmtKind::Temporary: {
      line(depth) << "Temporary " << s.target;
      if (s.temporary)
        os_ << indices(s.temporary->indices);
      os_ << loc(s.targetRange) << '\n';
      break;
    }
    case StmtKind::DtAssign: {
      line(depth) << "Dt " << s.target;
      if (s.field)
        os_ << indices(typedTarget(s));
      os_ << loc(s.targetRange) << '\n';
      break;
    }
    case StmtKind::FieldValue:
      line(depth) << "FieldValue " << s.target;
      if (s.field && !s.targetIndices.empty())
        os_ << indices(typedTarget(s));
      os_ << loc(s.targetRange) << '\n';
      break;
    case StmtKind::Residual:
      line(depth) << "Residual " << s.target;
      if (s.field && !s.targetIndices.empty())
        os_ << indices(typedTarget(s));
      if (!s.forUnknown.empty())
        os_ << " for " << s.forUnknown;
      os_ << loc(s.targetRange) << '\n';
      break;
    }
    if (s.value)
      expr(*s.value, depth + 1);
  }

  void expr(const Expr &e, unsigned depth) {
    line(depth);
    switch (e.kind) {
    case ExprKind::Number:
      os_ << "Number " << e.text;
      break;
    case ExprKind::Ref: {
      const char *kind = "Ref";
      switch (e.refKind) {
      case RefKind::Field: kind = "Field"; break;
      case RefKind::Param: kind = "Param"; break;
      case RefKind::Coordinate: kind = "Coordinate"; break;
      case RefKind::Temporary: kind = "Temporary"; break;
      case RefKind::FlatMetric: kind = "FlatMetric"; break;
      case RefKind::Unresolved: break;
      }
      os_ << kind << ' ' << e.text;
      break;
    }
    case ExprKind::Negate: os_ << "Negate"; break;
    case ExprKind::Binary: os_ << "Binary '" << e.op << "'"; break;
    case ExprKind::Power:
      os_ << "Power " << e.exponent.num;
      if (e.exponent.den != 1)
        os_ << '/' << e.exponent.den;
      break;
    case ExprKind::Call:
      os_ << "Call " << e.text << (e.externDecl ? " extern" : " builtin");
      break;
    case ExprKind::Contract: {
      os_ << "Contract sum=";
      for (size_t i = 0; i < e.summedIndices.size(); ++i)
        os_ << (i ? "," : "") << e.summedIndices[i];
      break;
    }
    case ExprKind::Derivative: os_ << "Derivative d_" << e.indices.front().name; break;
    case ExprKind::Covariant: os_ << "Covariant nabla_" << e.indices.front().name; break;
    case ExprKind::Laplacian: os_ << "Laplacian"; break;
    case ExprKind::Dissipation: os_ << "Dissipation"; break;
    case ExprKind::Advect:
      os_ << "Advect sum="
          << (e.operands.empty() || e.operands[0]->freeIndices.empty() ? "?" : e.operands[0]->freeIndices.front().name);
      break;
    }
    os_ << indices(e.freeIndices) << '\n';
    for (const ExprPtr &op : e.operands)
      expr(*op, depth + 1);
  }

  const SourceManager &sources_;
  std::ostream &os_;
};
} // namespace

void dumpModule(const Module &module, const SourceManager &sources, std::ostream &os) {
  Dumper(sources, os).module(module);
}

} // namespace tensorium_mlir::frontend
