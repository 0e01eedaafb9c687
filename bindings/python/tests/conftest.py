"""Shared helpers: the repository's conformance cases, and Python tools
built from a case's recorded responses (its ``tools.json``)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

import planc

ROOT = Path(__file__).resolve().parents[3]
CONFORMANCE = ROOT / "conformance"


def cases() -> List[Path]:
    return sorted(p for p in CONFORMANCE.iterdir() if (p / "expect.json").is_file())


class Recorded:
    """A case's ``tools.json`` as Python callables: per tool, the recorded
    responses consumed in order, the first whose ``args`` (if any) match."""

    def __init__(self, path: Path) -> None:
        self.queues: Dict[str, List[Dict[str, Any]]] = {}
        for entry in json.loads(path.read_text()):
            self.queues.setdefault(entry["tool"], []).append(entry)
        self.calls: List[tuple] = []

    def answer(self, tool: str, args: Dict[str, Any]) -> Any:
        self.calls.append((tool, args))
        queue = self.queues.get(tool, [])
        for i, entry in enumerate(queue):
            if entry.get("args") is None or entry["args"] == args:
                del queue[i]
                if "error" in entry:
                    e = entry["error"]
                    raise planc.ToolError(e["code"], e["retryable"])
                return entry["result"]
        raise planc.ToolError("fixture_exhausted", False)

    def tools(self, names: List[str]) -> Dict[str, Callable[..., Any]]:
        return {n: (lambda n: lambda **kw: self.answer(n, kw))(n) for n in names}

    def async_tools(self, names: List[str]) -> Dict[str, Callable[..., Any]]:
        def make(n: str) -> Callable[..., Any]:
            async def call(**kw: Any) -> Any:
                return self.answer(n, kw)

            return call

        return {n: make(n) for n in names}


def compile_case(case: Path) -> Dict[str, Any]:
    c = planc.Compiler(catalog=[Path(case / "tools.plan")], policy=Path(case / "policy.plan"))
    assert c.diagnostics == [], c.diagnostics
    checked = c.check((case / "plan.plan").read_text(), kind="plan")
    assert checked.ok, checked.render("short")
    ir = checked.ir
    assert ir is not None
    return ir


def approvals(case: Path) -> Optional[List[str]]:
    p = case / "approvals.json"
    return json.loads(p.read_text()) if p.is_file() else None


def trace_lines(events: List[Dict[str, Any]]) -> List[str]:
    return [
        f"stop {e['reason']}" if e["event"] == "stop" else f"{e['event']} {e['step']}"
        for e in events
    ]


def planc_bin() -> Optional[str]:
    """The `planc` binary for comparisons with the command line:
    ``PLANC_BIN``, else the repository's debug build, else one on PATH."""
    env = os.environ.get("PLANC_BIN")
    if env:
        return env
    built = ROOT / "target" / "debug" / "planc"
    if built.is_file():
        return str(built)
    return shutil.which("planc")


@pytest.fixture
def cli() -> str:
    exe = planc_bin()
    if exe is None:
        pytest.skip("no planc binary (set PLANC_BIN or build the repository)")
    return exe
