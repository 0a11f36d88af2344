#!/usr/bin/env bash
# ctest `python`: the Python module's pytest suite (tests/python) against the built module, whose folder ctest puts
# first on PYTHONPATH. Skips (exit 77) when the module was not built or no interpreter of its version has pytest;
# under CI (CI set, as .ci/run does) those fail instead: CI installs pybind11-dev and python3-pytest.
#   tests/python/run_pytest.sh PYTHON     (PYTHON empty: none was found at configure time)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${1:-}
why=""
if [[ -z ${PYTHONPATH:-} ]]; then
  why="the Python module is not built (no pybind11 or Python 3 headers; Debian: pybind11-dev python3-dev)"
elif [[ -z $py ]] || ! "$py" -c "import pytest" 2>/dev/null; then
  why="no python3 of the module's version has pytest (Debian: python3-pytest)"
fi
if [[ -n $why ]]; then
  if [[ -n ${CI:-} ]]; then
    echo "python: $why, and CI must run these tests" >&2
    exit 1
  fi
  echo "python: skipped: $why" >&2
  exit 77
fi
cd "$here"
exec "$py" -m pytest -q -p no:cacheprovider "$here"
