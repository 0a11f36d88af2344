// Memory levels (docs/arch.md "Memory levels", docs/model.md "Memory levels"): the arch format's `levels` list with
// its strict validation, and the cost model on it: one level equals the two-level model of the same buffer exactly
// (every number), the per-level report is consistent (fills of a level = reads served by the level above; the buffer
// term and energy are the levels'), and the shipped three-level example runs.
#include <catch2/catch.hpp>

#include <string>

#include "cost/arch_support.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"

using namespace tenet_cost;

namespace {

std::string arch_text(const std::string& memory, const std::string& energy = "") {
  return R"({"name": "t", "clock_mhz": 1000, "pe_array": {"rows": 4, "cols": 4},
    "macs_per_pe_per_cycle": {"fp16": 1}, )" +
         memory + R"(, "dram": {"mb_per_s": 1000})" + energy + "}";
}

std::string error_of(const std::string& text) {
  try {
    (void)arch::parse_arch(text, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("levels: parsed with defaults; the innermost level is the array's buffer", "[levels]") {
  const auto a = arch::parse_arch(arch_text(R"("levels": [
        {"name": "gb", "bytes": 65536, "bits_per_cycle": 256, "pj_per_bit": 1.5, "buffering": "double"},
        {"name": "lb", "bytes": 4096, "bits_per_cycle": 512, "partition": {"A": 1024, "B": 2048}, "holds": ["A", "B"]}
      ])"),
                                  "t.json");
  REQUIRE(a.levels.size() == 2);
  CHECK(a.levels[0].name == "gb");
  CHECK(a.levels[0].holds == std::array<bool, 3>{true, true, true});
  CHECK(a.levels[0].usable_bytes(arch::OperandClass::kC) == 32768);  // double: half
  CHECK_FALSE(a.levels[0].partitioned());
  CHECK(a.levels[1].holds == std::array<bool, 3>{true, true, false});
  CHECK(a.levels[1].usable_bytes(arch::OperandClass::kB) == 2048);
  CHECK(a.levels[1].pj_per_bit == 0);
  CHECK(a.buffer_bytes == 4096);
  CHECK(a.buffer_bits_per_cycle == 512);
}

TEST_CASE("levels: bad input refused with the field named", "[levels]") {
  const auto lv = [](const std::string& levels) { return arch_text(R"("levels": )" + levels); };
  const std::string ok = R"({"name": "x", "bytes": 1024, "bits_per_cycle": 64})";
  CHECK_THAT(error_of(lv(R"([{"name": "x", "bytes": 1024, "bits_per_cycle": 64, "size": 3}])")),
             Catch::Contains("unknown key 'size' in levels[0]"));
  CHECK_THAT(error_of(lv(R"([{"name": "x", "bytes": 0, "bits_per_cycle": 64}])")),
             Catch::Contains("expected 'bytes' in 1 .. ") && Catch::Contains("found '0'"));
  CHECK_THAT(error_of(lv(R"([{"name": "x", "bytes": 64, "bits_per_cycle": 0}])")), Catch::Contains("'bits_per_cycle'"));
  CHECK_THAT(error_of(lv(R"([{"name": "x", "bytes": 64, "bits_per_cycle": 8, "holds": ["A", "B"]}])")),
             Catch::Contains("no level holds operand class C"));
  CHECK_THAT(error_of(lv(R"([{"name": "x", "bytes": 64, "bits_per_cycle": 8, "holds": ["A", "D"]}])")),
             Catch::Contains("expected an operand class A, B or C in 'holds' of levels[0], found 'D'"));
  CHECK_THAT(error_of(lv(R"([{"name": "x", "bytes": 64, "bits_per_cycle": 8, "holds": ["A", "A", "B", "C"]}])")),
             Catch::Contains("given twice in 'holds'"));
  CHECK_THAT(error_of(lv(R"([{"name": "x", "bytes": 64, "bits_per_cycle": 8, "partition": {"A": 32, "B": 32}}])")),
             Catch::Contains("missing 'C' in the partition of levels[0]"));
  CHECK_THAT(
      error_of(lv(R"([{"name": "x", "bytes": 64, "bits_per_cycle": 8, "partition": {"A": 32, "B": 32, "C": 8}}])")),
      Catch::Contains("gives 72 bytes, more than its 64 bytes"));
  CHECK_THAT(error_of(lv(R"([{"name": "x", "bytes": 64, "bits_per_cycle": 8, "holds": ["A", "B", "C"],
                             "partition": {"A": 1, "B": 1, "C": 1}, "buffering": "double"}])")),
             Catch::Contains("leaves 0 usable bytes for A"));
  CHECK_THAT(error_of(lv(R"([{"name": "x", "bytes": 64, "bits_per_cycle": 8, "holds": ["A", "B"],
                             "partition": {"A": 8, "B": 8, "C": 8}}, )" +
                         ok + "]")),
             Catch::Contains("bypasses C (not in 'holds') but gives it a partition"));
  CHECK_THAT(error_of(lv("[" + ok + ", " + ok + "]")), Catch::Contains("level name 'x' given twice"));
  CHECK_THAT(error_of(lv(R"([{"name": "dram", "bytes": 64, "bits_per_cycle": 8}])")),
             Catch::Contains("reserved for DRAM"));
  CHECK_THAT(error_of(lv("[]")), Catch::Contains("expected 'levels' to be an array of 1 .. 8 level objects"));
  CHECK_THAT(error_of(lv(R"([{"name": "x", "bytes": 64, "bits_per_cycle": 8, "buffering": "triple"}])")),
             Catch::Contains("to be \"single\" or \"double\", found 'triple'"));
  CHECK_THAT(error_of(arch_text(R"("buffer": {"bytes": 64, "bits_per_cycle": 8}, "levels": [)" + ok + "]")),
             Catch::Contains("give either 'buffer'"));
  CHECK_THAT(error_of(arch_text(R"("levels": [)" + ok + "]", R"(, "energy_pj": {"buffer_per_bit": 1})")),
             Catch::Contains("drop energy_pj.buffer_per_bit"));
  // the second level's error points at the second level's line
  const std::string two = lv("[" + ok + ",\n" + R"({"name": "y", "bytes": 0, "bits_per_cycle": 8}])");
  CHECK_THAT(error_of(two), Catch::StartsWith("t.json:3:"));
}

namespace {

// The edge NPU's buffer as one level (its energy per bit moved to the level).
arch::Arch one_level(arch::Arch a) {
  arch::MemLevel l;
  l.name = "buffer";
  l.bytes = a.buffer_bytes;
  l.bits_per_cycle = a.buffer_bits_per_cycle;
  l.pj_per_bit = a.buffer_pj_per_bit;
  l.buffering = a.buffer_buffering;
  a.levels = {l};
  a.buffer_pj_per_bit = 0;
  return a;
}

void check_same(const cost::GemmCost& x, const cost::GemmCost& y) {
  CHECK(x.tile == y.tile);
  CHECK(x.tiles == y.tiles);
  CHECK(x.cycles == y.cycles);
  CHECK(x.dram_bytes == y.dram_bytes);
  CHECK(x.buffer_bytes == y.buffer_bytes);
  CHECK(x.energy_j == y.energy_j);
  CHECK(x.cycles_of(cost::Term::kBuffer) == y.cycles_of(cost::Term::kBuffer));
  REQUIRE(x.tensors.size() == y.tensors.size());
  for (std::size_t i = 0; i < x.tensors.size(); ++i) {
    CHECK(x.tensors[i].dram_elems == y.tensors[i].dram_elems);
    CHECK(x.tensors[i].buffer_elems == y.tensors[i].buffer_elems);
  }
}

}  // namespace

TEST_CASE("levels: one level gives exactly the two-level model's numbers", "[levels]") {
  for (const bool dbl : {false, true})
    for (const char* df : {"os", "ws"})
      for (const char* scheme : {"q0f16", "q4f16_1", "w8a8-token-channel"}) {
        arch::Arch two = tc_test::edge_arch(32, 32, 256 * 1024);
        two.buffer_buffering = dbl ? arch::TileBuffering::kDouble : arch::TileBuffering::kSingle;
        const arch::Arch one = one_level(two);
        cost::Estimator e2(two, mapping::parse_dataflow(df)), e1(one, mapping::parse_dataflow(df));
        const auto s = quant::parse_scheme(scheme);
        for (const cost::GemmShape& g : {cost::GemmShape{1, 1, 4096, 4096, quant::GemmRole::kLinear},
                                         cost::GemmShape{1, 300, 1000, 700, quant::GemmRole::kLinear},
                                         cost::GemmShape{2, 64, 96, 128, quant::GemmRole::kLinear}}) {
          INFO(scheme << " " << df << (dbl ? " double " : " single ") << g.m << "x" << g.n << "x" << g.k);
          const auto& x = e2.gemm(g, s);
          const auto& y = e1.gemm(g, s);
          check_same(x, y);
          REQUIRE(y.levels.size() == 1);
          CHECK(x.levels.empty());
          CHECK(y.levels[0].cycles == x.cycles_of(cost::Term::kBuffer));
          CHECK(y.levels[0].tile == y.tile);
        }
      }
}

TEST_CASE("levels: the three-level example is consistent level to level", "[levels]") {
  const arch::Arch a = arch::load_arch("edge-npu-3level", tc_test::presets_dir());
  REQUIRE(a.levels.size() == 3);
  cost::Estimator est(a, mapping::parse_dataflow("os"));
  const auto& c = est.gemm({1, 512, 1024, 2048, quant::GemmRole::kLinear}, quant::parse_scheme("q4f16_1"));
  REQUIRE(c.levels.size() == 3);
  CHECK(c.levels[0].tile == c.tile);
  std::int64_t slowest = 0;
  double pj = 0;
  for (std::size_t h = 0; h < 3; ++h) {
    const auto& l = c.levels[h];
    INFO(l.name);
    CHECK(l.working_set_bytes <= l.usable_bytes);
    slowest = std::max(slowest, l.cycles);
    pj += l.energy_j;
    if (h > 0) {  // nested: each size divides the one above (or covers the dimension)
      const auto& up = c.levels[h - 1].tile;
      CHECK((up.m % l.tile.m == 0 || up.m >= 512));
      CHECK((up.n % l.tile.n == 0 || up.n >= 1024));
      CHECK((up.k % l.tile.k == 0 || up.k >= 2048));
    }
  }
  CHECK(c.cycles_of(cost::Term::kBuffer) == slowest);
  CHECK(c.energy_by_term[cost::EnergyTerm::kBuffer] == Approx(pj));
  // the operand buffer bypasses C: the local buffer serves the array's partial sums; A and B flow level to level
  for (const std::string name : {"A", "W"}) {
    std::vector<std::int64_t> fills, reads;
    for (const auto& l : c.levels)
      for (const auto& o : l.operands)
        if (o.name == name) {
          fills.push_back(o.fills);
          reads.push_back(o.reads);
        }
    REQUIRE(fills.size() == 3);
    CHECK(reads[0] == fills[1]);
    CHECK(reads[1] == fills[2]);
  }
  for (const auto& o : c.levels[2].operands) CHECK(o.name != "C");
  for (const auto& t : c.tensors)
    if (t.name == "A") CHECK(t.dram_elems == c.levels[0].operands[0].fills);
}

TEST_CASE("levels: --set reaches a level by its index", "[levels]") {
  const auto a = arch::load_arch(
      "edge-npu-3level", tc_test::presets_dir(),
      {arch::parse_override("levels.1.bytes=262144"), arch::parse_override(R"(levels.2.holds=["A","B","C"])")});
  CHECK(a.levels[1].bytes == 262144);
  CHECK(a.levels[2].holds == std::array<bool, 3>{true, true, true});
  try {
    (void)arch::load_arch("edge-npu-3level", tc_test::presets_dir(), {arch::parse_override("levels.3.bytes=1")});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("--set levels.3.bytes=1: expected an index into the array 'levels' (0 .. 2)"));
  }
  CHECK_THROWS_WITH(
      arch::load_arch("edge-npu-3level", tc_test::presets_dir(), {arch::parse_override(R"(levels.1.holds=["A","C"])")}),
      Catch::Contains("levels[1] bypasses B (not in 'holds') but gives it a partition"));
}

TEST_CASE("levels: instances parsed per PE, row, column or count; refused where they do not split the array",
          "[levels][instances]") {
  const auto two = [](const std::string& outer, const std::string& inner) {
    return arch_text(R"("levels": [{"name": "gb", "bytes": 65536, "bits_per_cycle": 256)" + outer +
                     R"(}, {"name": "rf", "bytes": 64, "bits_per_cycle": 64)" + inner + "}]");
  };
  const auto grid = [&](const std::string& inner) {
    const auto a = arch::parse_arch(two("", inner), "t.json");  // a 4 x 4 array
    return std::array<std::int64_t, 2>{a.levels[1].grid_rows, a.levels[1].grid_cols};
  };
  CHECK(grid("") == std::array<std::int64_t, 2>{1, 1});
  CHECK(grid(R"(, "instances": "shared")") == std::array<std::int64_t, 2>{1, 1});
  CHECK(grid(R"(, "instances": "per_pe")") == std::array<std::int64_t, 2>{4, 4});
  CHECK(grid(R"(, "instances": "per_row")") == std::array<std::int64_t, 2>{4, 1});
  CHECK(grid(R"(, "instances": "per_col")") == std::array<std::int64_t, 2>{1, 4});
  CHECK(grid(R"(, "instances": 8)") == std::array<std::int64_t, 2>{4, 2});  // rows first
  CHECK(grid(R"(, "instances": 2)") == std::array<std::int64_t, 2>{2, 1});
  CHECK_THAT(error_of(two("", R"(, "instances": "per_PE")")),
             Catch::Contains("expected 'instances' of levels[1] to be \"shared\"") &&
                 Catch::Contains("did you mean 'per_pe'"));
  CHECK_THAT(error_of(two("", R"(, "instances": 32)")), Catch::Contains("expected 'instances' in 1 .. 16"));
  CHECK_THAT(error_of(two("", R"(, "instances": 0)")), Catch::Contains("'instances'"));
  CHECK_THAT(error_of(two("", R"(, "instances": 6)")), Catch::Contains("to split the 4x4 PE array evenly"));
  CHECK_THAT(error_of(two(R"(, "instances": "per_col")", R"(, "instances": "per_row")")),
             Catch::Contains("levels[1] has 4x1 instances, which do not split the 1x4 of the level above"));
  CHECK_THAT(error_of(two(R"(, "instances": "per_row")", "")), Catch::Contains("do not split the 4x1"));
}

TEST_CASE("levels: per-PE registers in the cost model: shared is today's model, multicast reads from the level above",
          "[levels][instances]") {
  const auto load = [](const std::vector<std::string>& sets) {
    std::vector<arch::Override> o;
    o.reserve(sets.size());
    for (const auto& s : sets) o.push_back(arch::parse_override(s));
    return arch::load_arch("edge-npu-3level", tc_test::presets_dir(), o);
  };
  const cost::GemmShape g{1, 64, 512, 256, quant::GemmRole::kLinear};
  const auto scheme = quant::parse_scheme("q0f16");
  cost::Estimator base(load({}), mapping::parse_dataflow("os"));
  cost::Estimator shared(load({"levels.2.instances=shared"}), mapping::parse_dataflow("os"));
  const auto& b = base.gemm(g, scheme);
  const auto& s1 = shared.gemm(g, scheme);
  CHECK(b.cycles == s1.cycles);
  CHECK(b.dram_bytes == s1.dram_bytes);
  CHECK(b.energy_j == s1.energy_j);
  for (const char* df : {"os", "ws", "is"}) {
    INFO(df);
    // the operand buffer per PE row (os: rows hold m, ws / is: k), then per PE
    for (const char* inst : {"per_row", "per_pe", "8"}) {
      INFO(inst);
      cost::Estimator est(load({std::string("levels.2.instances=") + inst}), mapping::parse_dataflow(df));
      const auto& c = est.gemm(g, scheme);
      REQUIRE(c.levels.size() == 3);
      const auto& ob = c.levels[2];
      CHECK(ob.instances == (std::string(inst) == "per_row" ? 32 : std::string(inst) == "8" ? 8 : 1024));
      CHECK(ob.working_set_bytes <= ob.usable_bytes);  // per instance
      // each operand: the local buffer's reads (multicast) never exceed what the instances receive, and are fewer
      // for an operand the split does not index (os per row: B[k, j] is the same for every row)
      for (std::size_t i = 0; i < 2; ++i) {
        INFO(ob.operands[i].name);
        CHECK(c.levels[1].operands[i].reads <= ob.operands[i].fills);
      }
    }
  }
  cost::Estimator os_rows(load({"levels.2.instances=per_row"}), mapping::parse_dataflow("os"));
  const auto& r = os_rows.gemm(g, scheme);
  CHECK(r.levels[1].operands[1].reads < r.levels[2].operands[1].fills);   // W multicast over the rows
  CHECK(r.levels[1].operands[0].reads == r.levels[2].operands[0].fills);  // A split over the rows
  // a user .m mapping does not say which loops its rows and columns hold
  cost::Estimator user(load({"levels.2.instances=per_pe"}),
                       mapping::parse_dataflow(std::string(TC_FIXTURE_DIR) + "/tenet/small/g_os.m"));
  CHECK_THROWS_WITH(user.gemm(g, scheme), Catch::Contains("memory levels with instances need a dataflow"));
}
