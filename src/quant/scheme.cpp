// Scheme catalog: MLC-LLM's schemes and the generic grammar (docs/quant.md).
#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <sstream>

#include "internal.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/dtype.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/message.hpp"
#include "tenet_cost/quant.hpp"

namespace tenet_cost::quant {

using namespace detail;  // NOLINT(google-build-using-namespace): the catalog's own helpers (internal.hpp)

std::string to_string(SchemeFamily f) {
  switch (f) {
    case SchemeFamily::kMlc: return "mlc";
    case SchemeFamily::kGeneric: return "generic";
    case SchemeFamily::kDump: return "dump";
  }
  return "generic";
}

std::string to_string(Granularity g) {
  switch (g) {
    case Granularity::kNone: return "none";
    case Granularity::kTensor: return "per-tensor";
    case Granularity::kChannel: return "per-channel";
    case Granularity::kToken: return "per-token";
    case Granularity::kGroup: return "per-group";
    case Granularity::kBlock: return "per-block";
    case Granularity::kHead: return "per-head";
  }
  return "none";
}

std::int64_t dtype_bits(const std::string& dtype) {
  const auto t = parse_dtype(dtype);
  if (!t) throw InputError("unknown dtype '" + dtype + "'");
  return dtype_bits(*t);
}

std::int64_t dtype_bits(const DataType& t) {
  if (t.lanes != 1 || t.code == DataType::Code::kHandle) throw InputError("unknown dtype '" + to_string(t) + "'");
  return t.bits;
}

bool TensorFormat::is_low_precision() const {
  return dtype.rfind("int", 0) == 0 || dtype.rfind("float8", 0) == 0 || dtype.rfind("float6", 0) == 0 ||
         dtype.rfind("float4", 0) == 0;
}

namespace detail {

TensorFormat plain(const std::string& dtype) {
  TensorFormat f;
  f.dtype = dtype;
  f.storage_bits = dtype_bits(dtype);
  f.elems_per_storage = 1;
  return f;
}

MacPrecision model_precision(const std::string& dtype) {
  if (dtype == "float32") return MacPrecision::kFp32;
  if (dtype == "bfloat16") return MacPrecision::kBf16;
  return MacPrecision::kFp16;
}

// MLC group quantization: `bits` packed in uint32 (or storage_bits), fp scales per group.
Scheme mlc_group(const std::string& name, int bits, std::int64_t group, const std::string& model,
                 const std::string& layout, bool lm_head, std::int64_t storage_bits) {
  Scheme s;
  s.name = name;
  s.family = SchemeFamily::kMlc;
  s.model_dtype = model;
  s.weight.dtype = "int" + std::to_string(bits);
  s.weight.storage_bits = storage_bits;
  s.weight.elems_per_storage = storage_bits / bits;
  s.weight.scale = Granularity::kGroup;
  s.weight.group = group;
  s.weight.scale_bits = dtype_bits(model);
  s.weight.scale_dtype = model;
  s.activation = plain(model);
  s.compute = model_precision(model);
  s.out_bits = dtype_bits(model);
  s.dequant_weight = true;
  s.quantize_lm_head = lm_head;
  s.weight_layout = layout;
  std::ostringstream d;
  d << "MLC group quantization: int" << bits << " weights (" << s.weight.elems_per_storage << " per "
    << storage_bits << "-bit word), " << model << " scale per " << group << " weights, " << layout
    << " layout, " << model << " activations; weights dequantized before the MAC";
  if (!lm_head) d << "; embedding and lm_head not quantized";
  s.description = d.str();
  return s;
}

Scheme mlc_none(const std::string& name, const std::string& model) {
  Scheme s;
  s.name = name;
  s.family = SchemeFamily::kMlc;
  s.model_dtype = model;
  s.weight = plain(model);
  s.activation = plain(model);
  s.compute = model_precision(model);
  s.out_bits = dtype_bits(model);
  s.accum_bits = 32;
  s.description = "no quantization: " + model + " weights and activations";
  return s;
}

Scheme mlc_fp8(const std::string& name, const std::string& dtype, bool use_scale) {
  Scheme s;
  s.name = name;
  s.family = SchemeFamily::kMlc;
  s.weight = plain(dtype);
  s.activation = plain(dtype);
  if (use_scale) {
    s.weight.scale = Granularity::kTensor;
    s.weight.scale_bits = 32;
    s.weight.scale_dtype = "float32";
    s.activation.scale = Granularity::kTensor;
    s.activation.scale_bits = 32;
    s.activation.scale_dtype = "float32";
  }
  s.compute = MacPrecision::kFp8;
  s.output_rescale = use_scale;
  s.quantize_lm_head = false;
  s.description = "MLC per-tensor " + dtype + " weights and activations" +
                  (use_scale ? std::string(", float32 per-tensor scales, outputs rescaled")
                             : std::string(", no scales")) +
                  "; lm_head not quantized";
  return s;
}

std::string block_text(std::int64_t bn, std::int64_t bk) { return std::to_string(bn) + "x" + std::to_string(bk); }

// MLC block-scale fp8 (block_scale_quantization.py): float8_e4m3fn weights [N, K] with a float32
// weight_scale_inv [ceil(N/bn), ceil(K/bk)], bfloat16 model; activations quantized to fp8 per token and
// per bk along K at run time (rowwise_group_quant_fp8, float32 scales) or with a static float32 scale
// per bk along K (_static_activation); fp8 groupwise-scaled GEMM, partial sums rescaled per K block.
Scheme mlc_block_fp8(const std::string& name, bool static_activation, std::int64_t bn, std::int64_t bk) {
  Scheme s;
  s.name = name;
  s.family = SchemeFamily::kMlc;
  s.model_dtype = "bfloat16";
  s.weight = plain("float8_e4m3fn");
  s.weight.scale = Granularity::kBlock;
  s.weight.block_n = bn;
  s.weight.block_k = bk;
  s.weight.scale_bits = 32;
  s.weight.scale_dtype = "float32";
  s.activation = plain("float8_e4m3fn");
  // dynamic: SA[i, floor(k/bk)] (per token and K group); static: SA[floor(k/bk)] (per input-channel group)
  s.activation.scale = static_activation ? Granularity::kChannel : Granularity::kGroup;
  s.activation.group = bk;
  s.activation.scale_bits = 32;
  s.activation.scale_dtype = "float32";
  s.dynamic_activation = !static_activation;
  s.compute = MacPrecision::kFp8;
  s.out_bits = 16;
  s.output_rescale = true;
  s.quantize_lm_head = false;
  s.description = "MLC block-scale fp8: float8_e4m3fn weights, float32 scale per " + block_text(bn, bk) +
                  " block (N x K), bfloat16 model; activations fp8 with " +
                  (static_activation ? std::string("a static float32 scale per ") + std::to_string(bk) + " along K"
                                     : std::string("dynamic float32 scales per token and per ") + std::to_string(bk) +
                                           " along K") +
                  "; fp8 MACs, partial sums rescaled per K block; lm_head not quantized";
  return s;
}

const std::vector<Scheme>& mlc_schemes() {
  static const std::vector<Scheme> schemes = [] {
    std::vector<Scheme> v;
    v.push_back(mlc_none("q0f16", "float16"));
    v.push_back(mlc_none("q0bf16", "bfloat16"));
    v.push_back(mlc_none("q0f32", "float32"));
    v.push_back(mlc_group("q3f16_0", 3, 40, "float16", "KN", true));
    v.push_back(mlc_group("q3f16_1", 3, 40, "float16", "NK", true));
    v.push_back(mlc_group("q4f16_0", 4, 32, "float16", "KN", true));
    v.push_back(mlc_group("q4f16_1", 4, 32, "float16", "NK", true));
    v.push_back(mlc_group("q4bf16_0", 4, 32, "bfloat16", "KN", true));
    v.push_back(mlc_group("q4bf16_1", 4, 32, "bfloat16", "NK", true));
    v.push_back(mlc_group("q4f32_1", 4, 32, "float32", "NK", true));
    v.push_back(mlc_group("q4f16_2", 4, 32, "float16", "NK", false));
    v.push_back(mlc_group("q8f16_1", 8, 32, "float16", "NK", true));
    {
      Scheme s = mlc_group("q4f16_autoawq", 4, 128, "float16", "AWQ", true);
      s.weight.zero_point = true;
      s.weight.zero_bits = 4;
      s.description =
          "MLC AutoAWQ: int4 weights (8 per uint32), float16 scale and packed int4 zero point per 128 "
          "weights; weights dequantized before the MAC";
      v.push_back(s);
    }
    {
      Scheme s = mlc_group("q4f16_ft", 4, 0, "float16", "FT", true, 8);
      s.weight.scale = Granularity::kChannel;
      s.weight.group = 0;
      s.description =
          "MLC FasterTransformer: int4 weights (2 per int8), float16 per-output-channel scale; "
          "weights dequantized before the MAC";
      v.push_back(s);
    }
    v.push_back(mlc_fp8("e4m3_e4m3_f16", "float8_e4m3fn", true));
    v.push_back(mlc_fp8("e5m2_e5m2_f16", "float8_e5m2", false));
    v.push_back(mlc_block_fp8("fp8_e4m3fn_bf16_block_scale", false));
    v.push_back(mlc_block_fp8("fp8_e4m3fn_bf16_block_scale_static_activation", true));
    return v;
  }();
  return schemes;
}

const Scheme* mlc_scheme(const std::string& name) {
  const auto& mlc = mlc_schemes();
  const auto it = std::find_if(mlc.begin(), mlc.end(), [&](const Scheme& m) { return m.name == name; });
  return it == mlc.end() ? nullptr : &*it;
}

// Names a typo is compared with: the catalog (MLC names and the generic forms shown by `quant list`).
const std::vector<std::string>& suggestion_names();

// One line: the reason, a "did you mean" when the name is close to a known one, and
// a pointer to `quant list` (the full grammar is ~1,000 characters; docs/quant.md).
[[noreturn]] void bad(const std::string& text, const std::string& why) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  throw InputError("unknown quantization scheme " + quote_for_message(text) + ": " + why +
                   did_you_mean(lower, suggestion_names()) + " (valid schemes: `tenet-cost quant list`)");
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

}  // namespace detail

namespace {

std::string int_dtype(int bits) { return "int" + std::to_string(bits); }

TensorFormat int_format(int bits) {
  TensorFormat f;
  f.dtype = int_dtype(bits);
  f.storage_bits = bits;
  f.elems_per_storage = 1;
  return f;
}

// KV suffix: kv8 | kv4 | kv8-g64 | kv4-g64
TensorFormat parse_kv(const std::string& full, const std::string& kv) {
  if (kv.rfind("kv", 0) != 0) bad(full, "the part after '+' must be a KV-cache form like kv8 or kv4-g64");
  const auto parts = split(kv.substr(2), '-');
  if (!all_digits(parts[0])) bad(full, "expected KV bits after 'kv'");
  const int bits = std::stoi(parts[0]);
  if (bits != 4 && bits != 8) bad(full, "KV-cache bits must be 4 or 8");
  TensorFormat f = int_format(bits);
  f.scale = Granularity::kToken;
  f.scale_bits = 16;
  f.scale_dtype = "float16";
  if (parts.size() == 2) {
    if (parts[1].size() < 2 || parts[1][0] != 'g' || !all_digits(parts[1].substr(1)))
      bad(full, "expected -g<group size> after the KV bits");
    f.group = std::stoll(parts[1].substr(1));
    if (f.group <= 0) bad(full, "group size must be positive");
    f.scale = Granularity::kGroup;
  } else if (parts.size() > 2) {
    bad(full, "too many '-' parts in the KV-cache form");
  }
  return f;
}

// "block<BN>x<BK>" (the part after "block" given as `spec`): block sizes along N and K.
std::pair<std::int64_t, std::int64_t> parse_block(const std::string& full, const std::string& spec) {
  const auto x = spec.find('x');
  if (x == std::string::npos)
    bad(full, "expected block<BN>x<BK> (block sizes along N and along K, e.g. block128x128), found 'block" + spec +
                  "'");
  const std::string a = spec.substr(0, x), b = spec.substr(x + 1);
  if (!all_digits(a) || !all_digits(b))
    bad(full, "expected block<BN>x<BK> with BN and BK positive integers of at most 9 digits, found 'block" + spec +
                  "'");
  const std::int64_t bn = std::stoll(a), bk = std::stoll(b);
  if (bn <= 0 || bk <= 0) bad(full, "block sizes must be positive, found 'block" + spec + "'");
  return {bn, bk};
}

bool is_block_option(const std::string& o) { return o.rfind("block", 0) == 0; }

// fp8-block<BN>x<BK>: DeepSeek-V3-style fp8 with 2-D weight blocks and per-token-group activation scales.
Scheme generic_fp8_block(std::int64_t bn, std::int64_t bk) {
  Scheme s = mlc_block_fp8("fp8-block" + block_text(bn, bk), false, bn, bk);
  s.family = SchemeFamily::kGeneric;
  s.model_dtype = "float16";
  s.quantize_lm_head = true;
  s.description = "float8 e4m3 weights with a float32 scale per " + block_text(bn, bk) +
                  " block (N x K), float8 e4m3 activations with dynamic float32 scales per token and per " +
                  std::to_string(bk) + " along K (DeepSeek-V3 style), fp8 MACs, partial sums rescaled per K block";
  return s;
}

Scheme parse_generic(const std::string& full, const std::string& base) {
  Scheme s;
  s.family = SchemeFamily::kGeneric;
  if (base.rfind("fp8-", 0) == 0 && base != "fp8-tensor") {
    const auto parts = split(base, '-');
    if (parts.size() != 2 || !is_block_option(parts[1]))
      bad(full, "expected fp8-tensor or fp8-block<BN>x<BK> (e.g. fp8-block128x128)");
    const auto [bn, bk] = parse_block(full, parts[1].substr(5));
    return generic_fp8_block(bn, bk);
  }
  if (base == "fp8-tensor") {
    s = mlc_fp8("fp8-tensor", "float8_e4m3fn", true);
    s.family = SchemeFamily::kGeneric;
    s.quantize_lm_head = true;
    s.description =
        "float8 e4m3 weights and activations, float32 per-tensor scales (static activation scale), fp8 MACs, "
        "outputs rescaled";
    return s;
  }
  const auto parts = split(base, '-');
  const std::string& wa = parts[0];
  const auto apos = wa.find('a');
  if (wa.size() < 4 || wa[0] != 'w' || apos == std::string::npos || !all_digits(wa.substr(1, apos - 1)) ||
      !all_digits(wa.substr(apos + 1)))
    bad(full, "expected w<bits>a<bits>[-options] or fp8-tensor");
  const int wb = std::stoi(wa.substr(1, apos - 1));
  const int ab = std::stoi(wa.substr(apos + 1));
  if (wb != 3 && wb != 4 && wb != 8 && wb != 16) bad(full, "weight bits must be 3, 4, 8 or 16");
  if (ab != 4 && ab != 8 && ab != 16) bad(full, "activation bits must be 4, 8 or 16");
  if (ab < 16 && wb > ab) bad(full, "weights wider than integer activations are not supported");
  std::int64_t group = 0, bn = 0, bk = 0;
  bool asym = false, channel = false, token = false, tensor = false;
  for (std::size_t p = 1; p < parts.size(); ++p) {
    const std::string& o = parts[p];
    if (is_block_option(o)) {
      if (bn) bad(full, "block size given twice");
      std::tie(bn, bk) = parse_block(full, o.substr(5));
    } else if (o.size() > 1 && o[0] == 'g' && all_digits(o.substr(1))) {
      if (group) bad(full, "group size given twice");
      group = std::stoll(o.substr(1));
      if (group <= 0) bad(full, "group size must be positive");
    } else if (o == "asym") {
      asym = true;
    } else if (o == "sym") {
    } else if (o == "channel") {
      channel = true;
    } else if (o == "token") {
      token = true;
    } else if (o == "tensor") {
      tensor = true;
    } else {
      bad(full, "unknown option '" + o + "' (options: g<N>, block<BN>x<BK>, asym, sym, token, channel, tensor)");
    }
  }
  if (wb == 16 && ab == 16) {
    if (parts.size() > 1) bad(full, "w16a16 takes no options");
    s = mlc_none("w16a16", "float16");
    s.family = SchemeFamily::kGeneric;
    return s;
  }
  if ((group ? 1 : 0) + (channel ? 1 : 0) + (tensor ? 1 : 0) + (bn ? 1 : 0) > 1)
    bad(full, "choose one weight granularity: g<N>, block<BN>x<BK>, channel or tensor");
  if (token && ab == 16) bad(full, "'token' needs quantized activations (a8 or a4)");
  if (wb == 16) bad(full, "activation-only quantization (w16a8) is not supported");
  s.weight = int_format(wb);
  if (wb == 4 || wb == 3) {  // packed in 32-bit words like MLC
    s.weight.storage_bits = 32;
    s.weight.elems_per_storage = 32 / wb;
  }
  s.weight.scale = bn      ? Granularity::kBlock
                   : group ? Granularity::kGroup
                   : tensor ? Granularity::kTensor
                            : Granularity::kChannel;
  s.weight.group = group;
  s.weight.block_n = bn;
  s.weight.block_k = bk;
  s.weight.scale_bits = 16;
  s.weight.scale_dtype = "float16";
  s.weight.zero_point = asym;
  s.weight.zero_bits = asym ? wb : 0;
  std::string name = "w" + std::to_string(wb) + "a" + std::to_string(ab);
  std::string wgran = bn      ? "-block" + block_text(bn, bk)
                      : group ? "-g" + std::to_string(group)
                      : tensor ? "-tensor"
                               : "-channel";
  std::ostringstream d;
  if (ab == 16) {
    s.activation = plain("float16");
    s.compute = MacPrecision::kFp16;
    s.dequant_weight = true;
    name += wgran;
    d << "weight-only: int" << wb << " weights, float16 " << to_string(s.weight.scale) << " scales";
    if (group) d << " (group " << group << ")";
    if (bn) d << " (" << block_text(bn, bk) << " blocks, N x K)";
    d << (asym ? ", zero points" : ", symmetric") << "; weights dequantized to fp16 before the MAC";
  } else {
    s.activation = int_format(ab);
    if (ab == 4) {
      s.activation.storage_bits = 4;
    }
    s.activation.scale = tensor ? Granularity::kTensor : bn ? Granularity::kGroup : Granularity::kToken;
    s.activation.group = bn ? bk : 0;  // block weights: activation scales per token and per bk along K
    s.activation.scale_bits = 16;
    s.activation.scale_dtype = "float16";
    s.dynamic_activation = !tensor;
    s.compute = ab == 4 ? MacPrecision::kInt4 : MacPrecision::kInt8;  // ab is 4 or 8 here
    s.output_rescale = true;
    s.dequant_weight = wb < ab;  // int4 -> int8 unpack (with group scales) before the MAC
    if (tensor)
      name += "-tensor";
    else if (group || bn)
      name += wgran;
    else
      name += "-token-channel";
    d << "int" << wb << " weights (" << to_string(s.weight.scale);
    if (group) d << " " << group;
    if (bn) d << " " << block_text(bn, bk) << " (N x K)";
    d << " scales), int" << ab << " activations ("
      << (tensor ? "static per-tensor scale"
                 : bn ? "dynamic scale per token and per " + std::to_string(bk) + " along K"
                      : std::string("dynamic per-token scale"))
      << "), int" << ab << " MACs";
    if (s.dequant_weight) d << "; weights unpacked to int" << ab << " before the MAC";
    if (group) d << "; partial sums rescaled per group";
    if (bn && !s.dequant_weight) d << "; partial sums rescaled per K block";
    d << "; outputs rescaled";
    if (asym) d << "; weight zero points";
  }
  if (asym) name += "-asym";
  s.name = name;
  s.description = d.str();
  return s;
}

}  // namespace

std::string valid_forms() {
  std::string mlc;
  for (const auto& s : mlc_schemes()) mlc += (mlc.empty() ? "" : ", ") + s.name;
  return "valid schemes: MLC-LLM names (" + mlc +
         "; the MLC block-scale names take an optional -block<BN>x<BK>, default 128x128), or the generic form "
         "w<W>a<A>[-g<N>|-block<BN>x<BK>|-channel|-tensor|-token-channel][-asym] with W in {3,4,8,16} and A in "
         "{4,8,16} (e.g. w4a16-g128-asym, w8a8-token-channel, w4a8-g128, w4a4-g128, w8a8-block128x128, "
         "w4a16-block64x64), or fp8-tensor, or fp8-block<BN>x<BK> (e.g. fp8-block128x128; BN along N, BK along K, "
         "positive integers), or a block format mxfp4, mxfp6-e2m3, mxfp6-e3m2, mxfp8-e4m3, mxfp8-e5m2, mxint8, nvfp4 "
         "(weights and activations), weight-only w<W>a16-<format> (w4a16-mxfp4, w4a16-nvfp4) or mixed "
         "w<W>a<A>-<format>-<format> (w4a8-mxfp4-mxfp8); any of them with a KV-cache suffix +kv8, +kv4-g<N>, "
         "+kvfp8[-e5m2][-head] or +kv-<format> (e.g. w4a16-g128+kv8, nvfp4+kv-nvfp4); vLLM and aiconfigurator "
         "names (modelopt_fp4, fp8, fp8_block, w4a16_mxfp4, ...) are aliases";
}

Scheme parse_scheme(const std::string& raw) {
  // Spaces around a name are not part of it ("--quant ' q4f16_1'", a list "a, b").
  const auto first = raw.find_first_not_of(" \t");
  const std::string text =
      first == std::string::npos ? std::string() : raw.substr(first, raw.find_last_not_of(" \t") - first + 1);
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower.empty()) bad(text, "empty name");
  const auto plus = lower.find('+');
  const std::string alias = alias_of(lower.substr(0, plus));  // vLLM / aiconfigurator names
  const std::string base = alias.empty() ? lower.substr(0, plus) : alias;
  Scheme s;
  const auto& mlc = mlc_schemes();
  const auto it = std::find_if(mlc.begin(), mlc.end(), [&](const Scheme& m) { return m.name == base; });
  const auto dash = base.find('-');
  const auto mlc_block = std::find_if(mlc.begin(), mlc.end(), [&](const Scheme& m) {
    return m.weight.scale == Granularity::kBlock && dash != std::string::npos && m.name == base.substr(0, dash);
  });
  if (it != mlc.end()) {
    s = *it;
  } else if (auto block = parse_block_scheme(text, base)) {  // MX, NVFP4 (block_formats.cpp)
    s = std::move(*block);
  } else if (mlc_block != mlc.end()) {  // MLC block-scale name with the model's weight_block_size
    const std::string opt = base.substr(dash + 1);
    if (!is_block_option(opt) || opt.find('-') != std::string::npos)
      bad(text, "an MLC block-scale scheme takes only -block<BN>x<BK> (e.g. " + mlc_block->name + "-block64x64)");
    const auto [bn, bk] = parse_block(text, opt.substr(5));
    s = mlc_block_fp8(mlc_block->name, mlc_block->activation.scale == Granularity::kChannel, bn, bk);
    if (bn != 128 || bk != 128) s.name += "-block" + block_text(bn, bk);
  } else if (base == "fp8-tensor" || base.rfind("fp8-", 0) == 0 || (!base.empty() && base[0] == 'w')) {
    s = parse_generic(text, base);
  } else {
    bad(text, "not an MLC-LLM scheme and not of the generic form");
  }
  if (plus != std::string::npos) {
    const std::string kv = lower.substr(plus + 1);
    if (kv.find('+') != std::string::npos) bad(text, "only one '+kv...' suffix is allowed");
    auto block_kv = parse_block_kv(text, kv);  // fp8 and block-scaled KV (block_formats.cpp)
    s.kv = block_kv ? block_kv->first : parse_kv(text, kv);
    s.name += "+" + (block_kv ? block_kv->second : kv);
    s.description += "; KV cache " + s.kv->dtype + " (" + to_string(s.kv->scale) +
                     (s.kv->group ? " " + std::to_string(s.kv->group) : std::string()) + " " + s.kv->scale_dtype +
                     " scales" + (s.kv->tensor_scale_bits ? " + a float32 scale per tensor" : "") + ")";
  }
  return s;
}

std::vector<Scheme> parse_scheme_list(const std::string& text) {
  std::vector<Scheme> out;
  for (const std::string& item : split_list(text))
    if (!item.empty()) out.push_back(parse_scheme(item));  // "a,b," and "a,,b" are tolerated
  return out;
}

namespace detail {
const std::vector<std::string>& suggestion_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Scheme& s : catalog()) v.push_back(s.name);
    for (const char* g : {"w4a16", "w8a16", "w8a8", "w4a8", "w4a4", "fp8-tensor", "w4a16-g128+kv4-g64"})
      v.emplace_back(g);
    for (const auto& [alias, name] : aliases()) v.push_back(alias);
    return v;
  }();
  return names;
}
}  // namespace detail

std::vector<Scheme> catalog() {
  std::vector<Scheme> v = mlc_schemes();
  for (const char* g : {"w16a16", "w4a16-g128", "w4a16-g128-asym", "w4a16-channel", "w8a16-channel", "w3a16-g64",
                        "w8a8-token-channel", "w8a8-tensor", "w4a8-g128", "w4a4-g128", "fp8-tensor",
                        "fp8-block128x128", "w8a8-block128x128", "w4a16-block64x64", "w4a16-g128+kv8",
                        "w4a16-g128+kv4-g64"})
    v.push_back(parse_scheme(g));
  for (const std::string& g : block_catalog_names()) v.push_back(parse_scheme(g));
  return v;
}

// ------------------------------------------------------------------ operands

std::string to_string(OperandRole r) {
  switch (r) {
    case OperandRole::kActivation: return "activation";
    case OperandRole::kWeight: return "weight";
    case OperandRole::kScale: return "scale";
    case OperandRole::kZeroPoint: return "zero_point";
    case OperandRole::kOutput: return "output";
  }
  return "activation";
}

std::string Operand::relation(bool batched) const {
  std::string out = batched ? "{S[b,i,j,k]->" : "{S[i,j,k]->";
  out += name + "[";
  bool first = true;
  if (batched && (role == OperandRole::kActivation || role == OperandRole::kOutput || role == OperandRole::kWeight ||
                  !index.empty())) {
    // every operand of a batched GEMM is per batch except per-tensor constants
    bool constant = std::all_of(index.begin(), index.end(), [](const IndexTerm& t) { return t.dim == '0'; });
    if (!constant) {
      out += "b";
      first = false;
    }
  }
  for (const auto& t : index) {
    if (!first) out += ",";
    first = false;
    if (t.dim == '0')
      out += "0";
    else if (t.divisor > 1)
      out += "floor(" + std::string(1, t.dim) + "/" + std::to_string(t.divisor) + ")";
    else
      out += std::string(1, t.dim);
  }
  out += "]";
  if (apply == Apply::kGroup && apply_group > 1) out += " : k mod " + std::to_string(apply_group) + " = 0";
  out += "}";
  return out;
}

std::string Operand::bits_text() const {
  if (bits_num % bits_den == 0) return std::to_string(bits_num / bits_den);
  std::ostringstream o;
  o << static_cast<double>(bits_num) / static_cast<double>(bits_den);
  return o.str();
}

namespace {

Operand make(std::string name, OperandRole role, std::vector<IndexTerm> idx, std::int64_t num, std::int64_t den,
             bool write = false) {
  const std::int64_t g = std::gcd(num, den);
  return Operand{std::move(name), role, std::move(idx), num / g, den / g, write};
}

Operand stored(std::string name, OperandRole role, std::vector<IndexTerm> idx, const TensorFormat& f) {
  return make(std::move(name), role, std::move(idx), f.storage_bits, f.elems_per_storage);
}

// Scale index of a B operand indexed [row, red] where the scaled "channel" is `chan` and groups run along `grp`.
std::vector<IndexTerm> scale_index(const TensorFormat& f, char chan, char grp) {
  switch (f.scale) {
    case Granularity::kTensor:
    case Granularity::kHead: return {{'0', 1}};  // an attention GEMM is one KV head
    case Granularity::kChannel:
    case Granularity::kToken: return {{chan, 1}};
    case Granularity::kGroup: return {{chan, 1}, {grp, f.group}};
    case Granularity::kBlock: return {{chan, std::max<std::int64_t>(1, f.block_n)}, {grp, std::max<std::int64_t>(1, f.block_k)}};
    case Granularity::kNone: break;
  }
  return {};
}

// Activation A[i,k] scale: per tensor SA[0], per token SA[i], per token and K group SA[i, floor(k/g)]
// (kGroup), per input-channel group shared by all tokens SA[floor(k/g)] (kChannel, static).
std::vector<IndexTerm> activation_scale_index(const TensorFormat& f) {
  switch (f.scale) {
    case Granularity::kTensor: return {{'0', 1}};
    case Granularity::kGroup: return {{'i', 1}, {'k', std::max<std::int64_t>(1, f.group)}};
    case Granularity::kChannel: return {{'k', std::max<std::int64_t>(1, f.group)}};
    case Granularity::kBlock: return {{'i', std::max<std::int64_t>(1, f.block_n)}, {'k', std::max<std::int64_t>(1, f.block_k)}};
    case Granularity::kToken:
    case Granularity::kHead:
    case Granularity::kNone: break;
  }
  return {{'i', 1}};
}

// The second-level per-tensor scale of a two-level format (NVFP4): its own operand S<suffix>2[0].
void add_tensor_scale(std::vector<Operand>& ops, const TensorFormat& f, const std::string& suffix,
                      OperandRole of = OperandRole::kWeight) {
  if (f.tensor_scale_bits <= 0) return;
  ops.push_back(make("S" + suffix + "2", OperandRole::kScale, {{'0', 1}}, f.tensor_scale_bits, 1));
  ops.back().of = of;
}

void add_b_extras(std::vector<Operand>& ops, const TensorFormat& f, const std::string& suffix, char chan, char grp) {
  if (f.scale == Granularity::kNone || f.scale_bits == 0) return;
  const auto idx = scale_index(f, chan, grp);
  ops.push_back(make("S" + suffix, OperandRole::kScale, idx, f.scale_bits, 1));
  if (f.zero_point) ops.push_back(make("Z" + suffix, OperandRole::kZeroPoint, idx, f.zero_bits, 1));
  add_tensor_scale(ops, f, suffix);
}

Operand activation_scale(const TensorFormat& f) {
  Operand op = make("SA", OperandRole::kScale, activation_scale_index(f), f.scale_bits, 1);
  op.of = OperandRole::kActivation;
  return op;
}

}  // namespace

std::vector<Operand> operands(const Scheme& s, GemmRole role, DequantSite site) {
  std::vector<Operand> ops;
  const std::int64_t model_bits = dtype_bits(s.model_dtype);
  switch (role) {
    case GemmRole::kLinear: {
      ops.push_back(stored("A", OperandRole::kActivation, {{'i', 1}, {'k', 1}}, s.activation));
      ops.push_back(stored("W", OperandRole::kWeight, {{'k', 1}, {'j', 1}}, s.weight));
      if (s.activation.scale != Granularity::kNone && s.activation.scale_bits > 0)
        ops.push_back(activation_scale(s.activation));
      add_tensor_scale(ops, s.activation, "A", OperandRole::kActivation);
      add_b_extras(ops, s.weight, "W", 'j', 'k');
      ops.push_back(make("C", OperandRole::kOutput, {{'i', 1}, {'j', 1}}, s.out_bits, 1, true));
      break;
    }
    case GemmRole::kLinearUnquantized: {
      ops.push_back(make("A", OperandRole::kActivation, {{'i', 1}, {'k', 1}}, model_bits, 1));
      ops.push_back(make("W", OperandRole::kWeight, {{'k', 1}, {'j', 1}}, model_bits, 1));
      ops.push_back(make("C", OperandRole::kOutput, {{'i', 1}, {'j', 1}}, model_bits, 1, true));
      break;
    }
    case GemmRole::kAttnQK: {
      ops.push_back(make("Q", OperandRole::kActivation, {{'i', 1}, {'k', 1}}, model_bits, 1));
      if (s.kv) {
        ops.push_back(stored("K", OperandRole::kWeight, {{'k', 1}, {'j', 1}}, *s.kv));
        add_b_extras(ops, *s.kv, "K", 'j', 'k');  // per token j, groups along head_dim k
      } else {
        ops.push_back(make("K", OperandRole::kWeight, {{'k', 1}, {'j', 1}}, model_bits, 1));
      }
      ops.push_back(make("P", OperandRole::kOutput, {{'i', 1}, {'j', 1}}, model_bits, 1, true));
      break;
    }
    case GemmRole::kAttnPV: {
      ops.push_back(make("P", OperandRole::kActivation, {{'i', 1}, {'k', 1}}, model_bits, 1));
      if (s.kv) {
        ops.push_back(stored("V", OperandRole::kWeight, {{'k', 1}, {'j', 1}}, *s.kv));
        add_b_extras(ops, *s.kv, "V", 'k', 'j');  // per token k, groups along head_dim j
      } else {
        ops.push_back(make("V", OperandRole::kWeight, {{'k', 1}, {'j', 1}}, model_bits, 1));
      }
      ops.push_back(make("O", OperandRole::kOutput, {{'i', 1}, {'j', 1}}, model_bits, 1, true));
      break;
    }
  }
  place(ops, s, role, site);
  return ops;
}

MacPrecision compute_precision(const Scheme& s, GemmRole role) {
  if (role == GemmRole::kLinear) return s.compute;
  return model_precision(s.model_dtype);
}

ExtraWork extra_work(const Scheme& s, GemmRole role, std::int64_t m, std::int64_t n, std::int64_t k) {
  if (role == GemmRole::kLinear && is_block_scaled(s.compute)) return block_extra_work(s, m, n, k);
  ExtraWork w;
  if (role == GemmRole::kLinear) {
    w.dequant = s.dequant_weight;
    if (s.activation.is_low_precision()) {
      const std::int64_t elems = checked_mul(m, k, "activation elements");
      w.act_quant_ops = s.dynamic_activation ? checked_mul(2, elems, "activation quantization ops") : elems;
    }
    if (s.output_rescale) {
      // partial sums are rescaled once per K segment over which both scales are constant
      // (weight groups / K blocks, activation groups); weights dequantized before the MAC fold theirs in
      std::int64_t step = 0;
      if (s.weight.scale == Granularity::kGroup && s.weight.group > 0 && !s.dequant_weight) step = s.weight.group;
      if (s.weight.scale == Granularity::kBlock && s.weight.block_k > 0 && !s.dequant_weight) step = s.weight.block_k;
      if ((s.activation.scale == Granularity::kGroup || s.activation.scale == Granularity::kChannel) &&
          s.activation.group > 0)
        step = step ? std::gcd(step, s.activation.group) : s.activation.group;
      const std::int64_t per = step > 0 ? ceil_div(k, step) : 1;
      w.rescale_ops = checked_mul(checked_mul(m, n, "output elements"), per, "rescale ops");
    }
  } else if (role == GemmRole::kAttnQK || role == GemmRole::kAttnPV) {
    w.dequant = s.kv.has_value();
  }
  return w;
}

}  // namespace tenet_cost::quant
