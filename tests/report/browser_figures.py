#!/usr/bin/env python3
"""The report's figures in headless Chromium (ctest `browser_figures`; docs/report.md "Tests").

Renders `compare --format html` of the shipped model and `sweep plot` of a small sweep, loads each page in headless
Chromium with a measuring script added (every <details> opened, the box of every text element of every chart written
into the DOM), and fails on
  - two text boxes of one chart that overlap (by more than 0.5 px each way),
  - a text box that sticks out of its chart's SVG (a clipped label),
  - a chart number that differs from the same run's --format json (the bars' and points' data attributes, and the
    drawn value labels read back from the SVG text).
Skips (exit 77) when chromium is not installed, except under CI=1 where that is a failure.

    python3 tests/report/browser_figures.py --binary build/tenet-cost [--keep DIR] [--screenshots DIR]
Only the standard library is used.
"""
import argparse
import html.parser
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
    "--hide-scrollbars", "--force-device-scale-factor=1", "--run-all-compositor-stages-before-draw",
    "--virtual-time-budget=5000",
]

# Added before </body>: opens every <details>, then writes [chart id, index, x, y, w, h, text, inside-svg] of every
# SVG text element of every chart, and [chart id, parses, unresolved url(#..), export links] of each chart's
# standalone SVG export (window.tcStandaloneSvg) into <pre id="tc-boxes">.
MEASURE = r"""<script>
(function(){document.querySelectorAll('details').forEach(function(d){d.open=true;});
var out=[];document.querySelectorAll('figure.chart').forEach(function(f){
var s=f.querySelector('svg'),sb=s.getBoundingClientRect();
f.querySelectorAll('svg text').forEach(function(t,i){var r=t.getBoundingClientRect();
if(r.width===0&&r.height===0)return;
var inside=r.left>=sb.left-0.5&&r.top>=sb.top-0.5&&r.right<=sb.right+0.5&&r.bottom<=sb.bottom+0.5;
out.push([f.id,i,r.left+scrollX,r.top+scrollY,r.width,r.height,t.textContent,inside]);});});
var ex=[];document.querySelectorAll('figure.chart').forEach(function(f){
var t=window.tcStandaloneSvg?window.tcStandaloneSvg(f):'',d=new DOMParser().parseFromString(t,'image/svg+xml');
var missing=(t.match(/url\(#[^)]+\)/g)||[]).filter(function(u){return !d.getElementById(u.slice(5,-1));});
ex.push([f.id,t.length>0&&!d.querySelector('parsererror'),missing.length,f.querySelectorAll('figcaption a.export').length]);});
var p=document.createElement('pre');p.id='tc-boxes';p.textContent=JSON.stringify([out,ex]);document.body.appendChild(p);})();
</script>
"""


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(exe, page, work, extra, width=1100, height=1000):
    profile = tempfile.mkdtemp(prefix="profile-", dir=work)
    cmd = [exe] + CHROMIUM_FLAGS + [f"--user-data-dir={profile}", f"--window-size={width},{height}"] + extra
    cmd.append("file://" + os.path.abspath(page))
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise SystemExit(f"chromium failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr[-2000:]}")
    return r.stdout


class Boxes(html.parser.HTMLParser):
    """The JSON text of <pre id="tc-boxes"> in a dumped DOM."""

    def __init__(self):
        super().__init__()
        self.inside = False
        self.text = ""

    def handle_starttag(self, tag, attrs):
        self.inside = tag == "pre" and ("id", "tc-boxes") in attrs

    def handle_endtag(self, tag):
        self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.text += data


def measure(exe, page_html, work, name):
    """The text boxes of a page's charts, measured in chromium: {chart id: [(x, y, w, h, text, inside)]}."""
    page = os.path.join(work, name + ".measure.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(page_html.replace("</body>", MEASURE + "</body>"))
    dom = run_chromium(exe, page, work, ["--dump-dom"])
    p = Boxes()
    p.feed(dom)
    if not p.text:
        raise SystemExit(f"{name}: the measuring script wrote no boxes (did the page load?)")
    boxes, exports = json.loads(p.text)
    charts = {}
    for chart, _i, x, y, w, h, text, inside in boxes:
        charts.setdefault(chart, []).append((x, y, w, h, text, inside))
    return charts, exports


def export_problems(exports):
    """Each chart's standalone SVG parses, resolves every pattern it uses, and has its SVG and PNG links."""
    bad = []
    for chart, parses, missing, links in exports:
        if not parses:
            bad.append(f"{chart}: the exported SVG does not parse as XML")
        if missing:
            bad.append(f"{chart}: the exported SVG refers to {missing} pattern(s) it does not hold")
        if links != 2:
            bad.append(f"{chart}: {links} export links by the caption, expected SVG and PNG")
    return bad


def overlap_problems(charts, slack=0.5):
    """Pairs of overlapping text boxes within a chart, and boxes outside their SVG."""
    bad = []
    for chart, boxes in charts.items():
        for i, a in enumerate(boxes):
            if not a[5]:
                bad.append(f"{chart}: text {a[4]!r} sticks out of the chart's SVG")
            for b in boxes[i + 1:]:
                ox = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
                oy = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
                if ox > slack and oy > slack:
                    bad.append(f"{chart}: text {a[4]!r} overlaps {b[4]!r} ({ox:.1f} x {oy:.1f} px)")
    return bad


class Attrs(html.parser.HTMLParser):
    """Every element's attributes with the id of the chart (figure) it is in, and the text of its <text> children."""

    def __init__(self):
        super().__init__()
        self.chart = None
        self.elements = []  # (chart, tag, attrs)
        self.texts = []     # (chart, row label, text)
        self.row = None
        self.in_text = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self.chart = a.get("id")
        if tag == "g" and "data-label" in a:
            self.row = a["data-label"]
        self.in_text = tag == "text"
        self.elements.append((self.chart, tag, a))

    def handle_endtag(self, tag):
        if tag == "figure":
            self.chart = None
        if tag == "g":
            self.row = None
        if tag == "text":
            self.in_text = False

    def handle_data(self, data):
        if self.in_text:
            self.texts.append((self.chart, self.row, data))


def label3(v):
    """The report's value label: 3 significant digits (src/report/svg.cpp svg::label)."""
    if v == 0:
        return "0"
    a = abs(v)
    if a < 1e-3 or a >= 1e6:
        return format(v, ".3g")
    decimals = max(0, 2 - math.floor(math.log10(a)))
    s = f"{v:.{decimals}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def same(text, value):
    """A data attribute (shortest round-trip text) equals the JSON's number exactly."""
    return float(text) == float(value)


def compare_checks(page_html, result):
    """The compare page's numbers against `compare --format json` of the same run."""
    p = Attrs()
    p.feed(page_html)
    rows = {r["scheme"]: r for r in result["rows"]}
    bad, checked = [], 0
    units = {"latency": ("latency_s", 1e-3), "dram": ("dram_bytes", 1e6), "energy": ("energy_j", 1e-3)}
    for chart, tag, a in p.elements:
        if not chart or not chart.startswith("cmp-") or tag != "g" or "data-label" not in a:
            continue
        _, phase, what = chart.split("-")
        key, _unit = units[what]
        want = rows[a["data-label"]][phase][key]
        got = a.get("data-" + key.replace("_", "-"))
        checked += 1
        if got is None or not same(got, want):
            bad.append(f"{chart} {a['data-label']}: drawn {key} {got}, JSON {want}")
    # the drawn value label at each latency bar's end: 3 significant digits of the JSON's value in the axis unit
    for chart, row, text in p.texts:
        if chart and row in rows and chart.startswith("cmp-") and chart.endswith("-latency"):
            phase = chart.split("-")[1]
            v = rows[row][phase]["latency_s"]
            want = label3(v if phase == "prefill" else v * 1e3)
            if text.strip() in (want,):
                checked += 1
            elif text.strip() != row:
                bad.append(f"{chart} {row}: label {text!r}, JSON gives {want}")
    for chart, tag, a in p.elements:
        if chart == "tradeoff" and "data-latency-s" in a:
            r = rows[a["data-label"]]
            checked += 1
            if not (same(a["data-latency-s"], r["decode"]["latency_s"]) and
                    same(a["data-energy-j"], r["decode"]["energy_j"])):
                bad.append(f"tradeoff {a['data-label']}: drawn ({a['data-latency-s']}, {a['data-energy-j']}), "
                           f"JSON ({r['decode']['latency_s']}, {r['decode']['energy_j']})")
    if checked < 3 * len(rows):
        bad.append(f"only {checked} chart numbers found to check against the JSON")
    return bad, checked


def sweep_checks(page_html, results_text):
    """The sweep plot's points against the results file's lines (by point id)."""
    lines = {}
    for line in results_text.splitlines():
        j = json.loads(line)
        if "id" in j and "result" in j:
            lines[j["id"]] = j["result"]
    p = Attrs()
    p.feed(page_html)
    bad, checked = [], 0
    keys = {"data-latency-s": "latency_s", "data-energy-j": "energy_j", "data-dram-bytes": "dram_bytes"}
    for chart, tag, a in p.elements:
        if "data-id" not in a:
            continue
        result = lines.get(a["data-id"])
        if result is None:
            bad.append(f"{chart}: point id {a['data-id']} is not in the results file")
            continue
        phase = a.get("data-phase", "decode")
        for attr, key in keys.items():
            if attr in a:
                checked += 1
                if not same(a[attr], result[phase][key]):
                    bad.append(f"{chart} {a['data-id']}: drawn {key} {a[attr]}, results file {result[phase][key]}")
    if checked < len(lines):
        bad.append(f"only {checked} sweep chart numbers found for {len(lines)} points")
    return bad, checked


def tool(binary, *args, out=None):
    cmd = [binary] + (["-o", out] if out else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--keep", help="write the pages here and keep them")
    ap.add_argument("--screenshots", help="also save a full-page PNG of each page here")
    ap.add_argument("--page", help="only measure this HTML file's text boxes (no JSON check)")
    args = ap.parse_args()
    exe = find_chromium()
    if exe is None:
        if os.environ.get("CI"):
            print("browser_figures: chromium is not installed, and CI must run this test "
                  "(TC_WITH_BROWSER=1 bash scripts/install-deps.sh)", file=sys.stderr)
            return 1
        print("browser_figures: skipped: chromium is not installed "
              "(TC_WITH_BROWSER=1 bash scripts/install-deps.sh installs it)", file=sys.stderr)
        return SKIP
    work = tempfile.mkdtemp(prefix="tc_figures_")
    try:
        if args.page:
            with open(args.page, encoding="utf-8") as f:
                charts, exports = measure(exe, f.read(), work, "page")
                problems = overlap_problems(charts) + export_problems(exports)
            print("\n".join(problems) or "no problems")
            return 1 if problems else 0
        return run_checks(args, exe, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_checks(args, exe, work):
    keep = args.keep or work
    os.makedirs(keep, exist_ok=True)
    # 1. compare of the shipped model (six default schemes)
    page = tool(args.binary, "compare", "--format", "html")
    result = json.loads(tool(args.binary, "compare", "--format", "json"))
    # 2. a sweep: two schemes x two PE-array sizes x two context lengths of the small shipped model
    results = os.path.join(work, "sweep.jsonl")
    tool(args.binary, "sweep", "-q", "--model", "qwen2-0.5b", "--quant", "q0f16,q4f16_1,w8a8-token-channel",
         "--set", "pe_array.rows=16,32", "--context", "256,1024", "--seq-len", "64", "--out", results)
    with open(results, encoding="utf-8") as f:
        results_text = f.read()
    plot = tool(args.binary, "sweep", "plot", results)
    failures = []
    for name, text in (("compare", page), ("sweep-plot", plot)):
        with open(os.path.join(keep, name + ".html"), "w", encoding="utf-8") as f:
            f.write(text)
        charts, exports = measure(exe, text, work, name)
        n = sum(len(b) for b in charts.values())
        problems = overlap_problems(charts) + export_problems(exports)
        print(f"{name}: {len(charts)} charts, {n} text boxes measured, {len(problems)} problems")
        failures += [f"{name}: {p}" for p in problems]
        if args.screenshots:
            os.makedirs(args.screenshots, exist_ok=True)
            shot = os.path.abspath(os.path.join(args.screenshots, name + ".png"))
            tall = 1 + max(int(y + h) for boxes in charts.values() for (_x, y, _w, h, _t, _i) in boxes)
            run_chromium(exe, os.path.join(keep, name + ".html"), work, [f"--screenshot={shot}"], 1100, tall + 300)
            print(f"{name}: screenshot {shot}")
    bad, checked = compare_checks(page, result)
    print(f"compare: {checked} chart numbers equal the JSON's" if not bad else "compare: numbers differ")
    failures += bad
    bad, checked = sweep_checks(plot, results_text)
    print(f"sweep-plot: {checked} chart numbers equal the results file's" if not bad else "sweep-plot: numbers differ")
    failures += bad
    failures += self_test(exe, work, page, result)
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


def self_test(exe, work, page, result):
    """The checks can fail: two overlapping texts and a clipped one are reported; a changed number is reported."""
    bad = []
    probe = ('<!DOCTYPE html><html><body><figure class="chart" id="probe"><svg width="200" height="60">'
             '<text x="10" y="30">overlapping</text><text x="30" y="34">text</text><text x="190" y="50">clipped</text>'
             '</svg></figure></body></html>')
    charts, _ = measure(exe, probe, work, "probe")
    found = overlap_problems(charts)
    if len(found) != 2:
        bad.append(f"self-test: the probe page's overlap and clipped text gave {found}, expected 2 problems")
    key = 'data-latency-s="'
    at = page.index(key) + len(key)
    doctored = page[:at] + "1" + page[at:]  # "0.0123" -> "10.0123"
    if not compare_checks(doctored, result)[0]:
        bad.append("self-test: a changed latency in the page was not reported")
    return bad


if __name__ == "__main__":
    sys.exit(main())
