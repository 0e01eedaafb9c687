"""The README's whole loop, run as written: a model that first writes a
plan with a wrong tool name, then the corrected one after seeing the
diagnostics; the plan runs with Python tools."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Dict, List

README = Path(__file__).resolve().parents[1] / "README.md"

TOOLS_JSON = {
    "tools": [
        {
            "name": "kv.get",
            "inputSchema": {
                "type": "object",
                "properties": {"key": {"type": "string"}},
                "required": ["key"],
            },
            "outputSchema": {
                "type": "object",
                "properties": {"value": {"type": "string"}},
                "required": ["value"],
            },
            "annotations": {"readOnlyHint": True, "idempotentHint": True},
        },
        {
            "name": "kv.put",
            "inputSchema": {
                "type": "object",
                "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
                "required": ["key", "value"],
            },
            "outputSchema": {
                "type": "object",
                "properties": {"version": {"type": "integer"}},
                "required": ["version"],
            },
            "annotations": {"readOnlyHint": False, "destructiveHint": False},
        },
    ]
}
POLICY = """policy p {
    actor [kv:read, kv:write]
    kv.get requires [kv:read]
    kv.put requires [kv:write] approval human
}
"""


def the_loop() -> str:
    text = README.read_text()
    section = text[text.index("## The whole loop") :]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match
    code = match.group(1)
    assert len(code.strip().splitlines()) <= 20, "the loop is twenty lines"
    return code


def test_the_readme_loop_runs(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS_JSON))
    (tmp_path / "policy.plan").write_text(POLICY)
    plans = [
        {"name": "copy", "steps": [
            {"name": "read", "tool": "kv.gett", "args": {"key": "a"}, "binds": {"v": "$.value"}},
            {"name": "write", "tool": "kv.put", "args": {"key": "b", "value": "${v}"},
             "post": {"probe": "field_exists", "path": "$.version"}},
        ]},
    ]
    fixed = json.loads(json.dumps(plans[0]))
    fixed["steps"][0]["tool"] = "kv.get"
    plans.append(fixed)
    seen: List[Any] = []

    def ask_model(schema: Dict[str, Any], feedback: Any) -> str:
        assert schema["type"] == "function"
        seen.append(feedback)
        return json.dumps(plans[len(seen) - 1])

    store = {"a": "hello"}

    def put(key: str, value: str) -> Dict[str, Any]:
        store[key] = value
        return {"version": 1}

    tools = {"kv.get": lambda key: {"value": store[key]}, "kv.put": put}
    asked: List[str] = []
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        scope: Dict[str, Any] = {}
        exec(compile(the_loop(), str(README), "exec"), scope)
        code, progress = scope["plan_and_run"](ask_model, lambda s: asked.append(s) or True, tools)
    finally:
        os.chdir(cwd)
    assert seen[0] is None
    assert "E0101" in seen[1]  # the model saw the unknown tool, with a suggestion
    assert asked == ["write"]  # the policy puts kv.put under approval
    assert code == 0 and store["b"] == "hello"
    assert [s["status"] for s in progress["steps"]] == ["complete", "complete"]
    assert (tmp_path / "progress.json").is_file() and (tmp_path / "trace.jsonl").is_file()
