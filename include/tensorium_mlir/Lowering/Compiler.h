#pragma once
// Front door of the back end: analysed module -> MLIR text, lowered MLIR, LLVM IR or an
// object file. No MLIR or LLVM headers here, so tools and tests stay light.
#include "tensorium_mlir/CodeGen/KernelPlan.h"
#include "tensorium_mlir/HostABI/HostModuleABI.h"

#include <string>

namespace tensorium_mlir::codegen {

/// OpCounts: one line per function of the optimised LLVM IR with its floating-point operations
/// (`name fadd=.. fsub=.. fmul=.. fdiv=.. fneg=.. fma=.. sqrt=.. calls=.. instructions=..
/// flops=..`, flops
/// counting an FMA as 2 and a vector operation once: per grid point in grid kernels).
enum class OutputKind { MLIR, LoweredMLIR, LLVMIR, Object, OpCounts };

struct CompileOptions {
  CodeGenOptions codegen;
  unsigned optLevel = 2;        // 0..3 for the LLVM pipeline
  std::string cpu = "native";   // "native": this machine's CPU and features; e.g. "x86-64" for portable objects
  /// Grid points per vector step in grid kernels: 0 picks the target's width (8 with AVX-512,
  /// 4 with AVX, 1 otherwise), 1 emits scalar loops.
  unsigned vectorWidth = 0;
  /// Allow LLVM to fuse a * b + c into fused multiply-adds and to share one reciprocal between
  /// divisions by the same value (`--fp-contract=on`, the default: fastmath contract, arcp).
  bool fpContract = true;
  /// Cache-blocked stencil loops (`--cache-blocking=auto`, the default; `off`; or `YxZ` tiles).
  bool cacheBlocking = true;
  int64_t tileY = 0, tileZ = 0;
  /// Software prefetch of the next x-plane in stencil kernels (`--prefetch=on`, the default).
  bool prefetch = true;
  /// Two-pass rows in kernels with a shared row function (`--stencil-pass=auto|on|off`):
  /// auto, the default, uses them with SIMD steps (width > 1), where they are faster, and not
  /// on the scalar path, where one pass is.
  enum class StencilPass { Auto, On, Off } stencilPass = StencilPass::Auto;
  /// Contiguous-axis neighbours in two-pass rows with 8-wide steps as lane shifts of aligned
  /// vectors instead of unaligned loads (`--lane-shifts=auto|on|off`): auto, the default, uses
  /// them where the target has AVX-512 (one valignq per shift; measured there only).
  enum class LaneShifts { Auto, On, Off } laneShifts = LaneShifts::Auto;
  /// Mixed derivatives across z formed from the transverse derivatives' values in rows with
  /// lane shifts (`--factor-mixed=auto|on|off`): auto, the default, with `--fp-contract=on`
  /// only, so that the strict path keeps the plain stencils' rounding.
  enum class FactorMixed { Auto, On, Off } factorMixed = FactorMixed::Auto;
  /// `--symbol-prefix NAME`: every exported symbol becomes NAME_tensorium_... (see
  /// abi::prefixedSymbol); empty keeps the v3 names.
  std::string symbolPrefix;
};

/// Whether `cpu` names a CPU of this machine's target ("native" always does); otherwise sets
/// `error` to a one-line message naming the nearest known CPU.
bool checkTargetCpu(const std::string &cpu, std::string &error);

/// The vector width `options` selects for grid kernels on its target CPU (resolves 0 = auto).
/// Returns 0 and sets `error` when the target cannot be created.
unsigned resolveVectorWidth(const CompileOptions &options, std::string &error);

/// Returns true and fills `output` on success. Diagnostics about the program go to `diags`
/// (located); failures of the tool chain itself are returned in `error`.
bool compileModule(const frontend::Module &module, const CompileOptions &options, OutputKind kind,
                   frontend::DiagnosticEngine &diags, std::string &output, std::string &error);

/// Emits the module in memory and reads its ABI attributes back into a host descriptor.
bool buildHostABI(const frontend::Module &module, const CompileOptions &options,
                  frontend::DiagnosticEngine &diags, abi::HostModuleABI &out);

} // namespace tensorium_mlir::codegen
