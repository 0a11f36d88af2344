// tenet_cost._core: the native half of the Python module, a thin adapter over the command line as a library
// (src/cli/app.hpp). python/tenet_cost/__init__.py turns keyword arguments into the CLI's flags and the CLI's JSON
// into dicts; nothing here models anything (docs/python.md).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "cli/app.hpp"
#include "tenet_cost/error.hpp"

namespace py = pybind11;
namespace cli = tenet_cost::cli;

namespace {

// tenet_cost.InputError(ValueError) with the location as attributes (file, line, column; "" / 0 when unknown) and
// the message without it (detail).
void raise_input_error(const py::handle& type, const tenet_cost::InputError& e) {
  py::object err = type(e.what());
  err.attr("file") = e.where().file;
  err.attr("line") = e.where().line;
  err.attr("column") = e.where().column;
  err.attr("detail") = e.detail();
  PyErr_SetObject(type.ptr(), err.ptr());
}

// One command line, the GIL released while it runs (the work is all C++; other Python threads go on).
std::string run(const std::vector<std::string>& args) {
  py::gil_scoped_release unlocked;
  return cli::run(args);
}

py::list options(const std::vector<std::string>& path) {
  py::list out;
  for (const auto& o : cli::options(path)) out.append(py::make_tuple(o.flag, o.kind, o.positional, o.help));
  return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "tenet-cost's command line in-process (use the tenet_cost package, not this module)";
  cli::use_stderr_log();
  // the exception type lives as long as the module (pybind11's documented pattern for py::exception)
  static const py::exception<tenet_cost::InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(std::move(p));
    } catch (const tenet_cost::InputError& e) {
      raise_input_error(input_error, e);
    }
  });
  py::enum_<cli::OptionKind>(m, "OptionKind", "How a command's option takes its values")
      .value("flag", cli::OptionKind::kFlag, "no value (True gives the flag)")
      .value("value", cli::OptionKind::kValue, "one value (a list becomes one comma-separated value)")
      .value("repeated", cli::OptionKind::kRepeated, "one value per occurrence (a list repeats the option)");
  m.def("run", &run, py::arg("args"),
        "Run one tenet-cost command line (without the program name) and return its output text. Bad input or "
        "usage raises InputError (a ValueError) with the CLI's message; the GIL is released while it runs.");
  m.def("options", &options, py::arg("command"),
        "The options of a command path such as ['compare'] or ['quant', 'list']: (flag, OptionKind, positional, "
        "help) tuples in --help order.");
}
