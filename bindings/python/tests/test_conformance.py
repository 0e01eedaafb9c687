"""The executor conformance suite (``conformance/``) run through
``planc.run`` with Python callables built from each case's recorded
responses: the same exit status, step statuses, failure kinds, artifacts
and trace as ``planc run``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict, List

import pytest

import planc
from conftest import cases, compile_case, recorded, run_kwargs, trace_lines


def outcome(result: planc.RunResult) -> Dict[str, Any]:
    steps = result.progress["steps"]
    return {
        "exit": result.exit_code,
        "steps": {s["name"]: s["status"] for s in steps},
        "failures": {s["name"]: s["failure"]["kind"] for s in steps if s.get("failure")},
        "artifacts": {
            k: v for s in steps if s["status"] == "complete" for k, v in s.get("binds", {}).items()
        },
    }


def expected(case: Path) -> Dict[str, Any]:
    e = json.loads((case / "expect.json").read_text())
    return {
        "exit": e["exit"],
        "steps": e["steps"],
        "failures": e.get("failures", {}),
        "artifacts": e["artifacts"],
    }


def same_up_to_interleaving(expected: List[str], actual: List[str], ir: Dict[str, Any]) -> None:
    """Concurrent steps may interleave: the same events, each step's own in
    order, the same last event, no step dispatched before its dependencies
    completed."""
    assert sorted(expected) == sorted(actual)
    assert expected[-1] == actual[-1]
    for step in ir["steps"]:
        name = step["name"]
        own = lambda lines: [l for l in lines if l.split(" ")[1:2] == [name]]  # noqa: E731
        assert own(expected) == own(actual), name
        if f"dispatch {name}" in actual:
            first = actual.index(f"dispatch {name}")
            for dep in step["depends_on"]:
                done = f"complete {dep['step']}"
                if done in actual:  # a step reused from the record has no event
                    assert actual.index(done) < first


def prepare(case: Path, tmp_path: Path) -> Path:
    progress = tmp_path / "progress.json"
    if (case / "progress.json").is_file():
        shutil.copy(case / "progress.json", progress)
    return progress


@pytest.mark.parametrize("case", cases(), ids=lambda p: p.name)
def refused(case: Path, progress: Path, run: Any) -> bool:
    """A case whose IR or approvals must not run (exit 2): ``planc.run``
    raises ``ValueError`` and writes nothing."""
    if expected(case)["exit"] != 2:
        return False
    with pytest.raises(ValueError):
        run()
    assert not progress.exists()
    return True


@pytest.mark.parametrize("case", cases(), ids=lambda p: p.name)
def test_case_sync(case: Path, tmp_path: Path) -> None:
    ir = compile_case(case)
    progress = prepare(case, tmp_path)
    rec = recorded(case)
    tools = rec.tools(sorted({s["tool"] for s in ir["steps"]}))
    go = lambda: planc.run(  # noqa: E731
        ir, tools, progress=progress, trace=tmp_path / "trace.jsonl", **run_kwargs(case, ir)
    )
    if refused(case, progress, go):
        return
    result = go()
    assert outcome(result) == expected(case)
    # Calls one at a time, results in source order: the trace of `planc run`.
    assert trace_lines(result.events) == json.loads((case / "expect.json").read_text())["trace"]
    # The files say what the result says.
    assert json.loads(progress.read_text()) == result.progress
    lines = (tmp_path / "trace.jsonl").read_text().splitlines()
    assert [json.loads(l) for l in lines] == result.events


@pytest.mark.parametrize("case", cases(), ids=lambda p: p.name)
def test_case_async(case: Path, tmp_path: Path) -> None:
    ir = compile_case(case)
    progress = prepare(case, tmp_path)
    rec = recorded(case)
    tools = rec.async_tools(sorted({s["tool"] for s in ir["steps"]}))
    go = lambda: planc.run(ir, tools, progress=progress, **run_kwargs(case, ir))  # noqa: E731
    if refused(case, progress, go):
        return
    result = go()
    assert outcome(result) == expected(case)
    same_up_to_interleaving(
        json.loads((case / "expect.json").read_text())["trace"], trace_lines(result.events), ir
    )


def test_the_suite_is_all_there() -> None:
    assert len(cases()) >= 25


def test_a_wrong_expectation_is_caught(tmp_path: Path) -> None:
    case = next(c for c in cases() if c.name == "northwind_completes")
    ir = compile_case(case)
    rec = recorded(case)
    result = planc.run(ir, rec.tools(sorted({s["tool"] for s in ir["steps"]})), **run_kwargs(case, ir))
    wrong = expected(case)
    wrong["exit"] = 3
    assert outcome(result) != wrong
