#include "VectorSteps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tensorium_mlir::codegen::emission {

void VectorSteps::prepare(Value lower, Value upper) {
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  upper_ = upper;
  lower_ = lower;
  alignedSteps_ = false;
  lastStart_ = b.create<mlir::arith::SubIOp>(loc, upper, body_.indexConst(body_.width()));
  fits_ = b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::sge, lastStart_, lower);
}

Value VectorSteps::step(Value k) {
  mlir::OpBuilder &b = body_.builder();
  const mlir::Location loc = body_.location();
  if (alignedSteps_) // the loop starts up to width - 1 points before the line
    k = b.create<mlir::arith::MaxSIOp>(loc, k, lower_);
  Value clamped = b.create<mlir::arith::MinSIOp>(loc, k, lastStart_);
  Value start = b.create<mlir::arith::SelectOp>(loc, fits_, clamped, k);
  Value remaining = b.create<mlir::arith::SubIOp>(loc, upper_, start);
  auto maskType = mlir::VectorType::get({static_cast<int64_t>(body_.width())}, b.getI1Type());
  mask_ = b.create<mlir::vector::CreateMaskOp>(loc, maskType, ValueRange{remaining});
  remaining_ = remaining;
  return start;
}

Value VectorSteps::load(Value buffer, Value index) {
  mlir::OpBuilder &b = body_.builder();
  if (body_.width() > 1)
    return b.create<mlir::vector::MaskedLoadOp>(body_.location(), body_.vectorType(), buffer, ValueRange{index}, mask_,
                                                body_.splatConst(0.0));
  return b.create<mlir::memref::LoadOp>(body_.location(), buffer, ValueRange{index});
}

void VectorSteps::store(Value value, Value buffer, Value index) {
  mlir::OpBuilder &b = body_.builder();
  if (body_.width() > 1)
    b.create<mlir::vector::MaskedStoreOp>(body_.location(), buffer, ValueRange{index}, mask_, value);
  else
    b.create<mlir::memref::StoreOp>(body_.location(), value, buffer, ValueRange{index});
}

Value VectorSteps::storedValue(NodeId id) { return body_.width() > 1 ? body_.vectorOf(id) : body_.values().at(id); }

} // namespace tensorium_mlir::codegen::emission
