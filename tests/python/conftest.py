"""Shared set-up of the Python module's tests (ctest `python`, tests/python/run_pytest.sh).

ctest puts the built package first on PYTHONPATH (build/python) and names the CLI binary in TENET_COST_BINARY: the
module's results are checked against the executable's own output.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The module of docs/examples/price_module.py (the README's Python example), written in TVMScript's printed syntax:
# one 64 x 128 by 128 x 256 float16 GEMM in a module without a Relax entry (m = 64, n = 256, k = 128: 64 * 256 * 128
# = 2,097,152 MACs). Line 14 is the GEMM's update statement.
sys.path.insert(0, str(ROOT / "docs" / "examples"))
from price_module import SCRIPT as MODULE  # noqa: E402 pylint: disable=wrong-import-position

MODULE_MACS = 64 * 256 * 128


class FakeIRModule:
    """Stands in for tvm.ir.IRModule (tvm is not installed here): what tenet_cost reads of it is .script()."""

    def __init__(self, text):
        self.text = text
        self.calls = 0

    def script(self, show_meta=False):  # tvm's IRModule.script takes keyword options; the default is used
        del show_meta
        self.calls += 1
        return self.text


@pytest.fixture(scope="session")
def cli():
    """Runs the tenet-cost executable from the project root: cli(args...) -> (exit code, stdout, stderr)."""
    binary = os.environ.get("TENET_COST_BINARY") or str(ROOT / "build" / "tenet-cost")
    if not os.access(binary, os.X_OK):
        pytest.skip(f"no tenet-cost binary at {binary} (ctest sets TENET_COST_BINARY)")

    def run(*args):
        r = subprocess.run([binary, *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return r.returncode, r.stdout, r.stderr

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    """The executable's JSON output of a command line (which must succeed)."""

    def run(*args):
        code, out, err = cli(*args)
        assert code == 0, err
        return json.loads(out)

    return run


@pytest.fixture(autouse=True)
def project_root(monkeypatch):
    """Relative paths in the tests are the project root's, as in the README."""
    monkeypatch.chdir(ROOT)


def run_python(code, timeout=120):
    """`code` in a fresh interpreter (this one, with this PYTHONPATH): (exit code, stdout, stderr)."""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, check=False)
    return r.returncode, r.stdout, r.stderr
