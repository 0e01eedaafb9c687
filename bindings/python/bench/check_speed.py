"""The in-process check beside a schema-only validation and plain parsing.

One 10-step JSON plan (the Northwind downgrade and four more reads) checked
against the Northwind catalogue and policy, loaded once:

- ``planc``: ``Compiler.check`` — parse, names, types, references, the
  policy's scopes and ceilings, the IR; its diagnostics and IR as dicts;
- ``pydantic``: ``Plan.model_validate_json`` of a model of the plan's shape
  (schema only: no reference, no catalogue, no policy);
- ``json.loads`` of the same text.

Run: ``python bench/check_speed.py`` (after ``pip install ./bindings/python
pydantic``). Prints the time per call of each, in microseconds, and its ratio to
``json.loads``. ``python bench/check_speed.py --count OP CALLS`` (OP: loads,
pydantic, check, check_ir) makes the calls untimed, for instruction counts.
"""

from __future__ import annotations

import json
import statistics
import sys
import timeit
from pathlib import Path
from typing import Any, Dict, List, Literal, Optional, Union

import planc

ROOT = Path(__file__).resolve().parents[3]
NORTHWIND = ROOT / "examples" / "northwind"


def ten_step_plan() -> str:
    plan = json.loads((NORTHWIND / "downgrade.plan.json").read_text())
    for i, day in enumerate(["2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08"]):
        plan["steps"].append(
            {
                "name": f"check_{i}",
                "tool": "billing.get_subscription",
                "args": {"account_id": "${account_id}", "as_of": day},
                "post": {"probe": "field_exists", "path": "$.id"},
                "after": ["change"],
            }
        )
    assert len(plan["steps"]) == 10
    return json.dumps(plan, indent=2)


try:
    from pydantic import BaseModel, ConfigDict
except ImportError:  # pragma: no cover - the benchmark says so
    BaseModel = None  # type: ignore[assignment,misc]


def pydantic_model() -> Any:
    class Probe(BaseModel):  # type: ignore[misc,valid-type]
        model_config = ConfigDict(extra="forbid")
        probe: Literal[
            "result_count", "field_equals", "field_in", "field_compare", "field_exists"
        ]
        path: str
        equals: Optional[int] = None
        value: Optional[Union[str, float, bool]] = None
        values: Optional[List[Union[str, float]]] = None
        op: Optional[Literal["==", "!=", "<", "<=", ">", ">="]] = None

    class Step(BaseModel):  # type: ignore[misc,valid-type]
        model_config = ConfigDict(extra="forbid")
        n: Optional[int] = None
        name: str
        tool: str
        args: Dict[str, Any]
        post: Optional[Probe] = None
        binds: Dict[str, str] = {}
        on_unmet: Optional[Literal["halt", "replan", "escalate"]] = None
        after: List[str] = []
        retry: Optional[int] = None

    class Budget(BaseModel):  # type: ignore[misc,valid-type]
        replans: int

    class Plan(BaseModel):  # type: ignore[misc,valid-type]
        model_config = ConfigDict(extra="forbid")
        name: str
        goal: str
        budget: Optional[Budget] = None
        steps: List[Step]

    return Plan


def timed_us(fn: Any, number: int) -> "tuple[float, float]":
    """(best, median) time per call over 9 runs of ``number`` calls: on a
    busy machine the best run is the better estimate of the cost."""
    runs = [r / number * 1e6 for r in timeit.repeat(fn, number=number, repeat=9)]
    return (min(runs), statistics.median(runs))


def count_mode(text: str, compiler: planc.Compiler, op: str, calls: int) -> None:
    """One operation ``calls`` times, untimed: run under
    ``valgrind --tool=callgrind`` with 200 calls and with 0, the difference
    over 200 is the instructions of one call, whatever the machine's load."""
    ops = {
        "loads": lambda: json.loads(text),
        "check": lambda: compiler.check(text).errors,
        "check_ir": lambda: compiler.check(text).ir,
    }
    if BaseModel is not None:
        Plan = pydantic_model()
        ops["pydantic"] = lambda: Plan.model_validate_json(text)
    fn = ops[op]
    fn()
    for _ in range(calls):
        fn()


def main() -> None:
    text = ten_step_plan()
    compiler = planc.Compiler(
        catalog=[NORTHWIND / "tools.plan"], policy=NORTHWIND / "policy.plan"
    )
    checked = compiler.check(text)
    assert checked.ok, checked.render("short")
    if len(sys.argv) == 4 and sys.argv[1] == "--count":
        count_mode(text, compiler, sys.argv[2], int(sys.argv[3]))
        return
    rows = [
        ("planc Compiler.check, diagnostics", timed_us(lambda: compiler.check(text).errors, 300)),
        ("planc Compiler.check, diagnostics + IR dict", timed_us(lambda: compiler.check(text).ir, 300)),
    ]
    if BaseModel is not None:
        Plan = pydantic_model()
        Plan.model_validate_json(text)
        rows.append(("pydantic model_validate_json (shape only)", timed_us(lambda: Plan.model_validate_json(text), 2000)))
    else:
        print("pydantic is not installed: its row is left out", file=sys.stderr)
    rows.append(("json.loads", timed_us(lambda: json.loads(text), 2000)))
    print(f"10-step JSON plan, {len(text)} bytes; time per call (best of 9 runs, median)")
    base = rows[-1][1][0]
    for name, (best, median) in rows:
        print(f"  {name:<48} {best:8.1f} us {median:8.1f} us {best / base:6.1f}x json.loads")


if __name__ == "__main__":
    main()
