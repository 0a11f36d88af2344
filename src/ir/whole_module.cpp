// Signals that a TVMScript dump was cut (docs/ir-formats.md "Truncated dumps"): only what a cut
// file really has (an unterminated construct is refused by the parser and the lowerer; here: an
// output never written, a reference to a function that is not there, a missing Relax part).
#include "ir/whole_module.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

namespace tenet_cost::ir {

namespace {

using py::NK;
using py::Node;
using py::SK;
using PyStmt = py::Stmt;

bool node_uses(const Node* n, std::string_view name, int depth = 0) {
  if (n == nullptr || depth > 2000) return false;
  if (n->kind == NK::kName && n->text == name) return true;
  if (node_uses(n->a, name, depth + 1) || node_uses(n->b, name, depth + 1) || node_uses(n->c, name, depth + 1))
    return true;
  return std::any_of(n->kids, n->kids + n->n, [&](const Node* k) { return node_uses(k, name, depth + 1); });
}

bool stmts_use(PyStmt* const* body, std::size_t n, std::string_view name, int depth = 0);

bool stmt_uses(const PyStmt* s, std::string_view name, int depth) {
  if (s == nullptr || depth > 2000) return false;
  for (const Node* x : {s->target, s->value, s->annotation})
    if (node_uses(x, name)) return true;
  for (std::uint32_t i = 0; i < s->n_targets; ++i)
    if (node_uses(s->targets[i], name)) return true;
  for (std::uint32_t i = 0; i < s->n_items; ++i)
    if (node_uses(s->items[i], name) || (s->item_targets != nullptr && node_uses(s->item_targets[i], name)))
      return true;
  return stmts_use(s->body, s->n_body, name, depth + 1) || stmts_use(s->orelse, s->n_orelse, name, depth + 1);
}

bool stmts_use(PyStmt* const* body, std::size_t n, std::string_view name, int depth) {
  return std::any_of(body, body + n, [&](const PyStmt* s) { return stmt_uses(s, name, depth); });
}

// "f" of `cls.f` / `Module.f` / `f`.
std::string_view last_name(std::string_view n) { return n.substr(n.rfind('.') + 1); }

// The function a binding's call runs, when the binding names one: the callee of a call_tir, a
// direct call `cls.f(..)`, the function `vm.builtin.cuda_graph.run_or_capture` runs; "" otherwise.
// (A function passed as a plain argument, e.g. to a packed KV-cache builtin, is not a call.)
std::string_view call_target(const RExpr& e) {
  if (e.kind != RExprKind::kCall) return {};
  if (e.op.starts_with("cls.")) return last_name(e.op.view());
  const RExpr* callee = nullptr;
  if ((e.op.starts_with("R.call_tir") || e.op.starts_with("R.dist.call_tir")) && !e.args.empty()) {
    callee = e.args[0].get();
  } else if (e.op == "R.call_builtin_with_ctx" && e.args.size() >= 2 && e.args[0] &&
             e.args[0]->kind == RExprKind::kString && e.args[0]->name == "vm.builtin.cuda_graph.run_or_capture" &&
             e.args[1] && e.args[1]->kind == RExprKind::kTuple && !e.args[1]->args.empty()) {
    callee = e.args[1]->args[0].get();
  }
  return callee != nullptr && callee->kind == RExprKind::kGlobalFunc ? last_name(callee->name.view())
                                                                     : std::string_view();
}

void check_global_refs(const Module& mod) {
  std::unordered_set<std::string_view> defined;
  for (const auto& f : mod.prim_funcs) defined.insert(f.name);
  for (const auto& f : mod.relax_funcs) defined.insert(f.name);
  for (const auto& g : mod.other_globals) defined.insert(g);
  for (const auto& f : mod.relax_funcs)
    for (const auto& b : f.bindings) {
      const std::string_view u = b.value ? call_target(*b.value) : std::string_view();
      if (!u.empty() && !defined.contains(u))
        throw InputError(b.loc, "expected a function '" + std::string(u) + "' in the module (Relax function '" +
                                    f.name + "' calls it), found none (truncated dump?)");
    }
}

}  // namespace

void require_output_used(const PrimFunc& f, PyStmt* const* body, std::size_t n) {
  const bool computes = std::any_of(body, body + n, [](const PyStmt* s) { return s->kind != SK::kExpr; });
  if (!computes || n == 0) return;  // a stub (`T.evaluate(0)`) or an extern call
  for (auto p = f.params.rbegin(); p != f.params.rend(); ++p) {
    if (p->kind == ParamKind::kScalar) continue;
    const std::string& out = p->buffer.empty() ? p->name : p->buffer;
    if (stmts_use(body, n, out)) return;
    const PyStmt* last = body[n - 1];  // where the function stops: its innermost last statement
    for (int d = 0; last->n_body > 0 && d < 2000; ++d) last = last->body[last->n_body - 1];
    throw InputError(Loc{f.loc.file, last->line, last->col},
                     "expected prim_func '" + f.name + "' to write its output '" + out +
                         "' (its last buffer parameter), found a body that never uses it (truncated dump?)");
  }
}

void check_whole_module(const Module& mod, std::string_view text, const std::string& filename) {
  bool relax_header = false;
  for (std::size_t p = 0; p < text.size() && text[p] == '#';) {
    const std::size_t e = std::min(text.find('\n', p), text.size());
    const std::string_view line = text.substr(p, e - p);
    if (line.find("from tvm.script import") != std::string_view::npos &&
        line.find("relax as R") != std::string_view::npos)
      relax_header = true;
    p = e + 1;
  }
  auto end_of_file = [&] {
    std::uint32_t lines = 1;
    for (char c : text) lines += c == '\n' ? 1 : 0;
    if (!text.empty() && text.back() == '\n') --lines;
    return Loc{filename, std::max<std::uint32_t>(lines, 1), 1};
  };
  if (mod.prim_funcs.empty() && mod.relax_funcs.empty())
    throw InputError(end_of_file(), "expected a @T.prim_func or @R.function, found none (empty or truncated dump?)");
  if (relax_header && mod.relax_funcs.empty())
    throw InputError(end_of_file(),
                     "expected a Relax function (the header imports 'relax as R'), found the end of the file "
                     "(truncated dump?)");
  check_global_refs(mod);
}

namespace {

std::uint32_t line_at(std::string_view text, std::size_t offset) {
  return static_cast<std::uint32_t>(1 +
                                    std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

bool blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

// Where the second copy starts when `text` is one text twice (blank lines between and after allowed), else npos.
std::size_t repeated_from(std::string_view text) {
  while (!text.empty() && blank(text.substr(text.size() - 1))) text.remove_suffix(1);
  const std::size_t first_end = std::min(text.find('\n'), text.size());
  const std::string_view first = text.substr(0, first_end);
  if (blank(first) || text.size() < 2) return std::string_view::npos;
  for (std::size_t p = text.find(first, 1); p != std::string_view::npos; p = text.find(first, p + 1)) {
    if (text[p - 1] != '\n') continue;
    const std::size_t len = text.size() - p;  // the second copy: text[p, end)
    if (len > p) continue;                    // the copies would overlap
    if (text.substr(0, len) == text.substr(p) && blank(text.substr(len, p - len))) return p;
  }
  return std::string_view::npos;
}

}  // namespace

void check_defined_once(const Module& mod, std::string_view text, const std::string& filename) {
  std::unordered_map<std::string_view, const RelaxFunc*> seen;
  for (const auto& f : mod.relax_funcs)
    if (const auto [it, fresh] = seen.emplace(f.name, &f); !fresh)
      throw InputError(f.loc, "expected each Relax function once in a module, found '" + f.name +
                                  "' again (first defined at line " + std::to_string(it->second->loc.line) +
                                  "; a dump concatenated with itself?)");
  if (const std::size_t p = repeated_from(text); p != std::string_view::npos)
    throw InputError(Loc{filename, line_at(text, p), 1}, "expected one module, found the text of lines 1-" +
                                                             std::to_string(line_at(text, p) - 1) +
                                                             " again from here (a dump concatenated with itself?)");
}

}  // namespace tenet_cost::ir
