// Semantic checks of elliptic problem declarations: unknowns and their residuals, boundary
// conditions per face, the domain and the solve policy.
#include "tensorium_mlir/Frontend/EllipticProblem.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace tensorium_mlir::frontend {

std::vector<std::string> spectralComponentNames(const FieldDecl &field) {
  if (tensorTypeRank(field.type) == 0)
    return {field.name};
  std::vector<std::string> out;
  for (unsigned c = 0; c < field.componentCount; ++c)
    out.push_back(field.name + "_" + std::to_string(c));
  return out;
}

const std::vector<std::string> &knownDomainMaps() {
  static const std::vector<std::string> maps{"box", "spherical_shell", "compactified_shell", "two_puncture_compact"};
  return maps;
}

std::vector<DomainFace> domainFaces(std::string_view map) {
  if (map == "box")
    return {{"xmin", 0, 0}, {"xmax", 0, 1}, {"ymin", 1, 0}, {"ymax", 1, 1}, {"zmin", 2, 0}, {"zmax", 2, 1}};
  if (map == "spherical_shell" || map == "compactified_shell")
    return {{"inner", 0, 0}, {"outer", 0, 1}};
  // two_puncture_compact: Gauss points in A and B, Fourier in phi; the map writes every unknown
  // as (A - 1) v, which vanishes at spatial infinity, so the domain has no faces to condition.
  return {};
}

const std::vector<std::string> &knownProblemPreconditioners() {
  static const std::vector<std::string> names{"none",
                                              "diagonal_jvp",
                                              "dense_laplacian_shift",
                                              "modal_laplacian_shift",
                                              "mapped_fd_laplacian_shift",
                                              "mapped_fd_multigrid",
                                              "fourier_mode_fd"};
  return names;
}

namespace {
std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool isWholeNumber(double v, double lo, double hi) { return std::isfinite(v) && v == std::floor(v) && v >= lo && v <= hi; }
} // namespace

EllipticProblemInfo describeEllipticProblem(const ComputeBlock &block, const SimulationInfo &sim) {
  EllipticProblemInfo info;
  info.resolution = sim.resolution;
  if (block.domain) {
    const DomainDecl &d = *block.domain;
    if (d.map.present)
      info.map = d.map.value;
    if (d.resolution.present) {
      info.resolution.clear();
      for (double v : d.resolution.value)
        info.resolution.push_back(static_cast<unsigned>(v));
    }
    if (d.bounds.present)
      info.bounds = d.bounds.value;
  }
  if (block.solve) {
    const SolveDecl &s = *block.solve;
    if (s.tolerance.present)
      info.tolerance = s.tolerance.value;
    if (s.maxIterations.present)
      info.maxIterations = static_cast<unsigned>(s.maxIterations.value);
    if (s.linear.present)
      info.linear = s.linear.value;
    if (s.restart.present)
      info.restart = static_cast<unsigned>(s.restart.value);
    if (s.preconditioner.present)
      info.preconditioner = s.preconditioner.value;
    if (s.lineSearch.present)
      info.lineSearch = s.lineSearch.value == "on";
    if (s.forcing.present)
      info.forcing = s.forcing.value;
  }
  return info;
}

void checkEllipticProblem(ComputeBlock &block, const Module &module, DiagnosticEngine &d) {
  const bool anyFor = std::any_of(block.statements.begin(), block.statements.end(),
                                  [](const Stmt &s) { return s.kind == StmtKind::Residual && !s.forUnknown.empty(); });
  if (!block.declaresProblem() && !anyFor)
    return;
  if (module.sim.scheme != Scheme::Spectral) {
    SourceRange where = !block.unknowns.empty()     ? block.unknowns.front().range
                        : !block.boundaries.empty() ? block.boundaries.front().range
                        : block.domain              ? block.domain->range
                        : block.solve               ? block.solve->range
                                                    : block.nameRange;
    d.error(where, "elliptic problem declarations need the spectral scheme (spatial { scheme = spectral  order = 0 })");
    return;
  }

  // Unknowns: shape as declared, each once.
  std::map<std::string, const UnknownDecl *> unknowns;
  for (UnknownDecl &u : block.unknowns) {
    auto [it, inserted] = unknowns.insert({u.name, &u});
    if (!inserted) {
      d.error(u.nameRange, "unknown '" + u.name + "' is declared twice");
      d.note(it->second->nameRange, "previous declaration is here");
      continue;
    }
    if (!u.field)
      continue;
    const unsigned rank = tensorTypeRank(u.field->type);
    if (u.vector) {
      if (rank != 1 || u.field->space != IndexSpace::Spatial) {
        d.error(u.nameRange, "'unknown vector " + u.name + "' needs a spatial rank-1 field, but '" + u.name + "' has rank " +
                                 std::to_string(rank));
        u.field = nullptr;
      } else if (u.indices.size() != 1) {
        d.error(u.nameRange, "write the vector unknown with its index, as in 'unknown vector " + u.name + "[i]'");
        u.field = nullptr;
      }
    } else if (rank != 0) {
      d.error(u.nameRange, "'" + u.name + "' has rank " + std::to_string(rank) +
                               (rank == 1 ? "; declare it as 'unknown vector " + u.name + "[i]'"
                                          : "; unknowns are scalar or vector fields"));
      u.field = nullptr;
    } else if (!u.indices.empty()) {
      d.error(u.nameRange, "scalar unknown '" + u.name + "' takes no indices");
      u.field = nullptr;
    }
  }

  // Residuals: each names a declared unknown of the same shape, one per unknown.
  std::map<std::string, SourceRange> residualOf;
  for (Stmt &s : block.statements) {
    if (s.kind != StmtKind::Residual)
      continue;
    if (s.forUnknown.empty()) {
      if (!block.unknowns.empty())
        d.error(s.targetRange, "residual '" + s.target + "' needs 'for <unknown>': this block declares its unknowns, "
                               "so every residual names the unknown it determines");
      continue;
    }
    auto it = unknowns.find(s.forUnknown);
    if (it == unknowns.end()) {
      d.error(s.forRange, "'" + s.forUnknown + "' is not a declared unknown of block '" + block.name +
                              "'; declare it with 'unknown " + s.forUnknown + "'");
      continue;
    }
    const UnknownDecl &u = *it->second;
    if (!s.field || !u.field)
      continue;
    const bool vectorResidual = tensorTypeRank(s.field->type) == 1;
    if (vectorResidual != u.vector) {
      d.error(s.forRange, vectorResidual ? "vector residual '" + s.target + "' needs a vector unknown, but '" + u.name +
                                               "' is a scalar"
                                         : "scalar residual '" + s.target + "' cannot determine the vector unknown '" +
                                               u.name + "'; write 'residual " + s.target + "[i] for " + u.name + " = ...'");
      continue;
    }
    auto [prev, inserted] = residualOf.insert({u.name, s.targetRange});
    if (!inserted) {
      d.error(s.forRange, "more residuals than unknowns: '" + u.name + "' already has a residual");
      d.note(prev->second, "previous residual for '" + u.name + "' is here");
    }
  }
  for (const UnknownDecl &u : block.unknowns)
    if (u.field && !residualOf.count(u.name))
      d.error(u.nameRange, "unknown '" + u.name + "' has no residual; add 'residual <name>" + (u.vector ? "[i]" : "") +
                               " for " + u.name + " = ...'");

  // Domain.
  std::string map = "box";
  bool mapKnown = true;
  if (block.domain) {
    const DomainDecl &dom = *block.domain;
    if (dom.map.present) {
      map = dom.map.value;
      const auto &maps = knownDomainMaps();
      if (std::find(maps.begin(), maps.end(), map) == maps.end()) {
        d.error(dom.map.valueRange, "unknown domain map '" + map + "' (known maps: " + joined(maps) + ")");
        mapKnown = false;
      }
    } else {
      d.error(dom.range, "the domain needs a map, as in 'map = box'");
      mapKnown = false;
    }
    if (dom.resolution.present) {
      if (dom.resolution.value.size() != 3)
        d.error(dom.resolution.valueRange, "the domain resolution takes 3 point counts, one per axis");
      for (size_t i = 0; i < dom.resolution.value.size() && i < dom.resolutionEntryRanges.size(); ++i)
        if (!isWholeNumber(dom.resolution.value[i], 3, 512))
          d.error(dom.resolutionEntryRanges[i], "a domain resolution is a whole number of points from 3 to 512");
    }
    if (map == "two_puncture_compact") {
      if (dom.bounds.present)
        d.error(dom.bounds.valueRange, "the two_puncture_compact map covers all of space; it takes no bounds");
      if (std::none_of(module.params.begin(), module.params.end(), [](const ParamDecl &p) { return p.name == "b"; }))
        d.error(dom.map.valueRange, "the two_puncture_compact map places the punctures at (+b, 0, 0) and (-b, 0, 0); "
                                    "declare the parameter 'b'");
      if (block.unknowns.size() != 1 || block.unknowns.front().vector)
        d.error(dom.map.valueRange, "the two_puncture_compact map solves for one scalar unknown");
    } else if (map == "spherical_shell" || map == "compactified_shell") {
      if (!dom.bounds.present)
        d.error(dom.map.valueRange, "the " + map + " map needs its radii: bounds = [r_inner, r_outer]");
      else if (dom.bounds.value.size() != 2 || !(std::isfinite(dom.bounds.value[0]) && std::isfinite(dom.bounds.value[1]) &&
                                                  dom.bounds.value[0] > 0 && dom.bounds.value[1] > dom.bounds.value[0]))
        d.error(dom.bounds.valueRange, "spherical shell bounds are [r_inner, r_outer] with 0 < r_inner < r_outer, "
                                       "both finite");
      else if (map == "compactified_shell" && dom.bounds.value[1] > 1e60) // the runtime's kMaxCompactifiedRadius
        d.error(dom.bounds.valueRange, "a compactified shell's outer radius must not exceed 1e60 (its chain rule "
                                       "carries r^4); 1e6 already puts the falloff error below 1e-12");
    } else if (dom.bounds.present) {
      const auto &b = dom.bounds.value;
      if (b.size() != 6) {
        d.error(dom.bounds.valueRange, "box bounds take 6 numbers: [xmin, xmax, ymin, ymax, zmin, zmax]");
      } else {
        for (int a = 0; a < 3; ++a)
          if (!(std::isfinite(b[2 * a]) && std::isfinite(b[2 * a + 1]) && b[2 * a] < b[2 * a + 1])) {
            d.error(dom.bounds.valueRange, "box bounds of axis " + std::to_string(a + 1) +
                                               " must be finite with minimum below maximum");
            break;
          }
      }
    }
  } else if (!block.boundaries.empty() || !block.unknowns.empty()) {
    d.error(block.nameRange, "constraints block '" + block.name + "' declares an elliptic problem but no domain; add "
                             "'domain { map = box  resolution = [..]  bounds = [..] }'");
    mapKnown = false;
  }

  // Boundary conditions: a face of the map, on a declared unknown, each (unknown, face) once,
  // and every face of every unknown covered.
  const std::vector<DomainFace> faces = domainFaces(map);
  std::map<std::pair<std::string, std::string>, SourceRange> seen;
  for (BoundaryCondition &bc : block.boundaries) {
    auto it = unknowns.find(bc.unknown);
    if (it == unknowns.end()) {
      d.error(bc.unknownRange, "boundary condition on '" + bc.unknown + "', which is not a declared unknown of block '" +
                                   block.name + "'");
      continue;
    }
    const UnknownDecl &u = *it->second;
    if (bc.unknownHasIndexList && (!u.vector || bc.unknownIndices.size() != 1)) {
      d.error(bc.unknownRange, u.vector ? "write a vector unknown's boundary with one index, as in '" + u.name + "[i]'"
                                        : "scalar unknown '" + u.name + "' takes no indices");
      continue;
    }
    bc.target = &u;
    if (!mapKnown)
      continue;
    if (std::none_of(faces.begin(), faces.end(), [&](const DomainFace &f) { return f.name == bc.face; })) {
      std::vector<std::string> names;
      for (const DomainFace &f : faces)
        names.push_back(f.name);
      d.error(bc.faceRange, "domain map '" + map + "' has no face '" + bc.face + "' (its faces: " + joined(names) + ")");
      continue;
    }
    auto [prev, inserted] = seen.insert({{bc.unknown, bc.face}, bc.faceRange});
    if (!inserted) {
      d.error(bc.faceRange, "'" + bc.unknown + "' already has a boundary condition on face '" + bc.face + "'");
      d.note(prev->second, "previous condition is here");
    }
  }
  if (mapKnown && block.domain)
    for (const UnknownDecl &u : block.unknowns) {
      if (!u.field)
        continue;
      std::vector<std::string> missing;
      for (const DomainFace &f : faces)
        if (!seen.count({u.name, f.name}))
          missing.push_back(f.name);
      if (!missing.empty())
        d.error(u.nameRange, "unknown '" + u.name + "' has no boundary condition on face" +
                                 (missing.size() > 1 ? "s " : " ") + joined(missing) + " of the '" + map + "' domain");
    }

  // Exact solutions: of a declared unknown, at most one each.
  std::map<std::string, SourceRange> exactSeen;
  for (ExactSolution &ex : block.exacts) {
    auto it = unknowns.find(ex.unknown);
    if (it == unknowns.end()) {
      d.error(ex.unknownRange, "exact solution of '" + ex.unknown + "', which is not a declared unknown of block '" +
                                   block.name + "'");
      continue;
    }
    const UnknownDecl &u = *it->second;
    if (u.vector != (ex.unknownHasIndexList && ex.unknownIndices.size() == 1) ||
        (ex.unknownHasIndexList && ex.unknownIndices.size() != 1)) {
      d.error(ex.unknownRange, u.vector ? "write a vector unknown's exact solution with one index, as in 'exact " + u.name +
                                              "[i] = ...'"
                                        : "scalar unknown '" + u.name + "' takes no indices");
      continue;
    }
    auto [prev, inserted] = exactSeen.insert({ex.unknown, ex.unknownRange});
    if (!inserted) {
      d.error(ex.unknownRange, "'" + ex.unknown + "' already has an exact solution");
      d.note(prev->second, "previous exact solution is here");
      continue;
    }
    ex.target = &u;
  }

  // Solve policy.
  if (block.solve) {
    const SolveDecl &s = *block.solve;
    if (s.tolerance.present && !(std::isfinite(s.tolerance.value) && s.tolerance.value > 0 && s.tolerance.value < 1))
      d.error(s.tolerance.valueRange, "the Newton tolerance must be a number between 0 and 1");
    if (s.maxIterations.present && !isWholeNumber(s.maxIterations.value, 1, 1000))
      d.error(s.maxIterations.valueRange, "max_iterations is a whole number from 1 to 1000");
    if (s.restart.present && !isWholeNumber(s.restart.value, 1, 1000))
      d.error(s.restart.valueRange, "the GMRES restart is a whole number from 1 to 1000");
    if (s.linear.present && s.linear.value != "auto" && s.linear.value != "dense" && s.linear.value != "gmres")
      d.error(s.linear.valueRange, "unknown linear solver '" + s.linear.value + "' (expected auto, dense or gmres)");
    if (s.preconditioner.present) {
      const auto &names = knownProblemPreconditioners();
      if (std::find(names.begin(), names.end(), s.preconditioner.value) == names.end())
        d.error(s.preconditioner.valueRange,
                "unknown preconditioner '" + s.preconditioner.value + "' (known: " + joined(names) + ")");
    }
    if (s.lineSearch.present && s.lineSearch.value != "on" && s.lineSearch.value != "off")
      d.error(s.lineSearch.valueRange, "line_search is 'on' or 'off'");
    if (s.forcing.present && !(std::isfinite(s.forcing.value) && s.forcing.value > 0 && s.forcing.value < 1))
      d.error(s.forcing.valueRange, "the forcing (GMRES relative tolerance per Newton step) must be between 0 and 1");
  }
}

} // namespace tensorium_mlir::frontend
