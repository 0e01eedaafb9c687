"""Recorded tool responses as Python tools: the ``fixture:FILE`` format of
``planc run`` (a JSON list of ``{"tool", "args"?, "result"}`` or ``{"tool",
"args"?, "error": {"code", "retryable", "message"?}}``).

A call gets the first unused entry of its tool whose ``args`` (when given)
equal the call's; a call no entry matches fails with ``fixture_exhausted``.
For tests, dry runs and replays::

    recorded = planc.fixture.Recorded.load("tools.json")
    planc.run(ir, recorded.tools())
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple, Union

from . import ToolError

__all__ = ["Recorded"]


class Recorded:
    """The responses of a fixture file, consumed in order per tool."""

    def __init__(self, entries: List[Dict[str, Any]]) -> None:
        self.queues: Dict[str, List[Dict[str, Any]]] = {}
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or not isinstance(entry.get("tool"), str):
                raise ValueError(f"entry {i}: expected an object with a `tool` name")
            if ("result" in entry) == ("error" in entry):
                raise ValueError(f"entry {i}: an entry has `result` or `error`, not both")
            self.queues.setdefault(entry["tool"], []).append(entry)
        #: Every call made, in order: ``(tool, args)``.
        self.calls: List[Tuple[str, Dict[str, Any]]] = []

    @classmethod
    def load(cls, path: Union[str, Path]) -> "Recorded":
        entries = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(entries, list):
            raise ValueError(f"{path}: expected a JSON list of recorded responses")
        return cls(entries)

    def answer(self, tool: str, args: Dict[str, Any]) -> Any:
        """The next recorded response of ``tool`` for ``args``."""
        self.calls.append((tool, args))
        queue = self.queues.get(tool, [])
        for i, entry in enumerate(queue):
            if entry.get("args") is None or entry["args"] == args:
                del queue[i]
                if "error" in entry:
                    e = entry["error"]
                    raise ToolError(e["code"], bool(e["retryable"]), e.get("message"))
                return entry["result"]
        raise ToolError(
            "fixture_exhausted",
            False,
            f"the fixture has no response left for `{tool}` with arguments {json.dumps(args)}",
        )

    def tools(self, names: Union[List[str], None] = None) -> Dict[str, Callable[..., Any]]:
        """A sync callable per tool (``names``, or every recorded tool)."""

        def make(name: str) -> Callable[..., Any]:
            return lambda **kw: self.answer(name, kw)

        return {n: make(n) for n in (names if names is not None else list(self.queues))}

    def async_tools(self, names: Union[List[str], None] = None) -> Dict[str, Callable[..., Any]]:
        """An async callable per tool."""

        def make(name: str) -> Callable[..., Any]:
            async def call(**kw: Any) -> Any:
                return self.answer(name, kw)

            return call

        return {n: make(n) for n in (names if names is not None else list(self.queues))}
