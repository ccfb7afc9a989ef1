#pragma once
// Turns a buffer into tokens. Newlines are statement separators except where an
// expression is syntactically incomplete: inside ( ) or [ ], or after a binary operator,
// '=', ',' or '->'. ';' is an explicit separator.
#include "tensorium_mlir/Frontend/Diagnostics.h"
#include "tensorium_mlir/Frontend/Token.h"

#include <vector>

namespace tensorium_mlir::frontend {

class Lexer {
public:
  Lexer(const SourceManager &sources, DiagnosticEngine &diags);
  /// Lexes the whole buffer; the last token is always EndOfFile.
  std::vector<Token> lexAll();

private:
  Token next();
  Token make(TokenKind kind, uint32_t begin, uint32_t end);

  DiagnosticEngine &diags_;
  std::string_view text_;
  uint32_t pos_ = 0;
  int groupingDepth_ = 0; // ( and [ nesting
  TokenKind previous_ = TokenKind::Newline;
};

} // namespace tensorium_mlir::frontend
