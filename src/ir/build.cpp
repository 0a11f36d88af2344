// The statement builders (tenet_cost/ir_build.hpp).
#include "tenet_cost/ir_build.hpp"

#include <memory>
#include <utility>

namespace tenet_cost::ir {

namespace {
std::shared_ptr<Stmt> stmt_node(StmtKind k, const SourceLocation& loc) {
  auto s = std::make_shared<Stmt>();
  s->kind = k;
  s->loc = loc;
  return s;
}
ExprPtr zero_of(const ExprPtr& extent) {
  return make_int(0, extent && !extent->dtype.empty() ? extent->dtype.str() : std::string("int32"));
}
}  // namespace

StmtPtr make_seq(std::vector<StmtPtr> children, const SourceLocation& loc) {
  auto s = stmt_node(StmtKind::kSeq, loc);
  s->children = std::move(children);
  return s;
}

StmtPtr make_for(const std::string& var, ExprPtr extent, StmtPtr body, ForKind kind, ExprPtr min,
                 const SourceLocation& loc) {
  auto s = stmt_node(StmtKind::kFor, loc);
  s->var = var;
  s->min = min ? std::move(min) : zero_of(extent);
  s->extent = std::move(extent);
  s->for_kind = kind;
  s->body = std::move(body);
  return s;
}

StmtPtr make_block(Block block, const SourceLocation& loc) {
  auto s = stmt_node(StmtKind::kBlock, loc);
  s->block = std::make_shared<const Block>(std::move(block));
  return s;
}

StmtPtr make_store(const std::string& buffer, std::vector<ExprPtr> indices, ExprPtr value, const SourceLocation& loc) {
  auto s = stmt_node(StmtKind::kStore, loc);
  s->buffer = buffer;
  s->indices = std::move(indices);
  s->value = std::move(value);
  return s;
}

StmtPtr make_if(ExprPtr cond, StmtPtr then_body, StmtPtr else_body, const SourceLocation& loc) {
  auto s = stmt_node(StmtKind::kIf, loc);
  s->value = std::move(cond);
  s->body = std::move(then_body);
  s->else_body = std::move(else_body);
  return s;
}

StmtPtr make_let(const std::string& var, ExprPtr value, StmtPtr body, const SourceLocation& loc) {
  auto s = stmt_node(StmtKind::kLet, loc);
  s->var = var;
  s->value = std::move(value);
  s->body = std::move(body);
  return s;
}

StmtPtr make_alloc(Buffer buffer, StmtPtr body, const SourceLocation& loc) {
  auto s = stmt_node(StmtKind::kAlloc, loc);
  s->alloc = std::move(buffer);
  s->body = std::move(body);
  return s;
}

StmtPtr make_evaluate(ExprPtr value, const SourceLocation& loc) {
  auto s = stmt_node(StmtKind::kEvaluate, loc);
  s->value = std::move(value);
  return s;
}

IterVar make_iter_var(std::string name, IterKind kind, ExprPtr extent, ExprPtr binding) {
  IterVar iv;
  iv.name = std::move(name);
  iv.kind = kind;
  iv.min = zero_of(extent);
  iv.extent = std::move(extent);
  iv.binding = std::move(binding);
  return iv;
}

}  // namespace tenet_cost::ir
