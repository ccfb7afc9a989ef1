#include "tensorium_mlir/Frontend/AST.h"

namespace tensorium_mlir::frontend {

namespace {
struct TypeInfo {
  TensorType type;
  const char *spelling;
  unsigned rank;
  const char *variances; // 'u' or 'd' per slot
  bool symmetric;
};
constexpr TypeInfo kTypes[] = {
    {TensorType::Scalar, "scalar", 0, "", false},
    {TensorType::Vector, "vector", 1, "u", false},
    {TensorType::Covector, "covector", 1, "d", false},
    {TensorType::CovTensor2, "cov_tensor2", 2, "dd", false},
    {TensorType::ConTensor2, "con_tensor2", 2, "uu", false},
    {TensorType::MixedTensor2, "mixed_tensor2", 2, "ud", false},
    {TensorType::CovTensor3, "cov_tensor3", 3, "ddd", false},
    {TensorType::ConTensor3, "con_tensor3", 3, "uuu", false},
    {TensorType::CovTensor4, "cov_tensor4", 4, "dddd", false},
    {TensorType::ConTensor4, "con_tensor4", 4, "uuuu", false},
    {TensorType::Metric, "metric", 2, "dd", true},
    {TensorType::InverseMetric, "inverse_metric", 2, "uu", true},
};
const TypeInfo &info(TensorType t) {
  for (const TypeInfo &i : kTypes)
    if (i.type == t)
      return i;
  return kTypes[0];
}
} // namespace

const char *tensorTypeSpelling(TensorType type) { return info(type).spelling; }

std::optional<TensorType> parseTensorType(std::string_view spelling) {
  for (const TypeInfo &i : kTypes)
    if (spelling == i.spelling)
      return i.type;
  return std::nullopt;
}

unsigned tensorTypeRank(TensorType type) { return info(type).rank; }

Variance tensorTypeVariance(TensorType type, unsigned slot) {
  const TypeInfo &i = info(type);
  if (slot >= i.rank)
    return Variance::Down;
  return i.variances[slot] == 'u' ? Variance::Up : Variance::Down;
}

bool tensorTypeIsSymmetric(TensorType type) { return info(type).symmetric; }

bool fieldIsSymmetric(const FieldDecl &field) { return field.declaredSymmetric || tensorTypeIsSymmetric(field.type); }

const char *variancePrefixSpelling(Variance v) { return v == Variance::Up ? "upper" : "lower"; }

std::string typedIndexSpelling(const TypedIndex &index) {
  return index.name + (index.variance == Variance::Up ? "^" : "_");
}

} // namespace tensorium_mlir::frontend

namespace tensorium_mlir::frontend {

namespace {
void printInto(const Expr &e, std::string &out) {
  auto indexList = [&](const std::vector<IndexName> &indices) {
    out += '[';
    for (size_t i = 0; i < indices.size(); ++i) {
      if (i)
        out += ',';
      out += indices[i].name;
    }
    out += ']';
  };
  switch (e.kind) {
  case ExprKind::Number: out += e.text; return;
  case ExprKind::Ref:
    out += e.text;
    if (e.hasIndexList)
      indexList(e.indices);
    return;
  case ExprKind::Negate:
    out += "(-";
    printInto(*e.operands[0], out);
    out += ')';
    return;
  case ExprKind::Binary:
    out += '(';
    printInto(*e.operands[0], out);
    out += ' ';
    out += e.op;
    out += ' ';
    printInto(*e.operands[1], out);
    out += ')';
    return;
  case ExprKind::Power:
    out += '(';
    printInto(*e.operands[0], out);
    out += ")^(" + std::to_string(e.exponent.num);
    if (e.exponent.den != 1)
      out += "/" + std::to_string(e.exponent.den);
    out += ')';
    return;
  default:
    out += e.text + "(";
    for (size_t i = 0; i < e.operands.size(); ++i) {
      if (i)
        out += ", ";
      printInto(*e.operands[i], out);
    }
    out += ')';
    return;
  }
}
} // namespace

std::string printExpr(const Expr &e) {
  std::string out;
  printInto(e, out);
  return out;
}

} // namespace tensorium_mlir::frontend
