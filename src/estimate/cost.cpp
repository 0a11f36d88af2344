// Two-level GEMM cost model (docs/model.md).
#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>

#include <spdlog/spdlog.h>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/estimate.hpp"

namespace tenet_cost::estimate {

using quant::Operand;

// ------------------------------------------------------------------ options

Tile parse_tile(const std::string& text) {
  Tile t;
  std::stringstream ss(text);
  std::string item;
  auto bad = [&](const std::string& why) {
    throw InputError("invalid --tile '" + text + "': " + why +
                     "; expected m=<int>,n=<int>,k=<int>[,order=<permutation of mnk>] (any subset)");
  };
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) bad("missing '=' in '" + item + "'");
    const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
    if (key == "order") {
      std::string sorted = val;
      std::sort(sorted.begin(), sorted.end());
      if (sorted != "kmn") bad("order must be a permutation of m, n, k");
      t.order = val;
      continue;
    }
    if (val.empty() || val.size() > 12 || !std::all_of(val.begin(), val.end(), [](unsigned char c) { return std::isdigit(c); }))
      bad("expected a positive integer for " + key);
    const std::int64_t v = std::stoll(val);
    if (v <= 0) bad("tile sizes must be positive");
    if (key == "m") t.m = v;
    else if (key == "n") t.n = v;
    else if (key == "k") t.k = v;
    else bad("unknown key '" + key + "' (valid: m, n, k, order)");
  }
  return t;
}

ArrayMethod parse_array_method(const std::string& text) {
  if (text == "auto") return ArrayMethod::kAuto;
  if (text == "engine") return ArrayMethod::kEngine;
  if (text == "closed-form") return ArrayMethod::kClosedForm;
  throw InputError("unknown array model '" + text + "'; valid: auto, engine, closed-form");
}

// ----------------------------------------------------------- closed forms

namespace {

std::int64_t mul(std::int64_t a, std::int64_t b) { return checked_mul(a, b, "closed-form count"); }
std::int64_t mul(std::int64_t a, std::int64_t b, std::int64_t c) { return mul(mul(a, b), c); }
std::int64_t cdiv(std::int64_t a, std::int64_t b) { return ceil_div(a, b); }
// |{x in [0,n): x % c == 0 or x % g == 0}|
std::int64_t count_or(std::int64_t n, std::int64_t c, std::int64_t g) {
  const std::int64_t l = std::lcm(c, g);
  return cdiv(n, c) + cdiv(n, g) - cdiv(n, l);
}

std::string pattern(const Operand& op) {
  std::string p;
  for (const auto& t : op.index) {
    if (!p.empty()) p += ",";
    p += t.dim;
    if (t.divisor > 1) p += "/g";
  }
  return p;
}
std::int64_t group_of(const Operand& op) {
  for (const auto& t : op.index)
    if (t.divisor > 1) return t.divisor;
  return 1;
}

std::int64_t bits_to_bytes(std::int64_t elems, const Operand& op) {
  const i128 bits = static_cast<i128>(elems) * op.bits_num;
  const i128 den = static_cast<i128>(op.bits_den) * 8;
  return checked_narrow((bits + den - 1) / den, "bytes");
}

}  // namespace

TileMetrics closed_form_tile(const std::string& kind, std::int64_t R, std::int64_t C, std::int64_t tm,
                             std::int64_t tn, std::int64_t tk, const std::vector<Operand>& ops) {
  TileMetrics m;
  m.macs = mul(tm, tn, tk);
  if (kind == "os") {
    const std::int64_t bi = cdiv(tm, R), bj = cdiv(tn, C);
    m.time_stamps = checked_add(checked_add(mul(bi, bj, tk - 2), mul(bj, tm)), mul(bi, tn));
    m.active_pes = mul(std::min(tm, R), std::min(tn, C));
  } else if (kind == "ws") {
    const std::int64_t bj = cdiv(tn, C), bk = cdiv(tk, R);
    m.time_stamps = checked_add(checked_add(mul(bj, bk, tm - 2), mul(bj, tk)), mul(bk, tn));
    m.active_pes = mul(std::min(tk, R), std::min(tn, C));
  } else {
    throw InputError("no closed form for dataflow '" + kind + "' (closed forms: os, ws); use the TENET engine");
  }
  for (const auto& op : ops) {
    const std::string p = pattern(op);
    const std::int64_t g = group_of(op);
    // 2-D block scale S[floor(j/bn), floor(k/bk)]: divisors of the j and k terms
    const std::int64_t bn = op.index.size() == 2 ? op.index[0].divisor : 1;
    const std::int64_t bk = op.index.size() == 2 ? op.index[1].divisor : 1;
    std::int64_t uv = -1;
    if (kind == "os") {
      if (op.write && p == "i,j") uv = mul(tm, tn);
      else if (p == "i,k") uv = mul(tm, tk, cdiv(tn, C));
      else if (p == "k,j") uv = mul(tn, tk, cdiv(tm, R));
      else if (p == "j,k/g") uv = mul(cdiv(tm, R), tn, cdiv(tk, g));
      else if (p == "j") uv = mul(cdiv(tm, R), tn);
      else if (p == "0") uv = mul(cdiv(tm, R), cdiv(tn, C));
      else if (p == "i") uv = mul(tm, cdiv(tn, C));
      else if (p == "k") uv = mul(cdiv(tm, R), cdiv(tn, C), tk);
      else if (p == "k,j/g") uv = mul(cdiv(tm, R), tk, count_or(tn, C, g));
      else if (p == "j/g,k/g" || p == "j/g,k") uv = mul(cdiv(tm, R), count_or(tn, C, bn), cdiv(tk, bk));
      else if (p == "i,k/g") uv = mul(tm, cdiv(tn, C), cdiv(tk, g));
      else if (p == "k/g") uv = mul(cdiv(tm, R), cdiv(tn, C), cdiv(tk, g));
    } else {
      if (op.write && p == "i,j") uv = mul(tm, tn, cdiv(tk, R));
      else if (p == "i,k") uv = mul(tm, tk, cdiv(tn, C));
      else if (p == "k,j") uv = mul(tk, tn);
      else if (p == "j,k/g") uv = mul(tn, count_or(tk, R, g));
      else if (p == "j") uv = mul(tn, cdiv(tk, R));
      else if (p == "0") uv = mul(cdiv(tn, C), cdiv(tk, R));
      else if (p == "i") uv = mul(tm, cdiv(tn, C), cdiv(tk, R));
      else if (p == "k") uv = mul(tk, cdiv(tn, C));
      else if (p == "k,j/g") uv = mul(tk, count_or(tn, C, g));
      else if (p == "j/g,k/g" || p == "j/g,k") uv = mul(count_or(tk, R, bk), count_or(tn, C, bn));
      else if (p == "i,k/g") uv = mul(tm, cdiv(tn, C), count_or(tk, R, g));
      else if (p == "k/g") uv = mul(cdiv(tn, C), count_or(tk, R, g));
    }
    if (uv < 0) throw InputError("no closed form for operand " + op.relation() + " under dataflow " + kind);
    m.unique[op.name] = uv;
    m.total[op.name] = m.macs;
  }
  return m;
}

tenet::Problem tile_problem(const arch::Arch& arch, const arch::Dataflow& dataflow, std::int64_t tm,
                            std::int64_t tn, std::int64_t tk, const std::vector<Operand>& ops) {
  tenet::Problem p;
  p.pe = arch.pe_array();
  const SourceLocation gen{"<generated>", 1, 1};
  p.statement.domain = {"{S[i,j,k]: 0<=i<" + std::to_string(tm) + " and 0<=j<" + std::to_string(tn) +
                            " and 0<=k<" + std::to_string(tk) + "}",
                        gen};
  for (const auto& op : ops) (op.write ? p.statement.writes : p.statement.reads).push_back({op.relation(), gen});
  p.mapping = dataflow.mapping(arch.rows, arch.cols);
  return p;
}

// ------------------------------------------------------------------ estimator

namespace {

struct DimInfo {
  std::int64_t extent = 1;
  std::int64_t tile = 1;
  [[nodiscard]] std::int64_t trips() const { return ceil_div(extent, tile); }
};

char loop_of(char dim) { return dim == 'i' ? 'm' : dim == 'j' ? 'n' : dim == 'k' ? 'k' : '0'; }

struct Nest {
  std::map<char, DimInfo> d;  // 'm','n','k'
  std::string order;          // outermost first
};

// Elements of `op` moved between DRAM and the buffer (reads; for the output: writes + partial re-reads).
struct DramMove {
  std::int64_t first = 0;     // elements at the operand's own bits (reads, or final writes)
  std::int64_t partial = 0;   // output only: extra partial-sum writes (= re-reads), at accumulator bits
};

std::int64_t footprint(const Operand& op, const Nest& nest, bool tile_only) {
  std::int64_t f = 1;
  for (const auto& t : op.index) {
    if (t.dim == '0') continue;
    const DimInfo& di = nest.d.at(loop_of(t.dim));
    const std::int64_t ext = tile_only ? std::min(di.tile, di.extent) : di.extent;
    f = checked_mul(f, ceil_div(ext, t.divisor), "footprint");
  }
  return f;
}

DramMove dram_move(const Operand& op, const Nest& nest) {
  std::string mine;
  for (const auto& t : op.index)
    if (t.dim != '0') mine += loop_of(t.dim);
  int deepest = -1;
  for (int pos = 0; pos < 3; ++pos)
    if (mine.find(nest.order[static_cast<std::size_t>(pos)]) != std::string::npos) deepest = pos;
  std::int64_t reps = 1;
  for (int pos = 0; pos <= deepest; ++pos) {
    const char l = nest.order[static_cast<std::size_t>(pos)];
    if (mine.find(l) == std::string::npos) reps = checked_mul(reps, nest.d.at(l).trips(), "tile repetitions");
  }
  const std::int64_t fp = footprint(op, nest, false);
  DramMove mv;
  if (op.write) {
    mv.first = fp;
    mv.partial = checked_mul(fp, reps - 1, "partial sums");
  } else {
    mv.first = checked_mul(fp, reps, "DRAM elements");
  }
  return mv;
}

// Bits of DRAM traffic for the whole GEMM (one batch), for ranking tiles.
i128 dram_bits(const std::vector<Operand>& ops, const Nest& nest, std::int64_t accum_bits) {
  i128 bits = 0;
  for (const auto& op : ops) {
    const DramMove mv = dram_move(op, nest);
    bits += static_cast<i128>(mv.first) * op.bits_num / op.bits_den;
    bits += static_cast<i128>(mv.partial) * accum_bits * 2;
  }
  return bits;
}

i128 working_set_bits(const std::vector<Operand>& ops, const Nest& nest, std::int64_t accum_bits) {
  i128 bits = 0;
  for (const auto& op : ops) {
    const std::int64_t fp = footprint(op, nest, true);
    if (op.write)
      bits += static_cast<i128>(fp) * accum_bits;
    else
      bits += (static_cast<i128>(fp) * op.bits_num + op.bits_den - 1) / op.bits_den;
  }
  return bits;
}

std::string describe(const Tile& t) {
  return "m=" + std::to_string(t.m) + ",n=" + std::to_string(t.n) + ",k=" + std::to_string(t.k) + ",order=" + t.order;
}

// Group divisors along each loop (tiles must be multiples of them or cover the whole extent).
std::int64_t align_of(const std::vector<Operand>& ops, char loop) {
  std::int64_t a = 1;
  for (const auto& op : ops)
    for (const auto& t : op.index)
      if (t.divisor > 1 && loop_of(t.dim) == loop) a = std::lcm(a, t.divisor);
  return a;
}

std::vector<std::int64_t> candidates(std::int64_t extent, std::int64_t align) {
  std::vector<std::int64_t> c;
  std::int64_t base = std::lcm<std::int64_t>(16, align);
  for (std::int64_t v = base; v < extent; v *= 2) {
    c.push_back(v);
    if (v > (INT64_MAX / 4)) break;
  }
  c.push_back(extent);
  return c;
}

}  // namespace

struct Estimator::Impl {
  arch::Arch arch;
  arch::Dataflow dataflow;
  Options options;
  bool engine_ok = true;
  std::int64_t evaluations = 0;
  std::map<std::string, TileMetrics> tile_cache;
  std::map<std::string, GemmCost> gemm_cache;

  TileMetrics tile_metrics(std::int64_t tm, std::int64_t tn, std::int64_t tk, const std::vector<Operand>& ops,
                           std::string& method) {
    std::string key = std::to_string(tm) + "x" + std::to_string(tn) + "x" + std::to_string(tk);
    for (const auto& op : ops) key += "|" + op.relation();
    const bool closed_ok = dataflow.has_closed_form() && arch.interconnect == "systolic";
    // auto: the proven closed forms where they apply (identical integers, microseconds), the engine elsewhere
    const bool use_closed = options.method == ArrayMethod::kClosedForm ||
                            (options.method == ArrayMethod::kAuto && (closed_ok || !engine_ok));
    key += use_closed ? "|cf" : "|en";
    if (const auto it = tile_cache.find(key); it != tile_cache.end()) {
      method = use_closed ? "closed-form" : "engine";
      return it->second;
    }
    ++evaluations;
    TileMetrics tmx;
    if (use_closed) {
      if (!closed_ok)
        throw InputError("the closed-form array model needs dataflow os or ws on a systolic interconnect (have " +
                         dataflow.name + " on " + arch.interconnect + "); use --array-model engine");
      tmx = closed_form_tile(dataflow.kind, arch.rows, arch.cols, tm, tn, tk, ops);
      method = "closed-form";
    } else {
      try {
        tenet::AnalyzeOptions ao;
        ao.spatial_reuse = false;
        const tenet::Metrics mt = tenet::analyze(tile_problem(arch, dataflow, tm, tn, tk, ops), ao);
        tmx.macs = mt.macs;
        tmx.time_stamps = mt.time_stamps;
        tmx.active_pes = mt.active_pes;
        for (const auto& t : mt.tensors) {
          tmx.unique[t.name] = t.unique_volume;
          tmx.total[t.name] = t.total_volume;
        }
        method = "engine";
      } catch (const OverflowError&) {
        throw;
      } catch (const InputError& e) {
        const std::string what = e.what();
        if (options.method == ArrayMethod::kAuto && closed_ok &&
            what.find("not implemented") != std::string::npos) {
          spdlog::info("TENET engine unavailable ({}); using the closed forms", what);
          engine_ok = false;
          return tile_metrics(tm, tn, tk, ops, method);
        }
        throw;
      }
    }
    tile_cache.emplace(key, tmx);
    return tmx;
  }

  Tile choose_tile(const GemmShape& s, const std::vector<Operand>& ops, std::int64_t accum_bits) {
    const Tile& user = options.tile;
    const i128 cap = static_cast<i128>(arch.buffer_bytes) * 8;
    const std::int64_t am = align_of(ops, 'm'), an = align_of(ops, 'n'), ak = align_of(ops, 'k');
    auto check_align = [&](const char* dim, std::int64_t t, std::int64_t extent, std::int64_t a) {
      if (t < extent && t % a != 0)
        throw InputError(std::string("tile ") + dim + "=" + std::to_string(t) + " must be a multiple of the group size " +
                         std::to_string(a) + " (or cover the whole extent " + std::to_string(extent) + ")");
    };
    if (user.m) check_align("m", user.m, s.m, am);
    if (user.n) check_align("n", user.n, s.n, an);
    if (user.k) check_align("k", user.k, s.k, ak);
    auto cm = user.m ? std::vector<std::int64_t>{std::min(user.m, s.m)} : candidates(s.m, am);
    auto cn = user.n ? std::vector<std::int64_t>{std::min(user.n, s.n)} : candidates(s.n, an);
    auto ck = user.k ? std::vector<std::int64_t>{std::min(user.k, s.k)} : candidates(s.k, ak);
    std::vector<std::string> orders = {"mnk", "nmk", "mkn", "kmn", "nkm", "knm"};
    if (!user.order.empty()) orders = {user.order};
    bool found = false;
    Tile best;
    i128 best_bits = 0;
    i128 best_ws = 0;
    std::int64_t best_tiles = 0;
    i128 smallest_ws = -1;
    Tile smallest;
    for (const auto& order : orders)
      for (auto tm : cm)
        for (auto tn : cn)
          for (auto tk : ck) {
            Nest nest;
            nest.order = order;
            nest.d['m'] = {s.m, tm};
            nest.d['n'] = {s.n, tn};
            nest.d['k'] = {s.k, tk};
            const i128 ws = working_set_bits(ops, nest, accum_bits);
            if (smallest_ws < 0 || ws < smallest_ws) {
              smallest_ws = ws;
              smallest = Tile{tm, tn, tk, order};
            }
            if (ws > cap) continue;
            const i128 bits = dram_bits(ops, nest, accum_bits);
            const std::int64_t tiles = nest.d['m'].trips() * nest.d['n'].trips() * nest.d['k'].trips();
            const bool better = !found || bits < best_bits || (bits == best_bits && tiles < best_tiles) ||
                                (bits == best_bits && tiles == best_tiles && ws < best_ws);
            if (better) {
              found = true;
              best = Tile{tm, tn, tk, order};
              best_bits = bits;
              best_tiles = tiles;
              best_ws = ws;
            }
          }
    if (!found) {
      const i128 need = (smallest_ws + 7) / 8;
      throw InputError("tile " + describe(smallest) + " needs " + std::to_string(static_cast<long long>(need)) +
                       " bytes of buffer (operands at their bits, output at " + std::to_string(accum_bits) +
                       "-bit partial sums) but arch '" + arch.name + "' has " + std::to_string(arch.buffer_bytes) +
                       " bytes: over by " + std::to_string(static_cast<long long>(need - arch.buffer_bytes)) +
                       " bytes; choose smaller --tile factors");
    }
    return best;
  }

  GemmCost evaluate(const GemmShape& s, const quant::Scheme& scheme) {
    if (s.batch <= 0 || s.m <= 0 || s.n <= 0 || s.k <= 0)
      throw InputError("GEMM dimensions must be positive (batch=" + std::to_string(s.batch) + ", m=" +
                       std::to_string(s.m) + ", n=" + std::to_string(s.n) + ", k=" + std::to_string(s.k) + ")");
    const auto ops = quant::operands(scheme, s.role);
    GemmCost c;
    c.shape = s;
    const std::int64_t accum = scheme.accum_bits;
    c.tile = choose_tile(s, ops, accum);
    Nest nest;
    nest.order = c.tile.order;
    nest.d['m'] = {s.m, c.tile.m};
    nest.d['n'] = {s.n, c.tile.n};
    nest.d['k'] = {s.k, c.tile.k};
    c.macs = checked_mul(checked_mul(checked_mul(s.m, s.n, "MACs"), s.k, "MACs"), s.batch, "MACs");
    const arch::Arch::Rate rate = arch.mac_rate(quant::compute_precision(scheme, s.role), &c.precision);
    c.mac_rate_num = rate.num;
    c.mac_rate_den = rate.den;

    // array level: distinct tile shapes (full / remainder per dim)
    std::map<std::string, std::int64_t> unique, total;
    std::int64_t c_writes = 0;
    const std::int64_t fm = s.m / c.tile.m, rm = s.m % c.tile.m;
    const std::int64_t fn = s.n / c.tile.n, rn = s.n % c.tile.n;
    const std::int64_t fk = s.k / c.tile.k, rk = s.k % c.tile.k;
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b)
        for (int d = 0; d < 2; ++d) {
          const std::int64_t tm = a ? rm : c.tile.m, tn = b ? rn : c.tile.n, tk = d ? rk : c.tile.k;
          const std::int64_t count = (a ? (rm ? 1 : 0) : fm) * (b ? (rn ? 1 : 0) : fn) * (d ? (rk ? 1 : 0) : fk);
          if (count == 0 || tm == 0 || tn == 0 || tk == 0) continue;
          const std::int64_t reps = checked_mul(count, s.batch, "tiles");
          const TileMetrics t = tile_metrics(tm, tn, tk, ops, c.array_method);
          c.tiles = checked_add(c.tiles, reps);
          c.time_stamps = checked_add(c.time_stamps, checked_mul(t.time_stamps, reps, "time stamps"));
          c.compute_cycles = checked_add(c.compute_cycles, checked_mul(ceil_div(checked_mul(t.time_stamps, rate.den, "cycles"), rate.num), reps, "cycles"));
          c.active_pes = std::max(c.active_pes, t.active_pes);
          for (const auto& op : ops) {
            const auto u = t.unique.find(op.name);
            const auto v = t.total.find(op.name);
            if (u == t.unique.end() || v == t.total.end())
              throw InternalError("array model returned no volume for tensor " + op.name);
            unique[op.name] = checked_add(unique[op.name], checked_mul(u->second, reps, "unique volume"));
            total[op.name] = checked_add(total[op.name], checked_mul(v->second, reps, "total volume"));
            if (op.write) c_writes = checked_add(c_writes, checked_mul(u->second, reps, "output writes"));
          }
        }

    // buffer <-> DRAM and per-tensor costs
    i128 buffer_bits = 0, noc_bits = 0;
    double energy_pj = 0;
    const std::int64_t out_elems = checked_mul(checked_mul(s.m, s.n, "outputs"), s.batch, "outputs");
    for (const auto& op : ops) {
      TensorCost tc;
      tc.name = op.name;
      tc.role = op.role;
      tc.bits_num = op.bits_num;
      tc.bits_den = op.bits_den;
      tc.bits = op.bits_text();
      const DramMove mv = dram_move(op, nest);
      tc.total_elems = total[op.name];
      if (op.write) {
        // partial sums live in the buffer at accumulator bits: every write after an element's
        // first needs a read to accumulate into
        const std::int64_t writes = c_writes;
        const std::int64_t reads = std::max<std::int64_t>(0, writes - out_elems);
        tc.buffer_elems = checked_add(writes, reads, "output buffer traffic");
        const i128 bbits = static_cast<i128>(tc.buffer_elems) * accum;
        tc.buffer_bytes = checked_narrow((bbits + 7) / 8, "buffer bytes");
        buffer_bits += bbits;
        tc.dram_elems = checked_mul(checked_add(mv.first, checked_mul(mv.partial, 2, "partials"), "elems"), s.batch, "DRAM elements");
        const i128 dbits = static_cast<i128>(mv.first) * s.batch * op.bits_num / op.bits_den +
                           static_cast<i128>(mv.partial) * s.batch * accum * 2;
        tc.dram_bytes = checked_narrow((dbits + 7) / 8, "DRAM bytes");
      } else {
        tc.buffer_elems = unique[op.name];
        tc.buffer_bytes = bits_to_bytes(tc.buffer_elems, op);
        buffer_bits += (static_cast<i128>(tc.buffer_elems) * op.bits_num + op.bits_den - 1) / op.bits_den;
        tc.dram_elems = checked_mul(mv.first, s.batch, "DRAM elements");
        tc.dram_bytes = bits_to_bytes(tc.dram_elems, op);
        noc_bits += static_cast<i128>(std::max<std::int64_t>(0, tc.total_elems - tc.buffer_elems)) * op.bits_num /
                    op.bits_den;
      }
      c.dram_bytes = checked_add(c.dram_bytes, tc.dram_bytes, "DRAM bytes");
      c.buffer_bytes = checked_add(c.buffer_bytes, tc.buffer_bytes, "buffer bytes");
      c.tensors.push_back(tc);
    }

    // extra work
    const quant::ExtraWork xw = quant::extra_work(scheme, s.role, s.m, s.n, s.k);
    if (xw.dequant) {
      if (arch.dequant_placement == "pe") {
        c.dequant_ops = c.macs;
      } else {
        for (const auto& op : ops)
          if (op.role == "weight") c.dequant_ops = unique[op.name];
        c.dequant_cycles = ceil_div(c.dequant_ops, std::max<std::int64_t>(1, arch.dequant_per_cycle));
      }
    }
    c.vector_ops = checked_mul(checked_add(xw.act_quant_ops, xw.rescale_ops, "vector ops"), s.batch, "vector ops");
    c.vector_cycles = ceil_div(c.vector_ops, std::max<std::int64_t>(1, arch.vector_ops_per_cycle));

    c.buffer_cycles = checked_narrow((buffer_bits + arch.buffer_bits_per_cycle - 1) / arch.buffer_bits_per_cycle, "cycles");
    c.dram_cycles = checked_narrow((static_cast<i128>(c.dram_bytes) * arch.clock_mhz + arch.dram_mb_per_s - 1) /
                                       arch.dram_mb_per_s, "cycles");
    const std::array<std::pair<std::int64_t, const char*>, 5> terms = {{{c.compute_cycles, "compute"},
                                                                         {c.buffer_cycles, "buffer"},
                                                                         {c.dram_cycles, "dram"},
                                                                         {c.dequant_cycles, "dequant"},
                                                                         {c.vector_cycles, "vector"}}};
    for (const auto& [v, name] : terms)
      if (c.bound.empty() || v > c.cycles) {
        c.cycles = v;
        c.bound = name;
      }
    c.latency_s = static_cast<double>(c.cycles) / (static_cast<double>(arch.clock_mhz) * 1e6);
    const double peak = static_cast<double>(c.cycles) * static_cast<double>(arch.rows * arch.cols) *
                        static_cast<double>(c.mac_rate_num) / static_cast<double>(c.mac_rate_den);
    c.utilization = peak > 0 ? static_cast<double>(c.macs) / peak : 0.0;

    const auto mac_pj = arch.mac_pj.find(c.precision);
    energy_pj += static_cast<double>(c.macs) * (mac_pj == arch.mac_pj.end() ? 0.0 : mac_pj->second);
    energy_pj += static_cast<double>(c.dram_bytes) * 8.0 * arch.dram_pj_per_bit;
    energy_pj += static_cast<double>(buffer_bits) * arch.buffer_pj_per_bit;
    energy_pj += static_cast<double>(noc_bits) * arch.noc_pj_per_bit;
    energy_pj += static_cast<double>(c.dequant_ops) * arch.dequant_pj;
    energy_pj += static_cast<double>(c.vector_ops) * arch.vector_op_pj;
    c.energy_j = energy_pj * 1e-12;
    return c;
  }
};

Estimator::Estimator(arch::Arch a, arch::Dataflow d, Options o) : impl_(std::make_unique<Impl>()) {
  impl_->arch = std::move(a);
  impl_->dataflow = std::move(d);
  impl_->options = std::move(o);
}
Estimator::~Estimator() = default;
const arch::Arch& Estimator::arch() const { return impl_->arch; }
const arch::Dataflow& Estimator::dataflow() const { return impl_->dataflow; }
std::int64_t Estimator::array_evaluations() const { return impl_->evaluations; }

const GemmCost& Estimator::gemm(const GemmShape& shape, const quant::Scheme& scheme) {
  std::ostringstream key;
  key << shape.batch << "x" << shape.m << "x" << shape.n << "x" << shape.k << "/" << static_cast<int>(shape.role)
      << "/" << scheme.name << "/" << scheme.description;
  const std::string k = key.str();
  if (const auto it = impl_->gemm_cache.find(k); it != impl_->gemm_cache.end()) return it->second;
  return impl_->gemm_cache.emplace(k, impl_->evaluate(shape, scheme)).first->second;
}

}  // namespace tenet_cost::estimate
