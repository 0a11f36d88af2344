"""Bad input raises tenet_cost.InputError (a ValueError) with the CLI's message; nothing kills the interpreter."""

import pytest
import tenet_cost
from conftest import MODULE, FakeIRModule


def test_syntax_error_in_module_text_names_module_py_line_and_column(cli, tmp_path):
    # one ']' too many at the end of line 14: the line is 16 spaces + "C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]"
    # (45 characters), so the extra bracket is column 62
    bad = MODULE.replace("B[vk, vj]\n", "B[vk, vj]]\n")
    with pytest.raises(tenet_cost.InputError) as info:
        tenet_cost.estimate(bad)
    err = info.value
    assert isinstance(err, ValueError)
    assert str(err) == "module.py:14:62: expected end of line, found ']'"
    assert (err.file, err.line, err.column, err.detail) == ("module.py", 14, 62, "expected end of line, found ']'")
    # the same text as a file: the CLI's message, with that file's name
    path = tmp_path / "module.py"
    path.write_text(bad)
    code, _, stderr = cli("estimate", str(path))
    assert code == 2
    assert stderr.strip() == f"tenet-cost: error: {path}:14:62: expected end of line, found ']'"
    with pytest.raises(ValueError, match=r"^kernel\.py:14:62: expected end of line"):
        tenet_cost.extract(FakeIRModule(bad), name="kernel.py")


def test_bad_options_and_files_are_value_errors():
    with pytest.raises(tenet_cost.InputError, match="unknown arch 'nope'"):
        tenet_cost.compare(arch="nope")
    with pytest.raises(ValueError, match="cannot open file"):
        tenet_cost.estimate("no/such/dump.py")
    with pytest.raises(ValueError, match="quant"):
        tenet_cost.estimate(gemm=["1x64x64"], quant="q9f99_9")
    with pytest.raises(ValueError, match="--seq-len"):
        tenet_cost.estimate(gemm=["1x64x64"], seq_len="many")  # CLI11's own parse error, as a ValueError
    with pytest.raises(ValueError, match="--strict"):
        tenet_cost.compare(hf_config="tests/fixtures/configs/mixtral-8x7b.json", set={"dram.bytes": 68719476736},
                           strict=True)
    # the interpreter lives on and the next call works
    assert tenet_cost.estimate(gemm=["1x64x64"], quant="q0f16")["totals"]["gemm"]["macs"] == 64 * 64


def test_python_usage_errors_are_type_errors():
    with pytest.raises(TypeError, match="unexpected keyword argument 'sequence_length'"):
        tenet_cost.estimate(sequence_length=4)
    with pytest.raises(TypeError, match="format"):
        tenet_cost.compare(format="csv")  # the functions return JSON; tenet_cost.cli gives other formats
    with pytest.raises(TypeError, match="is a flag"):
        tenet_cost.compare(strict="yes")
    with pytest.raises(TypeError, match="not a value"):
        tenet_cost.compare(quant=True)
    with pytest.raises(TypeError, match="not int"):
        tenet_cost.estimate(42)
    with pytest.raises(TypeError, match="needs a dump"):
        tenet_cost.extract(None)
    with pytest.raises(ValueError, match="expected a file name"):
        tenet_cost.estimate(MODULE, name="a/b.py")


def test_a_path_that_starts_with_a_dash_is_still_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-mod.py").write_text(MODULE)
    assert tenet_cost.extract("-mod.py")["workloads"][0]["m"] == 64
