// Energy by term (docs/model.md "Energy"): every term recomputed from the GEMM's public figures and the arch's
// energy table, the terms summing to energy_j, and the NoC rule (a tensor is forwarded between PEs only along the
// array dimensions it is shared across while it streams; a register otherwise) against hand-derived closed forms.
#include <catch2/catch.hpp>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "arch_support.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/quant.hpp"

using namespace tenet_cost;
using cost::EnergyTerm;
using cost::GemmShape;
using quant::GemmRole;

namespace {

// Each term from the GEMM's own counts (bits at the tensors' widths, partial sums at accumulator bits).
void check_terms(const cost::GemmCost& c, const arch::Arch& a, const quant::Scheme& s) {
  INFO(s.name << " " << c.shape.batch << "x" << c.shape.m << "x" << c.shape.n << "x" << c.shape.k << " role "
              << static_cast<int>(c.shape.role) << " " << cost::to_string(c.array_model));
  const auto mac_pj = a.mac_pj.find(c.precision);
  // a causal diagonal block runs whole but reports, and spends MAC energy on, only its key <= query MACs (a masked
  // PE is idle): the MAC term is the reported MACs'
  const double array_macs = static_cast<double>(c.shape.batch) * static_cast<double>(c.shape.m) *
                            static_cast<double>(c.shape.n) * static_cast<double>(c.shape.k);
  CHECK(static_cast<double>(c.macs) <= array_macs);
  double buffer_bits = 0, noc_bits = 0;
  for (const auto& t : c.tensors) {
    if (t.role == quant::OperandRole::kOutput) {
      buffer_bits += static_cast<double>(static_cast<i128>(t.buffer_elems) * s.accum_bits);
      CHECK(t.noc_elems == 0);
    } else {
      // whole bits, rounded as the model rounds them (up for the buffer, down for the NoC)
      const i128 buf = (static_cast<i128>(t.buffer_elems) * t.bits_num + t.bits_den - 1) / t.bits_den;
      const i128 noc = t.array_bits > 0 ? static_cast<i128>(t.noc_elems) * t.array_bits
                                        : static_cast<i128>(t.noc_elems) * t.bits_num / t.bits_den;
      buffer_bits += static_cast<double>(buf);
      noc_bits += static_cast<double>(noc);
      // every use is served by a register, a neighbour or the buffer
      CHECK(t.register_elems + t.noc_elems + t.buffer_elems == t.total_elems);
      CHECK(t.register_elems >= 0);
      CHECK(t.noc_elems >= 0);
    }
  }
  const auto& e = c.energy_by_term;
  const double tol = 1e-12;
  CHECK(e[EnergyTerm::kMac] ==
        Approx(static_cast<double>(c.macs) * (mac_pj == a.mac_pj.end() ? 0.0 : mac_pj->second) * 1e-12).epsilon(tol));
  CHECK(e[EnergyTerm::kDram] == Approx(static_cast<double>(c.dram_bytes) * 8 * a.dram_pj_per_bit * 1e-12).epsilon(tol));
  CHECK(e[EnergyTerm::kBuffer] == Approx(buffer_bits * a.buffer_pj_per_bit * 1e-12).epsilon(tol));
  CHECK(e[EnergyTerm::kNoc] == Approx(noc_bits * a.noc_pj_per_bit * 1e-12).epsilon(tol));
  CHECK(e[EnergyTerm::kDequant] == Approx(static_cast<double>(c.dequant_ops) * a.dequant_pj * 1e-12).epsilon(tol));
  CHECK(e[EnergyTerm::kVector] == Approx(static_cast<double>(c.vector_ops) * a.vector_op_pj * 1e-12).epsilon(tol));
  CHECK(e.sum() == Approx(c.energy_j).epsilon(tol));
  CHECK(c.energy_j > 0);
}

const cost::TensorCost& named(const cost::GemmCost& c, const std::string& name) {
  for (const auto& t : c.tensors)
    if (t.name == name) return t;
  FAIL("no tensor " << name);
  return c.tensors.front();
}

// The read operand `name` of a scheme's linear GEMM has exactly these index dims.
void require_index(const quant::Scheme& s, const std::string& name, const std::string& dims) {
  for (const auto& op : quant::operands(s, GemmRole::kLinear, quant::DequantSite::kEdge))
    if (op.name == name) {
      std::string got;
      for (const auto& t : op.index) got += t.dim;
      REQUIRE(got == dims);
      return;
    }
  FAIL("scheme " << s.name << " has no operand " << name);
}

// The arch runs the scheme's MACs (linear and attention), possibly at a wider precision.
bool runs(const arch::Arch& a, const quant::Scheme& s) {
  try {
    a.mac_rate(quant::compute_precision(s, GemmRole::kLinear));
    a.mac_rate(quant::compute_precision(s, GemmRole::kAttnQK));
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

TEST_CASE("energy terms have their JSON names and sum to the total") {
  std::vector<std::string> names;
  names.reserve(cost::kEnergyTerms.size());
  for (const auto t : cost::kEnergyTerms) names.push_back(cost::to_string(t));
  CHECK(names == std::vector<std::string>{"mac", "dram", "buffer", "noc", "dequant", "vector"});
  cost::EnergyByTerm a, b;
  a[EnergyTerm::kMac] = 1.5;
  b[EnergyTerm::kNoc] = 2;
  a.add(b, 3);
  CHECK(a.sum() == 7.5);
}

TEST_CASE("energy by term: every GEMM of the shipped models, every scheme, os and ws, recomputes and sums exactly") {
  const arch::Arch a = arch::load_arch(arch::default_arch(), tc_test::presets_dir());
  model::Phases ph;
  ph.seq_len = 512;
  ph.context = 1024;
  for (const char* name : {"llama-2-7b", "qwen2-0.5b"}) {
    const std::string cfg = std::string(TC_SOURCE_DIR) + "/workloads/" + name + "/config.json";
    const model::Model plan = model::plan_from_config(cfg, model::load_hf_config(cfg), ph);
    for (const char* df : {"os", "ws"}) {
      // a fixed tile with partial folds on the 32 x 32 array (the auto tile's search would take most of the time)
      cost::Options o;
      o.tile = cost::Tile{48, 128, 640, "mnk"};  // k: a multiple of every group size (32, 40, 64, 128)
      o.method = cost::ArrayMethod::kClosedForm;
      cost::Estimator est(a, mapping::parse_dataflow(df), o);
      for (const auto& s : quant::catalog()) {
        if (!runs(a, s))
          continue;  // fp32 schemes: the default arch has no fp32 MACs (an input error, tested elsewhere)
        const auto r = model::run_model(est, plan, s);
        for (const auto& [g, c] : r.rows) check_terms(c, a, s);
        for (const auto& [op, c] : r.op_rows) CHECK(c.energy_by_term.sum() == Approx(c.energy_j).epsilon(1e-12));
        for (const auto& [entry, t] : r.totals) {
          INFO(name << " " << df << " " << s.name << " " << entry);
          CHECK(t.energy_by_term.sum() == Approx(t.energy_j).epsilon(1e-12));
        }
      }
    }
  }
}

TEST_CASE("energy by term on the TENET engine: the same terms, the same NoC as the closed forms") {
  const arch::Arch a = tc_test::edge_arch(8, 8, 1 << 20);
  cost::Options eo;
  eo.method = cost::ArrayMethod::kEngine;
  eo.tile = cost::Tile{12, 10, 16, "mnk"};
  cost::Options co = eo;
  co.method = cost::ArrayMethod::kClosedForm;
  for (const char* df : {"os", "ws"}) {
    cost::Estimator engine(a, mapping::parse_dataflow(df), eo), closed(a, mapping::parse_dataflow(df), co);
    for (const char* scheme : {"q0f16", "fp8-tensor", "w8a8-token-channel", "w4a16-g128"}) {
      const auto s = quant::parse_scheme(scheme);
      const GemmShape shape{1, 12, 10, 16, GemmRole::kLinear};
      const auto& ce = engine.gemm(shape, s);
      const auto& cc = closed.gemm(shape, s);
      REQUIRE(ce.array_model == cost::ArrayModel::kEngine);
      check_terms(ce, a, s);
      REQUIRE(ce.tensors.size() == cc.tensors.size());
      for (std::size_t i = 0; i < ce.tensors.size(); ++i) {
        INFO(df << " " << scheme << " " << ce.tensors[i].name);
        CHECK(ce.tensors[i].noc_elems == cc.tensors[i].noc_elems);
      }
      CHECK(ce.energy_j == Approx(cc.energy_j).epsilon(1e-12));
    }
  }
}

TEST_CASE("reuse classes: hand-derived register / NoC / buffer counts of values and scales per placement") {
  // one tile per GEMM; R x C = 32 x 32; hand-derived counts per tensor (docs/model.md "Data movement by reuse class")
  const std::int64_t R = 32, C = 32;
  arch::Arch a = tc_test::edge_arch(R, C, 1 << 22);
  arch::Arch pe = a;
  pe.dequant_placement = arch::DequantPlacement::kPE;
  const auto fp8 = quant::parse_scheme("fp8-tensor");
  const auto w8a8 = quant::parse_scheme("w8a8-token-channel");
  const auto chan = quant::parse_scheme("w4a16-channel");
  const auto g32 = quant::parse_scheme("w4a16-g32");
  require_index(fp8, "SA", "0");
  require_index(w8a8, "SA", "i");
  require_index(w8a8, "SW", "j");
  for (const auto [tm, tn, tk] : {std::array<std::int64_t, 3>{16, 24, 64}, std::array<std::int64_t, 3>{40, 70, 96}}) {
    INFO("tile " << tm << "x" << tn << "x" << tk);
    cost::Options o;
    o.method = cost::ArrayMethod::kClosedForm;
    o.tile = cost::Tile{tm, tn, tk, "mnk"};
    const GemmShape shape{1, tm, tn, tk, GemmRole::kLinear};
    const std::int64_t macs = tm * tn * tk;
    auto cdiv = [](std::int64_t x, std::int64_t y) { return (x + y - 1) / y; };
    const auto classes = [](const cost::TensorCost& t) {
      return std::array<std::int64_t, 4>{t.total_elems, t.register_elems, t.noc_elems, t.buffer_elems};
    };
    using Q = std::array<std::int64_t, 4>;  // total, register, noc, buffer
    {                                       // os: rows = i (m), columns = j (n), time = k
      cost::Estimator est(a, mapping::parse_dataflow("os"), o);
      // per-tensor / per-token / per-channel scales of low-precision MACs: applied once per output by the output
      // rescale, never in the array; read once per output tile (one tile here)
      const auto& f = est.gemm(shape, fp8);
      CHECK(named(f, "SA").apply == quant::Apply::kOutput);
      CHECK(classes(named(f, "SA")) == Q{tm * tn, tm * tn - 1, 0, 1});
      const auto& w = est.gemm(shape, w8a8);
      CHECK(classes(named(w, "SW")) == Q{tm * tn, tm * tn - tn, 0, tn});
      CHECK(classes(named(w, "SA")) == Q{tm * tn, tm * tn - tm, 0, tm});
      // A[i,k] and W[k,j] stream in time (k): no register reuse, every access beyond the buffer reads is a hop
      CHECK(classes(named(w, "A")) == Q{macs, 0, macs - tm * tk * cdiv(tn, C), tm * tk * cdiv(tn, C)});
      CHECK(classes(named(w, "W")) == Q{macs, 0, macs - tn * tk * cdiv(tm, R), tn * tk * cdiv(tm, R)});
      // the NoC carries A and W at their 8 bits; the scales never enter the array
      CHECK(w.energy_by_term[EnergyTerm::kNoc] ==
            Approx(static_cast<double>(named(w, "A").noc_elems + named(w, "W").noc_elems) * 8 * a.noc_pj_per_bit *
                   1e-12));
      // weight-only at the edge: the scale is read by the edge dequantizer (its register holds it while the weights
      // of its channel enter), the weight crosses the array at the MAC precision (16 bits)
      const auto& e = est.gemm(shape, g32);
      CHECK(named(e, "SW").apply == quant::Apply::kEdge);
      const std::int64_t entering = tn * tk * cdiv(tm, R), sw_reads = cdiv(tm, R) * tn * cdiv(tk, 32);
      CHECK(classes(named(e, "SW")) == Q{entering, entering - sw_reads, 0, sw_reads});
      CHECK(named(e, "W").array_bits == 16);
      cost::Estimator per_mac(pe, mapping::parse_dataflow("os"), o);
      // per MAC in the PE: SW[j] is held in each PE's register for the fold (the first use of each (i, j) comes
      // from the PE above, or from the buffer in the fold's first row)
      const auto& c = per_mac.gemm(shape, chan);
      CHECK(classes(named(c, "SW")) == Q{macs, macs - tm * tn, tn * (tm - cdiv(tm, R)), cdiv(tm, R) * tn});
      // SW[j, floor(k/32)]: the PE's register holds it for the 32 stamps of its group; a new group comes from the
      // PE above (or the buffer): NoC once per group, not once per MAC
      const auto& g = per_mac.gemm(shape, g32);
      const std::int64_t groups = tm * tn * cdiv(tk, 32);
      CHECK(classes(named(g, "SW")) == Q{macs, macs - groups, groups - sw_reads, sw_reads});
      CHECK(named(g, "W").array_bits == 0);  // packed int4 in the array, dequantized in the PE
    }
    {  // ws: rows = k, columns = j (n), time = i (m)
      cost::Estimator est(pe, mapping::parse_dataflow("ws"), o);
      const auto& c = est.gemm(shape, chan);
      // the stationary weight W[k,j] sits in its PE's register: read from the buffer, never forwarded
      CHECK(classes(named(c, "W")) == Q{macs, macs - tk * tn, 0, tk * tn});
      // SW[j] does not vary in time: held per PE, down its column once per row fold
      CHECK(classes(named(c, "SW")) == Q{macs, macs - tk * tn, tn * (tk - cdiv(tk, R)), tn * cdiv(tk, R)});
      // A[i,k] varies in time (i): it streams along the row
      CHECK(classes(named(c, "A")) == Q{macs, 0, macs - tm * tk * cdiv(tn, C), tm * tk * cdiv(tn, C)});
    }
  }
}

namespace {

// The energy of the scale and zero-point tensors of a GEMM (DRAM, buffer and NoC bits at their widths).
double metadata_energy(const cost::GemmCost& c, const arch::Arch& a) {
  double pj = 0;
  for (const auto& t : c.tensors) {
    if (!quant::is_quant_metadata(t.role)) continue;
    const double bits = static_cast<double>(t.bits_num) / static_cast<double>(t.bits_den);
    pj += static_cast<double>(t.dram_bytes) * 8 * a.dram_pj_per_bit;
    pj += static_cast<double>(t.buffer_elems) * bits * a.buffer_pj_per_bit;
    pj += static_cast<double>(t.noc_elems) * bits * a.noc_pj_per_bit;
  }
  return pj * 1e-12;
}

}  // namespace

TEST_CASE("fp8 block vs per-tensor scales, group vs channel scales: the energy differs by the extra work only") {
  const arch::Arch a = tc_test::edge_arch(32, 32, 1 << 20);
  cost::Options o;
  o.tile = cost::Tile{128, 256, 512, "mnk"};  // the same tile for both schemes of a pair
  cost::Estimator est(a, mapping::parse_dataflow("os"), o);
  const std::int64_t M = 256, N = 512, K = 1024, kb = K / 128;
  const GemmShape shape{1, M, N, K, GemmRole::kLinear};
  const auto same_values = [](const cost::GemmCost& x, const cost::GemmCost& y) {
    for (const char* name : {"A", "W", "C"}) {
      INFO(name);
      const auto& p = named(x, name);
      const auto& q = named(y, name);
      CHECK(p.dram_bytes == q.dram_bytes);
      CHECK(p.buffer_elems == q.buffer_elems);
      CHECK(p.noc_elems == q.noc_elems);
      CHECK(p.register_elems == q.register_elems);
    }
    CHECK(x.energy_by_term[EnergyTerm::kMac] == y.energy_by_term[EnergyTerm::kMac]);
    CHECK(x.dequant_ops == y.dequant_ops);
  };
  {
    const auto& t = est.gemm(shape, quant::parse_scheme("fp8-tensor"));
    const auto& b = est.gemm(shape, quant::parse_scheme("fp8-block128x128"));
    same_values(t, b);
    // per-tensor: a static activation scale (M*K ops) and one output rescale per output (M*N ops); the two fp32
    // scales are applied at the output, read once per output tile
    CHECK(t.vector_ops == M * K + M * N);
    CHECK(named(t, "SW").apply == quant::Apply::kOutput);
    CHECK(named(t, "SW").total_elems == M * N);
    CHECK(named(t, "SW").buffer_elems == (M / 128) * (N / 256));
    // block: dynamic activation scales per token and 128 along K (2*M*K ops: max, then scale) and a rescale of the
    // partial sum per K block (M*N*K/128 ops); both scales used once per (output, K block) by the PE
    CHECK(b.vector_ops == 2 * M * K + M * N * kb);
    for (const char* s : {"SW", "SA"}) {
      INFO(s);
      CHECK(named(b, s).apply == quant::Apply::kGroup);
      CHECK(named(b, s).total_elems == M * N * kb);
      CHECK(named(b, s).register_elems == 0);  // the PE ran k - 1 at its previous stamp, which used no scale
    }
    // the whole energy difference is the scale tensors' traffic and the vector work
    const double extra = metadata_energy(b, a) - metadata_energy(t, a) +
                         static_cast<double>(b.vector_ops - t.vector_ops) * a.vector_op_pj * 1e-12;
    CHECK(b.energy_j - t.energy_j == Approx(extra).epsilon(1e-9));
    CHECK(b.energy_j / t.energy_j < 1.05);  // a few per cent, not 1.8x
  }
  {
    const auto& g = est.gemm(shape, quant::parse_scheme("w4a16-g128"));
    const auto& c = est.gemm(shape, quant::parse_scheme("w4a16-channel"));
    same_values(g, c);
    // both dequantize at the edge: the scales never enter the array, no vector work
    CHECK(named(g, "SW").noc_elems == 0);
    CHECK(named(c, "SW").noc_elems == 0);
    CHECK(g.vector_ops == 0);
    CHECK(c.vector_ops == 0);
    // the group scale tensor is K/128 times the channel one: N*K/128 fp16 scales vs N, each fetched once per m tile
    CHECK(named(g, "SW").dram_bytes == (M / 128) * N * kb * 2);
    CHECK(named(c, "SW").dram_bytes == (M / 128) * N * 2);
    CHECK(g.energy_j - c.energy_j == Approx(metadata_energy(g, a) - metadata_energy(c, a)).epsilon(1e-9));
  }
}
