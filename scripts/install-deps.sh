#!/usr/bin/env bash
# Install the Debian packages tenet-cost needs to build and test, when missing.
# Usage: bash scripts/install-deps.sh          (as root, or with sudo available)
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config libcli11-dev nlohmann-json3-dev libeigen3-dev
      libspdlog-dev libfmt-dev catch2 libisl-dev
      parallel)  # GNU parallel: tests/sweep runs shards with it (skipped when absent)
# clang + its sanitizer/fuzzer runtime are optional (fuzz targets); installed when asked.
if [[ "${TC_WITH_CLANG:-0}" == 1 ]]; then pkgs+=(clang libclang-rt-14-dev); fi
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
