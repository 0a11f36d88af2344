// The Python lexer's two paths agree: Lexer::fill (the parser's batches, a
// separate fast loop) gives exactly the tokens, positions, errors and final
// state that one next() call per token gives, for every batch size; keywords
// come from a perfect hash, so every keyword and near-misses are checked; and
// the parser's shortcuts for lone atoms give the shapes the full descent gives.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ir/pyast.hpp"
#include "test_support.hpp"

namespace {

using tenet_cost::ir::py::Kw;
using tenet_cost::ir::py::LexRange;
using tenet_cost::ir::py::Lexer;
using tenet_cost::ir::py::Tok;
using tenet_cost::ir::py::Token;

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Every token (kind, op, kw, line:col, span) up to the end or the error, then
// the lexer's final state. cap == 0: one next() per token; else fill(buf, cap).
std::string lex_all(std::string_view src, const LexRange& range, std::size_t cap) {
  std::ostringstream o;
  try {
    Lexer lx(src, "t.py", range);
    std::vector<Token> buf(cap == 0 ? 1 : cap);
    std::size_t at = 0;
    std::size_t have = 0;
    for (std::size_t count = 0; count < 5000000; ++count) {
      Token t;
      if (cap == 0) {
        t = lx.next();
      } else {
        if (at == have) {
          have = lx.fill(buf.data(), cap);
          at = 0;
          REQUIRE(have >= 1);
          REQUIRE(have <= cap);
        }
        t = buf[at++];
      }
      o << static_cast<int>(t.kind) << ' ' << static_cast<int>(t.op) << ' ' << static_cast<int>(t.kw) << ' '
        << t.line << ':' << t.col << ' ' << t.begin << '-' << t.end << '\n';
      if (t.kind == Tok::kEnd) break;
    }
    REQUIRE(at == have);  // nothing lexed past the end
    o << "stopped " << lx.stopped() << " line " << lx.line() << " indents";
    for (const auto i : lx.indents()) o << ' ' << i;
    o << '\n';
  } catch (const tenet_cost::InputError& e) {
    o << "error " << e.what() << '\n';
  }
  return o.str();
}

void check_batches_agree(std::string_view src, const LexRange& range = {}) {
  const std::string one_by_one = lex_all(src, range, 0);
  for (const std::size_t cap : {1u, 2u, 3u, 7u, 128u}) {
    INFO("batch size " << cap);
    CHECK(lex_all(src, range, cap) == one_by_one);
  }
}

std::vector<std::string> fixture_texts() {
  std::vector<std::string> out;
  for (const char* dir : {"ir", "extract", "malformed/tvmscript"}) {
    for (const auto& e : std::filesystem::directory_iterator(tc_test::fixture(dir)))
      if (e.path().extension() == ".py") out.push_back(read_text(e.path().string()));
  }
  return out;
}

}  // namespace

TEST_CASE("pylex: fill() batches give the tokens next() gives, on the fixtures", "[ir][pylex]") {
  const auto texts = fixture_texts();
  REQUIRE(texts.size() > 20);
  for (const auto& text : texts) {
    check_batches_agree(text);
    // the same text with CRLF line ends, tab indentation, and without its last line break
    std::string crlf;
    for (const char c : text) {
      if (c == '\n') crlf += '\r';
      crlf += c;
    }
    check_batches_agree(crlf);
    std::string tabs = text;
    for (std::size_t p = tabs.find("\n        "); p != std::string::npos; p = tabs.find("\n        ", p + 1))
      tabs.replace(p + 1, 8, "\t");
    check_batches_agree(tabs);
    if (!text.empty() && text.back() == '\n') check_batches_agree(std::string_view(text).substr(0, text.size() - 1));
  }
}

TEST_CASE("pylex: fill() batches agree on chunks of a file (LexRange begin/indent/stop)", "[ir][pylex]") {
  const std::string text = read_text(tc_test::fixture("ir/era2023_module.py"));
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  REQUIRE(starts.size() > 40);
  for (std::size_t a = 0; a + 1 < starts.size(); a += 7) {
    for (const std::size_t len : {1u, 2u, 5u, 17u}) {
      LexRange r;
      r.begin = starts[a];
      r.line = static_cast<std::uint32_t>(a + 1);
      std::size_t p = r.begin;
      while (p < text.size() && text[p] == ' ') ++p;
      r.indent = static_cast<std::uint32_t>(p - r.begin);
      if (a + len < starts.size()) r.stop = starts[a + len];
      INFO("chunk from line " << a + 1 << ", " << len << " lines");
      check_batches_agree(text, r);
    }
  }
}

TEST_CASE("pylex: fill() batches agree on tricky token sequences", "[ir][pylex]") {
  const char* cases[] = {
      "x = a\n",
      "x = a",                        // no final line break: the fast loop never runs at the end
      "x = 'a' \"b\" r'c' b\"d\" f'{e}' u'g' rb'h' '''i\nj''' 'k\\'l' '\\\n'\n",
      "x = 1 + 0x1f + 0o7 + 0b1 + 1_000 + 1.5 + .5 + 5. + 1e5 + 1E-5 + 2j + 00 + 12345678901234567890123\n",
      "x = a...b ... a.b .5\n",
      "x = a**=b //= c >>= d <<= e @= f -> g := h != i <> j == k <= l >= m\n",
      "if a:\n    b\n  # comment at another indent\n\n    c\nd\n",
      "def f(\n    a,\n    b,\n):\n    return (a +\n            b)\n",
      "x = a \\\n    + b\n",
      "x = [\n  1,\n\n  # c\n  2]\ny = 3\n",
      "x = a\t+\fb\n",
      "\xef\xbb\xbfx = 1\n",  // byte order mark
      "x = \xc3\xa9t\xc3\xa9 + caf\xc3\xa9\n",
      "x = $\n",                       // errors: in the fast loop they must stop it, not throw from it
      "x = a ! b\n",
      "x = 'abc\n",
      "x = 1x\n",
      "x = 1e\n",
      "x = 0x\n",
      "x = (((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))\n",
      "if a:\n        b\n    c\n",  // dedent to no enclosing block
      "x = a\n\n\n",
      "   \n\t\n# only comments\n",
      "",
  };
  for (const char* c : cases) {
    INFO(c);
    check_batches_agree(c);
  }
  // nesting at the limit: 256 brackets are fine, 257 are an error, in either path
  for (const std::size_t depth : {255u, 256u, 257u}) {
    const std::string text = "x = " + std::string(depth, '[') + "a" + std::string(depth, ']') + "\n";
    check_batches_agree(text);
  }
  // a name at the length limit and one byte over
  for (const std::size_t len : {4096u, 4097u}) check_batches_agree("x = " + std::string(len, 'n') + " + 1\n");
}

TEST_CASE("pylex: every keyword, and names that are not keywords", "[ir][pylex]") {
  const std::pair<const char*, Kw> keywords[] = {
      {"False", Kw::kFalse},   {"None", Kw::kNoneLit}, {"True", Kw::kTrue},         {"and", Kw::kAnd},
      {"as", Kw::kAs},         {"assert", Kw::kAssert}, {"async", Kw::kAsync},      {"await", Kw::kAwait},
      {"break", Kw::kBreak},   {"class", Kw::kClass},  {"continue", Kw::kContinue}, {"def", Kw::kDef},
      {"del", Kw::kDel},       {"elif", Kw::kElif},    {"else", Kw::kElse},         {"except", Kw::kExcept},
      {"finally", Kw::kFinally}, {"for", Kw::kFor},    {"from", Kw::kFrom},         {"global", Kw::kGlobal},
      {"if", Kw::kIf},         {"import", Kw::kImport}, {"in", Kw::kIn},            {"is", Kw::kIs},
      {"lambda", Kw::kLambda}, {"nonlocal", Kw::kNonlocal}, {"not", Kw::kNot},      {"or", Kw::kOr},
      {"pass", Kw::kPass},     {"raise", Kw::kRaise},  {"return", Kw::kReturn},     {"try", Kw::kTry},
      {"while", Kw::kWhile},   {"with", Kw::kWith},    {"yield", Kw::kYield}};
  for (const auto& [word, kw] : keywords) {
    for (const std::string& text : {std::string(word) + " x\n", "x " + std::string(word) + "\n", std::string(word)}) {
      INFO(text);
      for (const std::size_t cap : {1u, 128u}) {
        Lexer lx(text, "t.py");
        std::vector<Token> buf(cap);
        const std::size_t k = lx.fill(buf.data(), cap);
        Token t = buf[0];
        if (text[0] == 'x') t = k > 1 ? buf[1] : lx.next();
        CHECK(t.kind == Tok::kName);
        CHECK(t.kw == kw);
      }
    }
  }
  for (const char* name : {"i", "T", "Tru", "Truee", "true", "NONE", "iff", "fo", "nonlocals", "_if", "if_", "def1",
                           "lambd", "asserts", "a", "ass", "el", "wit", "yields", "continues", "isa", "inn", "ifx"}) {
    for (const std::string& text : {std::string(name) + " x\n", std::string(name)}) {
      INFO(text);
      Lexer lx(text, "t.py");
      const Token t = lx.next();
      CHECK(t.kind == Tok::kName);
      CHECK(t.kw == Kw::kNone);
    }
  }
}

namespace {

using tenet_cost::ir::py::Arena;
using tenet_cost::ir::py::NK;
using tenet_cost::ir::py::Node;
using tenet_cost::ir::py::Parser;

}  // namespace

TEST_CASE("pyparse: lone atoms (the parser's shortcut) parse like the full descent", "[ir][pylex]") {
  // An atom alone in a call argument takes the shortcut; before `if` it goes
  // through the full descent: the same node (at its own offset).
  for (const std::string atom : {"a", "12", "'s'", "b'x'", "18446744073709551616", "0x1f", "1_0", "0"}) {
    INFO(atom);
    const std::string text = "f(" + atom + ", " + atom + " if 1 else 0)";  // outlives the parser's view
    Arena arena;
    Parser p(text, "t.py", arena);
    const Node* call = p.parse_expression();
    REQUIRE(call->kind == NK::kCall);
    REQUIRE(call->n == 2);
    const Node* lone = call->kids[0];
    REQUIRE(call->kids[1]->kind == NK::kIfExp);
    const Node* full = call->kids[1]->a;
    CHECK(lone->kind == full->kind);
    CHECK(lone->text == full->text);
    CHECK(lone->ival == full->ival);
    CHECK(lone->big == full->big);
    CHECK(lone->height == full->height);
    CHECK(lone->line == full->line);
    CHECK(lone->begin == 2);
    CHECK(lone->end == 2 + atom.size());
    CHECK(full->begin == 4 + atom.size());
    CHECK(full->end == 4 + 2 * atom.size());
    CHECK(full->col == lone->col + atom.size() + 2);
  }
  // what follows an atom and continues the expression
  const struct {
    const char* text;
    NK kind;
  } cases[] = {{"f(a if b else c)", NK::kIfExp}, {"f(a := 1)", NK::kBinOp},   {"f(a or b)", NK::kBoolOp},
               {"f(a < b)", NK::kCompare},       {"f(a not in b)", NK::kCompare}, {"f(a is not b)", NK::kCompare},
               {"f(a ** b)", NK::kBinOp},        {"f(a.b)", NK::kAttr},       {"f(a[1])", NK::kSubscript},
               {"f(a(1))", NK::kCall},           {"f(1 + 2)", NK::kBinOp},    {"f('a' 'b')", NK::kString},
               {"f('a' 'b' + c)", NK::kBinOp},   {"f(a, *b)", NK::kName},     {"f(x=1)", NK::kKeyword}};
  for (const auto& c : cases) {
    INFO(c.text);
    Arena arena;
    Parser p(c.text, "t.py", arena);
    const Node* call = p.parse_expression();
    REQUIRE(call->kind == NK::kCall);
    REQUIRE(call->n >= 1);
    CHECK(call->kids[0]->kind == c.kind);
  }
  // a string followed by a string is concatenated, then an operator may follow
  Arena arena;
  Parser p("f('a' 'b' + c)", "t.py", arena);
  const Node* n = p.parse_expression()->kids[0];
  REQUIRE(n->kind == NK::kBinOp);
  REQUIRE(n->a->kind == NK::kString);
  CHECK(n->a->text == "ab");
  CHECK(n->b->kind == NK::kName);
}
