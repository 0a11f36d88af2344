#!/usr/bin/env bash
# Golden-output runner (tests/golden/cases.txt): runs each case with the given tenet-cost binary
# from the repository root and compares stdout (NAME.out) and, for a non-zero exit, stderr with the
# exit code (NAME.err) byte for byte. A case whose line ends in "| html-data" compares the data of an HTML page
# (its headings, figure captions and the rows of its tables, one a line, cells joined by " | ", tags dropped) instead of the page.
#   tests/golden/run.sh [--update] [--binary PATH] [NAME-REGEX]
# --update rewrites the golden files from the current binary (then review `git diff tests/golden`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
update=0
bin="$root/build/tenet-cost"
filter=""
while (($#)); do
  case "$1" in
    --update) update=1 ;;
    --binary) bin=$2; shift ;;
    -*) echo "usage: $0 [--update] [--binary PATH] [NAME-REGEX]" >&2; exit 2 ;;
    *) filter=$1 ;;
  esac
  shift
done
[[ -x $bin ]] || { echo "golden: no tenet-cost binary at $bin (build first or pass --binary)" >&2; exit 2; }
cd "$root"
# The data root and the environment are pinned so that the output does not depend on the caller.
export TENET_COST_DATA="$root"
unset TC_PARSE_THREADS TC_EXTRACT_THREADS TC_SWEEP_THREADS
# The data of an HTML page: "# " + each heading and figure caption, each table row (every number a chart draws is
# in a table).
html_data() {
  perl -0777 -ne 'while (/<(h[1-4]|figcaption)[^>]*>(.*?)<\/\1>|<tr[^>]*>(.*?)<\/tr>/gs) {
    if (defined $2) { my $t = $2; $t =~ s/<[^>]+>//g; print "# $t\n"; next }
    my $r = $3; $r =~ s/<\/t[dh]>\s*<t[dh][^>]*>/ | /g; $r =~ s/<[^>]+>//g; $r =~ s/\s*\n\s*/ /g; print "$r\n" }'
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 updated=0
while IFS='|' read -r name args view; do
  [[ $name =~ ^[[:space:]]*(#|$) ]] && continue
  name="${name//[[:space:]]/}"
  [[ -n $filter && ! $name =~ $filter ]] && continue
  read -r -a argv <<< "$args"
  rc=0
  "$bin" "${argv[@]}" > "$tmp/out" 2> "$tmp/err" < /dev/null || rc=$?
  view="${view//[[:space:]]/}"
  case "$view" in
    "") ;;
    html-data) html_data < "$tmp/out" > "$tmp/view" && mv "$tmp/view" "$tmp/out" ;;
    *) echo "golden: unknown view '$view' in case $name" >&2; exit 2 ;;
  esac
  if ((rc != 0)); then
    { cat "$tmp/err"; echo "exit $rc"; } > "$tmp/errx"
  fi
  if ((update)); then
    cp "$tmp/out" "$here/$name.out"
    if ((rc != 0)); then cp "$tmp/errx" "$here/$name.err"; else rm -f "$here/$name.err"; fi
    updated=$((updated + 1))
    continue
  fi
  ok=1
  cmp -s "$tmp/out" "$here/$name.out" 2>/dev/null || ok=0
  if ((rc != 0)); then
    cmp -s "$tmp/errx" "$here/$name.err" 2>/dev/null || ok=0
  elif [[ -e $here/$name.err ]]; then
    ok=0
  fi
  if ((ok)); then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAILED: $name (tenet-cost $args), exit $rc"
    diff -u "$here/$name.out" "$tmp/out" | head -20 || true
    if ((rc != 0)); then diff -u "$here/$name.err" "$tmp/errx" | head -10 || true; fi
  fi
done < "$here/cases.txt"
if ((update)); then echo "golden: updated $updated cases"; exit 0; fi
echo "golden: $pass passed, $fail failed"
((fail == 0))
