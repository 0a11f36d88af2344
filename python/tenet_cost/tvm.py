"""TVM / MLC-LLM analysis hooks: price the IRModule a compiler pipeline holds (docs/python.md).

Importing this module never imports tvm:

- ``analysis(command, **options)`` (also ``tenet_cost.tvm_pass``) returns a plain callable ``price(mod) -> dict``
  for anything with ``.script()`` (a TVM ``IRModule``): usable inside any pass, instrument or notebook.
- ``CostReport(command="estimate", out=None, **options)`` is a ``tvm.transform.module_pass`` that prices the
  module it is given, keeps the result in ``.report`` (and writes it to ``out`` as JSON when given) and returns
  the module unchanged. It is defined on first use, by importing tvm then; without tvm, using it raises
  ImportError. Place it after MLC's phase-3 or phase-4 dump (``_DebugDump("debug-phase3.py", ...)``): the
  module then still has its Relax entries (prefill, decode, ...) calling TIR kernels, which is what the
  extractor reads (after phase 5 the calls are lowered to the VM).
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

_COMMANDS = ("estimate", "compare", "search", "extract")


def analysis(command: str = "estimate", *, name: str = "module.py", **options) -> Callable[[Any], dict]:
    """A callable pricing one module (an object with ``.script()``, or a dump's path or text) by ``command``
    with ``options`` (the keyword arguments of tenet_cost.estimate / compare / search / extract)."""
    import tenet_cost  # pylint: disable=import-outside-toplevel (the package imports this module lazily)

    if command not in _COMMANDS:
        raise ValueError(f"command={command!r}: expected one of {', '.join(_COMMANDS)}")
    tenet_cost._argv((command,), options)  # pylint: disable=protected-access (an unknown keyword fails here, early)
    run = getattr(tenet_cost, command)

    def price(mod: Any) -> dict:
        return run(mod, name=name, **options)

    price.__doc__ = f"tenet_cost.{command}(mod, {', '.join(f'{k}={v!r}' for k, v in options.items())})"
    return price


def _cost_report_class():
    try:
        import tvm  # pylint: disable=import-outside-toplevel
    except ImportError as e:
        raise ImportError(
            "tenet_cost.tvm.CostReport is a tvm.transform.module_pass and needs tvm; without tvm, price "
            "mod.script() text with tenet_cost.tvm.analysis(...) or the --debug-dump files with tenet_cost.estimate"
        ) from e

    @tvm.transform.module_pass(opt_level=0, name="tenet_cost.CostReport")
    class CostReport:  # pylint: disable=too-few-public-methods
        """Prices the module it is given (``command`` with ``options``; see tenet_cost.tvm.analysis), keeps the
        result in ``.report``, writes it to ``out`` as JSON when given, and returns the module unchanged."""

        def __init__(self, command: str = "estimate", out: Any = None, **options):
            self._price = analysis(command, **options)
            self.out = out
            self.report = None

        def transform_module(self, mod, _ctx):
            """The analysis: the module is not changed."""
            self.report = self._price(mod)
            if self.out is not None:
                with open(os.fspath(self.out), "w", encoding="utf-8") as f:
                    json.dump(self.report, f, indent=2, sort_keys=True)
                    f.write("\n")
            return mod

    return CostReport


def __getattr__(attr: str):
    if attr == "CostReport":
        cls = _cost_report_class()
        globals()["CostReport"] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
