#include "tensorium_mlir/Frontend/Lexer.h"

#include <gtest/gtest.h>

using namespace tensorium_mlir::frontend;

namespace {
std::vector<TokenKind> kinds(const std::string &text, unsigned *errors = nullptr) {
  SourceManager sm("t.tn", text);
  DiagnosticEngine diags(sm, nullptr);
  Lexer lexer(sm, diags);
  std::vector<TokenKind> out;
  for (const Token &t : lexer.lexAll())
    out.push_back(t.kind);
  if (errors)
    *errors = diags.errorCount();
  return out;
}
} // namespace

TEST(Lexer, NewlineEndsStatementButNotAfterOperator) {
  using K = TokenKind;
  EXPECT_EQ(kinds("a = b +\n c\nd"),
            (std::vector<K>{K::Identifier, K::Equal, K::Identifier, K::Plus, K::Identifier,
                            K::Newline, K::Identifier, K::EndOfFile}));
}

TEST(Lexer, NewlineInsideBracketsContinues) {
  using K = TokenKind;
  EXPECT_EQ(kinds("f(a,\n b)\n"), (std::vector<K>{K::Identifier, K::LParen, K::Identifier, K::Comma,
                                                  K::Identifier, K::RParen, K::Newline, K::EndOfFile}));
}

TEST(Lexer, CommentsAndSemicolons) {
  using K = TokenKind;
  EXPECT_EQ(kinds("a -> b; # comment ; ignored\n"),
            (std::vector<K>{K::Identifier, K::Arrow, K::Identifier, K::Newline, K::EndOfFile}));
}

TEST(Lexer, NumbersInAllForms) {
  using K = TokenKind;
  EXPECT_EQ(kinds("2 0.125 1e-3 .5 3E+2"),
            (std::vector<K>{K::Number, K::Number, K::Number, K::Number, K::Number, K::EndOfFile}));
}

TEST(Lexer, InvalidBytesAreReportedNotFatal) {
  unsigned errors = 0;
  auto k = kinds(std::string("a \x01 $ \xff b"), &errors);
  EXPECT_EQ(errors, 3u);
  EXPECT_EQ(k.back(), TokenKind::EndOfFile);
}

TEST(Lexer, MalformedNumber) {
  unsigned errors = 0;
  kinds("x = 1e+ 2abc", &errors);
  EXPECT_EQ(errors, 2u);
}
