#pragma once
// Elliptic problems declared in spectral constraints blocks: the domain maps the runtime
// implements, their faces, the solve policy with its defaults, and the semantic checks.
#include "tensorium_mlir/Frontend/AST.h"
#include "tensorium_mlir/Frontend/Diagnostics.h"

#include <string>
#include <string_view>
#include <vector>

namespace tensorium_mlir::frontend {

/// A face of a domain: `axis` of the logical grid, `side` 0 at its minimum, 1 at its maximum.
struct DomainFace {
  std::string name;
  int axis = 0;
  int side = 0;
};

/// Names of a field's spectral unknowns: the field itself when scalar, W_0, W_1, ... for the
/// components of a vector (the names of bundles, residual kernels and descriptor entries).
std::vector<std::string> spectralComponentNames(const FieldDecl &field);

/// Maps implemented by the runtime, selected by name in `domain { map = ... }`.
const std::vector<std::string> &knownDomainMaps();
/// Faces of a map (empty for an unknown map).
std::vector<DomainFace> domainFaces(std::string_view map);
/// Preconditioner names of `solve { preconditioner = ... }` (the runtime's names with '_' for '-').
const std::vector<std::string> &knownProblemPreconditioners();

/// The problem of one block after defaults: what the runtime's descriptor carries.
struct EllipticProblemInfo {
  std::string map = "box";
  std::vector<unsigned> resolution; // defaults to the simulation's
  std::vector<double> bounds{-1, 1, -1, 1, -1, 1};
  double tolerance = 1e-12;
  unsigned maxIterations = 20;
  std::string linear = "auto";      // auto | dense | gmres
  unsigned restart = 30;
  std::string preconditioner = "none";
  bool lineSearch = true;
  double forcing = 1e-6; // GMRES relative tolerance per Newton step
};
EllipticProblemInfo describeEllipticProblem(const ComputeBlock &block, const SimulationInfo &sim);

/// Checks a constraints block's problem declarations (called by semantic analysis after the
/// block's statements and boundary expressions were analysed).
void checkEllipticProblem(ComputeBlock &block, const Module &module, DiagnosticEngine &diags);

} // namespace tensorium_mlir::frontend
