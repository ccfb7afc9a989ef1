#pragma once
#include "tensorium_mlir/Frontend/SourceManager.h"

#include <string_view>

namespace tensorium_mlir::frontend {

enum class TokenKind {
  EndOfFile,
  Newline, // a statement separator: end of line or ';'
  Identifier,
  Number,
  LParen, RParen, LBracket, RBracket, LBrace, RBrace,
  Comma, Equal, Plus, Minus, Star, Slash, Caret, Arrow,
  Invalid,
};

const char *tokenKindSpelling(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  SourceRange range;
  std::string_view text;
  bool is(TokenKind k) const { return kind == k; }
  bool isIdentifier(std::string_view spelling) const {
    return kind == TokenKind::Identifier && text == spelling;
  }
};

} // namespace tensorium_mlir::frontend
