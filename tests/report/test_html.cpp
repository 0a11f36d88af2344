// The HTML report: numbers in the charts equal the input, determinism, escaping,
// refused non-finite input, the Pareto front against brute force.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "report/sample_doc.hpp"
#include "report/svg.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/report_html.hpp"

using namespace tenet_cost::report::html;
using tenet_cost::InputError;

namespace {

std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '&') {
      const auto semi = s.find(';', i);
      const std::string ent = s.substr(i, semi - i + 1);
      if (ent == "&amp;") out += '&';
      else if (ent == "&lt;") out += '<';
      else if (ent == "&gt;") out += '>';
      else if (ent == "&quot;") out += '"';
      else if (ent == "&#39;") out += '\'';
      else FAIL("unknown entity " << ent);
      i = semi + 1;
    } else {
      out += s[i++];
    }
  }
  return out;
}

using Attrs = std::map<std::string, std::string>;
struct Element {
  std::string tag;
  Attrs attrs;
};

/// Elements (start tags) inside the figure with this id, in document order.
std::vector<Element> figure_elements(const std::string& html, const std::string& id) {
  const auto start = html.find("<figure class=\"chart\" id=\"" + id + "\"");
  REQUIRE(start != std::string::npos);
  const auto end = html.find("</figure>", start);
  const std::string part = html.substr(start, end - start);
  static const std::regex tag_re(R"re(<([a-z]+)((?:\s+[A-Za-z-]+="[^"]*")*)\s*/?>)re");
  static const std::regex attr_re(R"re(([A-Za-z-]+)="([^"]*)")re");
  std::vector<Element> out;
  for (auto it = std::sregex_iterator(part.begin(), part.end(), tag_re); it != std::sregex_iterator(); ++it) {
    Element e{(*it)[1].str(), {}};
    const std::string a = (*it)[2].str();
    for (auto jt = std::sregex_iterator(a.begin(), a.end(), attr_re); jt != std::sregex_iterator(); ++jt)
      e.attrs[(*jt)[1].str()] = unescape((*jt)[2].str());
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<Element> with_attr(const std::vector<Element>& els, const std::string& attr) {
  std::vector<Element> out;
  for (const auto& e : els)
    if (e.attrs.count(attr)) out.push_back(e);
  return out;
}

double dbl(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  REQUIRE(*end == '\0');
  return v;
}

}  // namespace

TEST_CASE("report html: scheme comparison numbers equal the input exactly") {
  const auto doc = tc_test::sample_doc();
  const std::string html = render(doc);
  const auto pre_lat = with_attr(figure_elements(html, "cmp-prefill-latency"), "data-latency-s");
  const auto dec_lat = with_attr(figure_elements(html, "cmp-decode-latency"), "data-latency-s");
  const auto pre_dram = with_attr(figure_elements(html, "cmp-prefill-dram"), "data-dram-bytes");
  const auto dec_dram = with_attr(figure_elements(html, "cmp-decode-dram"), "data-dram-bytes");
  const auto pre_e = with_attr(figure_elements(html, "cmp-prefill-energy"), "data-energy-j");
  const auto dec_e = with_attr(figure_elements(html, "cmp-decode-energy"), "data-energy-j");
  REQUIRE(pre_lat.size() == doc.schemes.size());
  REQUIRE(dec_dram.size() == doc.schemes.size());
  for (std::size_t i = 0; i < doc.schemes.size(); ++i) {
    const auto& r = doc.schemes[i];
    CHECK(pre_lat[i].attrs.at("data-label") == r.scheme);
    CHECK(dbl(pre_lat[i].attrs.at("data-latency-s")) == r.prefill.latency_s);
    CHECK(dbl(dec_lat[i].attrs.at("data-latency-s")) == r.decode.latency_s);
    CHECK(pre_dram[i].attrs.at("data-dram-bytes") == std::to_string(r.prefill.dram_bytes));
    CHECK(pre_dram[i].attrs.at("data-scale-dram-bytes") == std::to_string(r.prefill.scale_dram_bytes));
    CHECK(dec_dram[i].attrs.at("data-dram-bytes") == std::to_string(r.decode.dram_bytes));
    CHECK(dec_dram[i].attrs.at("data-scale-dram-bytes") == std::to_string(r.decode.scale_dram_bytes));
    CHECK(dbl(pre_e[i].attrs.at("data-energy-j")) == r.prefill.energy_j);
    CHECK(dbl(dec_e[i].attrs.at("data-energy-j")) == r.decode.energy_j);
  }
  // the stacked DRAM parts: other + scale = total, scale part = scale bytes
  const auto parts = with_attr(figure_elements(html, "cmp-decode-dram"), "data-term");
  REQUIRE(parts.size() == 2 * doc.schemes.size());
  for (std::size_t i = 0; i < doc.schemes.size(); ++i) {
    const auto& r = doc.schemes[i];
    CHECK(parts[2 * i + 1].attrs.at("data-term") == "scales + zero points");
    CHECK(std::stoll(parts[2 * i + 1].attrs.at("data-value")) == r.decode.scale_dram_bytes);
    CHECK(std::stoll(parts[2 * i].attrs.at("data-value")) + std::stoll(parts[2 * i + 1].attrs.at("data-value")) ==
          r.decode.dram_bytes);
  }
  // energy by term: the parts of the one row that has terms are the terms
  const auto eparts = with_attr(figure_elements(html, "cmp-prefill-energy"), "data-term");
  REQUIRE(eparts.size() == 2 * doc.schemes.size());
  CHECK(eparts[2].attrs.at("data-term") == "mac");
  CHECK(dbl(eparts[2].attrs.at("data-value")) == 20.0);
  CHECK(dbl(eparts[3].attrs.at("data-value")) == 10.25);
}

TEST_CASE("report html: per-operator breakdown has every term, the bound marked once per row") {
  const auto doc = tc_test::sample_doc();
  const std::string html = render(doc);
  for (std::size_t b = 0; b < doc.breakdowns.size(); ++b) {
    const auto& bd = doc.breakdowns[b];
    const auto els = figure_elements(html, "breakdown-" + std::to_string(b));
    const auto rows = with_attr(els, "data-calls");
    const auto parts = with_attr(els, "data-term");
    REQUIRE(rows.size() == bd.rows.size());
    REQUIRE(parts.size() == bd.rows.size() * bd.terms.size());
    for (std::size_t r = 0; r < bd.rows.size(); ++r) {
      const auto& op = bd.rows[r];
      CHECK(rows[r].attrs.at("data-label") == op.name);
      CHECK(rows[r].attrs.at("data-calls") == std::to_string(op.calls));
      CHECK(rows[r].attrs.at("data-cycles") == std::to_string(op.cycles));
      CHECK(rows[r].attrs.at("data-bound") == op.bound);
      int bound_marks = 0;
      for (std::size_t t = 0; t < bd.terms.size(); ++t) {
        const auto& p = parts[r * bd.terms.size() + t];
        CHECK(p.attrs.at("data-term") == bd.terms[t]);
        CHECK(p.attrs.at("data-value") == std::to_string(op.cycles_by_term[t]));
        if (p.attrs.count("data-bound")) {
          ++bound_marks;
          CHECK(bd.terms[t] == op.bound);
        }
      }
      CHECK(bound_marks == 1);
    }
  }
}

TEST_CASE("report html: roofline points are the operators, x = MACs/byte, y = MACs/s") {
  const auto doc = tc_test::sample_doc();
  const std::string html = render(doc);
  const auto& rl = doc.rooflines[0];
  const auto els = figure_elements(html, "roofline-0");
  const auto pts = with_attr(els, "data-macs");
  std::size_t drawable = 0;
  for (const auto& p : rl.points) drawable += (p.macs > 0 && p.dram_bytes > 0 && p.latency_s > 0) ? 1 : 0;
  REQUIRE(pts.size() == drawable);
  REQUIRE(drawable + 1 == rl.points.size());
  CHECK(html.find("1 operator(s) with 0 MACs, 0 DRAM bytes or 0 s not drawn") != std::string::npos);
  for (std::size_t i = 0; i < drawable; ++i) {
    const auto& p = rl.points[i];
    const auto& a = pts[i].attrs;
    CHECK(a.at("data-name") == p.name);
    CHECK(a.at("data-entry") == p.entry);
    CHECK(a.at("data-macs") == std::to_string(p.macs));
    CHECK(a.at("data-dram-bytes") == std::to_string(p.dram_bytes));
    CHECK(dbl(a.at("data-latency-s")) == p.latency_s);
    CHECK(dbl(a.at("data-x")) == static_cast<double>(p.macs) / static_cast<double>(p.dram_bytes));
    CHECK(dbl(a.at("data-y")) == static_cast<double>(p.macs) / p.latency_s);
    // under the roof (the sample's points are feasible)
    CHECK(dbl(a.at("data-y")) <= std::min(rl.peak_macs_per_s, rl.dram_bytes_per_s * dbl(a.at("data-x"))) * (1 + 1e-12));
  }
  // the roof itself
  const auto svg = with_attr(els, "data-peak-macs-per-s");
  REQUIRE(svg.size() == 1);
  CHECK(dbl(svg[0].attrs.at("data-peak-macs-per-s")) == rl.peak_macs_per_s);
  CHECK(dbl(svg[0].attrs.at("data-dram-bytes-per-s")) == rl.dram_bytes_per_s);
  // bigger time share -> bigger marker (circles of the prefill entry)
  const auto circles = [&] {
    std::vector<Element> c;
    for (const auto& e : pts)
      if (e.tag == "circle") c.push_back(e);
    return c;
  }();
  REQUIRE(circles.size() == 2);
  CHECK(dbl(circles[1].attrs.at("r")) > dbl(circles[0].attrs.at("r")));
}

TEST_CASE("report html: roofline points at the same spot share one label") {
  auto doc = tc_test::sample_doc();
  auto& pts = doc.rooflines[0].points;
  REQUIRE(pts.size() >= 3);
  pts[2] = pts[0];  // same MACs, bytes and time: drawn on top of point 1
  pts[2].name = "twin";
  const std::string html = render(doc);
  const auto start = html.find("<figure class=\"chart\" id=\"roofline-0\"");
  const std::string fig = html.substr(start, html.find("</figure>", start) - start);
  static const std::regex label_re(R"re(class="small point-label">([^<]*)<)re");
  std::vector<std::string> labels;
  for (auto it = std::sregex_iterator(fig.begin(), fig.end(), label_re); it != std::sregex_iterator(); ++it)
    labels.push_back((*it)[1].str());
  // one label per distinct spot; every drawn point's number appears exactly once
  CHECK(std::find(labels.begin(), labels.end(), "1,3") != labels.end());
  std::vector<std::string> numbers;
  for (const auto& l : labels) {
    std::size_t from = 0;
    for (auto comma = l.find(',', from);; comma = l.find(',', from)) {
      numbers.push_back(l.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  std::sort(numbers.begin(), numbers.end());
  CHECK(std::adjacent_find(numbers.begin(), numbers.end()) == numbers.end());
  CHECK(numbers.size() == with_attr(figure_elements(html, "roofline-0"), "data-macs").size());
}

TEST_CASE("report html: Pareto front equals brute force, and is marked in the scatter") {
  std::mt19937_64 rng(15);
  std::uniform_int_distribution<int> small(0, 6);  // ties on purpose
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<TradeoffPoint> pts(static_cast<std::size_t>(1 + trial % 9));
    for (auto& p : pts) p = {"p", small(rng) * 0.5, small(rng) * 0.25, ""};
    std::vector<std::size_t> brute;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      bool dominated = false;
      for (std::size_t j = 0; j < pts.size(); ++j)
        dominated = dominated || (pts[j].latency_s <= pts[i].latency_s && pts[j].energy_j <= pts[i].energy_j &&
                                  (pts[j].latency_s < pts[i].latency_s || pts[j].energy_j < pts[i].energy_j));
      if (!dominated) brute.push_back(i);
    }
    auto front = pareto_front(pts);
    for (std::size_t k = 1; k < front.size(); ++k) CHECK(pts[front[k - 1]].latency_s <= pts[front[k]].latency_s);
    std::sort(front.begin(), front.end());
    CHECK(front == brute);
  }
  const auto doc = tc_test::sample_doc();
  const auto pts = with_attr(figure_elements(render(doc), "tradeoff"), "data-pareto");
  REQUIRE(pts.size() == doc.tradeoff.size());
  std::vector<std::string> on;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    CHECK(pts[i].attrs.at("data-label") == doc.tradeoff[i].label);
    CHECK(dbl(pts[i].attrs.at("data-latency-s")) == doc.tradeoff[i].latency_s);
    CHECK(dbl(pts[i].attrs.at("data-energy-j")) == doc.tradeoff[i].energy_j);
    if (pts[i].attrs.at("data-pareto") == "true") on.push_back(pts[i].attrs.at("data-label"));
  }
  CHECK(on == std::vector<std::string>{"q4f16_1", "fp8-tensor"});
}

TEST_CASE("report html: deterministic, self-contained") {
  const auto doc = tc_test::sample_doc();
  const std::string a = render(doc);
  const std::string b = render(tc_test::sample_doc());
  CHECK(a == b);
  CHECK(a.find("http://") == std::string::npos);
  CHECK(a.find("https://") == std::string::npos);
  CHECK(a.find(" src=") == std::string::npos);
  CHECK(a.find(" href=") == std::string::npos);
  CHECK(a.find("default-src 'none'") != std::string::npos);
  // every chart kind is there
  for (const char* id :
       {"cmp-prefill-latency", "cmp-decode-latency", "cmp-prefill-dram", "cmp-decode-dram", "cmp-prefill-energy",
        "cmp-decode-energy", "breakdown-0", "breakdown-1", "roofline-0", "tradeoff"})
    CHECK(a.find(std::string("id=\"") + id + "\"") != std::string::npos);
  // each chart has a data table behind it
  std::size_t figures = 0, details = 0;
  for (auto p = a.find("<figure"); p != std::string::npos; p = a.find("<figure", p + 1)) ++figures;
  for (auto p = a.find("<details>"); p != std::string::npos; p = a.find("<details>", p + 1)) ++details;
  CHECK(details >= 4);  // comparison (one for its six panels), breakdowns, roofline, trade-off
  CHECK(figures == 10);
}

TEST_CASE("report html: names with markup characters are escaped") {
  auto doc = tc_test::sample_doc();
  const std::string evil = "<script>alert(\"x\")</script> & 'q'";
  doc.title = evil;
  doc.schemes[0].scheme = evil;
  doc.breakdowns[0].rows[0].name = evil;
  doc.rooflines[0].points[0].name = evil;
  doc.tradeoff[0].label = evil;
  doc.assumptions[0].value = evil;
  const std::string html = render(doc);
  CHECK(html.find(evil) == std::string::npos);
  CHECK(html.find("<script>alert") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;") != std::string::npos);
  CHECK(with_attr(figure_elements(html, "cmp-prefill-latency"), "data-label")[0].attrs.at("data-label") == evil);
  CHECK(with_attr(figure_elements(html, "roofline-0"), "data-name")[0].attrs.at("data-name") == evil);
  CHECK(with_attr(figure_elements(html, "tradeoff"), "data-pareto")[0].attrs.at("data-label") == evil);
}

TEST_CASE("report html: non-finite or negative numbers are refused, naming the field") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    const char* what;
    std::function<void(ReportDoc&)> spoil;
  };
  const std::vector<Case> cases = {
      {"prefill latency_s", [&](ReportDoc& d) { d.schemes[1].prefill.latency_s = nan; }},
      {"decode energy_j", [&](ReportDoc& d) { d.schemes[0].decode.energy_j = inf; }},
      {"decode latency_s", [&](ReportDoc& d) { d.schemes[2].decode.latency_s = -1.0; }},
      {"prefill dram_bytes", [&](ReportDoc& d) { d.schemes[2].prefill.dram_bytes = -5; }},
      {"scale_dram_bytes <= dram_bytes", [&](ReportDoc& d) { d.schemes[0].decode.scale_dram_bytes = 1LL << 62; }},
      {"prefill energy term 'mac'", [&](ReportDoc& d) { d.schemes[1].prefill.energy_by_term[0].value = nan; }},
      {"prefill energy terms to sum", [&](ReportDoc& d) { d.schemes[1].prefill.energy_by_term[0].value = 1.0; }},
      {"peak_macs_per_s", [&](ReportDoc& d) { d.rooflines[0].peak_macs_per_s = inf; }},
      {"positive roofs", [&](ReportDoc& d) { d.rooflines[0].dram_bytes_per_s = 0; }},
      {"latency_s", [&](ReportDoc& d) { d.rooflines[0].points[1].latency_s = -inf; }},
      {"energy_j", [&](ReportDoc& d) { d.tradeoff[2].energy_j = nan; }},
      {"cycle terms", [&](ReportDoc& d) { d.breakdowns[0].rows[0].cycles_by_term.pop_back(); }},
      {"to be one of the terms", [&](ReportDoc& d) { d.breakdowns[1].rows[1].bound = "memory"; }},
      {"calls", [&](ReportDoc& d) { d.breakdowns[1].rows[1].calls = -1; }},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    auto doc = tc_test::sample_doc();
    c.spoil(doc);
    try {
      (void)render(doc);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find(c.what) != std::string::npos);
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("report html: number() reads back as the same double") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(1.0, 10.0);
  std::uniform_int_distribution<int> ex(-20, 20);
  for (int i = 0; i < 2000; ++i) {
    const double v = mant(rng) * std::pow(10.0, ex(rng));
    CHECK(std::strtod(number(v).c_str(), nullptr) == v);
  }
  CHECK(number(3) == "3");
  CHECK(number(0.1) == "0.1");
  CHECK(number(-0.0) == "0");
}

TEST_CASE("report html: empty parts are left out, an empty document still renders") {
  ReportDoc d;
  d.title = "empty";
  const std::string html = render(d);
  CHECK(html.find("<figure") == std::string::npos);
  CHECK(html.find("</html>") != std::string::npos);
}

TEST_CASE("report html: label placement never overlaps two labels, inside the area, deterministic") {
  std::mt19937_64 rng(12);
  const LabelBox area{80, 40, 520, 330};
  for (int trial = 0; trial < 40; ++trial) {
    // clusters of close (not coincident) points: the case that overprinted before
    std::uniform_real_distribution<double> cx(80, 600), cy(40, 370), jitter(-6, 6), rad(2, 20);
    std::uniform_int_distribution<std::size_t> chars(1, 8);
    std::vector<LabelAnchor> anchors;
    std::vector<LabelBox> markers;  // obstacles: each marker's box
    const int clusters = 1 + trial % 4;
    for (int c = 0; c < clusters; ++c) {
      const double x = cx(rng), y = cy(rng);
      for (int i = 0; i < 3 + trial % 12; ++i) {
        const LabelBox size = label_box(0, 0, std::string(chars(rng), '8'));
        const double r = trial % 2 ? rad(rng) / 4 : rad(rng);
        anchors.push_back({x + jitter(rng), y + jitter(rng), r, size.w, size.h});
        if (trial % 2) markers.push_back({anchors.back().x - r, anchors.back().y - r, 2 * r, 2 * r});
      }
    }
    const auto boxes = place_labels(anchors, area, markers);
    REQUIRE(boxes.size() == anchors.size());
    std::vector<LabelBox> placed;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      REQUIRE(boxes[i]);  // a few dozen labels always find room in a 520 x 330 plot
      const LabelBox& b = *boxes[i];
      CHECK(b.w == anchors[i].w);
      for (const auto& m : markers) CHECK_FALSE(overlaps(m, b));
      // a leader line exactly when the label is away from its marker; it starts on the marker's edge
      const std::string leader = leader_line(anchors[i], b);
      const double nx = std::clamp(anchors[i].x, b.x, b.x + b.w), ny = std::clamp(anchors[i].y, b.y, b.y + b.h);
      CHECK(leader.empty() == (std::hypot(nx - anchors[i].x, ny - anchors[i].y) <= anchors[i].r + 4));
      CHECK(b.x >= area.x);
      CHECK(b.y >= area.y);
      CHECK(b.x + b.w <= area.x + area.w);
      CHECK(b.y + b.h <= area.y + area.h);
      placed.push_back(b);
    }
    for (std::size_t a = 0; a < placed.size(); ++a)
      for (std::size_t b = a + 1; b < placed.size(); ++b) {
        INFO("trial " << trial << " labels " << a << " and " << b);
        CHECK_FALSE(overlaps(placed[a], placed[b]));
      }
    const auto again = place_labels(anchors, area, markers);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      CHECK(again[i]->x == boxes[i]->x);
      CHECK(again[i]->y == boxes[i]->y);
    }
  }
  // an area with room for one label only: the second gets none rather than an overlap
  const LabelBox tiny{0, 0, 20, 12};
  const auto two = place_labels({{5, 6, 0, 8, 12}, {6, 6, 0, 8, 12}}, tiny);
  CHECK(two[0]);
  CHECK_FALSE(two[1]);
  CHECK(overlaps({0, 0, 10, 10}, {5, 5, 10, 10}));
  CHECK_FALSE(overlaps({0, 0, 10, 10}, {10, 0, 10, 10}));  // touching edges
}

TEST_CASE("report html: close roofline points get labels whose boxes do not overlap") {
  auto doc = tc_test::sample_doc();
  auto& pts = doc.rooflines[0].points;
  REQUIRE(!pts.empty());
  const auto base = pts[0];
  for (int i = 1; i <= 20; ++i) {  // 20 points within a few per cent of the first: drawn a pixel or two apart
    auto p = base;
    p.name = "near" + std::to_string(i);
    p.macs = base.macs + base.macs / 100 * i;
    p.dram_bytes = base.dram_bytes + base.dram_bytes / 200 * (i % 3);
    pts.push_back(p);
  }
  const std::string html = render(doc);
  const auto start = html.find("<figure class=\"chart\" id=\"roofline-0\"");
  const std::string fig = html.substr(start, html.find("</figure>", start) - start);
  static const std::regex label_re(R"re(<text x="([-0-9.]+)" y="([-0-9.]+)" class="small point-label">([^<]*)<)re");
  std::vector<LabelBox> boxes;
  std::size_t numbers = 0;
  for (auto it = std::sregex_iterator(fig.begin(), fig.end(), label_re); it != std::sregex_iterator(); ++it) {
    const std::string text = (*it)[3].str();
    numbers += 1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), ','));
    // the renderer writes the text at (box.x + 1, box.y + 0.95 em)
    boxes.push_back(label_box(std::stod((*it)[1].str()) - 1, std::stod((*it)[2].str()) - 9.5, text));
  }
  const auto drawn = std::count_if(
      pts.begin(), pts.end(), [](const RooflinePoint& p) { return p.macs > 0 && p.dram_bytes > 0 && p.latency_s > 0; });
  CHECK(numbers == static_cast<std::size_t>(drawn));  // every drawn point labelled once
  for (std::size_t a = 0; a < boxes.size(); ++a)
    for (std::size_t b = a + 1; b < boxes.size(); ++b) {
      INFO("labels " << a << " and " << b);
      CHECK_FALSE(overlaps(boxes[a], boxes[b]));
    }
}

TEST_CASE("report svg: zoomed tick ranges cover the values, text widths of DejaVu Sans, fills fixed by term name") {
  using namespace tenet_cost::report;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 500; ++i) {
    const double hi = std::pow(10.0, 8 * u(rng) - 4), lo = hi * u(rng);
    const auto t = svg::range_ticks(lo, hi);
    INFO(lo << " .. " << hi);
    REQUIRE(t.size() >= 2);
    CHECK(t.front() <= lo);
    CHECK(t.back() >= hi);
    if (lo < hi / 3) CHECK(t.front() == 0);  // far from zero only: zoomed
    else CHECK(t.front() > 0);
    for (std::size_t k = 1; k < t.size(); ++k) CHECK(t[k] > t[k - 1]);
  }
  CHECK(svg::range_ticks(5, 5).back() >= 5);  // one value
  CHECK(svg::text_width("0123456789", 10) == Approx(63.6));
  CHECK(svg::text_width("w", 100, true) > svg::text_width("w", 100));
  CHECK(svg::text_width("\xE2\x80\xA6", 10) == Approx(10));  // a non-ASCII character: one em
  CHECK(svg::term_fill("dram", 0) == svg::term_fill("dram", 5));
  CHECK(svg::term_fill("mac", 3) == svg::term_fill("compute", 1));
  CHECK(svg::term_fill("dram", 0) != svg::term_fill("buffer", 0));
  CHECK(svg::scheme_colour(0) != svg::scheme_colour(1));
}
