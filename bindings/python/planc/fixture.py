"""Recorded tool responses as Python tools: the ``fixture:FILE`` format of
``planc run`` (a JSON list of ``{"tool", "args"?, "result"}`` or ``{"tool",
"args"?, "error": {"code", "retryable", "message"?}}``).

The file is read and each call matched by the library's own fixture
backend, the one ``planc run --tools fixture:FILE`` uses: a malformed file
is refused with every problem's line, column and pointer, and a call gets
the first unused entry of its tool whose ``args`` (when given) are the
call's as exact JSON values (numbers by value, digit for digit: ``500.10``
is ``500.1``, never ``500.1000000001``); a call no entry matches fails with
``fixture_exhausted``. The tools take their arguments exactly
(:func:`planc.exact`) and return results with ``decimal.Decimal`` numbers,
so nothing passes through binary floating point. For tests, dry runs and
replays::

    recorded = planc.fixture.Recorded.load("tools.json")
    planc.run(ir, recorded.tools())
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple, Union

from . import ToolError, _dumps, _loads_exact, _planc, exact

__all__ = ["Recorded"]


class Recorded:
    """The responses of a fixture file, consumed in order per tool."""

    def __init__(self, entries: List[Dict[str, Any]]) -> None:
        self._native = _planc.Fixture(_dumps(entries))
        #: Every call made, in order: ``(tool, args)``.
        self.calls: List[Tuple[str, Dict[str, Any]]] = []

    @classmethod
    def from_text(cls, text: str) -> "Recorded":
        """A fixture file's text; ``ValueError`` listing what is wrong."""
        recorded = cls.__new__(cls)
        recorded._native = _planc.Fixture(text)
        recorded.calls = []
        return recorded

    @classmethod
    def load(cls, path: Union[str, Path]) -> "Recorded":
        try:
            return cls.from_text(Path(path).read_text(encoding="utf-8"))
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None

    def answer(self, tool: str, args: Dict[str, Any]) -> Any:
        """The next recorded response of ``tool`` for ``args``."""
        self.calls.append((tool, args))
        ok, text, message, retryable = self._native.answer(tool, _dumps(args))
        if ok:
            return _loads_exact(text)
        raise ToolError(text, retryable, message)

    def tools(self, names: Union[List[str], None] = None) -> Dict[str, Callable[..., Any]]:
        """A sync callable per tool (``names``, or every recorded tool)."""

        def make(name: str) -> Callable[..., Any]:
            def call(**kw: Any) -> Any:
                return self.answer(name, kw)

            return exact(call)

        return {n: make(n) for n in (names if names is not None else self._native.tools())}

    def async_tools(self, names: Union[List[str], None] = None) -> Dict[str, Callable[..., Any]]:
        """An async callable per tool."""

        def make(name: str) -> Callable[..., Any]:
            async def call(**kw: Any) -> Any:
                return self.answer(name, kw)

            return exact(call)

        return {n: make(n) for n in (names if names is not None else self._native.tools())}
