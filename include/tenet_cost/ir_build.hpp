// Statement builders, in the readers' normal form (both front-ends' conventions): a loop or an iter var without a
// min starts at 0 of its extent's dtype. The expression builders (make_int, make_var, ...) are in ir.hpp. Users:
// tests that build IR by hand (tests/extract/irb.hpp, the printer's and the visitor's tests) and any pass that
// makes statements; the front-ends allocate their nodes from pools and set the fields themselves.
#pragma once

#include <string>
#include <vector>

#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir {

StmtPtr make_seq(std::vector<StmtPtr> children, const SourceLocation& loc = {});
StmtPtr make_for(const std::string& var, ExprPtr extent, StmtPtr body, ForKind kind = ForKind::kSerial,
                 ExprPtr min = nullptr, const SourceLocation& loc = {});
StmtPtr make_block(Block block, const SourceLocation& loc = {});
StmtPtr make_store(const std::string& buffer, std::vector<ExprPtr> indices, ExprPtr value,
                   const SourceLocation& loc = {});
StmtPtr make_if(ExprPtr cond, StmtPtr then_body, StmtPtr else_body = nullptr, const SourceLocation& loc = {});
StmtPtr make_let(const std::string& var, ExprPtr value, StmtPtr body, const SourceLocation& loc = {});
StmtPtr make_alloc(Buffer buffer, StmtPtr body, const SourceLocation& loc = {});
StmtPtr make_evaluate(ExprPtr value, const SourceLocation& loc = {});
IterVar make_iter_var(std::string name, IterKind kind, ExprPtr extent, ExprPtr binding = nullptr);

}  // namespace tenet_cost::ir
