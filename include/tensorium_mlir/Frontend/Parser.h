#pragma once
#include "tensorium_mlir/Frontend/AST.h"
#include "tensorium_mlir/Frontend/Diagnostics.h"
#include "tensorium_mlir/Frontend/Token.h"

#include <vector>

namespace tensorium_mlir::frontend {

/// Recursive-descent parser with statement-level error recovery.
class Parser {
public:
  Parser(const SourceManager &sources, DiagnosticEngine &diags);
  /// Always returns a module; check the diagnostic engine for errors.
  Module parse();

private:
  struct ParseError {};

  // token stream
  const Token &peek(unsigned ahead = 0) const;
  const Token &current() const { return peek(0); }
  Token consume();
  bool consumeIf(TokenKind kind);
  Token expect(TokenKind kind, const char *context);
  Token expectIdentifier(const char *context);
  [[noreturn]] void fail(SourceRange range, std::string message);
  void skipNewlines();
  void expectEndOfStatement(const char *context);
  void recoverToStatementEnd();
  void recoverWithinBlock();
  bool atBlockEnd() const;

  // top level
  void parseTopLevel(Module &module);
  void parseField(Module &module);
  void parseParams(Module &module);
  void parseExtern(Module &module);
  void parseSimulation(Module &module);
  void parseInitialData(Module &module);
  void parseComputeBlock(Module &module, ComputeKind kind);

  // pieces
  std::vector<IndexName> parseIndexList();
  void parseSimulationSetting(SimulationBlock &sim, const Token &key, const char *section);
  // values of `key = value` settings (simulation, domain and solve blocks)
  template <typename T> void markSetting(Setting<T> &setting, const Token &key, SourceRange valueRange) {
    if (setting.present) {
      diags_.error(key.range, "duplicate setting '" + std::string(key.text) + "'");
      diags_.note(setting.keyRange, "previous setting is here");
    }
    setting.present = true;
    setting.keyRange = key.range;
    setting.valueRange = valueRange;
  }
  Token parseSettingWord(const Token &key);
  double parseSettingNumber(const Token &key, SourceRange &range);
  void parseMetric4(InitialDataBlock &block);
  void parseSplit(InitialDataBlock &block);
  Stmt parseStatement(bool allowDtAndResidual);
  // elliptic problem declarations in constraints blocks (ParserProblem.cpp)
  bool parseProblemDeclaration(ComputeBlock &block);
  void parseUnknown(ComputeBlock &block);
  void parseBoundary(ComputeBlock &block);
  void parseEvolutionBoundary(ComputeBlock &block);
  void parseExact(ComputeBlock &block);
  /// `u` or `W[i]` after `boundary` or `exact`.
  void parseUnknownReference(const char *what, std::string &name, SourceRange &range, std::vector<IndexName> &indices,
                             bool &hasIndexList);
  void parseDomain(ComputeBlock &block);
  void parseSolve(ComputeBlock &block);
  void parseProblemSetting(const Token &key, const char *section, DomainDecl *domain, SolveDecl *solve);
  /// `word { key = value ... }` into `domain` or `solve`; returns the block's range.
  SourceRange parseSettingsBlock(const char *word, const char *settingContext, DomainDecl *domain, SolveDecl *solve);

  // expressions
  ExprPtr parseExpr();
  ExprPtr parseAdditive();
  ExprPtr parseMultiplicative();
  ExprPtr makeBinary(char op, ExprPtr lhs, ExprPtr rhs);
  ExprPtr parseUnary();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  Rational parseExponent();

  const SourceManager &sources_;
  DiagnosticEngine &diags_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  unsigned depth_ = 0;
};

/// "identifier 'x'", "number '1'", "end of line", ...: a token as diagnostics name it.
std::string describeToken(const Token &t);

/// Lex and parse a buffer.
Module parseModule(const SourceManager &sources, DiagnosticEngine &diags);

} // namespace tensorium_mlir::frontend
