"""`pip install` of the package from the source tree without network (pyproject.toml, setup.py; docs/python.md).

Copies what the package is built from (pyproject.toml, setup.py, python/tenet_cost, configs/arch, workloads) to a
temporary folder, installs it with `pip install --no-build-isolation --no-index --no-deps --target DIR` (Debian's
setuptools and wheel as the build backend, nothing downloaded) taking the `_core` this build made
(TENET_COST_PREBUILT; the CMake step itself is not run here: it is the project's build), then imports the installed
package alone in a new interpreter, away from the source tree: it finds its bundled data and gives the CLI's numbers.
Skips when pip, setuptools or wheel is missing, except under CI (CI installs them: scripts/install-deps.sh).
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT


def _missing_tools():
    return [m for m in ("pip", "setuptools", "wheel") if importlib.util.find_spec(m) is None]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    missing = _missing_tools()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{sys.executable} lacks {missing} (Debian: python3-pip python3-setuptools python3-wheel)")
        pytest.skip(f"{sys.executable} lacks {missing}: pip install is not tested")
    prebuilt = os.environ.get("TENET_COST_PYTHON_DIR")
    if not prebuilt:
        pytest.skip("TENET_COST_PYTHON_DIR is not set (ctest sets it to build/python)")
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "setup.py"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "python" / "tenet_cost", src / "python" / "tenet_cost",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "configs" / "arch", src / "configs" / "arch")
    shutil.copytree(ROOT / "workloads", src / "workloads")
    target = tmp_path_factory.mktemp("site")
    env = dict(os.environ, TENET_COST_PREBUILT=prebuilt, PIP_DISABLE_PIP_VERSION_CHECK="1")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps",
                        "--target", str(target), "."], cwd=src, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return target


def test_installed_package_runs_alone_with_its_data(installed, tmp_path, cli_json):
    pkg = installed / "tenet_cost"
    assert (pkg / "data" / "configs" / "arch").is_dir()
    assert (pkg / "data" / "workloads" / "llama-2-7b").is_dir()
    assert list(pkg.glob("_core*.so"))
    assert (pkg / "tvm.py").is_file()
    probe = ("import json, os, tenet_cost\n"
             "r = tenet_cost.compare(quant=['q0f16', 'q4f16_1'])\n"
             "print(json.dumps({'file': tenet_cost.__file__, 'data': os.environ.get('TENET_COST_DATA'), 'r': r}))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("TENET_COST_DATA", "PYTHONPATH")}
    env["PYTHONPATH"] = str(installed)
    r = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["file"].startswith(str(installed))
    assert out["data"] == str(pkg / "data")
    assert out["r"] == cli_json("compare", "--quant", "q0f16,q4f16_1", "--format", "json")
