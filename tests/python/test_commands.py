"""tenet_cost's functions give the CLI's JSON (same keys, same numbers) for the same options."""

import json
import os

import pytest
import tenet_cost
from conftest import MODULE, MODULE_MACS, FakeIRModule


def test_module_is_the_built_one():
    # ctest names the build's package folder (build/python, first on PYTHONPATH): that one is under test
    built = os.environ.get("TENET_COST_PYTHON_DIR")
    if not built:
        pytest.skip("TENET_COST_PYTHON_DIR not set (ctest sets it)")
    assert os.path.samefile(os.path.dirname(os.path.dirname(tenet_cost.__file__)), built)
    assert os.path.samefile(os.path.dirname(tenet_cost._core.__file__), os.path.join(built, "tenet_cost"))


def test_compare_equals_the_cli(cli_json):
    # the "done when": the shipped model, two schemes
    got = tenet_cost.compare(quant=["q0f16", "q4f16_1"])
    assert got == cli_json("compare", "--quant", "q0f16,q4f16_1", "--format", "json")
    assert [r["scheme"] for r in got["rows"]] == ["q0f16", "q4f16_1"]
    assert got["rows"][1]["decode"]["tokens_per_s"] > got["rows"][0]["decode"]["tokens_per_s"]


def test_estimate_of_a_path_equals_the_cli(cli_json):
    kw = dict(quant="q4f16_1", arch="eyeriss-12x14", dataflow="os", seq_len=1024, context=4096)
    got = tenet_cost.estimate("workloads/llama-2-7b/q4f16_1.py", **kw)
    want = cli_json("estimate", "workloads/llama-2-7b/q4f16_1.py", "--quant", "q4f16_1", "--arch", "eyeriss-12x14",
                    "--dataflow", "os", "--seq-len", "1024", "--context", "4096", "--format", "json")
    assert got == want


def test_estimate_without_a_dump_prices_config_or_shapes(cli_json):
    got = tenet_cost.estimate(hf_config="workloads/qwen2-0.5b/config.json", quant="w4a16-g128+kv8")
    assert got == cli_json("estimate", "--hf-config", "workloads/qwen2-0.5b/config.json", "--quant",
                           "w4a16-g128+kv8", "--format", "json")
    shapes = tenet_cost.estimate(gemm=["1x4096x4096", "2048x11008x4096"], quant="w4a16-g128")
    assert shapes == cli_json("estimate", "--gemm", "1x4096x4096", "--gemm", "2048x11008x4096", "--quant",
                              "w4a16-g128", "--format", "json")
    assert shapes["totals"]["gemm"]["macs"] == 4096 * 4096 + 2048 * 11008 * 4096


def test_dict_and_list_keywords_map_to_the_flags(cli_json):
    # set={} repeats --set KEY=VALUE; bind={} is one k=v,k=v value; True is a flag
    got = tenet_cost.compare("workloads/qwen2-0.5b/q0f16.py", quant=("q0f16", "q4f16_1"),
                             set={"pe_array.rows": 64, "dram.mb_per_s": 51200}, batch=1, allow_long_context=True)
    want = cli_json("compare", "workloads/qwen2-0.5b/q0f16.py", "--quant", "q0f16,q4f16_1", "--set",
                    "pe_array.rows=64", "--set", "dram.mb_per_s=51200", "--batch", "1", "--allow-long-context",
                    "--format", "json")
    assert got == want
    plain = tenet_cost.compare("workloads/qwen2-0.5b/q0f16.py", quant="q0f16,q4f16_1")
    assert plain["rows"] != got["rows"]  # the overrides reached the arch
    ex = tenet_cost.extract("workloads/llama-2-7b/q4f16_1.py", bind={"n": 2048, "batch_size": 1})
    assert ex == cli_json("extract", "workloads/llama-2-7b/q4f16_1.py", "--bind", "n=2048,batch_size=1", "--format",
                          "json")


def test_module_text_and_irmodule_like_objects():
    ex = tenet_cost.extract(MODULE)
    [w] = ex["workloads"]
    assert (w["kind"], w["m"], w["n"], w["k"], w["macs"]) == ("gemm", 64, 256, 128, MODULE_MACS)
    assert w["location"].startswith("module.py:")  # the text is priced as module.py, not a temporary path
    mod = FakeIRModule(MODULE)
    est = tenet_cost.estimate(mod, quant="q0f16")
    assert mod.calls == 1
    assert est == tenet_cost.estimate(MODULE, quant="q0f16")
    assert est["totals"]["module"]["macs"] == MODULE_MACS  # no Relax entry: one call under the file's stem
    named = tenet_cost.estimate(mod, name="attention_kernel.py", quant="q0f16")
    assert "attention_kernel" in named["totals"]


def test_text_equals_the_same_text_as_a_file(tmp_path):
    path = tmp_path / "module.py"
    path.write_text(MODULE)
    assert tenet_cost.estimate(path, quant="q4f16_1") == tenet_cost.estimate(MODULE, quant="q4f16_1")


def test_quant_schemes_and_tenet_equal_the_cli(cli_json):
    schemes = tenet_cost.quant_schemes()
    assert schemes == cli_json("quant", "list", "--format", "json")
    assert {"q0f16", "q4f16_1", "fp8-tensor"} <= {s["name"] for s in schemes}
    assert tenet_cost.quant_list is tenet_cost.quant_schemes
    small = "tests/fixtures/tenet/small/"
    got = tenet_cost.tenet(pe=small + "sys4.p", statement=small + "g.s", mapping=small + "g_os.m")
    assert got == cli_json("tenet", "--pe", small + "sys4.p", "--statement", small + "g.s", "--mapping",
                           small + "g_os.m", "--format", "json")


def test_search_equals_the_cli(cli_json):
    got = tenet_cost.search(gemm="64x256x512", quant=["q0f16", "q4f16_1"], dataflows="os,ws", pe_budget=256)
    assert got == cli_json("search", "--gemm", "64x256x512", "--quant", "q0f16,q4f16_1", "--dataflows", "os,ws",
                           "--pe-budget", "256", "--format", "json")


def test_sweep_lines_and_results_file(cli, tmp_path):
    kw = dict(model="qwen2-0.5b", quant="q0f16,q4f16_1", seq_len=[128, 256], quiet=True)
    lines = tenet_cost.sweep(**kw)
    code, out, err = cli("sweep", "--model", "qwen2-0.5b", "--quant", "q0f16,q4f16_1", "--seq-len", "128,256", "-q")
    assert code == 0, err
    header, *points = [json.loads(line) for line in out.splitlines()]
    assert header["format"] == "tenet-cost-sweep-results"  # the CLI's first line; sweep() returns the points only
    assert lines == points
    assert len(lines) == 4  # 2 schemes x 2 lengths
    out_file = tmp_path / "results.jsonl"
    by_id = sorted(lines, key=lambda line: line["id"])  # the file is in the order the points finished
    assert sorted(tenet_cost.sweep(out=out_file, **kw), key=lambda line: line["id"]) == by_id
    assert sorted(tenet_cost.sweep(out=out_file, **kw), key=lambda line: line["id"]) == by_id  # resumed: no new line


def test_cli_passthrough_gives_any_format(cli):
    code, out, _ = cli("compare", "--quant", "q0f16,q4f16_1", "--format", "csv")
    assert code == 0
    assert tenet_cost.cli(["compare", "--quant", "q0f16,q4f16_1", "--format", "csv"]) == out
    assert tenet_cost.cli(["--version"]).startswith("tenet-cost ")
    assert "compare" in tenet_cost.cli(["--help"])
    assert tenet_cost.cli(["--list-commands"]).startswith("| command |")
    with pytest.raises(TypeError):
        tenet_cost.cli("compare --format csv")
