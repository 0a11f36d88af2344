// Which entries of a dump the plan costs (docs/model.md "Entries"): MLC's single-sequence decode/prefill against
// its batch_decode/batch_prefill, picked by --batch or named by --entry, and the packed prompts of batch_prefill.
// Oracle: the config plan of the same model (workloads_from_config), built without any dump.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/model.hpp"

using namespace tenet_cost;
using model::Phase;

namespace {

std::string shipped(const std::string& model, const std::string& file) {
  return std::string(TC_SOURCE_DIR) + "/workloads/" + model + "/" + file;
}

struct PhaseSums {
  i128 linear_macs = 0;   // linear layers but the lm_head
  i128 lm_head_rows = 0;  // rows of the final projection, all calls
  i128 attention_macs = 0;
  std::set<std::string> entries;
};

i128 macs(const model::ModelGemm& g) {
  return static_cast<i128>(g.shape.batch) * g.shape.m * g.shape.n * g.shape.k * g.calls;
}

std::map<Phase, PhaseSums> sums(const std::vector<model::ModelGemm>& gemms) {
  std::map<Phase, PhaseSums> out;
  for (const auto& g : gemms) {
    auto& s = out[g.phase];
    s.entries.insert(g.entry);
    if (g.shape.role != quant::GemmRole::kLinear) s.attention_macs += macs(g);
    else if (g.lm_head) s.lm_head_rows += static_cast<i128>(g.shape.batch) * g.shape.m * g.calls;
    else s.linear_macs += macs(g);
  }
  return out;
}

}  // namespace

TEST_CASE("the shipped dumps' batched entries cost what the config plan costs at --batch N") {
  for (const std::string name : {"llama-2-7b", "qwen2-0.5b"}) {
    const auto cfg = model::load_hf_config(shipped(name, "config.json"));
    for (const std::int64_t batch : {1, 3, 16}) {
      model::Phases ph;
      ph.seq_len = 24;
      ph.context = 40;
      ph.batch = batch;
      const auto dump = model::plan_from_dump(shipped(name, "q0f16.py"), ph, cfg);  // cfg: the lm_head by its N
      const auto from_dump = sums(dump.gemms);
      const auto from_config = sums(model::workloads_from_config(cfg, ph));
      for (const Phase phase : {Phase::kPrefill, Phase::kDecode}) {
        INFO(name << " batch " << batch << " " << model::to_string(phase));
        const auto& d = from_dump.at(phase);
        const auto& c = from_config.at(phase);
        CHECK(d.linear_macs == c.linear_macs);
        CHECK(d.lm_head_rows == batch);  // one row of logits per sequence, prefill and decode
        CHECK(c.lm_head_rows == batch);
        CHECK(d.attention_macs == c.attention_macs);
        // --batch 1: the single-sequence entries; N > 1: MLC's batched ones, one call for every sequence
        const std::string entry = (batch > 1 ? "batch_" : "") + model::to_string(phase);
        CHECK(d.entries == std::set<std::string>{entry});
      }
      const bool noted = std::any_of(dump.notes.begin(), dump.notes.end(), [&](const std::string& n) {
        return n.find("packs the prompts") != std::string::npos;
      });
      CHECK(noted == (batch > 1));
    }
  }
}

TEST_CASE("--entry names the entries to cost: the batched entries at batch 1 equal the single-sequence ones") {
  const std::string dump = shipped("llama-2-7b", "q4f16_1.py");
  model::Phases single, batched;
  single.seq_len = batched.seq_len = 16;
  single.context = batched.context = 64;
  batched.entries = {"batch_decode", "batch_prefill"};
  const auto a = sums(model::plan_from_dump(dump, single, std::nullopt).gemms);
  const auto b = sums(model::plan_from_dump(dump, batched, std::nullopt).gemms);
  for (const Phase phase : {Phase::kPrefill, Phase::kDecode}) {
    CHECK(a.at(phase).linear_macs == b.at(phase).linear_macs);
    CHECK(a.at(phase).attention_macs == b.at(phase).attention_macs);
    CHECK(a.at(phase).lm_head_rows == b.at(phase).lm_head_rows);
  }
  CHECK(b.at(Phase::kDecode).entries == std::set<std::string>{"batch_decode"});
  // one entry alone: the other phase is absent
  model::Phases decode_only;
  decode_only.entries = {"decode"};
  const auto d = sums(model::plan_from_dump(dump, decode_only, std::nullopt).gemms);
  CHECK(d.count(Phase::kPrefill) == 0);
  CHECK(d.at(Phase::kDecode).linear_macs == a.at(Phase::kDecode).linear_macs);
  // an unknown name lists the dump's entries
  model::Phases unknown;
  unknown.entries = {"decoder"};
  CHECK_THROWS_WITH(model::plan_from_dump(dump, unknown, std::nullopt),
                    Catch::Contains("--entry decoder: not an entry") &&
                        Catch::Contains("batch_decode, batch_prefill, decode, prefill"));
  // a config plan and plain shapes have no entries to name
  CHECK_THROWS_WITH(model::workloads_from_config(model::load_hf_config(shipped("llama-2-7b", "config.json")), unknown),
                    Catch::Contains("a config plan has none"));
  CHECK_THROWS_WITH(model::plan_from_shapes({"8x8x8"}, unknown), Catch::Contains("--entry"));
}

TEST_CASE("two entries of one phase that --batch cannot tell apart are refused, never summed") {
  const std::string path = shipped("qwen2-0.5b", "q0f16.py");
  ExtractResult ex = extract_workloads(ir::load_module(path));
  // a twin of the single-sequence decode entry (as a dump with decode and decode_with_embed would have)
  auto twin = [](std::map<std::string, std::int64_t>& calls) {
    const auto it = calls.find("decode");
    if (it != calls.end()) calls["decode_twin"] = it->second;
  };
  for (auto& w : ex.workloads) twin(w.calls);
  for (auto& o : ex.operators) twin(o.calls);
  CHECK_THROWS_WITH(
      model::plan_from_extract(path, ex, model::Phases{}, std::nullopt),
      Catch::Contains("entries 'decode', 'decode_twin' all run the decode phase") && Catch::Contains("--entry NAME"));
  // --batch 4 picks batch_decode, which has no twin; --entry settles it at batch 1
  model::Phases four;
  four.batch = 4;
  CHECK_NOTHROW(model::plan_from_extract(path, ex, four, std::nullopt));
  model::Phases named;
  named.entries = {"decode_twin", "prefill"};
  const auto plan = model::plan_from_extract(path, ex, named, std::nullopt);
  for (const auto& g : plan.gemms) CHECK((g.entry == "decode_twin" || g.entry == "prefill"));
}
