#!/usr/bin/env bash
# Install the Debian packages tenet-cost needs to build and test, when missing.
# Usage: bash scripts/install-deps.sh          (as root, or with sudo available)
set -euo pipefail
pkgs=(cmake ninja-build g++ libcli11-dev nlohmann-json3-dev libeigen3-dev libspdlog-dev libfmt-dev catch2
      zlib1g-dev  # zlib: the report's browser test decodes the screenshot PNG
      parallel    # GNU parallel: tests/sweep runs shards with it (skipped when absent)
      pybind11-dev python3-dev python3-pytest  # the Python module (build/python) and its pytest suite (ctest python)
      python3-pip python3-setuptools python3-wheel)  # pip install of the module without network (docs/python.md)
# The clang tools are optional and installed when asked (TC_WITH_CLANG=1, as .ci/run does):
# clang + its sanitizer/fuzzer runtime for the fuzz targets (.ci/fuzz), clang-format + clang-tidy
# (git-clang-format-14, clang-tidy-diff-14.py; both Python scripts) for the lint step (.ci/lint).
if [[ "${TC_WITH_CLANG:-0}" == 1 ]]; then pkgs+=(clang libclang-rt-14-dev clang-format clang-tidy python3 git); fi
# chromium runs the report's browser tests (tests/report: test_browser, browser_figures.py; skipped without it, and
# browser_figures fails then under CI=1); installed when asked (.ci/run does).
if [[ "${TC_WITH_BROWSER:-0}" == 1 ]]; then pkgs+=(chromium); fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  if [[ $(id -u) != 0 ]]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
