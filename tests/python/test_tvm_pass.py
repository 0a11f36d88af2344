"""The TVM / MLC-LLM hooks (tenet_cost.tvm) without tvm installed: a fake `tvm` module written here mimics what
tvm.transform.module_pass does with a decorated class (instances are passes; calling one on a module runs
transform_module(mod, ctx); unknown attributes fall back to the instance). Real TVM is not installable on our
machines: this checks our side of the contract, not TVM's."""

import json
import sys
import types

import pytest
import tenet_cost
from conftest import MODULE, MODULE_MACS, FakeIRModule, run_python


def fake_tvm():
    """A `tvm` package with just transform.module_pass(opt_level=, name=) as a class decorator."""
    tvm = types.ModuleType("tvm")
    transform = types.ModuleType("tvm.transform")
    registered = []

    def module_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
        del required, traceable
        assert pass_func is None and opt_level is not None

        def wrap(cls):
            class PyModulePass:
                def __init__(self, *args, **kwargs):
                    self._inst = cls(*args, **kwargs)

                def __call__(self, mod):
                    return self._inst.transform_module(mod, "ctx")

                def __getattr__(self, attr):
                    return getattr(self._inst, attr)

            registered.append((name, opt_level))
            return PyModulePass

        return wrap

    transform.module_pass = module_pass
    tvm.transform = transform
    return tvm, registered


def test_importing_the_package_and_the_hooks_does_not_import_tvm():
    code, out, err = run_python("import sys, tenet_cost, tenet_cost.tvm; print('tvm' in sys.modules)")
    assert code == 0, err
    assert out.strip() == "False"


def test_analysis_callable_prices_an_irmodule_like_object():
    price = tenet_cost.tvm_pass(quant="q4f16_1", arch="tpu-v1-256x256")
    mod = FakeIRModule(MODULE)
    got = price(mod)
    assert got == tenet_cost.estimate(MODULE, quant="q4f16_1", arch="tpu-v1-256x256")
    assert got["totals"]["module"]["macs"] == MODULE_MACS
    compare = tenet_cost.tvm.analysis("compare", quant=["q0f16", "q4f16_1"])
    assert [r["scheme"] for r in compare(mod)["rows"]] == ["q0f16", "q4f16_1"]
    assert tenet_cost.tvm.analysis("extract")(mod)["workloads"][0]["n"] == 256


def test_analysis_refuses_unknown_commands_and_keywords_when_made():
    with pytest.raises(ValueError, match="command='sweep'"):
        tenet_cost.tvm_pass("sweep")
    with pytest.raises(TypeError, match="unexpected keyword argument 'quantization'"):
        tenet_cost.tvm_pass(quantization="q4f16_1")


def test_cost_report_pass_prices_the_module_and_returns_it_unchanged(monkeypatch, tmp_path):
    tvm, registered = fake_tvm()
    monkeypatch.setitem(sys.modules, "tvm", tvm)
    monkeypatch.delitem(tenet_cost.tvm.__dict__, "CostReport", raising=False)
    out = tmp_path / "cost-phase3.json"
    cost_pass = tenet_cost.tvm.CostReport(quant="q4f16_1", out=out)
    assert registered == [("tenet_cost.CostReport", 0)]
    mod = FakeIRModule(MODULE)
    assert cost_pass(mod) is mod
    want = tenet_cost.estimate(MODULE, quant="q4f16_1")
    assert cost_pass.report == want
    assert json.loads(out.read_text()) == want
    monkeypatch.delitem(tenet_cost.tvm.__dict__, "CostReport")


def test_cost_report_without_tvm_is_an_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "tvm", None)  # `import tvm` raises ImportError
    monkeypatch.delitem(tenet_cost.tvm.__dict__, "CostReport", raising=False)
    with pytest.raises(ImportError, match="needs tvm"):
        tenet_cost.tvm.CostReport  # pylint: disable=pointless-statement
    with pytest.raises(ImportError):
        from tenet_cost.tvm import CostReport  # noqa: F401 pylint: disable=unused-import,import-outside-toplevel
