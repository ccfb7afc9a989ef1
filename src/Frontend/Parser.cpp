#include "tensorium_mlir/Frontend/Parser.h"
#include "tensorium_mlir/Frontend/Lexer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

namespace tensorium_mlir::frontend {

namespace {
constexpr unsigned kMaxNesting = 200;
// Later passes walk expression trees recursively; a bound on tree height keeps them within the
// stack for any input (a flat chain a + b + ... is as tall as it is long).
constexpr unsigned kMaxTreeHeight = 1500;
unsigned heightOf(const Expr &e) { return e.height; }

std::string describe(const Token &t) { return describeToken(t); }

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.size() > prefix.size() && s.substr(0, prefix.size()) == prefix;
}
} // namespace

std::string describeToken(const Token &t) {
  switch (t.kind) {
  case TokenKind::Identifier: return "identifier '" + std::string(t.text) + "'";
  case TokenKind::Number: return "number '" + std::string(t.text) + "'";
  case TokenKind::Newline: return t.text == ";" ? "';'" : "end of line";
  default: return tokenKindSpelling(t.kind);
  }
}

Token Parser::parseSettingWord(const Token &key) {
  Token v = current();
  if (!v.is(TokenKind::Identifier))
    fail(v.range, "expected a name as the value of '" + std::string(key.text) + "', found " + describe(v));
  consume();
  return v;
}

double Parser::parseSettingNumber(const Token &key, SourceRange &range) {
  Token first = current();
  bool negative = consumeIf(TokenKind::Minus);
  Token v = current();
  if (!v.is(TokenKind::Number))
    fail(v.range, "expected a number as the value of '" + std::string(key.text) + "', found " + describe(v));
  consume();
  range = SourceRange::join(first.range, v.range);
  double value = std::strtod(std::string(v.text).c_str(), nullptr);
  return negative ? -value : value;
}

Parser::Parser(const SourceManager &sources, DiagnosticEngine &diags)
    : sources_(sources), diags_(diags) {
  Lexer lexer(sources, diags);
  tokens_ = lexer.lexAll();
}

Module parseModule(const SourceManager &sources, DiagnosticEngine &diags) {
  Parser parser(sources, diags);
  return parser.parse();
}

// ---------------------------------------------------------------- token stream

const Token &Parser::peek(unsigned ahead) const {
  size_t i = pos_ + ahead;
  return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

Token Parser::consume() {
  Token t = current();
  if (pos_ + 1 < tokens_.size())
    ++pos_;
  return t;
}

bool Parser::consumeIf(TokenKind kind) {
  if (!current().is(kind))
    return false;
  consume();
  return true;
}

void Parser::fail(SourceRange range, std::string message) {
  // The lexer already reported an invalid token; a second error at the same spot adds nothing.
  if (!current().is(TokenKind::Invalid))
    diags_.error(range, std::move(message));
  throw ParseError{};
}

Token Parser::expect(TokenKind kind, const char *context) {
  if (!current().is(kind))
    fail(current().range, std::string("expected ") + tokenKindSpelling(kind) + " " + context +
                              ", found " + describe(current()));
  return consume();
}

Token Parser::expectIdentifier(const char *context) {
  if (!current().is(TokenKind::Identifier))
    fail(current().range, std::string("expected ") + context + ", found " + describe(current()));
  return consume();
}

void Parser::skipNewlines() {
  while (current().is(TokenKind::Newline))
    consume();
}

bool Parser::atBlockEnd() const {
  return current().is(TokenKind::RBrace) || current().is(TokenKind::EndOfFile);
}

void Parser::expectEndOfStatement(const char *context) {
  if (current().is(TokenKind::Newline)) {
    consume();
    return;
  }
  if (atBlockEnd())
    return;
  fail(current().range, std::string("expected end of line after ") + context + ", found " +
                            describe(current()));
}

void Parser::recoverWithinBlock() {
  depth_ = 0;
  while (!current().is(TokenKind::EndOfFile) && !current().is(TokenKind::RBrace)) {
    if (consume().is(TokenKind::Newline))
      return;
  }
}

void Parser::recoverToStatementEnd() {
  depth_ = 0;
  int braces = 0;
  while (!current().is(TokenKind::EndOfFile)) {
    if (current().is(TokenKind::LBrace)) {
      ++braces;
    } else if (current().is(TokenKind::RBrace)) {
      if (braces == 0)
        return; // leave it for the enclosing block
      --braces;
      if (braces == 0) {
        consume();
        return;
      }
    } else if (current().is(TokenKind::Newline) && braces == 0) {
      consume();
      return;
    }
    consume();
  }
}

// ---------------------------------------------------------------- top level

Module Parser::parse() {
  Module module;
  module.path = sources_.path();
  for (;;) {
    skipNewlines();
    if (current().is(TokenKind::EndOfFile) || diags_.limitReached())
      break;
    size_t before = pos_;
    try {
      parseTopLevel(module);
    } catch (ParseError &) {
      recoverToStatementEnd();
    }
    if (pos_ == before)
      consume(); // guarantee progress
  }
  return module;
}

void Parser::parseTopLevel(Module &module) {
  const Token &t = current();
  if (t.is(TokenKind::RBrace))
    fail(t.range, "unexpected '}' with no block open");
  if (t.is(TokenKind::Identifier)) {
    if (t.text == "field") return parseField(module);
    if (t.text == "params") return parseParams(module);
    if (t.text == "extern") return parseExtern(module);
    if (t.text == "simulation") return parseSimulation(module);
    if (t.text == "initial_data") return parseInitialData(module);
    if (t.text == "evolution") return parseComputeBlock(module, ComputeKind::Evolution);
    if (t.text == "constraints") return parseComputeBlock(module, ComputeKind::Constraints);
    if (peek(1).is(TokenKind::Equal) || peek(1).is(TokenKind::LBracket))
      fail(t.range, "statement outside a block: assignments belong inside an 'initial_data', "
                    "'evolution' or 'constraints' block");
  }
  fail(t.range, "expected a declaration or block ('field', 'params', 'extern', 'simulation', "
                "'initial_data', 'evolution' or 'constraints'), found " + describe(t));
}

std::vector<IndexName> Parser::parseIndexList() {
  expect(TokenKind::LBracket, "to open an index list");
  std::vector<IndexName> indices;
  if (current().is(TokenKind::RBracket))
    fail(current().range, "empty index list; a scalar takes no brackets");
  for (;;) {
    Token name = expectIdentifier("an index name");
    indices.push_back({std::string(name.text), name.range});
    if (consumeIf(TokenKind::Comma))
      continue;
    expect(TokenKind::RBracket, "to close the index list");
    break;
  }
  return indices;
}

void Parser::parseField(Module &module) {
  Token kw = consume();
  Token typeTok = expectIdentifier("a field type after 'field'");
  SourceRange symmetricRange;
  bool symmetric = false;
  if (typeTok.text == "symmetric" && current().is(TokenKind::Identifier)) {
    symmetric = true;
    symmetricRange = typeTok.range;
    typeTok = expectIdentifier("a field type after 'symmetric'");
  }
  auto type = parseTensorType(typeTok.text);
  if (!type)
    fail(typeTok.range, "unknown field type '" + std::string(typeTok.text) +
                            "' (expected scalar, vector, covector, cov_tensor2, con_tensor2, "
                            "mixed_tensor2, cov_tensor3, con_tensor3, cov_tensor4, con_tensor4, "
                            "metric or inverse_metric)");
  Token name = expectIdentifier("a field name");
  auto decl = std::make_unique<FieldDecl>();
  decl->type = *type;
  decl->declaredSymmetric = symmetric;
  decl->symmetricRange = symmetricRange;
  decl->name = std::string(name.text);
  decl->nameRange = name.range;
  SourceRange end = name.range;
  if (current().is(TokenKind::LBracket)) {
    decl->indices = parseIndexList();
    end = tokens_[pos_ - 1].range;
  }
  decl->range = SourceRange::join(kw.range, end);
  expectEndOfStatement("the field declaration");
  module.fields.push_back(std::move(decl));
}

void Parser::parseParams(Module &module) {
  Token kw = consume();
  if (module.hasParams) {
    diags_.error(kw.range, "duplicate 'params' block; list every parameter in one block");
    diags_.note(module.paramsRange, "previous 'params' block is here");
  }
  module.hasParams = true;
  module.paramsRange = kw.range;
  skipNewlines();
  expect(TokenKind::LBrace, "after 'params'");
  skipNewlines();
  while (!current().is(TokenKind::RBrace)) {
    Token name = expectIdentifier("a parameter name");
    module.params.push_back({std::string(name.text), name.range, std::nullopt});
    if (consumeIf(TokenKind::Equal)) {
      // A default value: a number, optionally signed.
      const bool negative = consumeIf(TokenKind::Minus);
      Token v = current();
      if (!v.is(TokenKind::Number))
        fail(v.range, "expected a number as the default of parameter '" + std::string(name.text) + "', found " +
                          describe(v));
      consume();
      const double value = std::strtod(std::string(v.text).c_str(), nullptr);
      module.params.back().defaultValue = negative ? -value : value;
    }
    skipNewlines();
    if (consumeIf(TokenKind::Comma)) {
      skipNewlines();
      continue;
    }
    if (!current().is(TokenKind::RBrace))
      fail(current().range, "expected ',' or '}' in the parameter list, found " +
                                describe(current()));
  }
  consume();
  expectEndOfStatement("the 'params' block");
}

void Parser::parseExtern(Module &module) {
  Token kw = consume();
  Token typeTok = expectIdentifier("a result type after 'extern'");
  auto type = parseTensorType(typeTok.text);
  if (!type)
    fail(typeTok.range, "unknown type '" + std::string(typeTok.text) + "' in extern declaration");
  Token name = expectIdentifier("a function name");
  auto decl = std::make_unique<ExternDecl>();
  decl->resultType = *type;
  decl->name = std::string(name.text);
  decl->nameRange = name.range;
  expect(TokenKind::LParen, "after the extern function name");
  if (!current().is(TokenKind::RParen)) {
    for (;;) {
      Token argTok = expectIdentifier("an argument type");
      auto argType = parseTensorType(argTok.text);
      if (!argType)
        fail(argTok.range, "unknown argument type '" + std::string(argTok.text) + "'");
      decl->argTypes.push_back(*argType);
      decl->argRanges.push_back(argTok.range);
      if (consumeIf(TokenKind::Comma))
        continue;
      break;
    }
  }
  Token close = expect(TokenKind::RParen, "to close the argument types");
  decl->range = SourceRange::join(kw.range, close.range);
  expectEndOfStatement("the extern declaration");
  module.externs.push_back(std::move(decl));
}

// ---------------------------------------------------------------- simulation

void Parser::parseSimulation(Module &module) {
  Token kw = consume();
  if (module.simulation) {
    diags_.error(kw.range, "duplicate 'simulation' block");
    diags_.note(module.simulation->range, "previous 'simulation' block is here");
  }
  SimulationBlock sim;
  sim.range = kw.range;
  skipNewlines();
  Token open = expect(TokenKind::LBrace, "after 'simulation'");
  for (;;) {
    skipNewlines();
    if (current().is(TokenKind::RBrace))
      break;
    if (current().is(TokenKind::EndOfFile)) {
      diags_.error(current().range, "expected '}' to close the 'simulation' block");
      diags_.note(open.range, "block opened here");
      return;
    }
    if (diags_.limitReached())
      return;
    try {
      Token key = expectIdentifier("a simulation setting");
      if (key.text == "time" || key.text == "spatial") {
        bool &seen = key.text == "time" ? sim.hasTime : sim.hasSpatial;
        if (seen)
          diags_.error(key.range, "duplicate '" + std::string(key.text) + "' block in 'simulation'");
        seen = true;
        skipNewlines();
        Token inner = expect(TokenKind::LBrace, key.text == "time" ? "after 'time'" : "after 'spatial'");
        for (;;) {
          skipNewlines();
          if (consumeIf(TokenKind::RBrace))
            break;
          if (current().is(TokenKind::EndOfFile)) {
            diags_.error(current().range, "expected '}' to close the '" + std::string(key.text) + "' block");
            diags_.note(inner.range, "block opened here");
            throw ParseError{};
          }
          if (diags_.limitReached())
            return;
          try {
            Token innerKey = expectIdentifier("a setting name");
            parseSimulationSetting(sim, innerKey, key.text == "time" ? "time" : "spatial");
          } catch (ParseError &) {
            recoverWithinBlock();
          }
        }
      } else {
        parseSimulationSetting(sim, key, "simulation");
      }
    } catch (ParseError &) {
      recoverToStatementEnd();
    }
  }
  Token close = consume();
  sim.range = SourceRange::join(kw.range, close.range);
  expectEndOfStatement("the 'simulation' block");
  if (!module.simulation)
    module.simulation = std::move(sim);
}

void Parser::parseSimulationSetting(SimulationBlock &sim, const Token &key, const char *section) {
  std::string keyText(key.text);
  std::string_view sec(section);
  expect(TokenKind::Equal, ("after '" + keyText + "'").c_str());

  auto mark = [&](auto &setting, SourceRange valueRange) { markSetting(setting, key, valueRange); };
  auto word = [&]() { return parseSettingWord(key); };
  auto number = [&](SourceRange &range) { return parseSettingNumber(key, range); };

  if (sec == "simulation" && keyText == "coordinates") {
    Token v = word();
    mark(sim.coordinates, v.range);
    sim.coordinates.value = std::string(v.text);
  } else if (sec == "simulation" && keyText == "dimension") {
    SourceRange r;
    double value = number(r);
    mark(sim.dimension, r);
    sim.dimension.value = value;
  } else if (sec == "simulation" && keyText == "resolution") {
    Token open = expect(TokenKind::LBracket, "to open the resolution list");
    std::vector<double> values;
    sim.resolutionEntryRanges.clear();
    if (!current().is(TokenKind::RBracket)) {
      for (;;) {
        SourceRange r;
        values.push_back(number(r));
        sim.resolutionEntryRanges.push_back(r);
        if (consumeIf(TokenKind::Comma))
          continue;
        break;
      }
    }
    Token close = expect(TokenKind::RBracket, "to close the resolution list");
    mark(sim.resolution, SourceRange::join(open.range, close.range));
    sim.resolution.value = std::move(values);
  } else if (sec == "time" && keyText == "dt") {
    SourceRange r;
    double value = number(r);
    mark(sim.dt, r);
    sim.dt.value = value;
  } else if (sec == "time" && keyText == "integrator") {
    Token v = word();
    mark(sim.integrator, v.range);
    sim.integrator.value = std::string(v.text);
  } else if (sec == "spatial" && keyText == "scheme") {
    Token v = word();
    mark(sim.scheme, v.range);
    sim.scheme.value = std::string(v.text);
  } else if (sec == "spatial" && keyText == "derivative") {
    Token v = word();
    mark(sim.derivative, v.range);
    sim.derivative.value = std::string(v.text);
  } else if (sec == "spatial" && keyText == "expression_derivatives") {
    Token v = word();
    mark(sim.expressionDerivatives, v.range);
    sim.expressionDerivatives.value = std::string(v.text);
  } else if (sec == "spatial" && keyText == "advection") {
    Token v = word();
    mark(sim.advection, v.range);
    sim.advection.value = std::string(v.text);
  } else if (sec == "spatial" && keyText == "order") {
    SourceRange r;
    double value = number(r);
    mark(sim.order, r);
    sim.order.value = value;
  } else {
    const char *expected = sec == "simulation"
                               ? "coordinates, dimension, resolution, time or spatial"
                           : sec == "time" ? "dt or integrator"
                                           : "scheme, derivative, order, expression_derivatives or advection";
    fail(key.range, "unknown setting '" + keyText + "' in '" + std::string(sec) +
                        "' (expected " + expected + ")");
  }
}

// ---------------------------------------------------------------- initial data

void Parser::parseInitialData(Module &module) {
  Token kw = consume();
  InitialDataBlock block;
  skipNewlines();
  Token open = expect(TokenKind::LBrace, "after 'initial_data'");
  for (;;) {
    skipNewlines();
    if (current().is(TokenKind::RBrace))
      break;
    if (current().is(TokenKind::EndOfFile)) {
      diags_.error(current().range, "expected '}' to close the 'initial_data' block");
      diags_.note(open.range, "block opened here");
      block.range = SourceRange::join(kw.range, open.range);
      module.initialData.push_back(std::move(block));
      return;
    }
    if (diags_.limitReached())
      return;
    try {
      const Token &t = current();
      if (t.isIdentifier("enforce_symmetry") && peek(1).is(TokenKind::Equal)) {
        Token key = consume();
        consume();
        Token v = expectIdentifier("'true' or 'false'");
        if (v.text != "true" && v.text != "false")
          fail(v.range, "expected 'true' or 'false' for 'enforce_symmetry', found '" +
                            std::string(v.text) + "'");
        if (block.enforceSymmetry.present) {
          diags_.error(key.range, "duplicate setting 'enforce_symmetry'");
          diags_.note(block.enforceSymmetry.keyRange, "previous setting is here");
        }
        block.enforceSymmetry.present = true;
        block.enforceSymmetry.value = v.text == "true";
        block.enforceSymmetry.keyRange = key.range;
        block.enforceSymmetry.valueRange = v.range;
        expectEndOfStatement("'enforce_symmetry'");
      } else if (t.isIdentifier("metric4") && peek(1).is(TokenKind::Identifier)) {
        parseMetric4(block);
      } else if (t.isIdentifier("split_3p1") &&
                 (peek(1).is(TokenKind::LBrace) || peek(1).is(TokenKind::Newline))) {
        parseSplit(block);
      } else {
        Stmt stmt = parseStatement(false);
        block.temporaries.push_back(std::move(stmt));
      }
    } catch (ParseError &) {
      recoverToStatementEnd();
    }
  }
  Token close = consume();
  block.range = SourceRange::join(kw.range, close.range);
  module.initialData.push_back(std::move(block));
  expectEndOfStatement("the 'initial_data' block");
}

void Parser::parseMetric4(InitialDataBlock &block) {
  Token kw = consume();
  Token name = expectIdentifier("the metric name");
  Metric4 metric;
  metric.name = std::string(name.text);
  metric.nameRange = name.range;
  if (!current().is(TokenKind::LBracket))
    fail(current().range, "expected an index list such as [mu,nu] after the metric4 name");
  metric.indices = parseIndexList();
  expect(TokenKind::Equal, "after the metric4 declaration");
  Token open = expect(TokenKind::LBracket, "to open the 4x4 matrix (a list of rows)");
  for (;;) {
    if (!current().is(TokenKind::LBracket))
      fail(current().range, "expected '[' to open a matrix row, found " + describe(current()));
    Token rowOpen = consume();
    std::vector<ExprPtr> row;
    if (!current().is(TokenKind::RBracket)) {
      for (;;) {
        row.push_back(parseExpr());
        if (consumeIf(TokenKind::Comma))
          continue;
        break;
      }
    }
    Token rowClose = expect(TokenKind::RBracket, "to close the matrix row");
    metric.rows.push_back(std::move(row));
    metric.rowRanges.push_back(SourceRange::join(rowOpen.range, rowClose.range));
    if (consumeIf(TokenKind::Comma))
      continue;
    break;
  }
  Token close = expect(TokenKind::RBracket, "to close the matrix");
  (void)open;
  metric.range = SourceRange::join(kw.range, close.range);
  expectEndOfStatement("the metric4 matrix");
  if (block.metric4) {
    diags_.error(kw.range, "duplicate 'metric4' in 'initial_data'");
    diags_.note(block.metric4->range, "previous 'metric4' is here");
    return;
  }
  block.metric4 = std::move(metric);
}

void Parser::parseSplit(InitialDataBlock &block) {
  Token kw = consume();
  if (block.hasSplit) {
    diags_.error(kw.range, "duplicate 'split_3p1' in 'initial_data'");
    diags_.note(block.splitRange, "previous 'split_3p1' is here");
  }
  block.hasSplit = true;
  block.splitRange = kw.range;
  skipNewlines();
  Token open = expect(TokenKind::LBrace, "after 'split_3p1'");
  for (;;) {
    skipNewlines();
    if (consumeIf(TokenKind::RBrace))
      break;
    if (current().is(TokenKind::EndOfFile)) {
      diags_.error(current().range, "expected '}' to close 'split_3p1'");
      diags_.note(open.range, "block opened here");
      throw ParseError{};
    }
    if (diags_.limitReached())
      return;
    try {
      SplitEntry entry;
      Token quantity = expectIdentifier("a 3+1 quantity (alpha, gamma or gammaU)");
      entry.quantity = std::string(quantity.text);
      entry.quantityRange = quantity.range;
      expect(TokenKind::Arrow, "after the 3+1 quantity");
      Token target = expectIdentifier("the target field name");
      entry.target = std::string(target.text);
      entry.targetRange = target.range;
      if (current().is(TokenKind::LBracket))
        entry.targetIndices = parseIndexList();
      block.split.push_back(std::move(entry));
      if (!current().is(TokenKind::Newline) && !current().is(TokenKind::RBrace))
        fail(current().range, "expected ';', end of line or '}' after a split_3p1 entry, found " +
                                  describe(current()));
    } catch (ParseError &) {
      recoverWithinBlock();
    }
  }
  expectEndOfStatement("'split_3p1'");
}

// ---------------------------------------------------------------- evolution / constraints

void Parser::parseComputeBlock(Module &module, ComputeKind kind) {
  Token kw = consume();
  const char *word = kind == ComputeKind::Evolution ? "evolution" : "constraints";
  ComputeBlock block;
  block.kind = kind;
  if (!current().is(TokenKind::Identifier))
    fail(current().range, std::string("expected a name after '") + word + "', as in '" + word +
                              " Name {', found " + describe(current()));
  Token name = consume();
  block.name = std::string(name.text);
  block.nameRange = name.range;
  skipNewlines();
  Token open = expect(TokenKind::LBrace, "to open the block");
  for (;;) {
    skipNewlines();
    if (current().is(TokenKind::RBrace))
      break;
    if (current().is(TokenKind::EndOfFile)) {
      diags_.error(current().range, std::string("expected '}' to close the '") + word + "' block");
      diags_.note(open.range, "block opened here");
      block.range = SourceRange::join(kw.range, open.range);
      module.blocks.push_back(std::move(block));
      return;
    }
    if (diags_.limitReached())
      return;
    try {
      if (!parseProblemDeclaration(block))
        block.statements.push_back(parseStatement(true));
    } catch (ParseError &) {
      recoverToStatementEnd();
    }
  }
  Token close = consume();
  block.range = SourceRange::join(kw.range, close.range);
  module.blocks.push_back(std::move(block));
  expectEndOfStatement("the block");
}

Stmt Parser::parseStatement(bool allowDtAndResidual) {
  Token first = current();
  StmtKind kind = StmtKind::Temporary;
  if (first.is(TokenKind::Identifier) && peek(1).is(TokenKind::Identifier) &&
      (first.text == "dt" || first.text == "residual")) {
    kind = first.text == "dt" ? StmtKind::DtAssign : StmtKind::Residual;
    if (!allowDtAndResidual)
      fail(first.range, first.text == "dt" ? "'dt' assignments belong in 'evolution' blocks"
                                           : "'residual' outputs belong in 'constraints' blocks");
    consume();
  } else if (!first.is(TokenKind::Identifier)) {
    if (first.is(TokenKind::Plus) || first.is(TokenKind::Minus) || first.is(TokenKind::Star) ||
        first.is(TokenKind::Slash) || first.is(TokenKind::Caret))
      fail(first.range, "unexpected " + describe(first) +
                            " at the start of a statement; to continue an expression on the "
                            "next line, end the previous line with the operator");
    fail(first.range, "expected a statement (name = expression), found " + describe(first));
  }
  Stmt stmt;
  stmt.kind = kind;
  Token target = expectIdentifier("an assignment target");
  stmt.target = std::string(target.text);
  stmt.targetRange = target.range;
  if (current().is(TokenKind::LBracket)) {
    stmt.targetIndices = parseIndexList();
    stmt.targetHasIndexList = true;
    stmt.targetRange = SourceRange::join(target.range, tokens_[pos_ - 1].range);
  }
  if (kind == StmtKind::Residual && current().isIdentifier("for")) {
    consume();
    Token unknown = expectIdentifier("the unknown after 'for', as in 'residual H for u = ...'");
    stmt.forUnknown = std::string(unknown.text);
    stmt.forRange = unknown.range;
  }
  if (!current().is(TokenKind::Equal))
    fail(current().range, "expected '=' after the assignment target, found " + describe(current()));
  consume();
  stmt.value = parseExpr();
  stmt.range = SourceRange::join(first.range, stmt.value->range);
  expectEndOfStatement("the expression");
  return stmt;
}

// ---------------------------------------------------------------- expressions

ExprPtr Parser::parseExpr() {
  if (++depth_ > kMaxNesting) {
    --depth_;
    fail(current().range, "expression nests too deeply (limit " + std::to_string(kMaxNesting) + ")");
  }
  ExprPtr e;
  try {
    e = parseAdditive();
  } catch (...) {
    --depth_;
    throw;
  }
  --depth_;
  return e;
}

ExprPtr Parser::parseAdditive() {
  ExprPtr lhs = parseMultiplicative();
  while (current().is(TokenKind::Plus) || current().is(TokenKind::Minus)) {
    char op = current().is(TokenKind::Plus) ? '+' : '-';
    consume();
    ExprPtr rhs = parseMultiplicative();
    lhs = makeBinary(op, std::move(lhs), std::move(rhs));
  }
  return lhs;
}

ExprPtr Parser::makeBinary(char op, ExprPtr lhs, ExprPtr rhs) {
  auto node = std::make_unique<Expr>(ExprKind::Binary, SourceRange::join(lhs->range, rhs->range));
  node->op = op;
  node->height = 1 + std::max(heightOf(*lhs), heightOf(*rhs));
  if (node->height > kMaxTreeHeight)
    fail(node->range, "expression too large: more than " + std::to_string(kMaxTreeHeight) +
                          " chained operations; split it into temporaries");
  node->operands.push_back(std::move(lhs));
  node->operands.push_back(std::move(rhs));
  return node;
}

ExprPtr Parser::parseMultiplicative() {
  ExprPtr lhs = parseUnary();
  while (current().is(TokenKind::Star) || current().is(TokenKind::Slash)) {
    char op = current().is(TokenKind::Star) ? '*' : '/';
    consume();
    ExprPtr rhs = parseUnary();
    lhs = makeBinary(op, std::move(lhs), std::move(rhs));
  }
  return lhs;
}

ExprPtr Parser::parseUnary() {
  if (current().is(TokenKind::Minus) || current().is(TokenKind::Plus)) {
    Token sign = consume();
    if (++depth_ > kMaxNesting)
      fail(sign.range, "expression nests too deeply (limit " + std::to_string(kMaxNesting) + ")");
    ExprPtr operand = parseUnary();
    --depth_;
    if (sign.is(TokenKind::Plus))
      return operand;
    auto node = std::make_unique<Expr>(ExprKind::Negate, SourceRange::join(sign.range, operand->range));
    node->height = 1 + heightOf(*operand);
    if (node->height > kMaxTreeHeight)
      fail(node->range, "expression too large: more than " + std::to_string(kMaxTreeHeight) +
                            " chained operations; split it into temporaries");
    node->operands.push_back(std::move(operand));
    return node;
  }
  return parsePower();
}

ExprPtr Parser::parsePower() {
  ExprPtr base = parsePrimary();
  if (!current().is(TokenKind::Caret))
    return base;
  consume();
  Rational exponent = parseExponent();
  auto node = std::make_unique<Expr>(ExprKind::Power, SourceRange::join(base->range, tokens_[pos_ - 1].range));
  node->exponent = exponent;
  node->height = 1 + heightOf(*base);
  node->operands.push_back(std::move(base));
  if (current().is(TokenKind::Caret))
    fail(current().range, "chained '^' is ambiguous; add parentheses, as in (x^2)^3");
  return node;
}

namespace {
// Exact rational value of an integer or plain decimal literal; false for exponent notation.
bool literalToRational(std::string_view text, Rational &out) {
  if (text.find_first_of("eE") != std::string_view::npos || text.size() > 15)
    return false;
  int64_t num = 0, den = 1;
  bool afterPoint = false;
  for (char c : text) {
    if (c == '.') {
      afterPoint = true;
      continue;
    }
    num = num * 10 + (c - '0');
    if (afterPoint)
      den *= 10;
  }
  int64_t g = std::gcd(num, den);
  out = {num / (g ? g : 1), den / (g ? g : 1)};
  return true;
}
} // namespace

Rational Parser::parseExponent() {
  const char *help = "the exponent of '^' must be an integer or rational literal such as 2, -7 "
                     "or (1/3); use pow(x, y) for a general exponent";
  auto signedLiteral = [&]() -> Rational {
    bool negative = false;
    if (current().is(TokenKind::Minus) || current().is(TokenKind::Plus))
      negative = consume().is(TokenKind::Minus);
    if (!current().is(TokenKind::Number))
      fail(current().range, help);
    Token lit = consume();
    Rational r;
    if (!literalToRational(lit.text, r))
      fail(lit.range, help);
    if (negative)
      r.num = -r.num;
    return r;
  };
  if (!current().is(TokenKind::LParen))
    return signedLiteral();
  Token open = consume();
  Rational r = signedLiteral();
  if (consumeIf(TokenKind::Slash)) {
    if (!current().is(TokenKind::Number))
      fail(current().range, help);
    Token denTok = consume();
    Rational d;
    if (!literalToRational(denTok.text, d) || d.den != 1)
      fail(denTok.range, help);
    if (d.num == 0)
      fail(denTok.range, "exponent has a zero denominator");
    if (__builtin_mul_overflow(r.den, d.num, &r.den))
      fail(denTok.range, "exponent is too large to represent exactly; use pow(x, y)");
    int64_t g = std::gcd(r.num < 0 ? -r.num : r.num, r.den);
    if (g > 1) {
      r.num /= g;
      r.den /= g;
    }
  }
  if (!current().is(TokenKind::RParen))
    fail(current().range, help);
  consume();
  (void)open;
  return r;
}

ExprPtr Parser::parsePrimary() {
  Token t = current();
  if (t.is(TokenKind::Number)) {
    consume();
    auto node = std::make_unique<Expr>(ExprKind::Number, t.range);
    node->text = std::string(t.text);
    node->number = std::strtod(node->text.c_str(), nullptr);
    if (!std::isfinite(node->number))
      fail(t.range, "number '" + node->text + "' is out of range for a 64-bit float");
    return node;
  }
  if (t.is(TokenKind::LParen)) {
    consume();
    ExprPtr inner = parseExpr();
    Token close = current();
    if (!close.is(TokenKind::RParen))
      fail(close.range, "expected ')' to close the parenthesis, found " + describe(close));
    consume();
    inner->range = SourceRange::join(t.range, close.range);
    return inner;
  }
  if (!t.is(TokenKind::Identifier)) {
    if (t.is(TokenKind::Newline) || t.is(TokenKind::EndOfFile) || t.is(TokenKind::RBrace))
      fail(t.range, "expected an expression, found " + describe(t));
    fail(t.range, "expected an expression, found " + describe(t));
  }
  consume();
  std::string name(t.text);
  if (current().is(TokenKind::LParen)) {
    consume();
    std::vector<ExprPtr> args;
    if (!current().is(TokenKind::RParen)) {
      for (;;) {
        args.push_back(parseExpr());
        if (consumeIf(TokenKind::Comma))
          continue;
        break;
      }
    }
    Token close = current();
    if (!close.is(TokenKind::RParen))
      fail(close.range, "expected ',' or ')' in the call of '" + name + "', found " + describe(close));
    consume();
    SourceRange range = SourceRange::join(t.range, close.range);
    ExprKind kind = ExprKind::Call;
    auto node = std::make_unique<Expr>(kind, range);
    if (name == "contract") {
      node->kind = ExprKind::Contract;
    } else if (name == "laplacian") {
      node->kind = ExprKind::Laplacian;
    } else if (name == "dissipation") {
      node->kind = ExprKind::Dissipation;
    } else if (name == "advect") {
      node->kind = ExprKind::Advect;
    } else if (startsWith(name, "d_")) {
      node->kind = ExprKind::Derivative;
      node->indices.push_back({name.substr(2), {SourceLocation{t.range.begin.offset + 2}, t.range.end}});
    } else if (startsWith(name, "nabla_")) {
      node->kind = ExprKind::Covariant;
      node->indices.push_back({name.substr(6), {SourceLocation{t.range.begin.offset + 6}, t.range.end}});
    }
    node->text = name;
    for (const ExprPtr &a : args)
      node->height = std::max(node->height, 1 + heightOf(*a));
    if (node->height > kMaxTreeHeight)
      fail(range, "expression too large: more than " + std::to_string(kMaxTreeHeight) +
                      " chained operations; split it into temporaries");
    node->operands = std::move(args);
    return node;
  }
  auto node = std::make_unique<Expr>(ExprKind::Ref, t.range);
  node->text = name;
  if (current().is(TokenKind::LBracket)) {
    node->indices = parseIndexList();
    node->hasIndexList = true;
    node->range = SourceRange::join(t.range, tokens_[pos_ - 1].range);
  }
  return node;
}

} // namespace tensorium_mlir::frontend
