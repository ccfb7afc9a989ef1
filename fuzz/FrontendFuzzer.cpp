// libFuzzer entry point for the .tn front end: lexer, parser, semantic analysis and,
// for inputs that analyse cleanly, the AST dumper and the module summary.
//
// Built only with -DTENSORIUM_ENABLE_FUZZER=ON and clang-19; see fuzz/CMakeLists.txt and
// docs/frontend-fuzzing-and-performance.md.
#include "tensorium_mlir/Frontend/ASTDumper.h"
#include "tensorium_mlir/Frontend/Frontend.h"

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <streambuf>
#include <string>

using namespace tensorium_mlir::frontend;

namespace {
/// A stream buffer that accepts and drops everything. Unlike a stream with a null buffer
/// (which sets badbit and skips formatting), every operator<< still runs in full, so the
/// diagnostic renderer and the dumper are exercised.
class DiscardBuffer : public std::streambuf {
protected:
  int_type overflow(int_type c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char *, std::streamsize n) override { return n; }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DiscardBuffer buffer;
  std::ostream sink(&buffer);

  SourceManager sources("fuzz.tn", std::string(reinterpret_cast<const char *>(data), size));
  // Print diagnostics into the sink so caret rendering (lineColumn, lineText) is covered too.
  DiagnosticEngine diags(sources, &sink);
  Module module;
  if (parseAndAnalyze(sources, diags, module)) {
    dumpModule(module, sources, sink);
    printModuleSummary(module, sink);
  }
  return 0;
}
