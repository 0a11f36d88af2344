#!/usr/bin/env bash
# Runs every example command of README.md as written (issue 27): each line of an indented code block that starts
# with `./build/tenet-cost`, `(cd ` or `PYTHONPATH=build/python python3 ` (continuation lines ending in `\` joined).
# A command exits 0 unless its line says `# exits N` (the README states the expected code next to the example).
# The commands run in a scratch directory holding links to the project's folders, so the files they write
# (report.html, plan.json, ...) do not land in the source tree; `./build/tenet-cost` links to the binary under test.
# The Python examples run with `build/python` linked to the built module's folder (--python-dir) and `python3` to
# the interpreter it was built for (--python); without --python-dir (the module is not built) they are skipped.
#   tests/readme/run_examples.sh [--binary PATH] [--python-dir DIR --python EXE] [--list]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$root/build/tenet-cost"
list=0
pydir="" python=python3
while (($#)); do
  case "$1" in
    --binary) bin=$2; shift ;;
    --python-dir) pydir=$2; shift ;;
    --python) python=$2; shift ;;
    --list) list=1 ;;
    *) echo "usage: $0 [--binary PATH] [--python-dir DIR --python EXE] [--list]" >&2; exit 2 ;;
  esac
  shift
done
# The examples, one per line: "EXPECTED<TAB>COMMAND".
examples=$(awk '
  function flush() { if (cmd != "") { code = 0; if (match(cmd, /# exits [0-9]+/)) code = substr(cmd, RSTART + 8, RLENGTH - 8);
                                       print code "\t" cmd; cmd = "" } }
  /^    / {
    line = substr($0, 5)
    if (cont) { sub(/^ +/, "", line); cmd = cmd " " line }
    else if (line ~ /^(\.\/build\/tenet-cost|\(cd |PYTHONPATH=build\/python python3 )/) { flush(); cmd = line }
    else next
    cont = (cmd ~ /\\$/); if (cont) sub(/ *\\$/, "", cmd); else flush()
    next
  }
  { cont = 0; flush() }
  END { flush() }' "$root/README.md")
if ((list)); then printf '%s\n' "$examples"; exit 0; fi
[[ -x $bin ]] || { echo "readme: no tenet-cost binary at $bin" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for d in configs docs scripts tests workloads; do ln -s "$root/$d" "$scratch/$d"; done
mkdir "$scratch/build"
ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$scratch/build/tenet-cost"
if [[ -n $pydir ]]; then
  ln -s "$(cd "$pydir" && pwd)" "$scratch/build/python"
  mkdir "$scratch/.bin"
  ln -s "$(command -v "$python")" "$scratch/.bin/python3"
  export PATH="$scratch/.bin:$PATH"
fi
export TENET_COST_DATA="$root" PYTHONDONTWRITEBYTECODE=1
pass=0 fail=0 skip=0
while IFS=$'\t' read -r want cmd; do
  [[ -n $cmd ]] || continue
  if [[ -z $pydir && $cmd == PYTHONPATH=build/python* ]]; then
    skip=$((skip + 1))
    echo "skip (the Python module is not built) $cmd"
    continue
  fi
  start=$(date +%s.%N)
  set +e
  (cd "$scratch" && bash -c "$cmd") >"$scratch/.out" 2>"$scratch/.err"
  got=$?
  set -e
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  if [[ $got == "$want" ]]; then
    pass=$((pass + 1))
    echo "ok   (exit $got, ${secs}s) $cmd"
  else
    fail=$((fail + 1))
    echo "FAIL (exit $got, README says $want, ${secs}s) $cmd"
    tail -n 5 "$scratch/.err" | sed 's/^/     /'
  fi
done <<<"$examples"
echo "readme: $pass passed, $fail failed, $skip skipped"
((fail == 0 && pass > 0))
