// The block-scaled formats of 2026 (docs/quant.md "Block formats"): OCP Microscaling MXFP4, MXFP6 (e2m3, e3m2),
// MXFP8 (e4m3, e5m2) and MXINT8 (one e8m0 power-of-two scale per 32 elements along K) and NVFP4 (e2m1 values, one
// e4m3 scale per 16 along K and one fp32 scale per tensor); their schemes (weights and activations, weight-only,
// mixed), the fp8 and block-scaled KV-cache formats, other tools' names for them, and a dump's MX / NVFP4 weights.
#include <algorithm>
#include <sstream>

#include "internal.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/dtype.hpp"
#include "tenet_cost/quant_info.hpp"

namespace tenet_cost::quant {

using namespace detail;  // NOLINT(google-build-using-namespace): the catalog's own helpers (internal.hpp)

namespace {

struct BlockFormat {
  const char* name;           // canonical token: "mxfp4", "mxfp8-e4m3", "nvfp4"
  const char* dtype;          // element dtype (TVM's name)
  int bits;                   // element bits
  std::int64_t storage_bits;  // a storage word (fp4: two per byte)
  std::int64_t elems_per_storage;
  std::int64_t block;              // elements per scale along K
  const char* scale_dtype;         // float8_e8m0fnu (MX) | float8_e4m3fn (NVFP4)
  std::int64_t tensor_scale_bits;  // NVFP4: one float32 per tensor
  MacPrecision mac;                // the block-scaled MAC precision (arch's macs_per_pe_per_cycle key)
  bool fp;                         // floating-point elements (MXFP*, NVFP4)
};

constexpr const char* kE8m0 = "float8_e8m0fnu";
const BlockFormat kFormats[] = {
    {"mxfp4", "float4_e2m1fn", 4, 8, 2, 32, kE8m0, 0, MacPrecision::kMxfp4, true},
    {"mxfp6-e2m3", "float6_e2m3fn", 6, 6, 1, 32, kE8m0, 0, MacPrecision::kMxfp6, true},
    {"mxfp6-e3m2", "float6_e3m2fn", 6, 6, 1, 32, kE8m0, 0, MacPrecision::kMxfp6, true},
    {"mxfp8-e4m3", "float8_e4m3fn", 8, 8, 1, 32, kE8m0, 0, MacPrecision::kMxfp8, true},
    {"mxfp8-e5m2", "float8_e5m2", 8, 8, 1, 32, kE8m0, 0, MacPrecision::kMxfp8, true},
    {"mxint8", "int8", 8, 8, 1, 32, kE8m0, 0, MacPrecision::kMxint8, false},
    {"nvfp4", "float4_e2m1fn", 4, 8, 2, 16, "float8_e4m3fn", 32, MacPrecision::kNvfp4, true},
};

const BlockFormat* find_format(const std::string& name) {
  for (const auto& f : kFormats)
    if (name == f.name) return &f;
  return nullptr;
}

bool is_nvfp4(const BlockFormat& f) { return f.tensor_scale_bits > 0; }
bool is_format_keyword(const std::string& p) { return p.rfind("mx", 0) == 0 || p.rfind("nvfp", 0) == 0; }

// One format token at parts[i] (i advances past it): mxfp4 | mxfp6-e2m3 | mxfp6-e3m2 | mxfp8[-e4m3|-e5m2] | mxint8 |
// nvfp4 ("mxfp8" alone is e4m3, OCP's and aiconfigurator's default); nullptr when parts[i] is none of them.
const BlockFormat* read_format(const std::string& full, const std::vector<std::string>& parts, std::size_t& i) {
  const std::string& p = parts[i];
  if (p == "mxfp6" || p == "mxfp8") {
    if (i + 1 < parts.size())
      if (const BlockFormat* f = find_format(p + "-" + parts[i + 1])) {
        i += 2;
        return f;
      }
    if (p == "mxfp6") bad(full, "mxfp6 needs its element type: mxfp6-e2m3 or mxfp6-e3m2");
    ++i;
    return find_format("mxfp8-e4m3");
  }
  const BlockFormat* f = find_format(p);
  if (f) ++i;
  return f;
}

// The activation token in a mixed name: the default e4m3 of MXFP8 is left out (w4a8-mxfp4-mxfp8, aiconfigurator's
// w4a8_mxfp4_mxfp8).
std::string short_token(const BlockFormat& f) { return std::string(f.name) == "mxfp8-e4m3" ? "mxfp8" : f.name; }

TensorFormat block_format(const BlockFormat& b) {
  TensorFormat f;
  f.dtype = b.dtype;
  f.storage_bits = b.storage_bits;
  f.elems_per_storage = b.elems_per_storage;
  f.scale = Granularity::kGroup;  // weights SW[j, floor(k/g)], activations SA[i, floor(k/g)], KV per token
  f.group = b.block;
  f.scale_bits = 8;
  f.scale_dtype = b.scale_dtype;
  f.tensor_scale_bits = b.tensor_scale_bits;
  return f;
}

std::string scales_text(const BlockFormat& b) {
  std::string t = std::string("one ") + b.scale_dtype + (is_nvfp4(b) ? "" : " (power-of-two)") + " scale per " +
                  std::to_string(b.block) + " along K";
  if (is_nvfp4(b)) t += " and one float32 scale per tensor";
  return t;
}

// The scheme of weights in `w` and activations in `a` (nullptr: float16 activations, weights dequantized).
Scheme block_scheme(const BlockFormat& w, const BlockFormat* a) {
  Scheme s;
  s.family = SchemeFamily::kGeneric;
  s.weight = block_format(w);
  const std::string wb = std::to_string(w.bits);
  std::ostringstream d;
  if (!a) {
    s.name = "w" + wb + "a16-" + w.name;
    s.activation = plain("float16");
    s.compute = MacPrecision::kFp16;
    s.dequant_weight = true;
    d << "weight-only " << w.name << ": " << w.dtype << " weights, " << scales_text(w)
      << "; weights dequantized to fp16 before the MAC (every scale applied there), float16 activations";
  } else {
    s.name =
        a == &w ? std::string(w.name) : "w" + wb + "a" + std::to_string(a->bits) + "-" + w.name + "-" + short_token(*a);
    s.activation = block_format(*a);
    s.dynamic_activation = true;
    s.compute = a->mac;  // the wider operand's unit (W <= A); it takes the narrower one directly
    s.output_rescale = is_nvfp4(w) || is_nvfp4(*a);  // the per-tensor scales, once per output
    if (a == &w) d << w.name << " weights and activations: " << w.dtype << ", " << scales_text(w);
    else
      d << w.name << " weights (" << w.dtype << ", " << scales_text(w) << ") x " << a->name << " activations ("
        << a->dtype << ", " << scales_text(*a) << ")";
    d << "; activations quantized at run time (block absmax, scale, convert" << (is_nvfp4(*a) ? ", tensor amax" : "")
      << "); block-scaled " << to_string(a->mac) << " MACs (each block scale applied once per block)";
    if (a != &w) d << " taking the " << w.dtype << " weights directly";
    if (s.output_rescale) d << "; outputs rescaled by the per-tensor scales";
  }
  d << "; " << bits_formula(s.weight) << " bits per weight";
  s.description = d.str();
  return s;
}

// w<W>a<A> of "w4a8": nullopt when `wa` is not of that form.
std::optional<std::pair<int, int>> weight_activation_bits(const std::string& wa) {
  const auto apos = wa.find('a');
  if (wa.size() < 4 || wa[0] != 'w' || apos == std::string::npos || !all_digits(wa.substr(1, apos - 1)) ||
      !all_digits(wa.substr(apos + 1)))
    return std::nullopt;
  return std::pair{std::stoi(wa.substr(1, apos - 1)), std::stoi(wa.substr(apos + 1))};
}

}  // namespace

namespace detail {

std::optional<Scheme> parse_block_scheme(const std::string& full, const std::string& base) {
  const auto parts = split(base, '-');
  std::size_t i = 0;
  const auto unexpected = [&](const BlockFormat& f) {
    bad(full, "unexpected '" + parts[i] + "' after the block format " + f.name);
  };
  if (is_format_keyword(parts[0])) {  // mxfp4, nvfp4, ...: weights and activations
    const BlockFormat* f = read_format(full, parts, i);
    if (!f)
      bad(full, "unknown block format '" + parts[0] +
                    "' (mxfp4, mxfp6-e2m3, mxfp6-e3m2, mxfp8-e4m3, mxfp8-e5m2, mxint8, nvfp4)");
    if (i != parts.size()) unexpected(*f);
    return block_scheme(*f, f);
  }
  if (parts.size() < 2 || !is_format_keyword(parts[1])) return std::nullopt;
  const auto wa = weight_activation_bits(parts[0]);
  if (!wa) return std::nullopt;
  const auto [wb, ab] = *wa;
  i = 1;
  const BlockFormat* w = read_format(full, parts, i);
  if (!w) bad(full, "unknown block format '" + parts[1] + "'");
  const BlockFormat* a = i < parts.size() ? read_format(full, parts, i) : nullptr;
  if (i < parts.size()) {
    if (a) unexpected(*a);
    bad(full, "unknown activation format '" + parts[i] + "'");
  }
  if (wb != w->bits)
    bad(full, "w" + std::to_string(wb) + " names " + std::to_string(wb) + "-bit weights but " + w->name + " has " +
                  std::to_string(w->bits) + "-bit elements");
  if (ab == 16) {
    if (a) bad(full, "a16 keeps float16 activations: no activation format after the weight format");
    return block_scheme(*w, nullptr);
  }
  if (!a) {
    if (ab != wb) bad(full, "name the activation format after the weight format (e.g. w4a8-mxfp4-mxfp8)");
    a = w;
  }
  if (ab != a->bits)
    bad(full, "a" + std::to_string(ab) + " names " + std::to_string(ab) + "-bit activations but " + a->name + " has " +
                  std::to_string(a->bits) + "-bit elements");
  if (a != w && (!w->fp || !a->fp || is_nvfp4(*w) || is_nvfp4(*a)))
    bad(full,
        "mixed forms take MXFP weights and MXFP activations (e.g. w4a8-mxfp4-mxfp8); nvfp4 and mxint8 mix "
        "with no other format");
  if (wb > ab) bad(full, "weights wider than the activations are not supported");
  return block_scheme(*w, a);
}

std::optional<std::pair<TensorFormat, std::string>> parse_block_kv(const std::string& full, const std::string& kv) {
  // vLLM's --kv-cache-dtype spellings
  const std::string k = kv == "fp8" || kv == "fp8_e4m3" ? "kvfp8" : kv == "fp8_e5m2" ? "kvfp8-e5m2" : kv;
  if (k.rfind("kvfp8", 0) == 0) {
    const auto parts = split(k, '-');
    if (parts[0] != "kvfp8") bad(full, "expected kvfp8[-e4m3|-e5m2][-tensor|-head] after '+'");
    bool e5m2 = false, head = false;
    for (std::size_t p = 1; p < parts.size(); ++p) {
      if (parts[p] == "e5m2" || parts[p] == "e4m3") e5m2 = parts[p] == "e5m2";
      else if (parts[p] == "head" || parts[p] == "tensor") head = parts[p] == "head";
      else bad(full, "unknown KV-cache option '" + parts[p] + "' (kvfp8 takes e4m3 or e5m2, tensor or head)");
    }
    TensorFormat f = plain(e5m2 ? "float8_e5m2" : "float8_e4m3fn");
    f.scale = head ? Granularity::kHead : Granularity::kTensor;
    f.scale_bits = 32;
    f.scale_dtype = "float32";
    return std::pair{f, std::string("kvfp8") + (e5m2 ? "-e5m2" : "") + (head ? "-head" : "")};
  }
  if (k.rfind("kv-", 0) != 0) return std::nullopt;
  const auto parts = split(k.substr(3), '-');
  std::size_t i = 0;
  const BlockFormat* f = read_format(full, parts, i);
  if (!f || i != parts.size())
    bad(full, "expected kv-<block format> after '+' (kv-nvfp4, kv-mxfp4, kv-mxfp8-e4m3, kv-mxint8, ...)");
  return std::pair{block_format(*f), std::string("kv-") + f->name};
}

const std::vector<std::string>& block_catalog_names() {
  static const std::vector<std::string> names = {"mxfp4",
                                                 "mxfp6-e2m3",
                                                 "mxfp6-e3m2",
                                                 "mxfp8-e4m3",
                                                 "mxfp8-e5m2",
                                                 "mxint8",
                                                 "nvfp4",
                                                 "w4a16-mxfp4",
                                                 "w4a16-nvfp4",
                                                 "w8a16-mxfp8-e4m3",
                                                 "w4a8-mxfp4-mxfp8",
                                                 "w6a8-mxfp6-e2m3-mxfp8",
                                                 "w4a16-g128+kvfp8",
                                                 "w4a16-g128+kvfp8-e5m2-head",
                                                 "nvfp4+kv-nvfp4",
                                                 "mxfp4+kv-mxfp8-e4m3"};
  return names;
}

std::optional<Scheme> block_scheme_from(const QuantInfo& q) {
  if (q.weight_bits <= 0 || q.zero_point == ZeroPointKind::kTensor) return std::nullopt;
  // the extractor names the scheme when it saw the activations quantized too (mxfp4, nvfp4, w4a8-mxfp4-mxfp8)
  if (auto named = parse_block_scheme(q.scheme, q.scheme)) {
    named->family = SchemeFamily::kDump;
    named->description = "found in the dump: " + named->description;
    return named;
  }
  const BlockFormat* f = nullptr;
  if (q.scale_dtype == parse_dtype(kE8m0) && q.group_size == 32) {
    for (const auto& b : kFormats)  // the element dtype itself (not a packing word)
      if (q.storage_dtype == parse_dtype(b.dtype) && q.scale_dtype == parse_dtype(b.scale_dtype) &&
          q.weight_bits == b.bits)
        f = &b;
    // packed words: OCP MX has no 4-bit integer element, so 4-bit elements under e8m0 scales are e2m1
    if (!f && q.weight_bits == 4) f = find_format("mxfp4");
  } else if (q.scale_dtype == DataType::Float(8, "e4m3fn") && q.group_size == 16 &&
             q.tensor_scale_dtype == DataType::Float(32) && q.weight_bits == 4) {
    f = find_format("nvfp4");
  }
  if (!f || f->bits != q.weight_bits) return std::nullopt;
  Scheme s = block_scheme(*f, nullptr);  // the dump dequantizes its weights before the GEMM
  s.family = SchemeFamily::kDump;
  s.description = "found in the dump: " + s.description;
  return s;
}

ExtraWork block_extra_work(const Scheme& s, std::int64_t m, std::int64_t n, std::int64_t k) {
  ExtraWork w;
  w.dequant = s.dequant_weight;
  const TensorFormat& a = s.activation;
  if (a.is_low_precision()) {
    // per element: the block absmax (a max) and the scale-and-convert; per block: its scale; NVFP4 also the
    // per-tensor amax (a max per element)
    const std::int64_t elems = checked_mul(m, k, "activation elements");
    const std::int64_t blocks = checked_mul(m, ceil_div(k, std::max<std::int64_t>(1, a.group)), "activation blocks");
    std::int64_t ops = checked_add(checked_mul(2, elems, "activation quantization ops"), blocks, "ops");
    if (a.tensor_scale_bits > 0) ops = checked_add(ops, elems, "activation quantization ops");
    w.act_quant_ops = ops;
  }
  if (s.weight.tensor_scale_bits > 0 || a.tensor_scale_bits > 0)
    w.rescale_ops = checked_mul(m, n, "rescale ops");  // the product of the per-tensor scales, once per output
  return w;
}

}  // namespace detail

std::string bits_formula(const TensorFormat& f) {
  std::ostringstream elem;
  if (f.storage_bits % f.elems_per_storage == 0) elem << f.storage_bits / f.elems_per_storage;
  else elem << static_cast<double>(f.storage_bits) / static_cast<double>(f.elems_per_storage);
  std::string out = elem.str();
  if (f.scale != Granularity::kNone && f.scale_bits > 0) {
    const std::string meta = f.zero_point ? "(" + std::to_string(f.scale_bits) + "+" + std::to_string(f.zero_bits) + ")"
                                          : std::to_string(f.scale_bits);
    switch (f.scale) {
      case Granularity::kGroup: out += " + " + meta + "/" + std::to_string(f.group); break;
      case Granularity::kBlock: out += " + " + meta + "/(" + block_text(f.block_n, f.block_k) + ")"; break;
      case Granularity::kChannel:
        out += " + " + meta + (f.group > 0 ? "/(" + std::to_string(f.group) + " x rows)" : "/row");
        break;
      case Granularity::kToken: out += " + " + meta + "/row"; break;
      case Granularity::kTensor: out += " + " + meta + "/tensor"; break;
      case Granularity::kHead: out += " + " + meta + "/head"; break;
      case Granularity::kNone: break;
    }
  }
  if (f.tensor_scale_bits > 0) out += " + " + std::to_string(f.tensor_scale_bits) + "/tensor";
  return out;
}

const std::vector<std::pair<std::string, std::string>>& aliases() {
  // vLLM --quantization and aiconfigurator's GEMM / MoE quant modes where their name differs from ours (vLLM's
  // `mxfp4` is gpt-oss's weight-only MXFP4, `w4a16-mxfp4` here: our `mxfp4` quantizes the activations too)
  static const std::vector<std::pair<std::string, std::string>> a = {
      {"modelopt_fp4", "nvfp4"},                 // vLLM: ModelOpt NVFP4 checkpoints (W4A4)
      {"fp8", "fp8-tensor"},                     // vLLM, aiconfigurator: per-tensor fp8 (w8fp8)
      {"fp8_static", "fp8-tensor"},              // aiconfigurator
      {"fp8_ootb", "fp8-tensor"},                // aiconfigurator (TensorRT-LLM TRT backend)
      {"modelopt", "fp8-tensor"},                // vLLM: ModelOpt FP8 (static per-tensor scales)
      {"fp8_block", "fp8-block128x128"},         // aiconfigurator: DeepSeek-style 128x128 blocks
      {"sq", "w8a8-token-channel"},              // aiconfigurator: SmoothQuant w8int8
      {"int8_wo", "w8a16-channel"},              // aiconfigurator
      {"int4_wo", "w4a16-channel"},              // aiconfigurator
      {"float16", "w16a16"},                     // aiconfigurator
      {"bfloat16", "q0bf16"},                    // aiconfigurator
      {"w4a16_mxfp4", "w4a16-mxfp4"},            // aiconfigurator MoE: gpt-oss's native format
      {"w4a8_mxfp4_mxfp8", "w4a8-mxfp4-mxfp8"},  // aiconfigurator MoE
      {"w4a16_nvfp4", "w4a16-nvfp4"},            // the same spelling for NVFP4
  };
  return a;
}

std::string alias_of(const std::string& text) {
  for (const auto& [alias, name] : aliases())
    if (text == alias) return name;
  return "";
}

}  // namespace tenet_cost::quant
