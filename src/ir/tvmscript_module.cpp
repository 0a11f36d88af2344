// TVMScript lowering of functions (tvmscript_lowerer.hpp): imports, classes, prim_func and Relax function
// signatures, buffers, symbolic vars, Relax bodies.
#include "ir/tvmscript_lowerer.hpp"

namespace tenet_cost::ir::tvmscript {

using py::SK;

// =================================================================== module

void Lowerer::top_level(Stmt* s, const Stmt* cls) {
  switch (s->kind) {
    case SK::kFrom: {
      // from tvm.script import tir as T / tirx as T / relax as R / ir as I
      if (s->name.substr(0, 3) != "tvm") break;
      for (std::uint32_t i = 0; i < s->n_imports; ++i) {
        const auto& a = s->imports[i];
        const std::string_view bound = a.alias.empty() ? a.name : a.alias;
        if (a.name == "tir" || a.name == "tirx") ns_[bound] = Ns::kTir;
        else if (a.name == "relax") ns_[bound] = Ns::kRelax;
        else if (a.name == "ir") ns_[bound] = Ns::kIr;
      }
      callees_.clear();  // resolved with the old aliases
      return;
    }
    case SK::kImport: {
      for (std::uint32_t i = 0; i < s->n_imports; ++i) {
        const auto& a = s->imports[i];
        if (a.alias.empty()) continue;
        const std::string_view last = a.name.substr(a.name.rfind('.') + 1);
        if (last == "tir" || last == "tirx") ns_[a.alias] = Ns::kTir;
        else if (last == "relax") ns_[a.alias] = Ns::kRelax;
      }
      callees_.clear();
      return;
    }
    case SK::kClass:
      if (cls == nullptr && s->n_body == 0) {
        class_name_ = s->name;
        class_header_ = s;
        bool is_module = false;
        for (std::uint32_t i = 0; i < s->n_decorators; ++i) {
          const Node* d = s->decorators[i];
          const std::string path = dotted(d->kind == NK::kCall ? d->a : d);
          if (path.size() >= 9 && path.substr(path.size() - 9) == "ir_module") is_module = true;
        }
        if (!is_module)
          spdlog::debug("{}:{}: class '{}' is not decorated with @I.ir_module; reading its functions anyway", file_,
                        s->line, s->name);
        return;
      }
      break;
    case SK::kDef: {
      bool prim = false, relax = false, priv = false;
      for (std::uint32_t i = 0; i < s->n_decorators; ++i) {
        const Node* d = s->decorators[i];
        const Node* callee = d->kind == NK::kCall ? d->a : d;
        const std::string path = dotted(callee);
        const std::string_view last = std::string_view(path).substr(path.rfind('.') + 1);
        if (last == "prim_func") {
          prim = true;
          if (d->kind == NK::kCall) {
            const Node* pv = kwarg(d, "private");
            if (pv != nullptr && pv->kind == NK::kConst && pv->text == "True") priv = true;
          }
        } else if (path == "R.function" || path == "R.function_") {
          relax = true;
        }
      }
      if (prim) {
        lower_prim_func(s, priv);
        return;
      }
      if (relax) {
        lower_relax_func(s);
        return;
      }
      spdlog::debug("{}:{}: skipping function '{}' (neither @T.prim_func nor @R.function)", file_, s->line, s->name);
      return;
    }
    case SK::kAssign:  // a class member `attention = R.ExternFunc(..)`: a global `cls.attention` may name
      if (cls != nullptr)
        for (std::uint32_t i = 0; i < s->n_targets; ++i)
          if (s->targets[i]->kind == NK::kName) mod_.other_globals.emplace_back(s->targets[i]->text);
      break;
    default: break;
  }
  spdlog::debug("{}:{}: skipping top-level Python statement: {}", file_, s->line, clip(span(s)));
}

// ====================================================================== TIR

std::vector<ExprPtr> Lowerer::shape_of(const Node* n) {
  std::vector<ExprPtr> out;
  if (n == nullptr) return out;
  if (n->kind == NK::kTuple || n->kind == NK::kList) {
    out.reserve(n->n);
    for (std::uint32_t i = 0; i < n->n; ++i) out.push_back(expr(n->kids[i]));
  } else {
    out.push_back(expr(n));
  }
  return out;
}

Buffer Lowerer::buffer_from_call(std::string_view name, const Node* call, std::size_t shape_arg, const Node* at) {
  Buffer b;
  b.name = name;
  b.loc = loc(at);
  const auto pos = positional(call);
  const Node* shape = shape_arg < pos.size() ? pos[shape_arg] : kwarg(call, "shape");
  b.shape = shape_of(shape);
  std::string_view dt;
  const Node* dtn = shape_arg + 1 < pos.size() ? pos[shape_arg + 1] : kwarg(call, "dtype");
  if (str_value(dtn, dt)) b.dtype = dt;
  std::string_view sc;
  if (str_value(kwarg(call, "scope"), sc) || (shape_arg + 6 < pos.size() && str_value(pos[shape_arg + 6], sc)))
    b.scope = sc;
  if (b.scope == "global") b.scope.clear();
  return b;
}

std::optional<Buffer> Lowerer::buffer_from_annotation(std::string_view name, const Node* ann) {
  if (ann == nullptr) return std::nullopt;
  // T.Buffer((..), "dtype") (2023+) or T.Buffer[(..), "dtype"] (2022)
  if (ann->kind == NK::kCall && member_of(ann->a, Ns::kTir) == "Buffer") return buffer_from_call(name, ann, 0, ann);
  if (ann->kind == NK::kSubscript && member_of(ann->a, Ns::kTir) == "Buffer") {
    Buffer b;
    b.name = name;
    b.loc = loc(ann);
    if (ann->n >= 1) {
      const Node* shape = ann->kids[0];
      b.shape = shape_of(shape);
    }
    std::string_view dt;
    if (ann->n >= 2 && str_value(ann->kids[1], dt)) b.dtype = dt;
    return b;
  }
  return std::nullopt;
}

void Lowerer::add_sym_var(std::string_view name, std::string_view dtype, std::vector<std::string>& sym_vars) {
  var_dtypes_[name] = dtype;
  if (sym_seen_.insert(name)) sym_vars.emplace_back(name);
}

// `n = T.int64()`, `a, b = T.int64(), T.int64()`, `n = T.var("int64")`,
// `n = T.meta_var(T.int64(128))` (a Python-level constant: substituted).
bool Lowerer::sym_var_decl(const Stmt* s, std::vector<std::string>& sym_vars, bool tir) {
  if (s->kind != SK::kAssign || s->n_targets != 1) return false;
  // Every declaration below is a T.f(..) call or a tuple of them: most
  // assignments (`lv = R.call_tir(..)`) are ruled out here.
  if (s->value == nullptr) return false;
  if (s->value->kind == NK::kCall) {
    if (member_of(s->value->a, Ns::kTir).empty()) return false;
  } else if (s->value->kind != NK::kTuple) {
    return false;
  }
  auto decl_dtype = [&](const Node* v, std::string_view& dtype) -> bool {
    if (v->kind != NK::kCall) return false;
    const std::string_view m = member_of(v->a, Ns::kTir);
    if (m.empty()) return false;
    if (v->n == 0 && is_dtype_name(m)) {
      dtype = m;
      return true;
    }
    if ((m == "var" || m == "dynamic" || m == "SizeVar" || m == "Var") && v->n >= 1) {
      // T.var("int64"), T.dynamic("n"), T.SizeVar("n", "int64")
      std::string_view a0, a1;
      if (str_value(v->kids[0], a0) && is_dtype_name(a0)) {
        dtype = a0;
        return true;
      }
      if (v->n >= 2 && str_value(v->kids[1], a1) && is_dtype_name(a1)) {
        dtype = a1;
        return true;
      }
      dtype = "int32";
      return true;
    }
    return false;
  };
  const Node* t = s->target;
  const Node* v = s->value;
  if (t->kind == NK::kName) {
    std::string_view dt;
    if (decl_dtype(v, dt)) {
      add_sym_var(t->text, dt, sym_vars);
      return true;
    }
    if (tir && v->kind == NK::kCall && member_of(v->a, Ns::kTir) == "meta_var" && v->n == 1) {
      meta_vars_[t->text] = expr(v->kids[0]);
      return true;
    }
    return false;
  }
  if (t->kind == NK::kTuple && v->kind == NK::kTuple && t->n == v->n && t->n > 0) {
    for (std::uint32_t i = 0; i < t->n; ++i) {
      std::string_view dt;
      if (t->kids[i]->kind != NK::kName || !decl_dtype(v->kids[i], dt)) return false;
    }
    for (std::uint32_t i = 0; i < t->n; ++i) {
      std::string_view dt;
      decl_dtype(v->kids[i], dt);
      add_sym_var(t->kids[i]->text, dt, sym_vars);
    }
    return true;
  }
  return false;
}

void Lowerer::begin_function() {
  var_dtypes_.clear();
  sym_seen_.clear();
  table_.clear();
  rtable_.clear();
  stable_.clear();
  rvars_.clear();
  rglobals_.clear();
  scache_.clear();
  buf_dtypes_.clear();
  meta_vars_.clear();
  nest_ = 0;
}

void Lowerer::lower_prim_func(const Stmt* def, bool is_private) {
  mod_.prim_funcs.emplace_back();
  PrimFunc& f = mod_.prim_funcs.back();
  fn_ = &f;
  begin_function();
  loops_.clear();
  f.name = def->name;
  f.loc = loc(def);
  f.is_private = is_private;

  std::unordered_map<std::string_view, std::size_t> handle_params;
  for (std::uint32_t i = 0; i < def->n_params; ++i) {
    const py::Param& pp = def->params[i];
    Param prm;
    prm.name = pp.name;
    if (auto b = buffer_from_annotation(pp.name, pp.annotation)) {
      prm.kind = ParamKind::kBuffer;
      prm.dtype = b->dtype;
      prm.buffer = b->name;
      f.buffers[b->name] = std::move(*b);
    } else {
      const std::string_view m = member_of(pp.annotation, Ns::kTir);
      if (m == "handle" || m == "Ptr" || m == "ptr") {
        prm.kind = ParamKind::kHandle;
        prm.dtype = "handle";
        handle_params[pp.name] = f.params.size();
      } else {
        prm.kind = ParamKind::kScalar;
        if (is_dtype_name(m)) {
          prm.dtype = m;
          var_dtypes_[pp.name] = m;
          if (is_int_dtype(m)) add_sym_var(pp.name, m, f.sym_vars);
        } else if (pp.annotation != nullptr) {
          spdlog::debug("{}:{}:{}: parameter '{}' of '{}' has an unrecognised annotation '{}'", file_, pp.line, pp.col,
                        pp.name, def->name, clip(span(pp.annotation)));
        }
      }
    }
    f.params.push_back(std::move(prm));
  }
  // views into the map's own strings (map nodes are stable)
  for (const auto& [name, b] : f.buffers) buf_dtypes_[std::string_view(name)] = std::string_view(b.dtype);

  // Function-level statements: attributes, symbolic vars, match_buffer; the
  // rest is the body.
  std::vector<Stmt*> rest;
  rest.reserve(def->n_body);
  for (std::uint32_t i = 0; i < def->n_body; ++i) {
    Stmt* s = def->body[i];
    if (s->kind == SK::kExpr && s->value->kind == NK::kCall && member_of(s->value->a, Ns::kTir) == "func_attr") {
      if (s->value->n >= 1) read_dict(s->value->kids[0], f.attrs);
      continue;
    }
    if (sym_var_decl(s, f.sym_vars, true)) continue;
    if (s->kind == SK::kAssign && s->n_targets == 1 && s->target->kind == NK::kName && s->value->kind == NK::kCall &&
        member_of(s->value->a, Ns::kTir) == "match_buffer") {
      const Node* call = s->value;
      Buffer b = buffer_from_call(s->target->text, call, 1, s->target);
      const auto pos = positional(call);
      if (!pos.empty() && pos[0]->kind == NK::kName) {
        const auto it = handle_params.find(pos[0]->text);
        if (it != handle_params.end()) {
          f.params[it->second].buffer = b.name;
          f.params[it->second].dtype = b.dtype;
        } else {
          // match_buffer on a T.Buffer param (older dumps) -- keep the buffer
          for (auto& prm : f.params)
            if (prm.name == pos[0]->text && prm.buffer.empty()) prm.buffer = b.name;
        }
      }
      auto [it, inserted] = f.buffers.insert_or_assign(b.name, std::move(b));
      buf_dtypes_[std::string_view(it->first)] = std::string_view(it->second.dtype);
      continue;
    }
    if (s->kind == SK::kPass) continue;
    if (s->kind == SK::kExpr && s->value->kind == NK::kString) continue;  // docstring
    rest.push_back(s);
  }
  if (rest.empty())
    throw InputError(loc(def->n_body > 0 ? def->body[def->n_body - 1] : def),
                     "expected the body of prim_func '" + f.name +
                         "' after its declarations, found the end of the function (truncated dump?)");
  f.body = lower_suite(rest.data(), static_cast<std::uint32_t>(rest.size()));
  require_output_used(f, rest.data(), rest.size());
  fn_ = nullptr;
}

std::size_t Lowerer::count_stmts(Stmt* const* body, std::uint32_t n) {
  std::size_t c = n;
  for (std::uint32_t i = 0; i < n; ++i) {
    const Stmt* s = body[i];
    if (s->kind == SK::kWith || s->kind == SK::kIf)
      c += count_stmts(s->body, s->n_body) + count_stmts(s->orelse, s->n_orelse);
  }
  return c;
}

void Lowerer::lower_relax_body(Stmt* const* body, std::uint32_t n, RelaxFunc& f) {
  for (std::uint32_t i = 0; i < n; ++i) {
    const Stmt* s = body[i];
    const NestGuard guard(*this, s);
    switch (s->kind) {
      case SK::kAssign: {
        if (sym_var_decl(s, f.sym_vars, false)) continue;
        if (s->n_targets == 1 && s->target->kind == NK::kName && s->value->kind == NK::kName &&
            (s->value->text == class_name_ || s->value->text == "Module")) {
          cls_aliases_.insert(s->target->text);  // cls = Module
          continue;
        }
        Binding b;
        b.loc = loc(s);
        b.var = s->target->kind == NK::kName ? Symbol(s->target->text) : Symbol(clip(span(s->target)));
        b.value = rexpr(s->value);
        f.bindings.push_back(std::move(b));
        continue;
      }
      case SK::kAnnAssign: {
        if (s->value == nullptr) continue;
        Binding b;
        b.loc = loc(s);
        b.var = s->target->kind == NK::kName ? Symbol(s->target->text) : Symbol(clip(span(s->target)));
        b.sinfo = sinfo(s->annotation);
        b.value = rexpr(s->value);
        f.bindings.push_back(std::move(b));
        continue;
      }
      case SK::kExpr: {
        const Node* v = s->value;
        if (v->kind == NK::kString) continue;
        if (v->kind == NK::kCall) {
          const std::string_view m = member_of(v->a, Ns::kRelax);
          if (m == "func_attr") {
            if (v->n >= 1) read_dict(v->kids[0], f.attrs);
            continue;
          }
          if (m == "output") continue;
        }
        Binding b;
        b.loc = loc(s);
        b.value = rexpr(v);
        f.bindings.push_back(std::move(b));
        continue;
      }
      case SK::kWith:
        if (s->n_items == 1 && s->items[0]->kind == NK::kCall && member_of(s->items[0]->a, Ns::kRelax) == "dataflow") {
          // TVM prints every dataflow block with R.output(...) as its last statement.
          const Stmt* last = s->n_body > 0 ? s->body[s->n_body - 1] : s;
          if (!(last->kind == SK::kExpr && last->value->kind == NK::kCall &&
                member_of(last->value->a, Ns::kRelax) == "output"))
            throw InputError(loc(last), "expected R.output(...) at the end of the dataflow block of Relax function '" +
                                            f.name + "', found '" + first_line(span(last)) + "' (truncated dump?)");
        } else {
          spdlog::debug("{}:{}:{}: flattening an unrecognised 'with' block in Relax function '{}'", file_, s->line,
                        s->col, f.name);
        }
        lower_relax_body(s->body, s->n_body, f);
        continue;
      case SK::kIf:
        spdlog::debug("{}:{}:{}: flattening both branches of an 'if' in Relax function '{}'", file_, s->line, s->col,
                      f.name);
        lower_relax_body(s->body, s->n_body, f);
        lower_relax_body(s->orelse, s->n_orelse, f);
        continue;
      case SK::kReturn:
        if (s->value != nullptr) f.ret = rexpr(s->value);
        continue;
      case SK::kPass: continue;
      default:
        spdlog::debug("{}:{}:{}: skipping a statement in Relax function '{}': {}", file_, s->line, s->col, f.name,
                      clip(span(s)));
    }
  }
}

void Lowerer::lower_relax_func(const Stmt* def) {
  mod_.relax_funcs.emplace_back();
  RelaxFunc& f = mod_.relax_funcs.back();
  rfn_ = &f;
  begin_function();
  cls_aliases_.clear();
  f.name = def->name;
  f.loc = loc(def);
  // every binding is one statement: reserve for all of them (no doubling slack)
  f.bindings.reserve(count_stmts(def->body, def->n_body));
  // symbolic vars declared in the body are known before the params' shapes are read
  for (std::uint32_t i = 0; i < def->n_body; ++i) sym_var_decl(def->body[i], f.sym_vars, false);
  for (std::uint32_t i = 0; i < def->n_params; ++i) {
    const py::Param& pp = def->params[i];
    RelaxParam prm;
    prm.name = pp.name;
    if (pp.annotation != nullptr) prm.sinfo = sinfo(pp.annotation);
    f.params.push_back(std::move(prm));
  }
  lower_relax_body(def->body, def->n_body, f);
  // TVM prints every Relax function with a `return` as its last statement.
  const Stmt* last = def->n_body > 0 ? def->body[def->n_body - 1] : def;
  if (last->kind != SK::kReturn)
    throw InputError(loc(last), "expected 'return' at the end of Relax function '" + f.name + "', found '" +
                                    first_line(span(last)) + "' (truncated dump?)");
  rfn_ = nullptr;
}

}  // namespace tenet_cost::ir::tvmscript
