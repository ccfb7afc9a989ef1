#pragma once
// The one place that spells the generated-kernel ABI v3: version, attribute names, symbol
// names, kind tags and the rank-1 memref descriptor. Pure C++ so runtime code can include it.
#include <cstdint>
#include <string>
#include <string_view>

namespace tensorium_mlir::abi {

inline constexpr int64_t kABIVersion = 3;

/// Largest stencil radius (points per side) of an rhs or residual grid kernel: order-8
/// Kreiss-Oliger terms need 5, nested order-4 second derivatives 4 each. Larger radii are
/// refused while planning kernels, with a located error, on every emit path.
inline constexpr int64_t kMaxStencilRadius = 8;

// Function attributes.
inline constexpr std::string_view kAttrVersion = "tensorium.abi.version";
inline constexpr std::string_view kAttrKind = "tensorium.abi.kind";
inline constexpr std::string_view kAttrMemoryLayout = "tensorium.abi.memory_layout";
inline constexpr std::string_view kAttrMemrefABI = "tensorium.abi.memref_abi";
inline constexpr std::string_view kAttrParamNames = "tensorium.abi.param_names";
inline constexpr std::string_view kAttrCoordNames = "tensorium.abi.coord_names";
inline constexpr std::string_view kAttrFieldNames = "tensorium.abi.field_names";
inline constexpr std::string_view kAttrOutputNames = "tensorium.abi.output_names";
inline constexpr std::string_view kAttrReadArgIndices = "tensorium.abi.read_arg_indices";
inline constexpr std::string_view kAttrWriteArgIndices = "tensorium.abi.write_arg_indices";
inline constexpr std::string_view kAttrStencilRadius = "tensorium.abi.stencil_radius";
inline constexpr std::string_view kAttrResidualKernel = "tensorium.abi.residual_kernel";
/// Spectral residual kernels: the name of the constraints block (a residual system) they belong to.
inline constexpr std::string_view kAttrConstraintBlock = "tensorium.abi.constraint_block";
/// Symbolic-mode functions only: the name of every argument, in order (field derivative
/// inputs are spelled <field>[_c<component>][_d<axes>], e.g. gamma_c4_dxy).
inline constexpr std::string_view kAttrArgNames = "tensorium.abi.arg_names";

// Module attributes: simulation metadata and the field table host descriptors are built from.
// tensorium.abi.simulation = {dimension, coordinates, resolution, scheme, order}
// tensorium.abi.fields = [{name, type, variance, rank, spacetime, components}, ...]
inline constexpr std::string_view kAttrModuleSimulation = "tensorium.abi.simulation";
inline constexpr std::string_view kAttrModuleFields = "tensorium.abi.fields";
/// Declared elliptic problems (additive; present only when a constraints block declares one).
inline constexpr std::string_view kAttrModuleSpectralProblems = "tensorium.abi.spectral_problems";
/// Boundary conditions of evolved fields (additive; present only when an evolution block
/// declares one): an array of {field, kind, value, speed}.
inline constexpr std::string_view kAttrModuleEvolutionBoundaries = "tensorium.abi.evolution_boundaries";
/// Parameter defaults (`params { c = 1 }`) of a module that declares evolution boundaries (a
/// system that tensorium-evolve runs as it declares it): a dictionary name -> value, additive.
inline constexpr std::string_view kAttrModuleSystemParamDefaults = "tensorium.abi.system_param_defaults";

// Attribute values.
inline constexpr std::string_view kMemoryLayoutSoAComponentMajor = "soa_component_major";
inline constexpr std::string_view kMemrefABIStridedRank1F64 = "strided_memref_rank1_f64";

// Symbols.
inline constexpr std::string_view kSymbolInit = "tensorium_init";
inline constexpr std::string_view kSymbolRhs = "tensorium_rhs";
inline constexpr std::string_view kSymbolEntry = "tensorium_entry";
inline constexpr std::string_view kSymbolInitPoint = "tensorium_init_point";
inline constexpr std::string_view kSymbolInitGridScf = "tensorium_init_grid_scf";
inline constexpr std::string_view kSymbolInitGridAffine = "tensorium_init_grid_affine";
/// Full 3+1 slices (additive): initial data whose split_3p1 also maps beta, Kij or the BSSN
/// variables get these kernels besides the three above, which keep (alpha, gamma, gammaU).
inline constexpr std::string_view kSymbolInitSlicePoint = "tensorium_init_slice_point";
inline constexpr std::string_view kSymbolInitSliceGridScf = "tensorium_init_slice_grid_scf";
inline constexpr std::string_view kSymbolInitSliceGridAffine = "tensorium_init_slice_grid_affine";
/// Evolved fields' values (additive): an initial_data block that assigns fields (`u = ...`,
/// `E[i] = ...`) gets these kernels, (params..., coords..., fields...), writing every assigned
/// field; with the reserved time t among the parameters they give an exact solution at any t.
inline constexpr std::string_view kSymbolInitFieldsPoint = "tensorium_init_fields_point";
inline constexpr std::string_view kSymbolInitFieldsGridScf = "tensorium_init_fields_grid_scf";
inline constexpr std::string_view kSymbolInitFieldsGridAffine = "tensorium_init_fields_grid_affine";
/// d/dt of the assigned fields' values (additive; only in modules with an `exact` evolution
/// boundary): writes the buffers dX, the rates the outer layers follow.
inline constexpr std::string_view kSymbolInitFieldsRateGridAffine = "tensorium_init_fields_rate_grid_affine";
inline constexpr std::string_view kSymbolRhsGridScf = "tensorium_rhs_grid_scf";
inline constexpr std::string_view kSymbolRhsGridAffine = "tensorium_rhs_grid_affine";
inline constexpr std::string_view kSymbolRhsGridParallel = "tensorium_rhs_grid_parallel";
inline constexpr std::string_view kSymbolResidualGridScf = "tensorium_residual_grid_scf";
inline constexpr std::string_view kSymbolResidualGridAffine = "tensorium_residual_grid_affine";
inline constexpr std::string_view kSymbolResidualGridParallel = "tensorium_residual_grid_parallel";
inline constexpr std::string_view kSymbolPrefix = "tensorium_";
inline constexpr std::string_view kSymbolSpectralResidualPrefix = "tensorium_spectral_residual_";
inline constexpr std::string_view kSymbolSpectralResidualJvpPrefix = "tensorium_spectral_residual_jvp_";
inline constexpr std::string_view kSymbolSpectralResidualGridPrefix = "tensorium_spectral_residual_grid_";

// Kind tags (the value of tensorium.abi.kind).
inline constexpr std::string_view kKindInit = "init";
inline constexpr std::string_view kKindRhs = "rhs";
inline constexpr std::string_view kKindEntry = "entry";
inline constexpr std::string_view kKindInitPoint = "init_point";
inline constexpr std::string_view kKindInitGridScf = "init_grid_scf";
inline constexpr std::string_view kKindInitGridAffine = "init_grid_affine";
inline constexpr std::string_view kKindInitSlicePoint = "init_slice_point";
inline constexpr std::string_view kKindInitSliceGridScf = "init_slice_grid_scf";
inline constexpr std::string_view kKindInitSliceGridAffine = "init_slice_grid_affine";
inline constexpr std::string_view kKindInitFieldsPoint = "init_fields_point";
inline constexpr std::string_view kKindInitFieldsGridScf = "init_fields_grid_scf";
inline constexpr std::string_view kKindInitFieldsGridAffine = "init_fields_grid_affine";
inline constexpr std::string_view kKindInitFieldsRateGridAffine = "init_fields_rate_grid_affine";
inline constexpr std::string_view kKindRhsGridScf = "rhs_grid_scf";
inline constexpr std::string_view kKindRhsGridAffine = "rhs_grid_affine";
inline constexpr std::string_view kKindRhsGridParallel = "rhs_grid_parallel";
inline constexpr std::string_view kKindResidualGridScf = "residual_grid_scf";
inline constexpr std::string_view kKindResidualGridAffine = "residual_grid_affine";
inline constexpr std::string_view kKindResidualGridParallel = "residual_grid_parallel";
inline constexpr std::string_view kKindSpectralResidual = "spectral_residual";
inline constexpr std::string_view kKindSpectralResidualJvp = "spectral_residual_jvp";
inline constexpr std::string_view kKindSpectralResidualGrid = "spectral_residual_grid";

/// Point kernels of initial data: coordinates are scalar arguments.
constexpr bool isInitPointKind(std::string_view kind) {
  return kind == kKindInitPoint || kind == kKindInitSlicePoint || kind == kKindInitFieldsPoint;
}
/// Grid kernels of initial data over a flat list of points (coordinates are buffers).
constexpr bool isInitGridKind(std::string_view kind) {
  return kind == kKindInitGridScf || kind == kKindInitGridAffine || kind == kKindInitSliceGridScf ||
         kind == kKindInitSliceGridAffine || kind == kKindInitFieldsGridScf || kind == kKindInitFieldsGridAffine ||
         kind == kKindInitFieldsRateGridAffine;
}

/// Boundary rows of a declared elliptic problem (additive): one flat grid kernel per unknown
/// (component) and face, `tensorium_spectral_boundary_<unknown>_<face>`, writing the Robin
/// coefficients a, b and value (a u + b du/dn = value; Dirichlet: a = 1, b = 0) at the points
/// whose coordinates it is given.
inline constexpr std::string_view kSymbolSpectralBoundaryPrefix = "tensorium_spectral_boundary_";
inline constexpr std::string_view kKindSpectralBoundaryGrid = "spectral_boundary_grid";
inline std::string spectralBoundarySymbol(const std::string &unknown, const std::string &face) {
  return std::string(kSymbolSpectralBoundaryPrefix) + unknown + "_" + face;
}
/// Exact solutions of a declared elliptic problem (additive): one flat grid kernel per unknown
/// (component), `tensorium_spectral_exact_<unknown>`, writing `value` and, when the program
/// declares one, `tolerance` at the points whose coordinates it is given.
inline constexpr std::string_view kSymbolSpectralExactPrefix = "tensorium_spectral_exact_";
inline constexpr std::string_view kKindSpectralExactGrid = "spectral_exact_grid";
inline std::string spectralExactSymbol(const std::string &unknown) { return std::string(kSymbolSpectralExactPrefix) + unknown; }
/// Grid kernels over a flat list of points whose coordinates are buffers.
constexpr bool isFlatPointGridKind(std::string_view kind) {
  return isInitGridKind(kind) || kind == kKindSpectralBoundaryGrid || kind == kKindSpectralExactGrid;
}

/// Per-module symbol prefix (`Tensorium_cc --symbol-prefix NAME`): every exported symbol,
/// table and macro of the module is NAME_ + its v3 name (NAME_tensorium_rhs_grid_affine,
/// NAME_tensorium_host_kernels, NAME upper-cased before TENSORIUM_ macros), so that several
/// modules link into one program. Without a prefix the v3 names are unchanged. Returns an
/// empty string when `prefix` is usable, else why not.
inline std::string symbolPrefixProblem(std::string_view prefix) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (prefix.empty())
    return "the symbol prefix is empty";
  if (!alpha(prefix.front()))
    return "the symbol prefix must start with a letter";
  for (char c : prefix)
    if (!alpha(c) && !digit(c) && c != '_')
      return "the symbol prefix may contain only letters, digits and '_'";
  if (prefix.back() == '_')
    return "the symbol prefix must not end with '_' (the separator is added)";
  std::string lower;
  for (char c : prefix)
    lower.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  if (lower.find("tensorium") != std::string::npos)
    return "the symbol prefix must not contain 'tensorium' (the exported names already do)";
  return {};
}

/// `canonical` (a tensorium_ name) as module `prefix` exports it; unchanged without a prefix.
inline std::string prefixedSymbol(std::string_view prefix, std::string_view canonical) {
  return prefix.empty() ? std::string(canonical) : std::string(prefix) + "_" + std::string(canonical);
}

/// The v3 name of an exported symbol: `symbol` without its module prefix (NAME_tensorium_x ->
/// tensorium_x); unchanged when it has none or is not a Tensorium symbol.
inline std::string_view canonicalSymbol(std::string_view symbol) {
  if (symbol.substr(0, kSymbolPrefix.size()) == kSymbolPrefix)
    return symbol;
  const size_t at = symbol.find(std::string("_") + std::string(kSymbolPrefix));
  return at == std::string_view::npos ? symbol : symbol.substr(at + 1);
}

/// The module prefix of an exported symbol (empty for the plain v3 names).
inline std::string_view symbolPrefixOf(std::string_view symbol) {
  const std::string_view canonical = canonicalSymbol(symbol);
  return canonical.size() == symbol.size() ? std::string_view() : symbol.substr(0, symbol.size() - canonical.size() - 1);
}

/// Output buffers of `dt X = ...` are named with this prefix: `dX`.
inline constexpr std::string_view kDerivativeOutputPrefix = "d";

/// Spectral derivative bundle of one scalar field at one collocation point.
inline constexpr int kSpectralBundleSize = 10;
inline constexpr std::string_view kSpectralBundleSlotNames[kSpectralBundleSize] = {
    "value", "d1", "d2", "d3", "d11", "d12", "d13", "d22", "d23", "d33"};
/// Bundle slot of the first derivative along axis a (0-based).
constexpr int spectralFirstDerivativeSlot(int a) { return 1 + a; }
/// Bundle slot of the second derivative along axes a and b (0-based, symmetric).
constexpr int spectralSecondDerivativeSlot(int a, int b) {
  int lo = a < b ? a : b, hi = a < b ? b : a;
  constexpr int base[3] = {4, 7, 9}; // d11, d22, d33
  return base[lo] + (hi - lo);
}

/// Lowered form of one memref<?xf64> argument: five C arguments.
struct StridedMemRef1DF64 {
  double *allocated;
  double *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
};

} // namespace tensorium_mlir::abi
