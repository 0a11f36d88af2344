// Command-line value parsers: quantization schemes (quant::parse_scheme and
// what is derived from a scheme), --bind lists, --tile, --dataflow,
// --array-method. The first byte picks the parser.
#include "fuzz_common.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/quant.hpp"

namespace {

// A symbolic extent spelled by the bytes in prefix order: a digit is that integer, a letter a shape variable
// (n, seq_len or an unbound one), + - * / % an operator over the next two; anything else (or the end) is 0.
tenet_cost::sym::SymPtr sym_of(const std::string& s, std::size_t& i, int depth) {
  using namespace tenet_cost::sym;
  if (i >= s.size() || depth > 64) return sym_int(0);
  const char c = s[i++];
  if (c >= '0' && c <= '9') return sym_int(c - '0');
  if (c == 'n' || c == 's' || c == 'x') return sym_var(c == 'n' ? "n" : c == 's' ? "seq_len" : "x");
  const char* const ops = "+-*/%";
  for (int k = 0; k < 5; ++k)
    if (c == ops[k]) {
      SymPtr a = sym_of(s, i, depth + 1);
      return sym_bin(static_cast<SymKind>(static_cast<int>(SymKind::kAdd) + k), a, sym_of(s, i, depth + 1));
    }
  return sym_int(0);
}

tenet_cost::sym::SymPtr sym_of(const std::string& s) {
  std::size_t i = 0;
  return sym_of(s, i, 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > 4096) return 0;
  const std::string s = tc_fuzz::text(data + 1, size - 1);
  return tc_fuzz::guarded([&] {
    using namespace tenet_cost;
    switch (data[0] % 5) {
      case 0: {
        const quant::Scheme q = quant::parse_scheme(s);
        (void)quant::parse_scheme(q.name);  // the canonical name parses again
        for (const auto role : {quant::GemmRole::kLinear, quant::GemmRole::kLinearUnquantized,
                                quant::GemmRole::kAttnQK, quant::GemmRole::kAttnPV}) {
          for (const auto& op : quant::operands(q, role, quant::DequantSite::kEdge)) {
            (void)op.relation(false);
            (void)op.bits_text();
          }
          (void)quant::extra_work(q, role, 64, 128, 256);
          (void)quant::compute_precision(q, role);
        }
        break;
      }
      case 1: {
        // an arbitrary symbolic dimension (a tree the bytes spell) under fixed bindings, printed and bound
        const Dim d = Dim::symbolic(sym_of(s));
        (void)d.str();
        (void)bind_dim(d, {{"n", 3}, {"seq_len", 16}}, false);
        const auto b = parse_bindings(s);
        for (const auto& [k, v] : b) (void)bind_dim(Dim::symbolic(sym::sym_var(k)), b, false);
        break;
      }
      case 2:
        (void)cost::parse_tile(s);
        break;
      case 3: {
        const auto df = mapping::parse_dataflow(s);
        if (df.preset) (void)df.mapping(4, 4, (size % 2) == 0);
        break;
      }
      default:
        (void)cost::parse_array_method(s);
        break;
    }
  });
}
