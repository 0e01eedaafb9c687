"""The in-process check beside a schema-only validation and plain parsing.

One 10-step JSON plan (the Northwind downgrade and four more reads) checked
against the Northwind catalogue and policy, loaded once:

- ``planc``: ``Compiler.check`` — parse, names, types, references, the
  policy's scopes and ceilings, the IR; its diagnostics and IR as dicts;
- ``pydantic``: ``Plan.model_validate_json`` of a model of the plan's shape
  (schema only: no reference, no catalogue, no policy);
- ``json.loads`` of the same text.

Run: ``python bench/check_speed.py`` (after ``pip install ./bindings/python
pydantic``). Prints the median time per call of each, in microseconds.
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


def median_us(fn: Any, number: int) -> float:
    runs = timeit.repeat(fn, number=number, repeat=7)
    return statistics.median(runs) / number * 1e6


def main() -> None:
    text = ten_step_plan()
    compiler = planc.Compiler(
        catalog=[NORTHWIND / "tools.plan"], policy=NORTHWIND / "policy.plan"
    )
    checked = compiler.check(text)
    assert checked.ok, checked.render("short")
    rows = [
        ("planc Compiler.check (diagnostics + IR dict)", median_us(lambda: compiler.check(text).ir, 200)),
        ("planc Compiler.check (diagnostics only)", median_us(lambda: compiler.check(text).errors, 200)),
    ]
    if BaseModel is not None:
        Plan = pydantic_model()
        Plan.model_validate_json(text)
        rows.append(("pydantic model_validate_json (shape only)", median_us(lambda: Plan.model_validate_json(text), 2000)))
    else:
        print("pydantic is not installed: its row is left out", file=sys.stderr)
    rows.append(("json.loads", median_us(lambda: json.loads(text), 2000)))
    print(f"10-step JSON plan, {len(text)} bytes; median per call")
    for name, us in rows:
        print(f"  {name:<48} {us:10.1f} us")


if __name__ == "__main__":
    main()
