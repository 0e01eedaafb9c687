#!/usr/bin/env python3
"""pydantic v2 on planc's benchmark plans: the comparison docs/performance.md
reports beside `cargo bench --bench agent_loop`.

A pydantic model of the JSON plan's shape (docs/json.md: name, goal, budget,
steps with their tool, arguments, pre and post probes, binds, `after`,
retry and `on_unmet`) validates each plan with `model_validate_json`; `json.loads` of
the same text is timed beside it. pydantic checks the shape only: no
catalogue, no references between steps, no policy.

    PLANC_BENCH_EMIT=DIR cargo bench --bench agent_loop   # writes DIR/plan_N.json
    python3 benches/pydantic_compare.py DIR               # the table
    python3 benches/pydantic_compare.py --smoke           # CI: validate the
        # bundled examples' JSON plans once each, no timing

Prints median microseconds per call and pydantic / json.loads.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Budget(Closed):
    replans: Optional[int] = None
    max_steps: Optional[int] = None


Op = Literal["<", "<=", ">", ">=", "==", "!="]


class ResultCount(Closed):
    probe: Literal["result_count"]
    path: Optional[str] = None
    equals: Optional[int] = None
    op: Optional[Op] = None
    value: Optional[int] = None


class FieldExists(Closed):
    probe: Literal["field_exists"]
    path: str


class FieldEquals(Closed):
    probe: Literal["field_equals"]
    path: str
    value: Any


class FieldIn(Closed):
    probe: Literal["field_in", "field_not_in"]
    path: str
    values: list[Any]


class FieldCompare(Closed):
    probe: Literal["field_compare"]
    path: str
    op: Op
    value: Any


class Contains(Closed):
    probe: Literal["contains"]
    path: str
    value: Any


Post = Annotated[
    Union[ResultCount, FieldExists, FieldEquals, FieldIn, FieldCompare, Contains],
    Field(discriminator="probe"),
]


class Step(Closed):
    n: Optional[int] = None
    name: Optional[str] = None
    tool: str
    args: dict[str, Any] = {}
    pre: Optional[Union[Post, list[Post]]] = None
    post: Optional[Union[Post, list[Post]]] = None
    binds: Optional[dict[str, str]] = None
    after: Optional[list[str]] = None
    retry: Optional[int] = None
    on_unmet: Optional[Literal["replan", "halt", "escalate"]] = None


class Plan(BaseModel):
    # The bundled examples carry keys this model does not list (approval,
    # untrusted markers): the benchmark plans use only the ones above.
    model_config = ConfigDict(extra="allow")
    name: Optional[str] = None
    goal: Optional[str] = None
    budget: Optional[Budget] = None
    steps: list[Step]


def median_us(fn, text: str) -> float:
    start = time.perf_counter()
    fn(text)
    once = time.perf_counter() - start
    runs = int(min(20_000, max(3, 1.0 / max(once, 1e-7))))
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn(text)
        samples.append((time.perf_counter() - t) * 1e6)
    return statistics.median(samples)


def table(folder: Path) -> int:
    plans = sorted(
        folder.glob("plan_*.json"),
        key=lambda p: int(re.sub(r"\D", "", p.stem) or 0),
    )
    if not plans:
        print(f"no plan_N.json in {folder}", file=sys.stderr)
        return 2
    print(f"pydantic {__import__('pydantic').VERSION}; median microseconds per call")
    print("| steps | JSON bytes | json.loads | pydantic model_validate_json | pydantic / json.loads |")
    print("|---:|---:|---:|---:|---:|")
    for path in plans:
        text = path.read_text()
        plan = Plan.model_validate_json(text)
        loads = median_us(json.loads, text)
        validate = median_us(Plan.model_validate_json, text)
        print(
            f"| {len(plan.steps)} | {len(text.encode())} | {loads:.1f} | {validate:.1f} | {validate / loads:.2f} |"
        )
    return 0


def smoke(root: Path) -> int:
    """Validates the bundled JSON plans: the model fits the real shape."""
    found = sorted(root.glob("examples/*/*.plan.json"))
    if not found:
        print("no examples/*/*.plan.json found", file=sys.stderr)
        return 2
    for path in found:
        plan = Plan.model_validate_json(path.read_text())
        print(f"{path.relative_to(root)}: {len(plan.steps)} steps")
    return 0


def main(argv: list[str]) -> int:
    if argv[1:] == ["--smoke"]:
        return smoke(Path(__file__).resolve().parent.parent)
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    return table(Path(argv[1]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
