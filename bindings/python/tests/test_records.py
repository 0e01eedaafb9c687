"""Every driver reads a progress record through the library's one reader
(``planc::progress::read``), so a malformed record is refused by each with
the reader's diagnostic — the one ``planc check`` reports with its code —
and nothing runs: ``planc run``, ``planc.run``, ``planc.run_async`` and
``python -m planc`` (sync and async). The Temporal workflow's starter takes
the record through the same ``_planc.Machine`` (tests/test_temporal.py)."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest

import planc
from conftest import CONFORMANCE, compile_case, recorded, run_kwargs

CASE = CONFORMANCE / "bind_missing_fails_the_step"


def valid_record() -> Dict[str, Any]:
    """The record a run of the case writes (two steps, one failed)."""
    ir = compile_case(CASE)
    rec = recorded(CASE)
    names = sorted({s["tool"] for s in ir["steps"]})
    result = planc.run(ir, rec.tools(names), **run_kwargs(CASE, ir))
    assert len(result.progress["steps"]) == 2
    return result.progress


def duplicated_step(r: Dict[str, Any]) -> None:
    r["steps"].insert(1, copy.deepcopy(r["steps"][0]))


def unknown_status(r: Dict[str, Any]) -> None:
    r["steps"][1]["status"] = "paused"


def future_version(r: Dict[str, Any]) -> None:
    r["progress_version"] = "9.0"


MALFORMED: List[Tuple[str, Callable[[Dict[str, Any]], None], str]] = [
    ("duplicated_step", duplicated_step, "E0603"),
    ("unknown_status", unknown_status, "E0601"),
    ("future_version", future_version, "E0602"),
]


def the_readers_diagnostic(cli: str, record: Path) -> Dict[str, Any]:
    """``planc check``'s first diagnostic of the record."""
    out = subprocess.run(
        [cli, "check", "--format", "json", str(record)], capture_output=True, text=True
    )
    assert out.returncode == 1, out.stderr
    diagnostics = json.loads(out.stdout)["diagnostics"]
    assert diagnostics, out.stdout
    first: Dict[str, Any] = diagnostics[0]
    return first


@pytest.mark.parametrize("name,malform,code", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_every_driver_refuses_a_malformed_record_with_the_readers_diagnostic(
    cli: str, tmp_path: Path, name: str, malform: Callable[[Dict[str, Any]], None], code: str
) -> None:
    record = valid_record()
    malform(record)
    path = tmp_path / "progress.json"
    text = json.dumps(record, indent=2)
    path.write_text(text)
    diagnostic = the_readers_diagnostic(cli, path)
    assert diagnostic["code"] == code, diagnostic
    message = diagnostic["message"]

    ir = compile_case(CASE)
    rec = recorded(CASE)
    names = sorted({s["tool"] for s in ir["steps"]})
    kwargs = run_kwargs(CASE, ir)
    refusals: Dict[str, str] = {}

    # planc run: exit 2 before anything runs, the record untouched.
    out = subprocess.run(
        [cli, "run", "plan.plan", "--progress", str(path), "--tools", "fixture:tools.json"],
        cwd=CASE, capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 2, out.stderr
    refusals["planc run"] = out.stderr

    with pytest.raises(ValueError) as sync:
        planc.run(ir, rec.tools(names), progress=path, **kwargs)
    refusals["planc.run"] = str(sync.value)
    with pytest.raises(ValueError) as not_sync:
        asyncio.run(planc.run_async(ir, rec.async_tools(names), progress=path, **kwargs))
    refusals["planc.run_async"] = str(not_sync.value)

    ir_file = tmp_path / "ir.json"
    ir_file.write_text(json.dumps(ir))
    for mode in ([], ["--async"]):
        out = subprocess.run(
            [sys.executable, "-m", "planc", *mode, "run", str(ir_file),
             "--tools", f"fixture:{CASE / 'tools.json'}", "--progress", str(path),
             "--catalog", str(CASE / "tools.plan"), "--policy", str(CASE / "policy.plan")],
            capture_output=True, text=True,
        )  # fmt: skip
        assert out.returncode == 2, out.stderr
        refusals[" ".join(["python -m planc", *mode])] = out.stderr

    for driver, said in refusals.items():
        assert "not a progress record" in said, f"{driver}: {said}"
        assert message in said, f"{driver} does not say the reader's {code} ({message!r}): {said}"
    assert path.read_text() == text, "a driver wrote over the malformed record"
    assert rec.calls == [], f"a driver called a tool: {rec.calls}"
