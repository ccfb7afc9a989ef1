#include "tensorium_mlir/Frontend/Lexer.h"

#include <cctype>
#include <string>

namespace tensorium_mlir::frontend {

const char *tokenKindSpelling(TokenKind kind) {
  switch (kind) {
  case TokenKind::EndOfFile: return "end of file";
  case TokenKind::Newline: return "end of line";
  case TokenKind::Identifier: return "identifier";
  case TokenKind::Number: return "number";
  case TokenKind::LParen: return "'('";
  case TokenKind::RParen: return "')'";
  case TokenKind::LBracket: return "'['";
  case TokenKind::RBracket: return "']'";
  case TokenKind::LBrace: return "'{'";
  case TokenKind::RBrace: return "'}'";
  case TokenKind::Comma: return "','";
  case TokenKind::Equal: return "'='";
  case TokenKind::Plus: return "'+'";
  case TokenKind::Minus: return "'-'";
  case TokenKind::Star: return "'*'";
  case TokenKind::Slash: return "'/'";
  case TokenKind::Caret: return "'^'";
  case TokenKind::Arrow: return "'->'";
  case TokenKind::Invalid: return "invalid token";
  }
  return "token";
}

namespace {
bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentBody(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

// After these tokens the expression or list is incomplete, so a newline continues it.
bool continuesLine(TokenKind k) {
  switch (k) {
  case TokenKind::Plus: case TokenKind::Minus: case TokenKind::Star: case TokenKind::Slash:
  case TokenKind::Caret: case TokenKind::Equal: case TokenKind::Comma: case TokenKind::Arrow:
    return true;
  default:
    return false;
  }
}
} // namespace

Lexer::Lexer(const SourceManager &sources, DiagnosticEngine &diags)
    : diags_(diags), text_(sources.text()) {}

Token Lexer::make(TokenKind kind, uint32_t begin, uint32_t end) {
  Token t;
  t.kind = kind;
  t.range = {SourceLocation{begin}, SourceLocation{end}};
  t.text = text_.substr(begin, end - begin);
  return t;
}

std::vector<Token> Lexer::lexAll() {
  std::vector<Token> tokens;
  for (;;) {
    Token t = next();
    if (t.kind == TokenKind::Newline &&
        (tokens.empty() || tokens.back().kind == TokenKind::Newline))
      continue; // collapse blank lines
    tokens.push_back(t);
    previous_ = t.kind;
    if (t.kind == TokenKind::EndOfFile)
      break;
  }
  return tokens;
}

Token Lexer::next() {
  const uint32_t size = static_cast<uint32_t>(text_.size());
  for (;;) {
    if (pos_ >= size)
      return make(TokenKind::EndOfFile, size, size);
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
      continue;
    }
    if (c == '#') {
      while (pos_ < size && text_[pos_] != '\n')
        ++pos_;
      continue;
    }
    if (c == '\n') {
      uint32_t begin = pos_++;
      if (groupingDepth_ > 0 || continuesLine(previous_))
        continue;
      return make(TokenKind::Newline, begin, begin + 1);
    }
    break;
  }

  uint32_t begin = pos_;
  char c = text_[pos_];
  if (isIdentStart(c)) {
    while (pos_ < size && isIdentBody(text_[pos_]))
      ++pos_;
    return make(TokenKind::Identifier, begin, pos_);
  }
  if (isDigit(c) || (c == '.' && pos_ + 1 < size && isDigit(text_[pos_ + 1]))) {
    while (pos_ < size && isDigit(text_[pos_]))
      ++pos_;
    if (pos_ < size && text_[pos_] == '.') {
      ++pos_;
      while (pos_ < size && isDigit(text_[pos_]))
        ++pos_;
    }
    if (pos_ < size && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      uint32_t save = pos_;
      ++pos_;
      if (pos_ < size && (text_[pos_] == '+' || text_[pos_] == '-'))
        ++pos_;
      if (pos_ < size && isDigit(text_[pos_])) {
        while (pos_ < size && isDigit(text_[pos_]))
          ++pos_;
      } else {
        pos_ = save + 1;
        diags_.error({SourceLocation{begin}, SourceLocation{pos_}},
                     "malformed number: exponent has no digits");
        return make(TokenKind::Invalid, begin, pos_);
      }
    }
    if (pos_ < size && isIdentStart(text_[pos_])) {
      uint32_t end = pos_;
      while (end < size && isIdentBody(text_[end]))
        ++end;
      diags_.error({SourceLocation{begin}, SourceLocation{end}},
                   "malformed number '" + std::string(text_.substr(begin, end - begin)) + "'");
      pos_ = end;
      return make(TokenKind::Invalid, begin, end);
    }
    return make(TokenKind::Number, begin, pos_);
  }

  ++pos_;
  switch (c) {
  case '(': ++groupingDepth_; return make(TokenKind::LParen, begin, pos_);
  case '[': ++groupingDepth_; return make(TokenKind::LBracket, begin, pos_);
  case ')': if (groupingDepth_ > 0) --groupingDepth_; return make(TokenKind::RParen, begin, pos_);
  case ']': if (groupingDepth_ > 0) --groupingDepth_; return make(TokenKind::RBracket, begin, pos_);
  // Braces open statement blocks, where newlines separate statements again.
  // Braces never occur inside ( ) or [ ]; resetting keeps an unclosed bracket from
  // swallowing every later line.
  case '{': groupingDepth_ = 0; return make(TokenKind::LBrace, begin, pos_);
  case '}': groupingDepth_ = 0; return make(TokenKind::RBrace, begin, pos_);
  case ',': return make(TokenKind::Comma, begin, pos_);
  case ';': return make(TokenKind::Newline, begin, pos_);
  case '=': return make(TokenKind::Equal, begin, pos_);
  case '+': return make(TokenKind::Plus, begin, pos_);
  case '*': return make(TokenKind::Star, begin, pos_);
  case '/': return make(TokenKind::Slash, begin, pos_);
  case '^': return make(TokenKind::Caret, begin, pos_);
  case '-':
    if (pos_ < size && text_[pos_] == '>') {
      ++pos_;
      return make(TokenKind::Arrow, begin, pos_);
    }
    return make(TokenKind::Minus, begin, pos_);
  default:
    break;
  }
  unsigned char u = static_cast<unsigned char>(c);
  static const char hex[] = "0123456789ABCDEF";
  std::string shown;
  if (u >= 0x20 && u < 0x7f) {
    shown = std::string("'") + c + "'";
  } else if (u >= 0xC2 && u <= 0xF4) {
    // A well-formed UTF-8 sequence is one character: name its code point.
    unsigned length = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : 2;
    uint32_t cp = u & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
    bool ok = begin + length <= size;
    for (unsigned i = 1; ok && i < length; ++i) {
      unsigned char cont = static_cast<unsigned char>(text_[begin + i]);
      ok = (cont & 0xC0) == 0x80;
      cp = (cp << 6) | (cont & 0x3F);
    }
    if (ok) {
      pos_ = begin + length;
      std::string code;
      for (int shift = cp > 0xFFFF ? 20 : 12; shift >= 0; shift -= 4)
        code.push_back(hex[(cp >> shift) & 15]);
      shown = "U+" + code;
    }
  }
  if (shown.empty())
    shown = std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
  diags_.error({SourceLocation{begin}, SourceLocation{pos_}},
               "invalid character " + shown + (u >= 0x80 ? " (the language is ASCII outside comments)" : ""));
  return make(TokenKind::Invalid, begin, pos_);
}

} // namespace tensorium_mlir::frontend
