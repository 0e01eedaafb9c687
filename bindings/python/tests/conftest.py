"""Shared helpers: the repository's conformance cases, and Python tools
built from a case's recorded responses (its ``tools.json``)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

import planc
from planc.fixture import Recorded

ROOT = Path(__file__).resolve().parents[3]
CONFORMANCE = ROOT / "conformance"


def cases() -> List[Path]:
    return sorted(p for p in CONFORMANCE.iterdir() if (p / "expect.json").is_file())


def recorded(case: Path) -> Recorded:
    return Recorded.load(case / "tools.json")


def compile_case(case: Path) -> Dict[str, Any]:
    """The IR a case runs: its ``plan.plan`` or ``plan.json`` compiled here,
    or its ``ir.json`` as it stands (the order of the suite's Rust runner)."""
    if not (case / "plan.plan").is_file() and not (case / "plan.json").is_file():
        ir_file = case / "ir.json"
        assert ir_file.is_file(), f"{case}: no plan.plan, plan.json or ir.json"
        loaded: Dict[str, Any] = json.loads(ir_file.read_text())
        return loaded
    c = planc.Compiler(catalog=[Path(case / "tools.plan")], policy=Path(case / "policy.plan"))
    assert c.diagnostics == [], c.diagnostics
    if (case / "plan.plan").is_file():
        checked = c.check((case / "plan.plan").read_text(), kind="plan")
    else:
        checked = c.check((case / "plan.json").read_text(), kind="json")
    assert checked.ok, checked.render("short")
    ir = checked.ir
    assert ir is not None
    return ir


def approvals(case: Path) -> Optional[List[str]]:
    """The approved steps of a case (a list, or an approvals file's
    ``steps``)."""
    p = case / "approvals.json"
    if not p.is_file():
        return None
    loaded = json.loads(p.read_text())
    return list(loaded["steps"]) if isinstance(loaded, dict) else list(loaded)


def case_compiler(case: Path) -> planc.Compiler:
    return planc.Compiler(catalog=[Path(case / "tools.plan")], policy=Path(case / "policy.plan"))


def run_kwargs(case: Path, ir: Dict[str, Any]) -> Dict[str, Any]:
    """What ``planc.run`` takes beside the IR of a case: the approvals, the
    compiler the IR (a dict) is verified against, and the fingerprint the
    approvals name (an approvals file's, else the IR's own)."""
    p = case / "approvals.json"
    loaded = json.loads(p.read_text()) if p.is_file() else None
    fingerprint = loaded["fingerprint"] if isinstance(loaded, dict) else ir.get("fingerprint")
    return {
        "approve": approvals(case),
        "compiler": case_compiler(case),
        "fingerprint": fingerprint,
    }


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
        if os.environ.get("PLANC_REQUIRE_CLI"):
            pytest.fail("PLANC_REQUIRE_CLI is set but there is no planc binary")
        pytest.skip("no planc binary (set PLANC_BIN or build the repository)")
    return exe
