#include "tensorium_mlir/Frontend/Sema.h"
#include "tensorium_mlir/Frontend/EllipticProblem.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace tensorium_mlir::frontend {

namespace {
constexpr std::string_view kSpatialIndices[] = {"i", "j", "k", "l", "m", "n", "p", "q"};
constexpr std::string_view kSpacetimeIndices[] = {"mu", "nu", "rho", "sigma", "lambda", "kappa"};
constexpr std::string_view kReservedWords[] = {
    "field", "params", "extern", "simulation", "initial_data", "evolution", "constraints",
    "dt", "residual", "contract", "laplacian", "metric4", "split_3p1"};
const char *kIndexHelp = "spatial indices are i j k l m n p q; spacetime indices are mu nu rho "
                         "sigma lambda kappa";

struct BuiltinInfo {
  std::string_view name;
  Builtin builtin;
  unsigned arity;
};
constexpr BuiltinInfo kBuiltins[] = {
    {"sqrt", Builtin::Sqrt, 1}, {"sin", Builtin::Sin, 1}, {"cos", Builtin::Cos, 1},
    {"exp", Builtin::Exp, 1},   {"log", Builtin::Log, 1}, {"pow", Builtin::Pow, 2},
    {"bessel_j0", Builtin::BesselJ0, 1}, {"bessel_j1", Builtin::BesselJ1, 1}, {"abs", Builtin::Abs, 1}};

const BuiltinInfo *findBuiltin(std::string_view name) {
  for (const BuiltinInfo &b : kBuiltins)
    if (b.name == name)
      return &b;
  return nullptr;
}

bool isReserved(std::string_view name) {
  return std::find(std::begin(kReservedWords), std::end(kReservedWords), name) !=
         std::end(kReservedWords);
}

std::string plural(size_t n, std::string word) {
  if (n != 1) {
    if (word == "index")
      word = "indices";
    else if (word.back() == 'y')
      word = word.substr(0, word.size() - 1) + "ies";
    else if (word != "was")
      word += "s";
    else
      word = "were";
  }
  return std::to_string(n) + " " + word;
}

bool isInteger(double v) { return std::isfinite(v) && v == std::floor(v); }

/// Index content of an expression: indices that occur once (free) and pairs that were
/// matched inside an enclosing contract() but not yet summed (bound).
struct Shape {
  std::vector<TypedIndex> free;
  std::vector<std::string> bound;
  bool isScalar() const { return free.empty() && bound.empty(); }
};

enum class SymbolKind { Coordinate, Field, Param, Extern };
struct Symbol {
  SymbolKind kind;
  SourceRange range;
  const FieldDecl *field = nullptr;
  const ExternDecl *externDecl = nullptr;
};

const char *symbolKindSpelling(SymbolKind k) {
  switch (k) {
  case SymbolKind::Coordinate: return "coordinate";
  case SymbolKind::Field: return "field";
  case SymbolKind::Param: return "parameter";
  case SymbolKind::Extern: return "function";
  }
  return "name";
}

enum class Context { InitialData, Evolution, Constraints };

class Sema {
public:
  Sema(Module &module, DiagnosticEngine &diags) : m_(module), d_(diags) {}

  bool run() {
    checkSimulation();
    declareGlobals();
    std::map<std::string, SourceRange> blockNames;
    std::vector<std::pair<SourceLocation, int>> order; // initial data (-1-i) and blocks (i)
    for (size_t i = 0; i < m_.initialData.size(); ++i)
      order.push_back({m_.initialData[i].range.begin, -1 - static_cast<int>(i)});
    for (size_t i = 0; i < m_.blocks.size(); ++i)
      order.push_back({m_.blocks[i].range.begin, static_cast<int>(i)});
    std::sort(order.begin(), order.end(),
              [](auto &a, auto &b) { return a.first.offset < b.first.offset; });
    const InitialDataBlock *firstInit = nullptr;
    for (auto &[loc, id] : order) {
      if (d_.limitReached())
        break;
      if (id < 0) {
        InitialDataBlock &block = m_.initialData[-1 - id];
        if (firstInit) {
          d_.error(block.range, "duplicate 'initial_data' block; a module has at most one");
          d_.note(firstInit->range, "previous 'initial_data' block is here");
          continue;
        }
        firstInit = &block;
        checkInitialData(block);
      } else {
        ComputeBlock &block = m_.blocks[id];
        auto [it, inserted] = blockNames.insert({block.name, block.nameRange});
        if (!inserted) {
          d_.error(block.nameRange, "duplicate block name '" + block.name + "'");
          d_.note(it->second, "previous block with this name is here");
        }
        checkComputeBlock(block);
      }
    }
    if (!d_.limitReached())
      checkEvolutionBoundaries();
    return !d_.hasErrors();
  }

private:
  // ------------------------------------------------------------ simulation

  void checkSimulation() {
    SimulationInfo &info = m_.sim;
    if (!m_.simulation) {
      d_.warning({SourceLocation{0}, SourceLocation{0}},
                 "no 'simulation' block; using cartesian coordinates, dimension 3, "
                 "resolution [16,16,16] and fd order 2");
      return;
    }
    const SimulationBlock &s = *m_.simulation;
    info.fromSource = true;
    if (s.coordinates.present) {
      if (s.coordinates.value == "cartesian")
        info.coordinates = CoordinateSystem::Cartesian;
      else if (s.coordinates.value == "spherical")
        info.coordinates = CoordinateSystem::Spherical;
      else
        d_.error(s.coordinates.valueRange, "unknown coordinate system '" + s.coordinates.value +
                                               "' (expected cartesian or spherical)");
    }
    if (s.dimension.present) {
      double v = s.dimension.value;
      if (!isInteger(v) || v < 1 || v > 3)
        d_.error(s.dimension.valueRange, "dimension must be 1, 2 or 3");
      else
        info.dimension = static_cast<unsigned>(v);
    }
    info.coordinateNames = info.coordinates == CoordinateSystem::Cartesian
                               ? std::vector<std::string>{"x", "y", "z"}
                               : std::vector<std::string>{"r", "theta", "phi"};
    info.coordinateNames.resize(info.dimension);
    if (s.resolution.present) {
      const auto &res = s.resolution.value;
      if (res.size() != info.dimension) {
        d_.error(s.resolution.valueRange, "resolution has " + plural(res.size(), "entry") +
                                              " but dimension is " + std::to_string(info.dimension));
      } else {
        info.resolution.clear();
        for (size_t i = 0; i < res.size(); ++i) {
          double v = res[i];
          if (!isInteger(v) || v < 1 || v > 1e9) {
            SourceRange where = i < s.resolutionEntryRanges.size() ? s.resolutionEntryRanges[i] : s.resolution.valueRange;
            d_.error(where, "resolution entries must be positive integers");
            break;
          }
          info.resolution.push_back(static_cast<unsigned>(v));
        }
      }
    } else {
      info.resolution.assign(info.dimension, 16);
      d_.warning(s.range, "no 'resolution' in 'simulation'; using 16 points per axis");
    }
    if (s.dt.present) {
      if (!(s.dt.value > 0) || !std::isfinite(s.dt.value))
        d_.error(s.dt.valueRange, "time step 'dt' must be a positive number");
      else
        info.dt = s.dt.value;
    }
    if (s.integrator.present) {
      const std::string &v = s.integrator.value;
      if (v != "euler" && v != "rk3" && v != "rk4")
        d_.error(s.integrator.valueRange, "unknown integrator '" + v + "' (expected euler, rk3 or rk4)");
      else
        info.integrator = v;
    }
    bool schemeOk = true;
    if (s.scheme.present) {
      if (s.scheme.value == "fd")
        info.scheme = Scheme::FiniteDifference;
      else if (s.scheme.value == "spectral")
        info.scheme = Scheme::Spectral;
      else {
        schemeOk = false;
        d_.error(s.scheme.valueRange, "unknown spatial scheme '" + s.scheme.value +
                                          "' (expected fd or spectral)");
      }
    }
    if (s.derivative.present && s.derivative.value != "centered")
      d_.error(s.derivative.valueRange, "unknown derivative kind '" + s.derivative.value +
                                            "' (only 'centered' is supported)");
    if (s.advection.present) {
      if (s.advection.value == "centered")
        info.lopsidedAdvection = false;
      else if (s.advection.value != "lopsided")
        d_.error(s.advection.valueRange,
                 "unknown advection '" + s.advection.value + "' (expected lopsided or centered)");
    }
    if (s.expressionDerivatives.present) {
      const std::string &v = s.expressionDerivatives.value;
      if (v == "stencil")
        info.stencilOfExpressions = true;
      else if (v != "chain_rule")
        d_.error(s.expressionDerivatives.valueRange,
                 "unknown expression_derivatives '" + v + "' (expected chain_rule or stencil)");
    }
    info.order = info.scheme == Scheme::Spectral ? 0 : 2;
    if (s.order.present) {
      double v = s.order.value;
      bool valid = isInteger(v) && (v == 0 || v == 2 || v == 4 || v == 6 || v == 8);
      if (!valid) {
        d_.error(s.order.valueRange, "derivative order must be 2, 4, 6 or 8 (fd) or 0 (spectral)");
      } else if (schemeOk && info.scheme == Scheme::FiniteDifference && v == 0) {
        d_.error(s.order.valueRange, "the fd scheme needs order 2, 4, 6 or 8; order 0 selects "
                                     "the spectral scheme");
      } else if (schemeOk && info.scheme == Scheme::Spectral && v != 0) {
        d_.error(s.order.valueRange, "the spectral scheme takes order = 0 (derivatives come "
                                     "from the spectral grid)");
      } else {
        info.order = static_cast<unsigned>(v);
      }
    }
  }

  // ------------------------------------------------------------ declarations

  void redeclared(const std::string &name, SourceRange where, const Symbol &previous) {
    d_.error(where, "redeclaration of '" + name + "'");
    if (previous.range.begin.isValid())
      d_.note(previous.range, std::string("previous declaration as a ") +
                                  symbolKindSpelling(previous.kind) + " is here");
    else
      d_.note(where, "'" + name + "' is a coordinate of the " +
                         (m_.sim.coordinates == CoordinateSystem::Cartesian ? "cartesian"
                                                                            : "spherical") +
                         " coordinate system");
  }

  bool checkNewName(const std::string &name, SourceRange where) {
    if (isReserved(name)) {
      d_.error(where, "'" + name + "' is a reserved word and cannot be declared");
      return false;
    }
    auto it = globals_.find(name);
    if (it != globals_.end()) {
      redeclared(name, where, it->second);
      return false;
    }
    return true;
  }

  void declareGlobals() {
    SourceRange coordRange;
    if (m_.simulation && m_.simulation->coordinates.present)
      coordRange = m_.simulation->coordinates.valueRange;
    for (const std::string &c : m_.sim.coordinateNames)
      globals_[c] = Symbol{SymbolKind::Coordinate, coordRange};

    // Declarations in source order so "previous declaration" notes point backwards.
    struct Decl {
      SourceLocation loc;
      int kind;
      size_t index;
    };
    std::vector<Decl> decls;
    for (size_t i = 0; i < m_.fields.size(); ++i)
      decls.push_back({m_.fields[i]->range.begin, 0, i});
    for (size_t i = 0; i < m_.params.size(); ++i)
      decls.push_back({m_.params[i].range.begin, 1, i});
    for (size_t i = 0; i < m_.externs.size(); ++i)
      decls.push_back({m_.externs[i]->range.begin, 2, i});
    std::sort(decls.begin(), decls.end(),
              [](const Decl &a, const Decl &b) { return a.loc.offset < b.loc.offset; });
    for (const Decl &decl : decls) {
      if (decl.kind == 0)
        declareField(*m_.fields[decl.index]);
      else if (decl.kind == 1)
        declareParam(m_.params[decl.index]);
      else
        declareExtern(*m_.externs[decl.index]);
    }
  }

  void declareField(FieldDecl &f) {
    unsigned rank = tensorTypeRank(f.type);
    bool ok = true;
    if (findBuiltin(f.name)) {
      d_.error(f.nameRange, "'" + f.name + "' is a built-in function and cannot name a field");
      ok = false;
    } else if (!checkNewName(f.name, f.nameRange)) {
      ok = false;
    }
    if (f.declaredSymmetric) {
      if (tensorTypeIsSymmetric(f.type)) {
        d_.warning(f.symmetricRange, std::string("'") + tensorTypeSpelling(f.type) + "' is symmetric already");
      } else if (rank != 2 || tensorTypeVariance(f.type, 0) != tensorTypeVariance(f.type, 1)) {
        d_.error(f.symmetricRange, std::string("'symmetric' needs a rank-2 field with two lower or two upper "
                                               "indices (cov_tensor2 or con_tensor2), not '") +
                                       tensorTypeSpelling(f.type) + "'");
        ok = false;
      }
    }
    if (rank == 0 && !f.indices.empty()) {
      d_.error(f.indices.front().range, "a scalar field takes no indices");
      ok = false;
    } else if (f.indices.size() != rank) {
      SourceRange where = f.indices.empty() ? f.nameRange : f.indices.front().range;
      d_.error(where, std::string("field type '") + tensorTypeSpelling(f.type) + "' has rank " +
                          std::to_string(rank) + " but " + plural(f.indices.size(), "index") +
                          (f.indices.size() == 1 ? " is" : " are") + " given");
      ok = false;
    }
    std::optional<IndexSpace> space;
    std::set<std::string> seen;
    for (const IndexName &idx : f.indices) {
      auto s = indexSpace(idx);
      if (!s) {
        ok = false;
        continue;
      }
      if (!seen.insert(idx.name).second) {
        d_.error(idx.range, "repeated index '" + idx.name + "' in the declaration of '" + f.name + "'");
        ok = false;
      }
      if (space && *space != *s) {
        d_.error(idx.range, "index '" + idx.name + "' mixes spatial and spacetime indices in '" +
                                f.name + "'");
        ok = false;
      }
      space = s;
    }
    f.space = space.value_or(IndexSpace::Spatial);
    f.variances.clear();
    for (unsigned slot = 0; slot < rank; ++slot)
      f.variances.push_back(tensorTypeVariance(f.type, slot));
    unsigned n = m_.sim.dimension + (f.space == IndexSpace::Spacetime ? 1 : 0);
    f.componentCount = 1;
    for (unsigned i = 0; i < rank; ++i)
      f.componentCount *= n;
    if (ok) {
      globals_[f.name] = Symbol{SymbolKind::Field, f.nameRange, &f};
      if (f.type == TensorType::Metric && f.space == IndexSpace::Spatial) {
        if (!spatialMetric_)
          spatialMetric_ = &f;
        else
          extraMetric_ = &f;
      }
    } else if (!globals_.count(f.name)) {
      // Keep a broken field known so its uses do not cascade into "undeclared" errors.
      globals_[f.name] = Symbol{SymbolKind::Field, f.nameRange, &f};
      brokenFields_.insert(&f);
    }
  }

  void declareParam(ParamDecl &p) {
    if (findBuiltin(p.name)) {
      d_.error(p.range, "'" + p.name + "' is a built-in function and cannot name a parameter");
      return;
    }
    if (!checkNewName(p.name, p.range))
      return;
    globals_[p.name] = Symbol{SymbolKind::Param, p.range};
  }

  void declareExtern(ExternDecl &e) {
    if (e.resultType != TensorType::Scalar)
      d_.error(e.range, std::string("extern functions return a scalar; '") + e.name +
                            "' is declared to return '" + tensorTypeSpelling(e.resultType) + "'");
    if (const BuiltinInfo *b = findBuiltin(e.name)) {
      bool allScalar = std::all_of(e.argTypes.begin(), e.argTypes.end(),
                                   [](TensorType t) { return t == TensorType::Scalar; });
      if (e.argTypes.size() != b->arity || !allScalar) {
        d_.error(e.nameRange, "extern '" + e.name + "' conflicts with the built-in '" + e.name +
                                  "', which takes " + plural(b->arity, "scalar argument"));
        return;
      }
      e.shadowsBuiltin = true;
      d_.warning(e.nameRange, "extern '" + e.name + "' repeats a built-in; the built-in is used");
      return;
    }
    if (!checkNewName(e.name, e.nameRange))
      return;
    globals_[e.name] = Symbol{SymbolKind::Extern, e.nameRange, nullptr, &e};
  }

  // ------------------------------------------------------------ indices

  std::optional<IndexSpace> indexSpace(const IndexName &idx) {
    if (isSpatialIndexName(idx.name))
      return IndexSpace::Spatial;
    if (isSpacetimeIndexName(idx.name))
      return IndexSpace::Spacetime;
    d_.error(idx.range, "unknown index name '" + idx.name + "' (" + kIndexHelp + ")");
    return std::nullopt;
  }

  /// Adds the indices of `other` to a product accumulator, pairing repeated names.
  bool mergeProduct(Shape &acc, const Shape &other) {
    bool ok = true;
    for (const std::string &b : other.bound) {
      bool clash = std::find(acc.bound.begin(), acc.bound.end(), b) != acc.bound.end() ||
                   std::any_of(acc.free.begin(), acc.free.end(),
                               [&](const TypedIndex &t) { return t.name == b; });
      if (clash) {
        d_.error(currentRange_, "index '" + b + "' appears more than twice in one product");
        ok = false;
      } else {
        acc.bound.push_back(b);
      }
    }
    for (const TypedIndex &idx : other.free) {
      if (std::find(acc.bound.begin(), acc.bound.end(), idx.name) != acc.bound.end()) {
        d_.error(idx.range, "index '" + idx.name + "' appears more than twice in one product");
        ok = false;
        continue;
      }
      auto it = std::find_if(acc.free.begin(), acc.free.end(),
                             [&](const TypedIndex &t) { return t.name == idx.name; });
      if (it == acc.free.end()) {
        acc.free.push_back(idx);
        continue;
      }
      if (it->variance == idx.variance) {
        d_.error(idx.range, std::string("contraction of two ") + variancePrefixSpelling(idx.variance) +
                                " indices '" + idx.name + "'; a summed pair needs one upper and "
                                "one lower index (" +
                                (idx.variance == Variance::Down ? "raise one with the inverse metric"
                                                                : "lower one with the metric") + ")");
        ok = false;
      } else if (contractDepth_ == 0) {
        d_.error(idx.range, "repeated index '" + idx.name + "' outside contract(); wrap the "
                                "expression in contract(...) to sum over it");
        ok = false;
      } else {
        acc.bound.push_back(idx.name);
      }
      acc.free.erase(it);
    }
    return ok;
  }

  std::string freeList(const std::vector<TypedIndex> &free) {
    std::string s;
    for (size_t i = 0; i < free.size(); ++i)
      s += (i ? ", '" : "'") + free[i].name + "'";
    return s;
  }

  bool requireScalar(const Shape &shape, SourceRange where, const std::string &what) {
    if (!shape.free.empty()) {
      d_.error(where, what + " must be a scalar; it has free " +
                          (shape.free.size() == 1 ? "index " : "indices ") + freeList(shape.free));
      return false;
    }
    if (!shape.bound.empty()) {
      d_.error(where, what + " must be a scalar; close the sum over '" + shape.bound.front() +
                          "' inside it with contract(...)");
      return false;
    }
    return true;
  }

  // ------------------------------------------------------------ expressions

  std::optional<Shape> check(Expr &e) {
    switch (e.kind) {
    case ExprKind::Number:
      return Shape{};
    case ExprKind::Ref:
      return checkRef(e);
    case ExprKind::Negate: {
      auto s = check(*e.operands[0]);
      if (s)
        e.freeIndices = s->free;
      return s;
    }
    case ExprKind::Binary:
      return checkBinary(e);
    case ExprKind::Power: {
      auto s = check(*e.operands[0]);
      if (!s)
        return s;
      if (!requireScalar(*s, e.operands[0]->range, "the base of '^'"))
        return std::nullopt;
      return Shape{};
    }
    case ExprKind::Call:
      return checkCall(e);
    case ExprKind::Contract: {
      if (e.operands.size() != 1) {
        d_.error(e.range, "contract() takes exactly one argument, but " +
                              plural(e.operands.size(), "was") + " given");
        return std::nullopt;
      }
      ++contractDepth_;
      auto s = check(*e.operands[0]);
      --contractDepth_;
      if (!s)
        return s;
      if (s->bound.empty())
        d_.warning(e.range, "contract() has no repeated index to sum over");
      e.summedIndices = s->bound;
      e.freeIndices = s->free;
      return Shape{s->free, {}};
    }
    case ExprKind::Derivative:
    case ExprKind::Covariant:
      return checkDerivative(e);
    case ExprKind::Laplacian: {
      if (e.operands.size() != 1) {
        d_.error(e.range, "laplacian() takes exactly one argument");
        return std::nullopt;
      }
      auto s = check(*e.operands[0]);
      if (!s)
        return s;
      if (!requireScalar(*s, e.operands[0]->range, "the argument of laplacian()"))
        return std::nullopt;
      return Shape{};
    }
    case ExprKind::Dissipation: {
      if (e.operands.size() != 2) {
        d_.error(e.range, "dissipation() takes two arguments: the expression to damp and the strength sigma");
        return std::nullopt;
      }
      auto s = check(*e.operands[0]);
      auto sigma = check(*e.operands[1]);
      if (!s || !sigma)
        return std::nullopt;
      if (!requireScalar(*sigma, e.operands[1]->range, "the strength of dissipation()"))
        return std::nullopt;
      e.freeIndices = s->free;
      return Shape{s->free, {}};
    }
    case ExprKind::Advect:
      return checkAdvect(e);
    }
    return std::nullopt;
  }

  /// advect(beta[k], u): beta^k d_k u, so beta carries exactly one free upper spatial index k
  /// that u does not use; the value has u's indices.
  std::optional<Shape> checkAdvect(Expr &e) {
    if (e.operands.size() != 2) {
      d_.error(e.range, "advect() takes two arguments: the advecting vector with its index and the advected "
                        "expression, as in advect(beta[k], chi)");
      return std::nullopt;
    }
    auto velocity = check(*e.operands[0]);
    auto advected = check(*e.operands[1]);
    if (!velocity || !advected)
      return std::nullopt;
    const Expr &v = *e.operands[0];
    if (!velocity->bound.empty() || !advected->bound.empty()) {
      d_.error((!velocity->bound.empty() ? v : *e.operands[1]).range,
               "repeated index in an argument of advect(); sum it with contract() inside the argument");
      return std::nullopt;
    }
    if (velocity->free.size() != 1 || velocity->free.front().space != IndexSpace::Spatial ||
        velocity->free.front().variance != Variance::Up) {
      d_.error(v.range, "the first argument of advect() must be a vector with one free upper spatial index, as in "
                        "advect(beta[k], chi)");
      return std::nullopt;
    }
    const std::string &k = velocity->free.front().name;
    for (const TypedIndex &i : advected->free)
      if (i.name == k) {
        d_.error(i.range, "index '" + k + "' of the advecting vector also appears in the advected expression; "
                                          "advect() sums over it");
        return std::nullopt;
      }
    e.freeIndices = advected->free;
    return Shape{advected->free, {}};
  }

  std::optional<Shape> checkRef(Expr &e) {
    const std::string &name = e.text;
    // Temporaries of the current block first.
    if (auto it = temps_.find(name); it != temps_.end()) {
      TemporaryInfo *t = it->second;
      t->used = true;
      e.refKind = RefKind::Temporary;
      e.temporary = t;
      if (t->indices.empty()) {
        if (e.hasIndexList) {
          d_.error(e.range, "temporary '" + name + "' is a scalar and takes no indices");
          return std::nullopt;
        }
        return Shape{};
      }
      if (!e.hasIndexList || e.indices.size() != t->indices.size()) {
        d_.error(e.range, "temporary '" + name + "' has rank " + std::to_string(t->indices.size()) +
                              " but is written with " + plural(e.indices.size(), "index"));
        return std::nullopt;
      }
      std::vector<Variance> variances;
      std::vector<IndexSpace> spaces;
      for (const TypedIndex &ti : t->indices) {
        variances.push_back(ti.variance);
        spaces.push_back(ti.space);
      }
      return slotsToShape(e, variances, spaces, "temporary '" + name + "'");
    }
    if (auto it = blockTemps_.find(name); it != blockTemps_.end()) {
      usedBeforeDefinition_.insert(name);
      d_.error(e.range, "temporary '" + name + "' is used before its definition");
      d_.note(it->second, "'" + name + "' is defined here");
      return std::nullopt;
    }
    auto it = globals_.find(name);
    if (it == globals_.end() && name == "t" && context_ == Context::InitialData) {
      // The reserved time coordinate of initial data (a metric4 may depend on it): passed to
      // the kernels as a scalar, appended to the parameters (programs that declare a parameter
      // or anything else named t keep that meaning).
      m_.params.push_back(ParamDecl{"t", e.range, std::nullopt});
      m_.timeParam = static_cast<int>(m_.params.size() - 1);
      it = globals_.emplace("t", Symbol{SymbolKind::Param, e.range}).first;
    }
    if (it == globals_.end() && (name == "delta" || name == "delta_up")) {
      // The flat spatial metric of Cartesian coordinates: delta[i,j] = delta_ij (both lower),
      // delta_up[i,j] = delta^ij. Any declaration of these names keeps its own meaning.
      if (!e.hasIndexList || e.indices.size() != 2) {
        d_.error(e.range, "'" + name + "' is the flat metric and takes two spatial indices, as in " + name + "[i,j]");
        return std::nullopt;
      }
      if (m_.sim.coordinates != CoordinateSystem::Cartesian) {
        d_.error(e.range, "'" + name + "' is the flat metric of Cartesian coordinates; this module uses " +
                              "spherical coordinates");
        return std::nullopt;
      }
      e.refKind = RefKind::FlatMetric;
      const Variance v = name == "delta" ? Variance::Down : Variance::Up;
      return slotsToShape(e, {v, v}, {IndexSpace::Spatial, IndexSpace::Spatial}, "the flat metric '" + name + "'");
    }
    if (it == globals_.end()) {
      if (findBuiltin(name) || name == "contract" || name == "laplacian" || name == "dissipation" || name == "advect" ||
          (name.size() > 2 && name.rfind("d_", 0) == 0) || name.rfind("nabla_", 0) == 0)
        d_.error(e.range, "'" + name + "' is a built-in operator; call it as " + name + "(...)");
      else if (name == "x" || name == "y" || name == "z" || name == "r" || name == "theta" || name == "phi") {
        std::string coords;
        for (const std::string &c : m_.sim.coordinateNames)
          coords += (coords.empty() ? "" : ", ") + c;
        d_.error(e.range, "use of undeclared name '" + name + "' (the coordinates of this module are " +
                              coords + ")");
      } else
        d_.error(e.range, "use of undeclared name '" + name + "'");
      return std::nullopt;
    }
    const Symbol &sym = it->second;
    switch (sym.kind) {
    case SymbolKind::Extern:
      d_.error(e.range, "'" + name + "' is a function; call it as " + name + "(...)");
      return std::nullopt;
    case SymbolKind::Coordinate:
    case SymbolKind::Param:
      e.refKind = sym.kind == SymbolKind::Coordinate ? RefKind::Coordinate : RefKind::Param;
      if (e.hasIndexList) {
        d_.error(e.range, std::string("'") + name + "' is a " + symbolKindSpelling(sym.kind) +
                              " and takes no indices");
        return std::nullopt;
      }
      return Shape{};
    case SymbolKind::Field:
      break;
    }
    const FieldDecl &f = *sym.field;
    if (context_ == Context::InitialData) {
      d_.error(e.range, "initial data may depend only on coordinates, parameters and "
                        "temporaries; '" + name + "' is a field");
      return std::nullopt;
    }
    if (brokenFields_.count(&f))
      return std::nullopt;
    e.refKind = RefKind::Field;
    e.field = &f;
    unsigned rank = tensorTypeRank(f.type);
    if (rank == 0) {
      if (e.hasIndexList) {
        d_.error(e.range, "scalar field '" + name + "' takes no indices");
        return std::nullopt;
      }
      return Shape{};
    }
    if (!e.hasIndexList) {
      d_.error(e.range, "field '" + name + "' has rank " + std::to_string(rank) + "; write it with " +
                            plural(rank, "index") + ", as in " + name + printIndexList(f.indices));
      return std::nullopt;
    }
    if (e.indices.size() != rank) {
      d_.error(e.range, "field '" + name + "' has rank " + std::to_string(rank) +
                            " but is written with " + plural(e.indices.size(), "index"));
      return std::nullopt;
    }
    std::vector<IndexSpace> spaces(rank, f.space);
    return slotsToShape(e, f.variances, spaces, "'" + name + "'");
  }

  static std::string printIndexList(const std::vector<IndexName> &indices) {
    std::string s = "[";
    for (size_t i = 0; i < indices.size(); ++i)
      s += (i ? "," : "") + indices[i].name;
    return s + "]";
  }

  std::optional<Shape> slotsToShape(Expr &e, const std::vector<Variance> &variances,
                                    const std::vector<IndexSpace> &spaces, const std::string &what) {
    Shape shape;
    bool ok = true;
    SourceRange saved = currentRange_;
    currentRange_ = e.range;
    for (size_t slot = 0; slot < e.indices.size(); ++slot) {
      const IndexName &idx = e.indices[slot];
      auto s = indexSpace(idx);
      if (!s) {
        ok = false;
        continue;
      }
      if (*s != spaces[slot]) {
        d_.error(idx.range, "index '" + idx.name + "' is a " +
                                (*s == IndexSpace::Spatial ? "spatial" : "spacetime") + " index but " +
                                what + " is a " +
                                (spaces[slot] == IndexSpace::Spatial ? "spatial" : "spacetime") +
                                " tensor");
        ok = false;
        continue;
      }
      Shape one;
      one.free.push_back(TypedIndex{idx.name, variances[slot], *s, idx.range});
      ok = mergeProduct(shape, one) && ok;
    }
    currentRange_ = saved;
    if (!ok)
      return std::nullopt;
    e.freeIndices = shape.free;
    return shape;
  }

  std::optional<Shape> checkBinary(Expr &e) {
    auto lhs = check(*e.operands[0]);
    auto rhs = check(*e.operands[1]);
    if (!lhs || !rhs)
      return std::nullopt;
    Shape result;
    switch (e.op) {
    case '*': {
      result = *lhs;
      SourceRange saved = currentRange_;
      currentRange_ = e.range;
      bool ok = mergeProduct(result, *rhs);
      currentRange_ = saved;
      if (!ok)
        return std::nullopt;
      break;
    }
    case '/': {
      const Expr &den = *e.operands[1];
      if (!requireScalar(*rhs, den.range, "the denominator of '/'"))
        return std::nullopt;
      if (den.kind == ExprKind::Number && den.number == 0.0)
        d_.warning(den.range, "division by zero");
      result = *lhs;
      break;
    }
    default: { // + and -
      bool ok = true;
      for (const TypedIndex &l : lhs->free) {
        auto it = std::find_if(rhs->free.begin(), rhs->free.end(),
                               [&](const TypedIndex &r) { return r.name == l.name; });
        if (it == rhs->free.end()) {
          d_.error(e.operands[1]->range, std::string("index '") + l.name +
                                             "' appears in the left operand of '" + e.op +
                                             "' but not in the right one");
          ok = false;
        } else if (it->variance != l.variance) {
          d_.error(it->range, std::string("variance mismatch in '") + e.op + "': index '" + l.name +
                                  "' is " + variancePrefixSpelling(l.variance) + " on the left but " +
                                  variancePrefixSpelling(it->variance) + " on the right");
          ok = false;
        }
      }
      for (const TypedIndex &r : rhs->free) {
        bool found = std::any_of(lhs->free.begin(), lhs->free.end(),
                                 [&](const TypedIndex &l) { return l.name == r.name; });
        if (!found) {
          d_.error(r.range, std::string("index '") + r.name + "' appears in the right operand of '" +
                                e.op + "' but not in the left one");
          ok = false;
        }
      }
      if (!ok)
        return std::nullopt;
      result.free = lhs->free;
      result.bound = lhs->bound;
      for (const std::string &b : rhs->bound)
        if (std::find(result.bound.begin(), result.bound.end(), b) == result.bound.end())
          result.bound.push_back(b);
      break;
    }
    }
    e.freeIndices = result.free;
    return result;
  }

  std::optional<Shape> checkCall(Expr &e) {
    const std::string &name = e.text;
    const BuiltinInfo *builtin = findBuiltin(name);
    const ExternDecl *ext = nullptr;
    if (!builtin) {
      auto it = globals_.find(name);
      if (it == globals_.end()) {
        d_.error(e.range.begin.isValid() ? SourceRange{e.range.begin, SourceLocation{e.range.begin.offset + static_cast<uint32_t>(name.size())}} : e.range,
                 "unknown function '" + name + "'");
        return std::nullopt;
      }
      if (it->second.kind != SymbolKind::Extern) {
        d_.error(e.range, std::string("'") + name + "' is a " + symbolKindSpelling(it->second.kind) +
                              ", not a function");
        return std::nullopt;
      }
      ext = it->second.externDecl;
    }
    size_t arity = builtin ? builtin->arity : ext->argTypes.size();
    if (e.operands.size() != arity) {
      d_.error(e.range, "'" + name + "' takes " + plural(arity, "argument") + " but " +
                            std::to_string(e.operands.size()) +
                            (e.operands.size() == 1 ? " was" : " were") + " given");
      if (ext)
        d_.note(ext->range, "'" + name + "' is declared here");
      return std::nullopt;
    }
    bool ok = true;
    for (size_t i = 0; i < e.operands.size(); ++i) {
      Expr &arg = *e.operands[i];
      auto s = check(arg);
      if (!s) {
        ok = false;
        continue;
      }
      std::string what = "argument " + std::to_string(i + 1) + " of '" + name + "'";
      if (builtin) {
        ok = requireScalar(*s, arg.range, what) && ok;
        continue;
      }
      TensorType expected = ext->argTypes[i];
      unsigned rank = tensorTypeRank(expected);
      if (!s->bound.empty()) {
        ok = requireScalar(*s, arg.range, what) && ok;
        continue;
      }
      if (s->free.size() != rank) {
        d_.error(arg.range, what + " must have rank " + std::to_string(rank) + " (" +
                                tensorTypeSpelling(expected) + ") but has rank " +
                                std::to_string(s->free.size()));
        d_.note(ext->argRanges[i], "parameter declared here");
        ok = false;
        continue;
      }
      for (unsigned slot = 0; slot < rank; ++slot) {
        if (s->free[slot].variance != tensorTypeVariance(expected, slot)) {
          d_.error(s->free[slot].range, what + " expects an " +
                                            variancePrefixSpelling(tensorTypeVariance(expected, slot)) +
                                            " index in slot " + std::to_string(slot + 1) + " (" +
                                            tensorTypeSpelling(expected) + ")");
          ok = false;
        }
      }
    }
    if (!ok)
      return std::nullopt;
    e.builtin = builtin ? builtin->builtin : Builtin::None;
    e.externDecl = ext;
    return Shape{};
  }

  std::optional<Shape> checkDerivative(Expr &e) {
    const bool covariant = e.kind == ExprKind::Covariant;
    const char *op = covariant ? "nabla" : "d";
    const IndexName &idx = e.indices.front();
    std::string spelled = std::string(op) + "_" + idx.name;
    if (e.operands.size() != 1) {
      d_.error(e.range, spelled + "() takes exactly one argument");
      return std::nullopt;
    }
    auto space = indexSpace(idx);
    if (!space)
      return std::nullopt;
    if (*space != IndexSpace::Spatial) {
      d_.error(idx.range, "derivative index '" + idx.name + "' must be a spatial index");
      return std::nullopt;
    }
    if (covariant) {
      if (!spatialMetric_) {
        d_.error(e.range, spelled + " needs a declared spatial metric (for example 'field metric "
                                    "gamma[i,j]') to form Christoffel symbols");
        return std::nullopt;
      }
      const Expr &arg = *e.operands[0];
      if (arg.kind != ExprKind::Ref) {
        d_.error(arg.range, spelled + " applies to a field reference, as in " + spelled + "(beta[i])");
        return std::nullopt;
      }
    }
    auto inner = check(*e.operands[0]);
    if (!inner)
      return inner;
    if (covariant && e.operands[0]->refKind != RefKind::Field) {
      d_.error(e.operands[0]->range, spelled + " applies to a field reference");
      return std::nullopt;
    }
    if (covariant && e.operands[0]->field->space != IndexSpace::Spatial) {
      d_.error(e.operands[0]->range, spelled + " uses the spatial Christoffel symbols; '" +
                                         e.operands[0]->field->name + "' is a spacetime tensor");
      return std::nullopt;
    }
    if (covariant && extraMetric_) {
      d_.error(e.range, spelled + " is ambiguous: the module declares the spatial metrics '" +
                            spatialMetric_->name + "' and '" + extraMetric_->name +
                            "'; write the Christoffel terms explicitly");
      return std::nullopt;
    }
    Shape result = *inner;
    Shape one;
    one.free.push_back(TypedIndex{idx.name, Variance::Down, IndexSpace::Spatial, idx.range});
    SourceRange saved = currentRange_;
    currentRange_ = e.range;
    bool ok = mergeProduct(result, one);
    currentRange_ = saved;
    if (!ok)
      return std::nullopt;
    e.freeIndices = result.free;
    return result;
  }

  // ------------------------------------------------------------ statements

  /// Checks an assignment's index lists; returns the target's typed indices.
  bool checkAssignmentIndices(Stmt &s, const Shape &rhs, const FieldDecl *field) {
    bool ok = true;
    std::set<std::string> seen;
    for (const IndexName &idx : s.targetIndices) {
      if (!indexSpace(idx)) {
        ok = false;
        continue;
      }
      if (!seen.insert(idx.name).second) {
        d_.error(idx.range, "repeated index '" + idx.name + "' on the left-hand side");
        ok = false;
      }
    }
    if (!ok)
      return false;
    for (size_t slot = 0; slot < s.targetIndices.size(); ++slot) {
      const IndexName &idx = s.targetIndices[slot];
      auto it = std::find_if(rhs.free.begin(), rhs.free.end(),
                             [&](const TypedIndex &t) { return t.name == idx.name; });
      if (it == rhs.free.end()) {
        d_.error(idx.range, "index '" + idx.name + "' on the left-hand side does not appear on the "
                                "right-hand side");
        ok = false;
        continue;
      }
      if (field) {
        if (field->space != it->space) {
          d_.error(idx.range, "index '" + idx.name + "' does not match the space of '" + field->name + "'");
          ok = false;
        } else if (field->variances[slot] != it->variance) {
          d_.error(it->range, "variance mismatch: index '" + idx.name + "' is " +
                                  variancePrefixSpelling(field->variances[slot]) +
                                  " on the left-hand side but " + variancePrefixSpelling(it->variance) +
                                  " on the right-hand side");
          ok = false;
        }
      }
    }
    for (const TypedIndex &t : rhs.free) {
      bool found = std::any_of(s.targetIndices.begin(), s.targetIndices.end(),
                               [&](const IndexName &n) { return n.name == t.name; });
      if (!found) {
        d_.error(t.range, "free index '" + t.name + "' on the right-hand side does not appear on "
                              "the left-hand side");
        ok = false;
      }
    }
    return ok;
  }

  void checkTemporary(Stmt &s) {
    auto global = globals_.find(s.target);
    if (global != globals_.end()) {
      const Symbol &sym = global->second;
      if (sym.kind == SymbolKind::Field) {
        std::string hint = context_ == Context::Evolution
                               ? "write 'dt " + s.target + " = ...' to give its time derivative"
                           : context_ == Context::Constraints
                               ? "write 'residual " + s.target + " = ...' for a residual output"
                               : "initial data fills fields through 'split_3p1'";
        d_.error(s.targetRange, "cannot assign to field '" + s.target + "' here; " + hint);
      } else {
        d_.error(s.targetRange, std::string("cannot assign to ") + symbolKindSpelling(sym.kind) + " '" +
                                    s.target + "'; temporaries need a new name");
        if (sym.range.begin.isValid())
          d_.note(sym.range, "declared here");
      }
      return;
    }
    if (findBuiltin(s.target) || isReserved(s.target)) {
      d_.error(s.targetRange, "'" + s.target + "' is a built-in or reserved name");
      return;
    }
    if (auto it = temps_.find(s.target); it != temps_.end()) {
      d_.error(s.targetRange, "redefinition of temporary '" + s.target + "'");
      d_.note(it->second->range, "previous definition is here");
      return;
    }
    auto rhs = check(*s.value);
    auto info = std::make_unique<TemporaryInfo>();
    info->name = s.target;
    info->range = s.targetRange;
    if (rhs && checkAssignmentIndices(s, *rhs, nullptr)) {
      for (const IndexName &idx : s.targetIndices) {
        auto it = std::find_if(rhs->free.begin(), rhs->free.end(),
                               [&](const TypedIndex &t) { return t.name == idx.name; });
        info->indices.push_back(TypedIndex{idx.name, it->variance, it->space, idx.range});
      }
    } else {
      // Keep a placeholder of the written rank so later uses do not cascade.
      for (const IndexName &idx : s.targetIndices)
        info->indices.push_back(TypedIndex{idx.name, Variance::Down, IndexSpace::Spatial, idx.range});
    }
    temps_[s.target] = info.get();
    s.temporary = std::move(info);
  }

  const FieldDecl *resolveFieldTarget(Stmt &s, const char *keyword) {
    auto it = globals_.find(s.target);
    if (temps_.count(s.target) || blockTemps_.count(s.target)) {
      d_.error(s.targetRange, std::string("'") + keyword + "' applies to fields; '" + s.target +
                                  "' is a temporary");
      return nullptr;
    }
    if (it == globals_.end()) {
      d_.error(s.targetRange, std::string("'") + keyword + "' target '" + s.target +
                                  "' is not a declared field");
      return nullptr;
    }
    if (it->second.kind != SymbolKind::Field) {
      d_.error(s.targetRange, std::string("'") + keyword + "' applies to fields; '" + s.target +
                                  "' is a " + symbolKindSpelling(it->second.kind));
      return nullptr;
    }
    if (brokenFields_.count(it->second.field))
      return nullptr;
    return it->second.field;
  }

  void checkDt(Stmt &s) {
    if (context_ != Context::Evolution) {
      d_.error(s.range, "'dt' assignments belong in 'evolution' blocks");
      return;
    }
    const FieldDecl *f = resolveFieldTarget(s, "dt");
    auto rhs = check(*s.value);
    if (!f)
      return;
    s.field = f;
    if (auto clash = globals_.find("d" + f->name); clash != globals_.end() && clash->second.kind == SymbolKind::Field)
      d_.warning(s.targetRange, "'dt " + f->name + "' writes its right-hand side into the buffer 'd" + f->name +
                                    "', which is also the declared field 'd" + f->name + "'");
    auto [it, inserted] = dtTargets_.insert({f, s.targetRange});
    if (!inserted) {
      d_.error(s.targetRange, "field '" + f->name + "' already has a 'dt' assignment");
      d_.note(it->second, "previous 'dt' assignment is here");
      return;
    }
    if (rhs && targetRankMatches(s, *f))
      checkAssignmentIndices(s, *rhs, f);
  }

  /// The target of `dt X[...]` or `X[...] = ` carries as many indices as the field's rank.
  bool targetRankMatches(const Stmt &s, const FieldDecl &f) {
    const unsigned rank = tensorTypeRank(f.type);
    if (rank == 0 && s.targetHasIndexList) {
      d_.error(s.targetRange, "scalar field '" + f.name + "' takes no indices");
      return false;
    }
    if (s.targetIndices.size() != rank) {
      d_.error(s.targetRange, "field '" + f.name + "' has rank " + std::to_string(rank) + " but is written with " +
                                  plural(s.targetIndices.size(), "index"));
      return false;
    }
    return true;
  }

  void checkResidual(Stmt &s) {
    if (context_ != Context::Constraints) {
      d_.error(s.range, "'residual' outputs belong in 'constraints' blocks");
      return;
    }
    ++residualCount_;
    const FieldDecl *f = resolveFieldTarget(s, "residual");
    auto rhs = check(*s.value);
    if (!f)
      return;
    s.field = f;
    // A vector residual `residual M[i] for W = ...` is one equation per component of a vector
    // unknown; every other residual is a scalar.
    const bool vectorResidual = !s.forUnknown.empty() && tensorTypeRank(f->type) == 1 && s.targetIndices.size() == 1;
    if (!vectorResidual && (tensorTypeRank(f->type) != 0 || s.targetHasIndexList)) {
      d_.error(s.targetRange, "residual '" + f->name + "' must be a scalar field, but '" + f->name +
                                  "' has rank " + std::to_string(tensorTypeRank(f->type)) +
                                  (tensorTypeRank(f->type) == 1 && s.forUnknown.empty()
                                       ? " (a vector residual pairs with a vector unknown: 'residual " + f->name +
                                             "[i] for W = ...')"
                                       : std::string()));
      return;
    }
    auto [it, inserted] = residualTargets_.insert({f, s.targetRange});
    if (!inserted) {
      d_.error(s.targetRange, "residual '" + f->name + "' is already defined");
      d_.note(it->second, "previous definition is here");
      return;
    }
    if (rhs && vectorResidual)
      checkAssignmentIndices(s, *rhs, f);
    else if (rhs)
      requireScalar(*rhs, s.value->range, "a residual expression");
  }

  // ------------------------------------------------------------ elliptic problems

  /// Resolves `unknown` declarations to fields (shape and pairing checks: SemaProblem.cpp).
  void resolveUnknowns(ComputeBlock &block) {
    for (UnknownDecl &u : block.unknowns) {
      auto it = globals_.find(u.name);
      if (it == globals_.end()) {
        d_.error(u.nameRange, "unknown '" + u.name + "' is not a declared field; declare it first, as in "
                              "'field scalar " + u.name + "'");
        continue;
      }
      if (it->second.kind != SymbolKind::Field) {
        d_.error(u.nameRange, "unknown '" + u.name + "' must be a field, but it is a " +
                                  symbolKindSpelling(it->second.kind));
        continue;
      }
      if (!brokenFields_.count(it->second.field))
        u.field = it->second.field;
    }
  }

  /// Boundary values, Robin coefficients: expressions of coordinates, parameters and numbers.
  void checkBoundaryExpressions(ComputeBlock &block) {
    // Temporaries that depend on a field, directly or through other temporaries.
    std::set<const TemporaryInfo *> fieldTemps;
    for (const Stmt &st : block.statements)
      if (st.kind == StmtKind::Temporary && st.temporary && st.value && firstFieldDependence(*st.value, fieldTemps))
        fieldTemps.insert(st.temporary.get());
    for (const ExactSolution &ex : block.exacts) {
      BoundaryCondition like; // the same rules as a Dirichlet value
      like.unknownHasIndexList = ex.unknownHasIndexList;
      like.unknownIndices = ex.unknownIndices;
      checkProblemExpression(ex.value.get(), "an exact solution", true, like, fieldTemps);
      checkProblemExpression(ex.tolerance.get(), "an exact solution's tolerance", false, like, fieldTemps);
    }
    for (BoundaryCondition &bc : block.boundaries) {
      auto checkOne = [&](Expr *e, const char *what, bool mayCarryIndex) {
        checkProblemExpression(e, what, mayCarryIndex, bc, fieldTemps);
      };
      if (bc.kind == BoundaryKind::Dirichlet) {
        checkOne(bc.value.get(), "a Dirichlet boundary value", true);
      } else {
        checkOne(bc.a.get(), "the Robin coefficient 'a'", false);
        checkOne(bc.b.get(), "the Robin coefficient 'b'", false);
        checkOne(bc.value.get(), "the Robin value", true);
      }
    }
  }

  /// One expression of a problem declaration: coordinates, parameters and numbers only; a
  /// scalar, or carrying the unknown's one index when `mayCarryIndex`.
  void checkProblemExpression(Expr *e, const char *what, bool mayCarryIndex, const BoundaryCondition &bc,
                              const std::set<const TemporaryInfo *> &fieldTemps) {
    if (!e)
      return;
    auto shape = check(*e);
    if (!shape)
      return;
    if (const Expr *bad = firstFieldDependence(*e, fieldTemps)) {
      d_.error(bad->range, std::string(what) + " may depend on coordinates and parameters only; '" + bad->text +
                               "' " + (bad->refKind == RefKind::Field ? "is a field" : "depends on a field"));
      return;
    }
    if (!mayCarryIndex || !bc.unknownHasIndexList || bc.unknownIndices.size() != 1) {
      requireScalar(*shape, e->range, what);
      return;
    }
    if (!shape->bound.empty()) {
      requireScalar(*shape, e->range, what);
      return;
    }
    for (const TypedIndex &t : shape->free)
      if (t.name != bc.unknownIndices[0].name || shape->free.size() > 1)
        d_.error(t.range, std::string(what) + " may carry only the index '" + bc.unknownIndices[0].name +
                              "' of the unknown; '" + t.name + "' is free");
  }

  static const Expr *firstFieldDependence(const Expr &e, const std::set<const TemporaryInfo *> &fieldTemps) {
    if (e.kind == ExprKind::Ref &&
        (e.refKind == RefKind::Field || (e.refKind == RefKind::Temporary && fieldTemps.count(e.temporary))))
      return &e;
    for (const ExprPtr &op : e.operands)
      if (const Expr *bad = firstFieldDependence(*op, fieldTemps))
        return bad;
    return nullptr;
  }

  void beginBlock(Context context, const std::vector<Stmt> &statements) {
    context_ = context;
    temps_.clear();
    blockTemps_.clear();
    usedBeforeDefinition_.clear();
    for (const Stmt &s : statements)
      if (s.kind == StmtKind::Temporary && !globals_.count(s.target))
        blockTemps_.insert({s.target, s.targetRange});
  }

  void checkStatements(std::vector<Stmt> &statements) {
    for (Stmt &s : statements) {
      if (d_.limitReached())
        return;
      switch (s.kind) {
      case StmtKind::Temporary: checkTemporary(s); break;
      case StmtKind::DtAssign: checkDt(s); break;
      case StmtKind::Residual: checkResidual(s); break;
      case StmtKind::FieldValue: break; // made by Sema in initial data only
      }
    }
  }

  void warnUnusedTemporaries(std::vector<Stmt> &statements) {
    if (d_.limitReached())
      return;
    for (Stmt &s : statements)
      if (s.kind == StmtKind::Temporary && s.temporary && !s.temporary->used &&
          !usedBeforeDefinition_.count(s.target))
        d_.warning(s.targetRange, "temporary '" + s.target + "' is never used");
  }

  void checkComputeBlock(ComputeBlock &block) {
    beginBlock(block.kind == ComputeKind::Evolution ? Context::Evolution : Context::Constraints,
               block.statements);
    size_t residualsBefore = residualCount_;
    if (block.kind == ComputeKind::Constraints)
      resolveUnknowns(block);
    checkStatements(block.statements);
    if (block.kind == ComputeKind::Constraints) {
      // Boundary values may use the block's temporaries: check them before warning about unused ones.
      checkBoundaryExpressions(block);
      warnUnusedTemporaries(block.statements);
      checkEllipticProblem(block, m_, d_);
    } else {
      warnUnusedTemporaries(block.statements);
    }
    if (block.kind == ComputeKind::Evolution) {
      bool anyDt = std::any_of(block.statements.begin(), block.statements.end(),
                               [](const Stmt &s) { return s.kind == StmtKind::DtAssign; });
      if (!anyDt)
        d_.warning(block.nameRange, "evolution block '" + block.name + "' has no 'dt' assignment");
    } else if (residualCount_ == residualsBefore) {
      d_.error(block.nameRange, "constraints block '" + block.name + "' has no 'residual' output");
    }
  }

  void checkInitialData(InitialDataBlock &block) {
    beginBlock(Context::InitialData, block.temporaries);
    // Temporaries may be used by metric entries, so mark use before warning about them.
    for (Stmt &s : block.temporaries)
      if (!d_.limitReached()) {
        auto global = globals_.find(s.target);
        if (global != globals_.end() && global->second.kind == SymbolKind::Field)
          checkFieldValue(s);
        else
          checkTemporary(s);
      }
    if (block.metric4)
      checkMetric4(*block.metric4, block);
    for (Stmt &s : block.temporaries)
      if (s.temporary && !s.temporary->used && !usedBeforeDefinition_.count(s.target))
        d_.warning(s.targetRange, "temporary '" + s.target + "' is never used");
    checkSplit(block);
  }

  /// Evolution boundaries name evolved fields, once each; `exact` needs the field's initial_data
  /// expression; periodicity belongs to the whole grid, so it is all or nothing.
  void checkEvolutionBoundaries() {
    std::map<const FieldDecl *, const EvolutionBoundary *> seen;
    const EvolutionBoundary *periodic = nullptr, *other = nullptr;
    for (ComputeBlock &block : m_.blocks)
      for (EvolutionBoundary &bc : block.evolutionBoundaries) {
        auto g = globals_.find(bc.field);
        if (g == globals_.end() || g->second.kind != SymbolKind::Field) {
          d_.error(bc.fieldRange, "boundary target '" + bc.field + "' is not a declared field");
          continue;
        }
        const FieldDecl *f = g->second.field;
        if (!dtTargets_.count(f)) {
          d_.error(bc.fieldRange, "boundary target '" + bc.field + "' is not evolved; give it 'dt " + bc.field +
                                      " = ...' or drop the condition");
          continue;
        }
        if (auto [it, inserted] = seen.insert({f, &bc}); !inserted) {
          d_.error(bc.fieldRange, "field '" + bc.field + "' already has a boundary condition");
          d_.note(it->second->range, "previous condition is here");
          continue;
        }
        if (bc.kind == EvolutionBoundaryKind::Exact && !initTargets_.count(f)) {
          d_.error(bc.kindRange, "'exact' takes the field's initial_data expression, but the initial data do not "
                                 "assign '" + bc.field + "' (write '" + bc.field + " = ...' in 'initial_data')");
          continue;
        }
        bc.target = f;
        const EvolutionBoundary *&first = bc.kind == EvolutionBoundaryKind::Periodic ? periodic : other;
        if (!first)
          first = &bc;
      }
    if (periodic && other) {
      d_.error(other->range, "a periodic grid has no outer faces: with 'boundary " + periodic->field +
                                 " periodic', every evolved field's boundary must be periodic");
      d_.note(periodic->range, "the periodic condition is here");
    }
  }

  /// `u = expr` / `E[i] = expr[i]` in initial data: the field's value at (coordinates, t).
  void checkFieldValue(Stmt &s) {
    s.kind = StmtKind::FieldValue;
    const FieldDecl *f = resolveFieldTarget(s, "initial data");
    auto rhs = check(*s.value);
    if (!f)
      return;
    s.field = f;
    auto [it, inserted] = initTargets_.insert({f, s.targetRange});
    if (!inserted) {
      d_.error(s.targetRange, "field '" + f->name + "' already has initial data");
      d_.note(it->second, "previous assignment is here");
      return;
    }
    if (rhs && targetRankMatches(s, *f) && checkAssignmentIndices(s, *rhs, f) && tensorTypeRank(f->type) == 0)
      requireScalar(*rhs, s.value->range, "a scalar field's initial value");
  }

  void checkMetric4(Metric4 &metric, const InitialDataBlock &block) {
    bool ok = true;
    if (metric.indices.size() != 2) {
      d_.error(metric.nameRange, "metric4 takes two spacetime indices, as in " + metric.name + "[mu,nu]");
      ok = false;
    }
    for (const IndexName &idx : metric.indices) {
      auto s = indexSpace(idx);
      if (s && *s != IndexSpace::Spacetime) {
        d_.error(idx.range, "metric4 indices must be spacetime indices such as mu and nu; '" +
                                idx.name + "' is spatial");
        ok = false;
      }
      if (!s)
        ok = false;
    }
    if (metric.indices.size() == 2 && metric.indices[0].name == metric.indices[1].name) {
      d_.error(metric.indices[1].range, "repeated index '" + metric.indices[1].name + "' in metric4");
      ok = false;
    }
    const size_t n = m_.sim.dimension + 1;
    if (metric.rows.size() != n) {
      d_.error(metric.range, "metric4 must be a " + std::to_string(n) + "x" + std::to_string(n) +
                                 " matrix for dimension " + std::to_string(m_.sim.dimension) +
                                 "; it has " + plural(metric.rows.size(), "row"));
      ok = false;
    }
    for (size_t r = 0; r < metric.rows.size(); ++r) {
      if (metric.rows[r].size() != n) {
        d_.error(metric.rowRanges[r], "metric4 row " + std::to_string(r) + " has " +
                                          plural(metric.rows[r].size(), "entry") + "; expected " +
                                          std::to_string(n));
        ok = false;
      }
      for (ExprPtr &entry : metric.rows[r]) {
        auto s = check(*entry);
        if (!s || !requireScalar(*s, entry->range, "a metric4 entry"))
          ok = false;
      }
    }
    if (!ok)
      return;
    bool enforce = block.enforceSymmetry.present && block.enforceSymmetry.value;
    for (size_t a = 0; a < n; ++a)
      for (size_t b = a + 1; b < n; ++b) {
        if (printExpr(*metric.rows[a][b]) == printExpr(*metric.rows[b][a]))
          continue;
        metric.symmetricAsWritten = false;
        if (!enforce) {
          d_.warning(metric.rows[b][a]->range,
                     "metric4 is not symmetric: entry (" + std::to_string(b) + "," +
                         std::to_string(a) + ") differs from (" + std::to_string(a) + "," +
                         std::to_string(b) + "); set enforce_symmetry = true to use the upper "
                                             "triangle");
          return;
        }
      }
  }

  void checkSplit(InitialDataBlock &block) {
    if (!block.hasSplit) {
      if (block.metric4)
        d_.warning(block.metric4->nameRange, "metric4 '" + block.metric4->name + "' is never split; "
                                             "add 'split_3p1 { alpha -> ...; gamma -> ...; gammaU -> ... }'");
      return;
    }
    if (!block.metric4) {
      d_.error(block.splitRange, "split_3p1 needs a metric4 in the same 'initial_data' block");
      return;
    }
    std::map<std::string, SourceRange> seen;
    for (SplitEntry &entry : block.split) {
      const std::string &q = entry.quantity;
      static const std::set<std::string> known{"alpha", "beta",  "gamma",  "gammaU", "Kij",
                                               "chi",   "gammatilde", "K", "Atilde", "Gammatilde"};
      if (!known.count(q)) {
        d_.error(entry.quantityRange, "unknown 3+1 quantity '" + q +
                                          "' (expected alpha, beta, gamma, gammaU, Kij, or the BSSN chi, gammatilde, K, "
                                          "Atilde, Gammatilde)");
        continue;
      }
      auto [it, inserted] = seen.insert({q, entry.quantityRange});
      if (!inserted) {
        d_.error(entry.quantityRange, "3+1 quantity '" + q + "' is split more than once");
        d_.note(it->second, "previous entry is here");
        continue;
      }
      auto g = globals_.find(entry.target);
      if (g == globals_.end() || g->second.kind != SymbolKind::Field) {
        d_.error(entry.targetRange, "split_3p1 target '" + entry.target + "' is not a declared field");
        continue;
      }
      const FieldDecl &f = *g->second.field;
      if (brokenFields_.count(&f))
        continue;
      if (auto assigned = initTargets_.find(&f); assigned != initTargets_.end()) {
        d_.error(entry.targetRange, "field '" + f.name + "' is given initial data twice: by split_3p1 and by an assignment");
        d_.note(assigned->second, "the assignment is here");
        continue;
      }
      unsigned rank = tensorTypeRank(f.type);
      bool shapeOk;
      std::string expected;
      if (q == "alpha" || q == "chi" || q == "K") {
        shapeOk = rank == 0;
        expected = "a scalar field";
      } else if (q == "beta" || q == "Gammatilde") {
        shapeOk = rank == 1 && f.space == IndexSpace::Spatial && f.variances[0] == Variance::Up;
        expected = "a spatial vector field";
      } else if (q == "Kij" || q == "gammatilde" || q == "Atilde") {
        shapeOk = rank == 2 && f.space == IndexSpace::Spatial && f.variances[0] == Variance::Down &&
                  f.variances[1] == Variance::Down;
        expected = "a spatial covariant rank-2 field (metric or cov_tensor2)";
      } else {
        Variance want = q == "gamma" ? Variance::Down : Variance::Up;
        shapeOk = rank == 2 && f.space == IndexSpace::Spatial && f.variances[0] == want &&
                  f.variances[1] == want;
        expected = q == "gamma" ? "a spatial covariant rank-2 field (metric or cov_tensor2)"
                                : "a spatial contravariant rank-2 field (inverse_metric or con_tensor2)";
      }
      if (!shapeOk) {
        std::string type = tensorTypeSpelling(f.type);
        const char *article = std::string("aeiou").find(type[0]) != std::string::npos ? "an " : "a ";
        d_.error(entry.targetRange, "'" + q + "' must be written into " + expected + "; '" +
                                        f.name + "' is " + article + type +
                                        (f.space == IndexSpace::Spacetime ? " over spacetime" : ""));
        continue;
      }
      if (!entry.targetIndices.empty() && entry.targetIndices.size() != rank) {
        d_.error(entry.targetRange, "field '" + f.name + "' has rank " + std::to_string(rank) +
                                        " but is written with " + plural(entry.targetIndices.size(), "index"));
        continue;
      }
      bool indicesOk = true;
      for (const IndexName &idx : entry.targetIndices) {
        auto s = indexSpace(idx);
        if (s && *s != IndexSpace::Spatial) {
          d_.error(idx.range, "split_3p1 targets are spatial; use spatial indices such as [i,j]");
          indicesOk = false;
        } else if (!s) {
          indicesOk = false;
        }
      }
      if (indicesOk)
        entry.field = &f;
    }
  }

  Module &m_;
  DiagnosticEngine &d_;
  std::map<std::string, Symbol> globals_;
  std::set<const FieldDecl *> brokenFields_;
  const FieldDecl *spatialMetric_ = nullptr;
  const FieldDecl *extraMetric_ = nullptr;
  Context context_ = Context::Evolution;
  std::map<std::string, TemporaryInfo *> temps_;
  std::map<std::string, SourceRange> blockTemps_;
  std::set<std::string> usedBeforeDefinition_;
  std::map<const FieldDecl *, SourceRange> dtTargets_;
  std::map<const FieldDecl *, SourceRange> initTargets_; // fields given a value in initial data
  std::map<const FieldDecl *, SourceRange> residualTargets_;
  size_t residualCount_ = 0;
  int contractDepth_ = 0;
  SourceRange currentRange_;
};
} // namespace

bool isSpatialIndexName(std::string_view name) {
  return std::find(std::begin(kSpatialIndices), std::end(kSpatialIndices), name) !=
         std::end(kSpatialIndices);
}

bool isSpacetimeIndexName(std::string_view name) {
  return std::find(std::begin(kSpacetimeIndices), std::end(kSpacetimeIndices), name) !=
         std::end(kSpacetimeIndices);
}

bool analyzeModule(Module &module, DiagnosticEngine &diags) {
  Sema sema(module, diags);
  return sema.run();
}

} // namespace tensorium_mlir::frontend
