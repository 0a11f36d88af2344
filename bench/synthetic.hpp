// The synthetic dump of the front-end benchmarks (bench_parse_tvmscript,
// bench_extract): a dump's functions repeated under new names up to a size.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

#include "tenet_cost/output.hpp"

namespace bench {

/// The functions of `path` (e.g. fixture 01 of ../shared/fixtures/real) repeated with every `def name(`
/// renamed `def name_rK(` and every `cls.name` reference `cls.name_rK` (the class body of an IRModule file, the whole
/// file for bare prim_funcs) until the text has `target_bytes`.
inline std::string synthetic(const std::string& path, std::size_t target_bytes) {
  const std::string base = tenet_cost::read_file(path);
  const std::size_t cls = base.find("class Module:\n");
  const std::size_t body_begin = cls == std::string::npos ? 0 : cls + std::string("class Module:\n").size();
  const std::string body = base.substr(body_begin);
  std::string out;
  out.reserve(target_bytes + base.size() * 2);
  out += base.substr(0, body_begin);
  for (int k = 0; out.size() < target_bytes; ++k) {
    const std::string suffix = "_r" + std::to_string(k);
    std::size_t pos = 0;
    while (pos < body.size()) {
      std::size_t eol = body.find('\n', pos);
      if (eol == std::string::npos) eol = body.size();
      const std::string_view line(body.data() + pos, eol - pos);
      const std::size_t indent = line.find_first_not_of(' ');
      const std::size_t paren = line.find('(');
      if (indent != std::string_view::npos && line.substr(indent, 4) == "def " && paren != std::string_view::npos) {
        out.append(line.substr(0, paren));
        out += suffix;
        out.append(line.substr(paren));
      } else {
        // `cls.name` (R.call_tir(cls.name, ...)) refers to this copy's function, so each
        // copy is a whole module whose Relax functions call its own prim_funcs
        std::size_t from = 0;
        for (std::size_t at = line.find("cls."); at != std::string_view::npos; at = line.find("cls.", from)) {
          std::size_t end = at + 4;
          while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
          out.append(line.substr(from, end - from));
          if (end > at + 4) out += suffix;
          from = end;
        }
        out.append(line.substr(from));
      }
      out += '\n';
      pos = eol + 1;
    }
  }
  return out;
}

}  // namespace bench
