"""tenet-cost from Python: the command line's commands as functions returning its JSON as dicts.

Each function runs the same command as the ``tenet-cost`` executable, in-process (the GIL released while it
works), with the command's options as keyword arguments, and returns the command's ``--format json`` output
parsed: the same keys and the same numbers (docs/python.md)::

    import tenet_cost
    tenet_cost.compare(quant=["q0f16", "q4f16_1"])                       # the shipped Llama-2-7B dump
    tenet_cost.estimate("debug-phase3.py", quant="q4f16_1", arch="tpu-v1-256x256", seq_len=1024)
    tenet_cost.estimate(mod)                                              # a TVM IRModule: its .script()
    tenet_cost.extract(mod.script(), bind={"n": 2048})["workloads"]

Keyword arguments are the command's flags with ``_`` for ``-`` (``seq_len=`` is ``--seq-len``). A list gives
a comma-separated value (``quant=["a", "b"]``) or, for a repeatable flag, one flag per item (``gemm=[..]``,
``tile=[..]``); a dict gives ``KEY=VALUE`` items (``set={"pe_array.rows": 64}``, ``bind={"n": 2048}``); ``True``
gives a flag (``strict=True``); ``None`` leaves the option out. Bad input raises :class:`InputError` (a
``ValueError``) with the CLI's one-line ``file:line:col: expected X, found Y`` message; an unknown keyword
raises ``TypeError``.

A dump is a path (``str`` or ``os.PathLike``), the module's text (a ``str`` with a newline: TVMScript or TVM
JSON) or an object with a ``script()`` method (a TVM ``IRModule``; tvm itself is never imported here). Text is
priced as a file named ``name`` (default ``module.py``), which error messages and the model's name show.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
from typing import Any, Callable, List, Optional

# An installed package (pip install; docs/python.md) carries the shipped data (configs/arch, workloads) in data/:
# the native part finds it through TENET_COST_DATA, set here when the user has not set it.
_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
if not os.environ.get("TENET_COST_DATA") and os.path.isdir(os.path.join(_DATA, "configs", "arch")):
    os.environ["TENET_COST_DATA"] = _DATA

from . import _core  # noqa: E402 pylint: disable=wrong-import-position
from ._core import InputError, OptionKind  # noqa: E402 pylint: disable=wrong-import-position

__all__ = [
    "InputError",
    "cli",
    "compare",
    "estimate",
    "extract",
    "quant_list",
    "quant_schemes",
    "search",
    "sweep",
    "tenet",
    "tvm_pass",
]

# Options a function sets itself (the output format and file, the CLI's help flags).
_OWN = {"format", "output", "help", "help_all", "version", "list_commands"}


def cli(args: List[str]) -> str:
    """Run one command line (without the program name) and return its output text, in any format.

    ``tenet_cost.cli(["compare", "--format", "html"])`` is the report page ``tenet-cost compare --format html``
    prints. Raises :class:`InputError` for bad input or usage.
    """
    if isinstance(args, (str, bytes)):
        raise TypeError("cli() takes a list of arguments, e.g. ['compare', '--format', 'csv']")
    return _core.run([os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args])


@functools.lru_cache(maxsize=None)
def _options(path: tuple) -> dict:
    """The keyword arguments of a command: python name -> (flag, kind), from the CLI's own option table."""
    table = {}
    for flag, kind, positional, _help in _core.options(list(path)):
        if not positional:
            table[flag.lstrip("-").replace("-", "_")] = (flag, kind)
    return table


def _values(value: Any) -> List[str]:
    """The text items of one keyword value (a dict: KEY=VALUE items, a list's values joined by commas)."""
    if isinstance(value, dict):
        return [f"{k}={_joined(v)}" for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [_text(v) for v in value]
    return [_text(value)]


def _text(value: Any) -> str:
    if isinstance(value, bool):
        raise TypeError(f"{value!r} is not a value (True/False are for flags)")
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def _joined(value: Any) -> str:
    return ",".join(_text(v) for v in value) if isinstance(value, (list, tuple)) else _text(value)


def _argv(path: tuple, options: dict) -> List[str]:
    """The command line of a command path and its keyword arguments (flags in the CLI's --flag=value form)."""
    table = _options(path)
    argv = list(path)
    for key, value in options.items():
        if value is None:
            continue
        if key in _OWN or key not in table:
            known = ", ".join(sorted(set(table) - _OWN))
            raise TypeError(f"{'_'.join(path)}() got an unexpected keyword argument '{key}' (its options: {known})")
        flag, kind = table[key]
        if kind == OptionKind.flag:
            if not isinstance(value, bool):
                raise TypeError(f"{key}= is a flag: pass True or False, not {value!r}")
            if value:
                argv.append(flag)
        elif kind == OptionKind.repeated:
            argv += [f"{flag}={v}" for v in _values(value)]
        else:
            argv.append(f"{flag}={','.join(_values(value))}")
    return argv


class _Dump:
    """A dump argument as a path for the CLI: module text (or an IRModule's script()) is written to a private
    temporary folder under `name`, and that folder's prefix is taken out of messages and results."""

    def __init__(self, dump: Any, name: str):
        self.path: Optional[str] = None
        self._dir: Optional[str] = None
        if dump is None:
            return
        text = None
        script = getattr(dump, "script", None)
        if callable(script):
            text = script()
            if not isinstance(text, str):
                raise TypeError(f"{type(dump).__name__}.script() returned {type(text).__name__}, not str")
        elif isinstance(dump, os.PathLike):
            self.path = os.fspath(dump)
        elif isinstance(dump, str):
            if "\n" in dump:
                text = dump
            else:
                self.path = dump
        else:
            raise TypeError(
                f"a dump is a path, the module's text or an object with .script(), not {type(dump).__name__}")
        if text is not None:
            if not name or os.sep in name or name in (".", ".."):
                raise ValueError(f"name={name!r}: expected a file name such as 'module.py'")
            self._dir = tempfile.mkdtemp(prefix="tenet_cost-")
            self.path = os.path.join(self._dir, name)
            with open(self.path, "w", encoding="utf-8") as f:
                f.write(text)

    def shown(self, text: str) -> str:
        """`text` with the temporary folder's prefix removed (the file reads as `name`)."""
        return text.replace(self._dir + os.sep, "") if self._dir else text

    def close(self) -> None:
        if self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _run(path: tuple, dump: Any, name: str, options: dict, fmt: Optional[str] = "json") -> str:
    """Run a command (its --format fmt) on a dump; the output text, with a text dump shown under its name."""
    argv = _argv(path, options)
    if fmt is not None:
        argv.append(f"--format={fmt}")
    source = _Dump(dump, name)
    try:
        if source.path is not None:
            argv += ["--", source.path]  # after --: a path that starts with '-' stays a path
        try:
            return source.shown(_core.run(argv))
        except InputError as e:
            err = InputError(source.shown(str(e)))
            err.file, err.line, err.column, err.detail = source.shown(e.file), e.line, e.column, e.detail
            raise err from None
    finally:
        source.close()


def _json(path: tuple, dump: Any, name: str, options: dict) -> Any:
    return json.loads(_run(path, dump, name, options))


def estimate(dump: Any = None, *, name: str = "module.py", **options) -> dict:
    """`tenet-cost estimate`: per-workload and per-entry cost under one scheme (docs/estimate-formats.md).

    Without a dump: the shipped Llama-2-7B, or ``hf_config=`` / ``mlc_config=`` / ``gemm=[...]``.
    """
    return _json(("estimate",), dump, name, options)


def compare(dump: Any = None, *, name: str = "module.py", **options) -> dict:
    """`tenet-cost compare`: one row per quantization scheme (``quant=[...]``; docs/model.md)."""
    return _json(("compare",), dump, name, options)


def search(dump: Any = None, *, name: str = "module.py", **options) -> dict:
    """`tenet-cost search`: each scheme at its best dataflow, array and tiles, with the Pareto front."""
    return _json(("search",), dump, name, options)


def extract(dump: Any, *, name: str = "module.py", **options) -> dict:
    """`tenet-cost extract`: ``{"workloads": [...]}``, every GEMM / convolution with its shape, quantization and
    calls per entry (docs/extract.md); ``bind={"n": 2048}`` binds symbolic dims, ``entry=`` picks one entry."""
    if dump is None:
        raise TypeError("extract() needs a dump: a path, the module's text or an object with .script()")
    return _json(("extract",), dump, name, options)


def tenet(**options) -> dict:
    """`tenet-cost tenet`: every TENET metric of ``pe=``, ``statement=``, ``mapping=`` (or ``experiment=``)."""
    return _json(("tenet",), None, "", options)


def quant_schemes() -> list:
    """`tenet-cost quant list`: every known scheme with its operands (docs/quant.md)."""
    return _json(("quant", "list"), None, "", {})


quant_list = quant_schemes


_SWEEP_HEADER_FORMAT = "tenet-cost-sweep-results"  # the first line of a results file (docs/sweep.md)


def sweep(**options) -> list:
    """`tenet-cost sweep`: one dict per grid point (docs/sweep.md). With ``out=`` the results file is written
    (and resumed) as by the CLI, and all its points are returned. The results' header line (format tag and grid id,
    docs/sweep.md) is not a point and is left out."""
    text = _run(("sweep",), None, "", options, fmt="jsonl")
    out = options.get("out")
    if out is not None:
        with open(os.fspath(out), encoding="utf-8") as f:
            text = f.read()
    lines = (json.loads(line) for line in text.splitlines() if line.strip())
    return [line for line in lines if line.get("format") != _SWEEP_HEADER_FORMAT]


def tvm_pass(command: str = "estimate", **options) -> Callable[[Any], dict]:
    """An analysis hook for a TVM / MLC-LLM pipeline: a callable taking an IRModule (anything with ``.script()``)
    and returning the cost dict of ``command`` ("estimate", "compare", "search" or "extract") with these options.
    See tenet_cost.tvm for the ``tvm.transform.module_pass`` form (docs/python.md)."""
    from .tvm import analysis  # pylint: disable=import-outside-toplevel

    return analysis(command, **options)

