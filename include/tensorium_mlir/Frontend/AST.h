#pragma once
// The .tn syntax tree. The parser fills the syntactic members; semantic analysis fills
// the members marked "sema" (resolved references, free indices, component counts).
#include "tensorium_mlir/Frontend/SourceManager.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tensorium_mlir::frontend {

enum class Variance { Up, Down };
enum class IndexSpace { Spatial, Spacetime };

/// An index name as written, e.g. the `j` of `gamma[i,j]`.
struct IndexName {
  std::string name;
  SourceRange range;
};

/// An index with the variance and space semantic analysis gave it.
struct TypedIndex {
  std::string name;
  Variance variance = Variance::Down;
  IndexSpace space = IndexSpace::Spatial;
  SourceRange range;
};

enum class TensorType {
  Scalar, Vector, Covector,
  CovTensor2, ConTensor2, MixedTensor2,
  CovTensor3, ConTensor3, CovTensor4, ConTensor4,
  Metric, InverseMetric,
};

const char *tensorTypeSpelling(TensorType type);
std::optional<TensorType> parseTensorType(std::string_view spelling);
unsigned tensorTypeRank(TensorType type);
/// Variance of slot `slot` of a tensor of this type.
Variance tensorTypeVariance(TensorType type, unsigned slot);
bool tensorTypeIsSymmetric(TensorType type);
struct FieldDecl;
/// Symmetric storage semantics: a symmetric type (metric, inverse_metric) or a rank-2 field
/// declared `symmetric`. Reads of [j,i] read [i,j] (i < j); writes compute the upper triangle.
bool fieldIsSymmetric(const FieldDecl &field);

/// Exact exponent of `^`: num/den with den > 0, reduced.
struct Rational {
  int64_t num = 1;
  int64_t den = 1;
};

struct FieldDecl;
struct ExternDecl;
struct TemporaryInfo;

enum class ExprKind {
  Number,     // literal
  Ref,        // name, optionally indexed: psi, gamma[i,j]
  Negate,     // unary minus
  Binary,     // + - * /
  Power,      // base ^ rational literal
  Call,       // math built-in or extern
  Contract,   // contract(expr)
  Derivative, // d_i(expr)
  Covariant,  // nabla_k(expr)
  Laplacian,  // laplacian(expr)
  Dissipation, // dissipation(expr, sigma): Kreiss-Oliger dissipation (fd only)
  Advect,     // advect(beta[k], expr): beta^k d_k expr, lopsided stencils by the sign of beta^k (fd)
};

enum class RefKind { Unresolved, Field, Param, Coordinate, Temporary, FlatMetric };
enum class Builtin { None, Sqrt, Sin, Cos, Exp, Log, Pow, BesselJ0, BesselJ1, Abs };

struct Expr {
  ExprKind kind;
  SourceRange range;

  double number = 0.0;         // Number
  std::string text;            // Number: spelling; Ref/Call: name
  std::vector<IndexName> indices; // Ref: index list; Derivative/Covariant: the one index
  bool hasIndexList = false;   // Ref written with [...]
  char op = 0;                 // Binary: + - * /
  Rational exponent;           // Power
  std::vector<std::unique_ptr<Expr>> operands;
  unsigned height = 1;         // tree height, bounded by the parser

  // sema
  RefKind refKind = RefKind::Unresolved;
  const FieldDecl *field = nullptr;
  const ExternDecl *externDecl = nullptr;
  const TemporaryInfo *temporary = nullptr;
  Builtin builtin = Builtin::None;
  std::vector<TypedIndex> freeIndices;   // indices of the value, in order of appearance
  std::vector<std::string> summedIndices; // Contract: the dummy indices it sums

  Expr(ExprKind k, SourceRange r) : kind(k), range(r) {}
};
using ExprPtr = std::unique_ptr<Expr>;

struct FieldDecl {
  TensorType type;
  bool declaredSymmetric = false; // `field symmetric cov_tensor2 A[i,j]`
  SourceRange symmetricRange;
  std::string name;
  SourceRange nameRange;
  SourceRange range;
  std::vector<IndexName> indices;
  // sema
  std::vector<Variance> variances;
  IndexSpace space = IndexSpace::Spatial;
  unsigned componentCount = 1;
};

struct ParamDecl {
  std::string name;
  SourceRange range;
  /// `params { m1 = 0.5 }`: the value a declared elliptic problem's runner uses when none is given.
  std::optional<double> defaultValue;
};

struct ExternDecl {
  TensorType resultType;
  std::string name;
  SourceRange nameRange;
  SourceRange range;
  std::vector<TensorType> argTypes;
  std::vector<SourceRange> argRanges;
  bool shadowsBuiltin = false; // sema
};

/// A simulation setting with the range of its value, for diagnostics.
template <typename T> struct Setting {
  T value{};
  bool present = false;
  SourceRange keyRange;
  SourceRange valueRange;
};

struct SimulationBlock {
  SourceRange range;
  Setting<std::string> coordinates;
  Setting<double> dimension;
  Setting<std::vector<double>> resolution;
  std::vector<SourceRange> resolutionEntryRanges;
  bool hasTime = false;
  Setting<double> dt;
  Setting<std::string> integrator;
  bool hasSpatial = false;
  Setting<std::string> scheme;
  Setting<std::string> derivative;
  Setting<double> order;
  Setting<std::string> expressionDerivatives;
  Setting<std::string> advection;
};

enum class Scheme { FiniteDifference, Spectral };
enum class CoordinateSystem { Cartesian, Spherical };

/// Simulation settings after defaults and validation.
struct SimulationInfo {
  CoordinateSystem coordinates = CoordinateSystem::Cartesian;
  unsigned dimension = 3;
  std::vector<unsigned> resolution{16, 16, 16};
  double dt = 1.0;
  std::string integrator = "euler";
  Scheme scheme = Scheme::FiniteDifference;
  std::string derivative = "centered";
  unsigned order = 2;
  /// fd: d_i of an expression that is not a field. false (`chain_rule`, the default): the exact
  /// derivative of the expression in terms of the stencil derivatives of its fields; true
  /// (`stencil`): the stencil applied to the expression evaluated at every neighbour.
  bool stencilOfExpressions = false;
  /// fd: advect(beta[k], u) with lopsided stencils chosen by the sign of beta^k (`lopsided`, the
  /// default) or as beta^k d_k u with the centred stencil (`centered`, the same kernel as
  /// contract(beta[k] * d_k(u))).
  bool lopsidedAdvection = true;
  std::vector<std::string> coordinateNames{"x", "y", "z"};
  bool fromSource = false;
};

struct TemporaryInfo {
  std::string name;
  SourceRange range;
  std::vector<TypedIndex> indices; // rank and variance come from the defining expression
  bool used = false;
};

/// FieldValue: `E[i] = ...` in an initial_data block, the field's value as an expression of the
/// coordinates, the parameters and the reserved time t (Sema turns such a Temporary into it).
enum class StmtKind { Temporary, DtAssign, Residual, FieldValue };

struct Stmt {
  StmtKind kind;
  SourceRange range;
  std::string target;
  SourceRange targetRange;
  std::vector<IndexName> targetIndices;
  bool targetHasIndexList = false;
  ExprPtr value;
  /// Residual: `residual H for u = ...` names the unknown this equation determines.
  std::string forUnknown;
  SourceRange forRange;
  // sema
  const FieldDecl *field = nullptr;         // DtAssign, Residual, FieldValue
  std::unique_ptr<TemporaryInfo> temporary; // Temporary
};

// ---------------------------------------------------------------- elliptic problems
// A spectral constraints block may declare its problem: unknowns, boundary conditions per
// domain face, the domain, and the solve policy (docs/language.md, "Elliptic problems").

/// `unknown u` or `unknown vector W[i]`.
struct UnknownDecl {
  std::string name;
  SourceRange nameRange;
  SourceRange range;
  bool vector = false;
  std::vector<IndexName> indices;
  const FieldDecl *field = nullptr; // sema
};

enum class BoundaryKind { Dirichlet, Robin };

/// `boundary u xmin dirichlet = expr` or `boundary u outer robin(a = e, b = e, value = e)`:
/// a u + b du/dn = value with n the outward normal of the physical domain.
struct BoundaryCondition {
  SourceRange range;
  std::string unknown;
  SourceRange unknownRange;
  std::vector<IndexName> unknownIndices; // `boundary W[i] ...`: expressions may carry index i
  bool unknownHasIndexList = false;
  std::string face;
  SourceRange faceRange;
  BoundaryKind kind = BoundaryKind::Dirichlet;
  SourceRange kindRange;
  ExprPtr value, a, b; // Dirichlet: value; Robin: all three
  const UnknownDecl *target = nullptr; // sema
};

/// `exact u = expr` or `exact W[i] = expr[i]`, optionally `tolerance = expr`: the unknown's exact
/// solution (a manufactured problem's), which the solve is compared with; a solution further
/// than the tolerance from it at any checked point fails.
struct ExactSolution {
  SourceRange range;
  std::string unknown;
  SourceRange unknownRange;
  std::vector<IndexName> unknownIndices;
  bool unknownHasIndexList = false;
  ExprPtr value, tolerance; // tolerance: null when not declared
  const UnknownDecl *target = nullptr; // sema
};

enum class EvolutionBoundaryKind { Periodic, Radiative, Exact };

/// `boundary u periodic`, `boundary u radiative(value = 0, speed = 1)` or `boundary u exact` in
/// an evolution block: how an evolved field is treated at every outer face. Radiative:
/// d_t u = -speed (x^i / r) d_i u - speed (u - value) / r on the outer layers; exact: the
/// field's initial_data expression at the present time.
struct EvolutionBoundary {
  SourceRange range;
  std::string field;
  SourceRange fieldRange;
  EvolutionBoundaryKind kind = EvolutionBoundaryKind::Periodic;
  SourceRange kindRange;
  double value = 0, speed = 1;
  const FieldDecl *target = nullptr; // sema
};

/// `domain { map = box  resolution = [..]  bounds = [..] }`.
struct DomainDecl {
  SourceRange range;
  Setting<std::string> map;
  Setting<std::vector<double>> resolution;
  std::vector<SourceRange> resolutionEntryRanges;
  Setting<std::vector<double>> bounds;
};

/// `solve { tolerance = ..  max_iterations = ..  linear = ..  restart = ..  preconditioner = ..
/// line_search = on|off }`.
struct SolveDecl {
  SourceRange range;
  Setting<double> tolerance;
  Setting<double> maxIterations;
  Setting<std::string> linear;
  Setting<double> restart;
  Setting<std::string> preconditioner;
  Setting<std::string> lineSearch;
  Setting<double> forcing;
};

struct Metric4 {
  std::string name;
  SourceRange nameRange;
  SourceRange range;
  std::vector<IndexName> indices;
  std::vector<std::vector<ExprPtr>> rows;
  std::vector<SourceRange> rowRanges;
  bool symmetricAsWritten = true; // sema
};

struct SplitEntry {
  std::string quantity; // alpha, gamma, gammaU
  SourceRange quantityRange;
  std::string target;
  SourceRange targetRange;
  std::vector<IndexName> targetIndices;
  const FieldDecl *field = nullptr; // sema
};

struct InitialDataBlock {
  SourceRange range;
  Setting<bool> enforceSymmetry;
  std::vector<Stmt> temporaries;
  std::optional<Metric4> metric4;
  bool hasSplit = false;
  SourceRange splitRange;
  std::vector<SplitEntry> split;
};

enum class ComputeKind { Evolution, Constraints };

struct ComputeBlock {
  ComputeKind kind;
  std::string name;
  SourceRange nameRange;
  SourceRange range;
  std::vector<Stmt> statements;
  // Elliptic problem declarations (constraints blocks only).
  std::vector<UnknownDecl> unknowns;
  std::vector<BoundaryCondition> boundaries;
  std::vector<ExactSolution> exacts;
  std::optional<DomainDecl> domain;
  std::optional<SolveDecl> solve;
  std::vector<EvolutionBoundary> evolutionBoundaries; // evolution blocks only
  bool declaresProblem() const { return !unknowns.empty() || !boundaries.empty() || !exacts.empty() || domain || solve; }
};

struct Module {
  std::string path;
  std::vector<std::unique_ptr<FieldDecl>> fields;
  std::vector<ParamDecl> params;
  /// Index in params of the reserved time coordinate `t` of initial data (sema), -1 when unused.
  int timeParam = -1;
  bool hasParams = false;
  SourceRange paramsRange;
  std::vector<std::unique_ptr<ExternDecl>> externs;
  std::optional<SimulationBlock> simulation;
  std::vector<InitialDataBlock> initialData;
  std::vector<ComputeBlock> blocks;
  // sema
  SimulationInfo sim;
};

const char *variancePrefixSpelling(Variance v);
/// Fully parenthesised one-line rendering of an expression.
std::string printExpr(const Expr &e);
/// `i_` for a lower index, `i^` for an upper one.
std::string typedIndexSpelling(const TypedIndex &index);

} // namespace tensorium_mlir::frontend
