// Elliptic problem declarations inside constraints blocks: unknowns, boundary conditions, the
// domain and the solve policy. Semantic checks live in SemaProblem.cpp.
#include "tensorium_mlir/Frontend/Parser.h"

#include <cstdlib>
#include <map>

namespace tensorium_mlir::frontend {


bool Parser::parseProblemDeclaration(ComputeBlock &block) {
  const Token &t = current();
  if (!t.is(TokenKind::Identifier))
    return false;
  const bool declaration =
      (t.text == "unknown" || t.text == "boundary" || t.text == "exact") && peek(1).is(TokenKind::Identifier);
  const bool section = (t.text == "domain" || t.text == "solve") && peek(1).is(TokenKind::LBrace);
  if (!declaration && !section)
    return false;
  if (block.kind == ComputeKind::Evolution && t.text == "boundary" && declaration) {
    parseEvolutionBoundary(block);
    return true;
  }
  if (block.kind != ComputeKind::Constraints)
    fail(t.range, "'" + std::string(t.text) + "' declares part of an elliptic problem and belongs in a "
                  "'constraints' block");
  if (t.text == "unknown")
    parseUnknown(block);
  else if (t.text == "boundary")
    parseBoundary(block);
  else if (t.text == "exact")
    parseExact(block);
  else if (t.text == "domain")
    parseDomain(block);
  else
    parseSolve(block);
  return true;
}

void Parser::parseUnknown(ComputeBlock &block) {
  Token kw = consume();
  UnknownDecl decl;
  if (current().isIdentifier("vector") && peek(1).is(TokenKind::Identifier)) {
    consume();
    decl.vector = true;
  }
  Token name = expectIdentifier("the unknown's field name");
  decl.name = std::string(name.text);
  decl.nameRange = name.range;
  if (current().is(TokenKind::LBracket)) {
    decl.indices = parseIndexList();
    decl.nameRange = SourceRange::join(name.range, tokens_[pos_ - 1].range);
  }
  decl.range = SourceRange::join(kw.range, decl.nameRange);
  block.unknowns.push_back(std::move(decl));
  expectEndOfStatement("the unknown declaration");
}

void Parser::parseUnknownReference(const char *what, std::string &name, SourceRange &range,
                                   std::vector<IndexName> &indices, bool &hasIndexList) {
  Token unknown = expectIdentifier(what);
  name = std::string(unknown.text);
  range = unknown.range;
  if (current().is(TokenKind::LBracket)) {
    indices = parseIndexList();
    hasIndexList = true;
    range = SourceRange::join(unknown.range, tokens_[pos_ - 1].range);
  }
}

void Parser::parseBoundary(ComputeBlock &block) {
  Token kw = consume();
  BoundaryCondition bc;
  parseUnknownReference("the unknown a boundary condition applies to", bc.unknown, bc.unknownRange, bc.unknownIndices,
                        bc.unknownHasIndexList);
  Token face = expectIdentifier("a domain face (xmin ... zmax, inner, outer) after the unknown");
  bc.face = std::string(face.text);
  bc.faceRange = face.range;
  Token kind = expectIdentifier("'dirichlet' or 'robin' after the face");
  bc.kindRange = kind.range;
  if (kind.text == "dirichlet") {
    bc.kind = BoundaryKind::Dirichlet;
    expect(TokenKind::Equal, "after 'dirichlet', as in 'dirichlet = 0'");
    bc.value = parseExpr();
    bc.range = SourceRange::join(kw.range, bc.value->range);
  } else if (kind.text == "robin") {
    bc.kind = BoundaryKind::Robin;
    Token open = expect(TokenKind::LParen, "after 'robin', as in 'robin(a = 1, b = r, value = 0)'");
    std::map<std::string, SourceRange> seen;
    for (;;) {
      Token key = expectIdentifier("a Robin coefficient name (a, b or value)");
      std::string k(key.text);
      ExprPtr *slot = k == "a" ? &bc.a : k == "b" ? &bc.b : k == "value" ? &bc.value : nullptr;
      if (!slot)
        fail(key.range, "unknown Robin coefficient '" + k + "'; the condition is a u + b du/dn = value, "
                        "with coefficients a, b and value");
      if (seen.count(k)) {
        diags_.error(key.range, "duplicate Robin coefficient '" + k + "'");
        diags_.note(seen[k], "previous value is here");
      }
      seen[k] = key.range;
      expect(TokenKind::Equal, ("after Robin coefficient '" + k + "'").c_str());
      *slot = parseExpr();
      if (consumeIf(TokenKind::Comma))
        continue;
      break;
    }
    Token close = expect(TokenKind::RParen, "to close the Robin coefficients");
    for (const char *required : {"a", "b", "value"})
      if (!seen.count(required))
        diags_.error(SourceRange::join(open.range, close.range),
                     std::string("robin(...) needs coefficient '") + required + "' (a u + b du/dn = value)");
    bc.range = SourceRange::join(kw.range, close.range);
  } else {
    fail(kind.range, "unknown boundary condition kind '" + std::string(kind.text) +
                         "'; write 'dirichlet = expr' or 'robin(a = expr, b = expr, value = expr)'");
  }
  block.boundaries.push_back(std::move(bc));
  expectEndOfStatement("the boundary condition");
}

void Parser::parseEvolutionBoundary(ComputeBlock &block) {
  Token kw = consume();
  EvolutionBoundary bc;
  Token field = expectIdentifier("the evolved field a boundary condition applies to");
  bc.field = std::string(field.text);
  bc.fieldRange = field.range;
  if (current().is(TokenKind::LBracket))
    fail(current().range, "an evolution boundary applies to every component; write 'boundary " + bc.field + " ...' "
                          "without indices");
  Token kind = expectIdentifier("'periodic', 'radiative(...)' or 'exact' after the field");
  bc.kindRange = kind.range;
  bc.range = SourceRange::join(kw.range, kind.range);
  if (kind.text == "periodic") {
    bc.kind = EvolutionBoundaryKind::Periodic;
  } else if (kind.text == "exact") {
    bc.kind = EvolutionBoundaryKind::Exact;
  } else if (kind.text == "radiative") {
    bc.kind = EvolutionBoundaryKind::Radiative;
    if (consumeIf(TokenKind::LParen)) {
      std::map<std::string, SourceRange> seen;
      while (!current().is(TokenKind::RParen)) {
        Token key = expectIdentifier("'value' or 'speed'");
        std::string k(key.text);
        if (k != "value" && k != "speed")
          fail(key.range, "unknown radiative setting '" + k + "'; the condition takes 'value' (the field's value at "
                          "infinity, default 0) and 'speed' (the wave speed, default 1)");
        if (seen.count(k)) {
          diags_.error(key.range, "duplicate radiative setting '" + k + "'");
          diags_.note(seen[k], "previous value is here");
        }
        seen[k] = key.range;
        expect(TokenKind::Equal, ("after '" + k + "'").c_str());
        const bool negative = consumeIf(TokenKind::Minus);
        Token number = current();
        if (!number.is(TokenKind::Number))
          fail(number.range, "expected a number for '" + k + "', found " + describeToken(number));
        consume();
        const double v = (negative ? -1 : 1) * std::strtod(std::string(number.text).c_str(), nullptr);
        if (k == "speed" && !(v > 0))
          fail(number.range, "the radiative speed must be positive");
        (k == "value" ? bc.value : bc.speed) = v;
        if (!consumeIf(TokenKind::Comma))
          break;
      }
      Token close = expect(TokenKind::RParen, "to close the radiative settings");
      bc.range = SourceRange::join(kw.range, close.range);
    }
  } else {
    fail(kind.range, "unknown evolution boundary '" + std::string(kind.text) +
                         "'; write 'periodic', 'radiative(value = 0, speed = 1)' or 'exact'");
  }
  block.evolutionBoundaries.push_back(std::move(bc));
  expectEndOfStatement("the boundary condition");
}

void Parser::parseExact(ComputeBlock &block) {
  Token kw = consume();
  ExactSolution ex;
  parseUnknownReference("the unknown whose exact solution this is", ex.unknown, ex.unknownRange, ex.unknownIndices,
                        ex.unknownHasIndexList);
  expect(TokenKind::Equal, "after the unknown, as in 'exact u = sin(x)'");
  ex.value = parseExpr();
  ex.range = SourceRange::join(kw.range, ex.value->range);
  if (current().isIdentifier("tolerance")) {
    consume();
    expect(TokenKind::Equal, "after 'tolerance', as in 'tolerance = 1e-8'");
    ex.tolerance = parseExpr();
    ex.range = SourceRange::join(kw.range, ex.tolerance->range);
  }
  block.exacts.push_back(std::move(ex));
  expectEndOfStatement("the exact solution");
}

void Parser::parseDomain(ComputeBlock &block) {
  DomainDecl domain;
  const SourceRange range = parseSettingsBlock("domain", "a domain setting (map, resolution, bounds)", &domain, nullptr);
  if (diags_.limitReached())
    return;
  domain.range = range;
  if (block.domain) {
    diags_.error(range, "duplicate 'domain' in constraints block '" + block.name + "'");
    diags_.note(block.domain->range, "previous 'domain' is here");
  } else {
    block.domain = std::move(domain);
  }
  expectEndOfStatement("the 'domain' block");
}

void Parser::parseSolve(ComputeBlock &block) {
  SolveDecl solve;
  const SourceRange range = parseSettingsBlock("solve", "a solve setting", nullptr, &solve);
  if (diags_.limitReached())
    return;
  solve.range = range;
  if (block.solve) {
    diags_.error(range, "duplicate 'solve' in constraints block '" + block.name + "'");
    diags_.note(block.solve->range, "previous 'solve' is here");
  } else {
    block.solve = std::move(solve);
  }
  expectEndOfStatement("the 'solve' block");
}

SourceRange Parser::parseSettingsBlock(const char *word, const char *settingContext, DomainDecl *domain, SolveDecl *solve) {
  Token kw = consume();
  Token open = expect(TokenKind::LBrace, (std::string("after '") + word + "'").c_str());
  for (;;) {
    skipNewlines();
    if (current().is(TokenKind::RBrace))
      break;
    if (current().is(TokenKind::EndOfFile)) {
      diags_.error(current().range, std::string("expected '}' to close the '") + word + "' block");
      diags_.note(open.range, "block opened here");
      throw ParseError{};
    }
    if (diags_.limitReached())
      return kw.range;
    try {
      Token key = expectIdentifier(settingContext);
      parseProblemSetting(key, word, domain, solve);
    } catch (ParseError &) {
      recoverWithinBlock();
    }
  }
  Token close = consume();
  return SourceRange::join(kw.range, close.range);
}

void Parser::parseProblemSetting(const Token &key, const char *section, DomainDecl *domain, SolveDecl *solve) {
  const std::string keyText(key.text);
  expect(TokenKind::Equal, ("after '" + keyText + "'").c_str());
  auto word = [&](Setting<std::string> &setting) {
    Token v = parseSettingWord(key);
    markSetting(setting, key, v.range);
    setting.value = std::string(v.text);
  };
  auto scalar = [&](Setting<double> &setting) {
    SourceRange r;
    const double value = parseSettingNumber(key, r);
    markSetting(setting, key, r);
    setting.value = value;
  };
  auto list = [&](Setting<std::vector<double>> &setting, std::vector<SourceRange> *entries) {
    Token open = expect(TokenKind::LBracket, ("to open the list of '" + keyText + "'").c_str());
    std::vector<double> values;
    if (entries)
      entries->clear();
    if (!current().is(TokenKind::RBracket)) {
      for (;;) {
        SourceRange r;
        values.push_back(parseSettingNumber(key, r));
        if (entries)
          entries->push_back(r);
        if (consumeIf(TokenKind::Comma))
          continue;
        break;
      }
    }
    Token close = expect(TokenKind::RBracket, ("to close the list of '" + keyText + "'").c_str());
    markSetting(setting, key, SourceRange::join(open.range, close.range));
    setting.value = std::move(values);
  };

  if (domain) {
    if (keyText == "map")
      word(domain->map);
    else if (keyText == "resolution")
      list(domain->resolution, &domain->resolutionEntryRanges);
    else if (keyText == "bounds")
      list(domain->bounds, nullptr);
    else
      fail(key.range, "unknown " + std::string(section) + " setting '" + keyText + "' (expected map, resolution or bounds)");
    return;
  }
  if (keyText == "tolerance")
    scalar(solve->tolerance);
  else if (keyText == "max_iterations")
    scalar(solve->maxIterations);
  else if (keyText == "restart")
    scalar(solve->restart);
  else if (keyText == "linear")
    word(solve->linear);
  else if (keyText == "preconditioner")
    word(solve->preconditioner);
  else if (keyText == "line_search")
    word(solve->lineSearch);
  else if (keyText == "forcing")
    scalar(solve->forcing);
  else
    fail(key.range, "unknown solve setting '" + keyText +
                        "' (expected tolerance, max_iterations, linear, restart, preconditioner, forcing or line_search)");
}

} // namespace tensorium_mlir::frontend
