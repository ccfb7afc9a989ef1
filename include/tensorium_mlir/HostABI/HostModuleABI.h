#pragma once
// Host-side description of a generated module: what a runtime needs to allocate buffers and
// call each kernel, built from the module's ABI attributes. Plain C++ (no MLIR types).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tensorium_mlir::abi {

enum class HostArgKind { Index, F64, Memref, FixedMemref };
enum class HostBufferRole { Coordinate, Field, Output };
enum class HostBufferAccess { None, Read, Write, ReadWrite };

const char *hostBufferRoleName(HostBufferRole role);
const char *hostBufferAccessName(HostBufferAccess access);

struct HostArgABI {
  std::string name;
  HostArgKind kind = HostArgKind::F64;
  int64_t fixedSize = 0; // FixedMemref
};

struct HostFieldABI {
  std::string name;
  std::string type;     // .tn field type, e.g. "metric"
  std::string variance; // one letter per index: 'u' up, 'd' down
  unsigned rank = 0;
  bool spacetime = false;
  unsigned componentCount = 1;
};

struct HostBufferABI {
  std::string name;   // logical name (field, d<field>, coordinate, bundle slot)
  std::string cName;  // C-safe identifier
  int64_t argIndex = -1;
  HostBufferRole role = HostBufferRole::Field;
  HostBufferAccess access = HostBufferAccess::None;
  std::string variance;
  unsigned rank = 0;
  unsigned componentCount = 1;
};

struct HostKernelABI {
  std::string symbol;
  std::string kind;
  int64_t version = 0;
  std::string memoryLayout;
  std::string memrefABI;
  std::vector<HostArgABI> args;
  bool returnsF64 = false;
  std::vector<std::string> paramNames, coordNames, fieldNames, outputNames;
  std::vector<int64_t> readArgIndices, writeArgIndices;
  std::optional<int64_t> stencilRadius;
  bool residualKernel = false;
  std::string constraintBlock; // spectral residual kernels
  std::vector<HostBufferABI> buffers;
};

struct HostSimulationABI {
  unsigned dimension = 3;
  std::string coordinates = "cartesian";
  std::vector<int64_t> resolution;
  std::string scheme = "fd";
  unsigned order = 2;
};

/// One boundary condition of a declared problem: its unknown (component), face and kernel.
struct HostSpectralBoundaryABI {
  std::string unknown; // e.g. u, W_0
  std::string face;
  int64_t axis = 0, side = 0;
  std::string kind;    // dirichlet | robin
  std::string kernel;  // symbol of its spectral_boundary_grid kernel
};

/// An elliptic problem declared in a constraints block (domain, unknowns, boundaries, policy).
struct HostSpectralProblemABI {
  std::string block;
  std::string map;
  std::vector<int64_t> resolution;
  std::vector<double> bounds;
  std::vector<std::string> unknowns; // scalar unknowns, vector components expanded
  std::vector<HostSpectralBoundaryABI> boundaries;
  double tolerance = 1e-12;
  int64_t maxIterations = 20;
  std::string linear = "auto";
  int64_t restart = 30;
  std::string preconditioner = "none";
  bool lineSearch = true;
  double forcing = 1e-6;
  std::vector<std::pair<std::string, double>> paramDefaults; // `params { name = value }`
};

/// `boundary u radiative(value = v, speed = c)` and the like of an evolution block.
struct HostEvolutionBoundaryABI {
  std::string field, kind; // kind: periodic, radiative or exact
  double value = 0, speed = 1;
};

struct HostModuleABI {
  int64_t version = 0;
  HostSimulationABI simulation;
  std::vector<HostFieldABI> fields;
  std::vector<HostKernelABI> kernels;
  std::vector<HostSpectralProblemABI> spectralProblems;
  std::vector<HostEvolutionBoundaryABI> evolutionBoundaries;
  std::vector<std::pair<std::string, double>> systemParamDefaults; // with evolution boundaries only
  /// `--symbol-prefix` of the module; empty for the plain v3 names. Kernel symbols already
  /// carry it.
  std::string symbolPrefix;

  const HostKernelABI *findKernel(const std::string &symbol) const;
  const HostFieldABI *findField(const std::string &name) const;
};

/// Prefixes every kernel symbol (and every symbol a kernel table names) with `prefix`, as
/// `Tensorium_cc --symbol-prefix` exports them; `prefix` must pass symbolPrefixProblem().
void applySymbolPrefix(HostModuleABI &abi, const std::string &prefix);

/// Scalars a buffer needs on a grid of nPoints points in SoA component-major layout.
int64_t requiredBufferScalars(const HostBufferABI &buffer, int64_t nPoints);

/// Everything wrong with a descriptor; empty when a runtime may trust it.
std::vector<std::string> validateHostModuleABI(const HostModuleABI &abi);

/// True for kinds whose kernels loop over a stencil domain (rhs and residual grid kernels).
bool isStencilGridKind(const std::string &kind);

} // namespace tensorium_mlir::abi
