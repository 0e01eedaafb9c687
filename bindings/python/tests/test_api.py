"""The Python API (`bindings/python/README.md`): checking, diagnostics equal to the
command line's, schema, diff, invalidate, and running with Python tools."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

import planc
from conftest import ROOT

NORTHWIND = ROOT / "examples" / "northwind"
CONFIG_DAG = ROOT / "examples" / "config_dag"

TOOLS = """\
tool kv.get(key: string) -> { value: string } read idempotent
tool kv.put(key: string, value: string) -> { version: int } write
"""
POLICY = """\
policy p {
    actor [kv:read, kv:write]
    kv.get requires [kv:read]
    kv.put requires [kv:write]
}
"""
PLAN = {
    "name": "copy",
    "goal": "copy a value",
    "steps": [
        {"name": "a", "tool": "kv.get", "args": {"key": "src"}, "binds": {"v": "$.value"}},
        {"name": "b", "tool": "kv.get", "args": {"key": "other"}, "binds": {"w": "$.value"}},
        {
            "name": "put",
            "tool": "kv.put",
            "args": {"key": "dst", "value": "${v}"},
            "post": {"probe": "field_exists", "path": "$.version"},
        },
    ],
}


@pytest.fixture(scope="module")
def compiler() -> planc.Compiler:
    return planc.Compiler(catalog=[TOOLS], policy=POLICY)


@pytest.fixture(scope="module")
def ir(compiler: planc.Compiler) -> Dict[str, Any]:
    checked = compiler.check(json.dumps(PLAN))
    assert checked.ok, checked.render("short")
    assert checked.ir is not None
    return checked.ir


# The IR as a dict is verified against the catalogue and policy it must
# keep, with approvals naming its fingerprint (`planc.run`'s rule for an IR
# not compiled in the same call): these helpers pass both.
_COMPILER = planc.Compiler(catalog=[TOOLS], policy=POLICY)


def _verified(ir: Any, kw: Dict[str, Any]) -> Dict[str, Any]:
    if not isinstance(ir, planc.CheckResult):
        kw.setdefault("compiler", _COMPILER)
        if kw.get("approve") and isinstance(ir, dict):
            kw.setdefault("fingerprint", ir["fingerprint"])
    return kw


def run(ir: Any, tools: Any, **kw: Any) -> planc.RunResult:
    return planc.run(ir, tools, **_verified(ir, kw))


async def run_async(ir: Any, tools: Any, **kw: Any) -> planc.RunResult:
    return await planc.run_async(ir, tools, **_verified(ir, kw))


# ------------------------------------------------------------------ check


def test_a_clean_plan_gives_its_ir(compiler: planc.Compiler, ir: Dict[str, Any]) -> None:
    assert compiler.diagnostics == []
    assert ir["ir_version"] == planc.IR_VERSION
    assert [s["name"] for s in ir["steps"]] == ["a", "b", "put"]


def test_the_extension_says_how_it_was_built():
    import planc._planc as ext

    assert ext.BUILD_PROFILE in ("debug", "release")

def test_errors_are_diagnostics_with_pointers(compiler: planc.Compiler) -> None:
    bad = json.loads(json.dumps(PLAN))
    bad["steps"][0]["tool"] = "kv.gte"
    checked = compiler.check(json.dumps(bad), kind="json")
    assert not checked.ok
    assert checked.errors == 1
    assert checked.ir is None
    [d] = [d for d in checked.diagnostics if d["severity"] == "error"]
    assert d["code"] == "E0101"
    assert d["severity"] == "error"
    assert d["pointer"] == "/steps/0/tool"
    assert "kv.get" in json.dumps(d)  # the suggestion
    assert "E0101" in checked.render("human")
    assert checked.render("short").count("E0101") == 1
    assert json.loads(checked.render("json"))["diagnostics"] == checked.diagnostics


def test_the_plan_language_too(compiler: planc.Compiler) -> None:
    text = 'plan p "x" {\n    step s = kv.get(key: "k") {\n        bind v = $.value\n    }\n}\n'
    checked = compiler.check(text, kind="plan")
    assert checked.ok, checked.render("short")
    with pytest.raises(ValueError):
        compiler.check(text, kind="yaml")


def test_catalogue_problems_are_the_compilers_diagnostics() -> None:
    c = planc.Compiler(catalog=[TOOLS + "tool kv.get(key: string) -> { v: int } read\n"], policy=POLICY)
    config = [d for d in c.diagnostics if d["severity"] == "error"]
    assert config
    checked = c.check(json.dumps(PLAN))
    assert not checked.ok
    # Each result carries what made it fail, first, and renders it.
    assert checked.diagnostics[: len(config)] == config
    assert checked.errors >= len(config)
    assert config[0]["code"] in checked.render("short")


def test_lenient_reads_a_plan_inside_a_models_reply(compiler: planc.Compiler) -> None:
    reply = "Here is the plan:\n```json\n" + json.dumps(PLAN) + "\n```\nLet me know."
    assert not compiler.check(reply).ok
    checked = compiler.check(reply, lenient=True)
    assert checked.ok, checked.render("short")
    alone = compiler.check(json.dumps(PLAN)).diagnostics
    extra = [d for d in checked.diagnostics if d["code"] == "W0509"]
    assert len(extra) == 1 and len(checked.diagnostics) == len(alone) + 1
    assert "Markdown code fence" in extra[0]["message"]
    assert extra[0]["line"] == 3  # the object's line in the reply
    # A plan alone is read as it is: no warning.
    assert compiler.check(json.dumps(PLAN), lenient=True).diagnostics == alone


def test_a_policy_that_does_not_parse_fails_each_check_with_its_errors() -> None:
    c = planc.Compiler(catalog=[TOOLS], policy="policy p {\n    actor [kv:read\n}\n")
    codes = [d["code"] for d in c.diagnostics if d["severity"] == "error"]
    assert codes
    for _ in range(2):
        checked = c.check(json.dumps(PLAN))
        assert not checked.ok and checked.ir is None
        assert [d["code"] for d in checked.diagnostics][: len(codes)] == codes


def test_an_argument_left_out_with_a_null_default_is_not_passed() -> None:
    catalog = json.dumps(
        [
            {
                "name": "mail_send",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "body": {"type": "string"},
                        "recipient": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                        "cc": {"type": "string", "default": "ops"},
                    },
                    "required": ["body"],
                },
            }
        ]
    )
    policy = "policy p {\n    actor [mail:send]\n    mail_send requires [mail:send]\n}\n"
    c = planc.Compiler(catalog=[catalog], policy=policy)
    post = {"probe": "field_exists", "path": "$.sent"}
    plan = {"name": "m", "steps": [{"name": "s", "tool": "mail_send", "args": {"body": "hi"}, "post": post}]}
    checked = c.check(json.dumps(plan))
    assert checked.ok, checked.render("short")
    assert checked.ir is not None
    assert set(checked.ir["steps"][0]["args"]) == {"body", "cc"}
    seen: List[Dict[str, Any]] = []

    def send(**kwargs: Any) -> Dict[str, Any]:
        seen.append(kwargs)
        return {"sent": True}

    assert planc.run(checked, {"mail_send": send}).exit_code == 0
    assert seen == [{"body": "hi", "cc": "ops"}]


def test_paths_and_texts_alike(tmp_path: Path) -> None:
    c = planc.Compiler(
        catalog=[NORTHWIND / "tools.plan"], policy=str(NORTHWIND / "policy.plan")
    )
    assert c.diagnostics == []
    checked = c.check((NORTHWIND / "downgrade.plan.json").read_text())
    assert checked.ok, checked.render("short")
    assert checked.ir is not None
    assert checked.ir["name"] == "downgrade_northwind"


def test_diagnostics_equal_the_command_lines(cli: str, tmp_path: Path) -> None:
    """`check().diagnostics` are the dicts of `planc check --format json`,
    file names aside (the command line names the file it read)."""
    plan = json.loads((NORTHWIND / "downgrade.plan.json").read_text())
    plan["steps"][1]["tool"] = "billing.get_subscripton"
    del plan["steps"][2]["post"]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan, indent=2))
    out = subprocess.run(
        [
            cli,
            "check",
            "--format",
            "json",
            "--catalog",
            str(NORTHWIND / "tools.plan"),
            "--policy",
            str(NORTHWIND / "policy.plan"),
            str(path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 1, out.stderr
    expected = json.loads(out.stdout)["diagnostics"]
    c = planc.Compiler(catalog=[NORTHWIND / "tools.plan"], policy=NORTHWIND / "policy.plan")
    got = c.check(path.read_text()).diagnostics
    assert len(got) >= 2

    def unnamed(ds: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        out = json.loads(json.dumps(ds))
        for d in out:
            for x in [d, *d["labels"], *d["fixes"]]:
                x.pop("file", None)
        return out

    assert unnamed(got) == unnamed(expected)


def test_threads_share_one_compiler(compiler: planc.Compiler) -> None:
    text = json.dumps(PLAN)
    results: List[bool] = []

    def work() -> None:
        for _ in range(50):
            results.append(compiler.check(text).ok)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 200


def test_check_releases_the_gil(compiler: planc.Compiler) -> None:
    """While one thread is inside a long check, Python code runs in another:
    the GIL is released around the Rust work."""
    steps = [
        {"name": f"s{i}", "tool": "kv.get", "args": {"key": f"k{i}"}, "binds": {f"v{i}": "$.value"}}
        for i in range(3000)
    ]
    text = json.dumps({"name": "big", "steps": steps})
    window: List[float] = []
    done = threading.Event()

    def check() -> None:
        window.append(time.perf_counter())
        compiler._native.check("big.json", text, "json")  # the Rust call alone
        window.append(time.perf_counter())
        done.set()

    # Threads take turns only every half second: a thread that keeps the
    # GIL through its call lets no other run until the call is over.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.5)
    try:
        ticks: List[float] = []
        t = threading.Thread(target=check)
        t.start()
        while not done.is_set():
            ticks.append(time.perf_counter())
        t.join()
    finally:
        sys.setswitchinterval(interval)
    start, end = window
    inside = [x for x in ticks if start < x < end]
    assert end - start > 0.005, "the check is long enough to measure"
    assert len(inside) > 100, f"{len(inside)} ticks of the other thread during the check"


# ------------------------------------------------------------------ schema, diff, invalidate


def test_schema_in_each_dialect(compiler: planc.Compiler) -> None:
    s = compiler.schema()
    assert "$schema" in s
    assert "kv.get" in json.dumps(s)
    openai = compiler.schema("openai", tool=True)
    assert openai["type"] == "function"
    assert compiler.schema("anthropic")
    with pytest.raises(ValueError):
        compiler.schema("yaml")


def test_schema_refuses_a_broken_catalogue() -> None:
    with pytest.raises(ValueError):
        planc.Compiler(catalog=["tool x(\n"], policy=POLICY).schema()


def test_diff_and_invalidate() -> None:
    c = planc.Compiler(catalog=[CONFIG_DAG / "tools.plan"], policy=CONFIG_DAG / "policy.plan")
    old = c.check((CONFIG_DAG / "provision.plan").read_text(), kind="plan").ir
    new = c.check((CONFIG_DAG / "replan.plan").read_text(), kind="plan").ir
    assert old is not None and new is not None
    record = json.loads((CONFIG_DAG / "progress.json").read_text())
    d = planc.diff(old, new, record)
    assert d != {} and isinstance(d, dict)
    inv = planc.invalidate(old, record, "precondition:provision_db")
    assert "provision_db" in json.dumps(inv)
    with pytest.raises(ValueError):
        planc.invalidate(old, record, "nonsense")


def test_a_replan_is_checked_against_its_record(cli: str) -> None:
    c = planc.Compiler(catalog=[CONFIG_DAG / "tools.plan"], policy=CONFIG_DAG / "policy.plan")
    text = (CONFIG_DAG / "replan.plan").read_text()
    without = c.check(text, kind="plan")
    assert "N0303" not in [d["code"] for d in without.diagnostics]
    for record in (CONFIG_DAG / "progress.json", json.loads((CONFIG_DAG / "progress.json").read_text())):
        r = c.check(text, kind="plan", progress=record)
        assert r.ok and r.ir is not None
        reused = [s["name"] for s in r.ir["steps"] if s.get("reuse")]
        assert reused == ["fetch_config", "parse_config", "fetch_schema"]
        assert r.ir["progress"]["replans_used"] == 0
        out = subprocess.run(
            [cli, "check", "replan.plan", "--progress", "progress.json", "--format", "json"],
            capture_output=True, text=True, cwd=CONFIG_DAG,
        )
        assert [d["code"] for d in r.diagnostics] == [d["code"] for d in json.loads(out.stdout)["diagnostics"]]
    broken = c.check(text, kind="plan", progress='{"progress_version": "1.0", "steps": 3}')
    assert not broken.ok and any(d["code"].startswith("E060") for d in broken.diagnostics)


def test_diff_and_invalidate_equal_the_command_lines(cli: str) -> None:
    c = planc.Compiler(catalog=[CONFIG_DAG / "tools.plan"], policy=CONFIG_DAG / "policy.plan")
    old = c.check((CONFIG_DAG / "provision.plan").read_text(), kind="plan").ir
    new = c.check((CONFIG_DAG / "replan.plan").read_text(), kind="plan").ir
    record = json.loads((CONFIG_DAG / "progress.json").read_text())

    def planc_json(*args: str) -> Any:
        out = subprocess.run([cli, *args, "--format", "json"], capture_output=True, text=True, cwd=CONFIG_DAG)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    assert planc.diff(old, new, record) == planc_json(
        "diff", "provision.plan", "replan.plan", "--progress", "progress.json"
    )
    assert planc.invalidate(old, record, "precondition:provision_db") == planc_json(
        "invalidate", "provision.plan", "--progress", "progress.json", "--event", "precondition:provision_db"
    )


# ------------------------------------------------------------------ run


class Store:
    def __init__(self) -> None:
        self.data = {"src": "hello", "other": "x"}
        self.calls: List[str] = []

    def get(self, key: str) -> Dict[str, Any]:
        self.calls.append(f"get {key}")
        return {"value": self.data[key]}

    def put(self, key: str, value: str) -> Dict[str, Any]:
        self.calls.append(f"put {key}")
        self.data[key] = value
        return {"version": 1}


def test_run_sync(ir: Dict[str, Any], tmp_path: Path) -> None:
    s = Store()
    r = run(ir, {"kv.get": s.get, "kv.put": s.put}, progress=tmp_path / "p.json", trace=tmp_path / "t.jsonl")
    assert r.exit_code == 0 and r.ok and r.reason == "complete"
    assert s.data["dst"] == "hello"
    assert [st["status"] for st in r.progress["steps"]] == ["complete"] * 3
    assert r.events[-1] == {"event": "stop", "step": None, "reason": "complete"}
    assert json.loads((tmp_path / "p.json").read_text()) == r.progress
    assert len((tmp_path / "t.jsonl").read_text().splitlines()) == len(r.events)


def test_run_async_runs_independent_steps_together(ir: Dict[str, Any]) -> None:
    running = 0
    peak = 0

    async def get(key: str) -> Dict[str, Any]:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.05)
        running -= 1
        return {"value": key.upper()}

    async def put(key: str, value: str) -> Dict[str, Any]:
        return {"version": 2}

    r = asyncio.run(run_async(ir, {"kv.get": get, "kv.put": put}))
    assert r.exit_code == 0
    assert peak == 2  # `a` and `b` were in flight together
    put_args = next(s["args"] for s in r.progress["steps"] if s["name"] == "put")
    assert put_args == {"key": "dst", "value": "SRC"}
    # planc.run with async tools runs its own loop.
    assert run(ir, {"kv.get": get, "kv.put": put}).exit_code == 0


def test_a_tool_error_and_an_exception(ir: Dict[str, Any]) -> None:
    def get(key: str) -> Dict[str, Any]:
        raise planc.ToolError("unavailable", retryable=False)

    r = run(ir, {"kv.get": get, "kv.put": Store().put})
    assert r.exit_code == 3  # `on_unmet` is `replan` unless the plan says otherwise
    failed = {s["name"]: s["failure"] for s in r.progress["steps"] if s.get("failure")}
    assert failed["a"]["kind"] == "tool_error" and failed["a"]["code"] == "unavailable"

    def boom(key: str) -> Dict[str, Any]:
        raise KeyError(key)

    r = run(ir, {"kv.get": boom, "kv.put": Store().put})
    failure = r.progress["steps"][0]["failure"]
    assert (failure["code"], failure["retryable"]) == ("exception", False)
    error = next(e for e in r.events if e["event"] == "result")["error"]
    assert "KeyError" in error["message"]


def test_a_retryable_error_is_retried_on_an_idempotent_read(compiler: planc.Compiler) -> None:
    plan = {"name": "r", "steps": [{"name": "a", "tool": "kv.get", "args": {"key": "k"}, "retry": 2, "binds": {"v": "$.value"}}]}
    checked = compiler.check(json.dumps(plan))
    assert checked.ok, checked.render("short")
    tries = []

    def get(key: str) -> Dict[str, Any]:
        tries.append(key)
        if len(tries) < 3:
            raise planc.ToolError("busy", retryable=True)
        return {"value": "v"}

    r = run(checked.ir, {"kv.get": get, "kv.put": Store().put})
    assert r.exit_code == 0 and len(tries) == 3
    assert [e["event"] for e in r.events].count("retry") == 2
    assert r.progress["steps"][0]["attempts"] == 3


def test_a_result_that_is_not_json_is_a_tool_error(ir: Dict[str, Any]) -> None:
    r = run(ir, {"kv.get": lambda key: {"value": object()}, "kv.put": Store().put})
    assert r.progress["steps"][0]["failure"]["code"] == "invalid_result"


def test_approvals() -> None:
    c = planc.Compiler(
        catalog=[TOOLS],
        policy=POLICY.replace("kv.put requires [kv:write]", "kv.put requires [kv:write] approval human"),
    )
    ir = c.check(json.dumps(PLAN)).ir
    assert ir is not None and ir["approvals"] == ["put"]
    s = Store()
    r = run(ir, {"kv.get": s.get, "kv.put": s.put})
    assert (r.exit_code, r.reason, s.calls) == (1, "approval_missing", [])
    assert r.events[-1]["unapproved"] == ["put"]
    assert run(ir, {"kv.get": s.get, "kv.put": s.put}, approve=["put"]).exit_code == 0
    assert run(ir, {"kv.get": s.get, "kv.put": s.put}, approve="all").exit_code == 0
    with pytest.raises(ValueError, match="nope"):
        run(ir, {"kv.get": s.get, "kv.put": s.put}, approve=["nope"])


def test_resume_dispatches_no_complete_step_again(ir: Dict[str, Any], tmp_path: Path) -> None:
    progress = tmp_path / "p.json"
    s = Store()

    def put_fails(key: str, value: str) -> Dict[str, Any]:
        raise planc.ToolError("down", retryable=False)

    r = run(ir, {"kv.get": s.get, "kv.put": put_fails}, progress=progress)
    assert r.exit_code == 3
    assert s.calls == ["get src", "get other"]
    # The failed write's record is dropped (as a person would after fixing
    # the store), the reads kept: started again, only the write is called.
    record = json.loads(progress.read_text())
    for st in record["steps"]:
        if st["status"] == "failed":
            st.update(status="pending", attempts=0)
            del st["failure"]
    progress.write_text(json.dumps(record))
    r = run(ir, {"kv.get": s.get, "kv.put": s.put}, progress=progress)
    assert r.exit_code == 0
    assert s.calls == ["get src", "get other", "put dst"]
    assert set(r.reused) == {"a", "b"}
    # A dict record works the same, and writes no file.
    again = run(ir, {"kv.get": s.get, "kv.put": s.put}, progress=r.progress)
    assert again.exit_code == 0 and s.calls[-1] == "put dst" and len(s.calls) == 3


def test_missing_tools_are_named(ir: Dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="kv.put"):
        run(ir, {"kv.get": Store().get})


def test_the_machine_is_usable_alone(ir: Dict[str, Any]) -> None:
    m = planc.Machine(json.dumps(ir), [], None)
    first = [json.loads(c) for c in m.next(True)]
    assert [c["step"] for c in first] == ["a", "b"]
    assert m.next(True) == []  # nothing more until a result comes
    assert m.finished() is None
    for c in first:
        assert m.complete_ok(c["step"], json.dumps({"value": c["args"]["key"]})) is None
    [put] = [json.loads(c) for c in m.next(True)]
    assert put["args"] == {"key": "dst", "value": "src"}
    m.complete_ok("put", '{"version": 1}')
    assert m.next(True) == []
    assert m.finished() == (0, "complete", None)
    kinds = [k for k, _ in m.drain()]
    assert kinds.count("progress") >= 4 and kinds[-1] == "trace"


def test_the_record_is_on_disk_before_the_next_call(ir: Dict[str, Any], tmp_path: Path) -> None:
    """Rule 4: after every step the file holds the record, so a run killed
    during a call loses nothing already committed; a write is recorded
    ``in_flight`` before it is called."""
    progress = tmp_path / "p.json"
    s = Store()
    seen: List[Dict[str, str]] = []

    def put(key: str, value: str) -> Dict[str, Any]:
        record = json.loads(progress.read_text())
        seen.append({st["name"]: st["status"] for st in record["steps"]})
        return s.put(key, value)

    assert run(ir, {"kv.get": s.get, "kv.put": put}, progress=progress).exit_code == 0
    assert seen == [{"a": "complete", "b": "complete", "put": "in_flight"}]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_write_killed_in_flight_is_not_called_again(ir: Dict[str, Any], tmp_path: Path) -> None:
    """A run killed inside a write (which committed) leaves it ``in_flight``;
    resumed, the write is not called again: ``outcome_unknown``, exit 3. The
    write got its idempotency key as a keyword; a person's decision
    (``Machine.redispatch``) calls it again with the same key."""
    progress = tmp_path / "p.json"
    s = Store()
    keys: List[str] = []

    class Killed(BaseException):
        pass

    def dies(key: str, value: str, idempotency_key: str) -> Dict[str, Any]:
        keys.append(idempotency_key)
        s.put(key, value)
        raise Killed()

    with pytest.raises(Killed):
        run(ir, {"kv.get": s.get, "kv.put": dies}, progress=progress)
    record = json.loads(progress.read_text())
    put = next(st for st in record["steps"] if st["name"] == "put")
    assert put["status"] == "in_flight" and put["idempotency_key"] == keys[0]
    assert len(keys[0]) == 64
    r = run(ir, {"kv.get": s.get, "kv.put": s.put}, progress=progress)
    assert (r.exit_code, r.reason, r.step) == (3, "outcome_unknown", "put")
    assert s.calls.count("put dst") == 1
    failure = next(st for st in r.progress["steps"] if st["name"] == "put")["failure"]
    assert failure["kind"] == "outcome_unknown" and failure["retryable"] is False
    m = planc.Machine(json.dumps(ir), [], progress.read_text())
    m.redispatch("put")
    call = json.loads(m.next(True)[0])
    assert call["step"] == "put" and call["idempotency_key"] == keys[0]


def test_a_killed_run_resumes_without_repeating_its_write(ir: Dict[str, Any], tmp_path: Path) -> None:
    """A run that dies inside a tool (here: an exception that is not a
    tool's, escaping the loop as a kill would) leaves a record from which
    the next run completes, calling each write once."""
    progress = tmp_path / "p.json"
    s = Store()

    class Killed(BaseException):
        pass

    def dies(key: str) -> Dict[str, Any]:
        if key == "other":
            raise Killed()
        return s.get(key)

    with pytest.raises(Killed):
        run(ir, {"kv.get": dies, "kv.put": s.put}, progress=progress)
    r = run(ir, {"kv.get": s.get, "kv.put": s.put}, progress=progress)
    assert r.exit_code == 0 and r.reused == ["a"]
    assert s.calls == ["get src", "get other", "put dst"]


def test_a_decimal_result_keeps_its_digits(compiler: planc.Compiler) -> None:
    from decimal import Decimal

    c = planc.Compiler(
        catalog=["tool pay.quote(id: string) -> { amount: decimal } read idempotent\n"
                 "tool pay.send(amount: decimal) -> { ok: bool } write\n"],
        policy="policy p {\n    actor [p:w]\n    pay.quote requires [p:w]\n"
               "    pay.send requires [p:w] where amount <= 100\n}\n",
    )
    plan = {"name": "pay", "steps": [
        {"name": "q", "tool": "pay.quote", "args": {"id": "x"}, "binds": {"amt": "$.amount"}},
        {"name": "s", "tool": "pay.send", "args": {"amount": "${amt}"},
         "post": {"probe": "field_exists", "path": "$.ok"}, "on_unmet": "halt"},
    ]}
    checked = c.check(json.dumps(plan))
    assert checked.ok, checked.render("short")
    sent: List[Any] = []

    def run_with(amount: Decimal) -> planc.RunResult:
        return run(checked, {
            "pay.quote": lambda id: {"amount": amount},
            "pay.send": lambda amount: sent.append(amount) or {"ok": True},
        })

    r = run_with(Decimal("100.00"))  # at the ceiling: allowed
    assert r.exit_code == 0 and r.progress["steps"][0]["binds"]["amt"] == 100.00
    assert next(e for e in r.events if e["event"] == "dispatch" and e["step"] == "s")["args"] == {"amount": 100.0}
    r = run_with(Decimal("100.01"))  # a cent over: refused, never sent
    assert r.exit_code == 1 and r.reason == "halt" and len(sent) == 1
    assert any(e["event"] == "guard_refused" for e in r.events)
    r = run_with(Decimal("NaN"))
    assert r.progress["steps"][0]["failure"]["code"] == "invalid_result"


EXACT_TOOLS = (
    "tool pay.send(amount: decimal, memo: string) -> { ok: bool, fee: decimal } write\n"
)
EXACT_POLICY = "policy p {\n    actor [p:w]\n    pay.send requires [p:w]\n}\n"


def _send(amount: str) -> planc.CheckResult:
    c = planc.Compiler(catalog=[EXACT_TOOLS], policy=EXACT_POLICY)
    text = (
        '{"name": "pay", "steps": [{"name": "s", "tool": "pay.send", '
        f'"args": {{"amount": {amount}, "memo": "m"}}}}]}}'
    )
    checked = c.check(text)
    assert checked.ok, checked.render("short")
    return checked


def test_a_tool_marked_exact_takes_decimals_digit_for_digit() -> None:
    from decimal import Decimal

    got: List[Any] = []

    @planc.exact
    def exact_send(amount: Any, memo: str) -> Dict[str, Any]:
        got.append(amount)
        return {"ok": True, "fee": Decimal("0.10")}

    def float_send(amount: Any, memo: str) -> Dict[str, Any]:
        got.append(amount)
        return {"ok": True, "fee": 0.1}

    checked = _send("12345678901234567.891")
    assert run(checked, {"pay.send": exact_send}).exit_code == 0
    assert got[-1] == Decimal("12345678901234567.891") and isinstance(got[-1], Decimal)
    # A tool not marked keeps receiving floats, as tools written for them expect.
    assert run(checked, {"pay.send": float_send}).exit_code == 0
    assert isinstance(got[-1], float)


def test_a_fixture_matches_exact_values_as_planc_run_does(tmp_path: Path) -> None:
    from decimal import Decimal

    from planc.fixture import Recorded

    # Two amounts one float apart: a float comparison takes one for the
    # other (both read as 12345678901234568.0) and answers the wrong entry.
    text = (
        '[{"tool": "pay.send", "args": {"amount": 12345678901234567.892, "memo": "m"},'
        ' "result": {"ok": false, "fee": 0}},'
        ' {"tool": "pay.send", "args": {"amount": 12345678901234567.891, "memo": "m"},'
        ' "result": {"ok": true, "fee": 0.10}}]'
    )
    path = tmp_path / "tools.json"
    path.write_text(text)
    recorded = Recorded.load(path)
    r = run(_send("12345678901234567.891"), recorded.tools())
    assert r.exit_code == 0, r.events
    # The entry of the other amount is still there: only that amount gets it.
    other = {"amount": Decimal("12345678901234567.892"), "memo": "m"}
    assert recorded.answer("pay.send", other) == {"ok": False, "fee": 0}
    # Numbers by value: 0.10 is 0.1, as for planc run's fixture backend.
    again = Recorded([{"tool": "t", "args": {"x": 0.1}, "result": 1}])
    assert again.answer("t", {"x": 0.10}) == 1
    with pytest.raises(planc.ToolError) as e:
        again.answer("t", {"x": 0.1})
    assert e.value.code == "fixture_exhausted"


def test_a_malformed_fixture_is_refused_with_where(tmp_path: Path) -> None:
    from planc.fixture import Recorded

    path = tmp_path / "tools.json"
    path.write_text('[{"tool": "t", "result": 1, "error": {"code": "x", "retryable": false}}]')
    with pytest.raises(ValueError) as e:
        Recorded.load(path)
    assert str(path) in str(e.value) and "1:" in str(e.value)


def test_a_record_of_another_plan_is_refused(ir: Dict[str, Any], tmp_path: Path) -> None:
    """A record whose complete write was made with other arguments: running
    would repeat a committed write, so nothing runs (as `planc run`, exit 2)."""
    s = Store()
    r = run(ir, {"kv.get": s.get, "kv.put": s.put})
    record = json.loads(json.dumps(r.progress))
    record["steps"][2]["args"]["value"] = "something else"
    with pytest.raises(ValueError, match="repeat a committed write"):
        run(ir, {"kv.get": s.get, "kv.put": s.put}, progress=record)
    assert s.calls.count("put dst") == 1


def test_a_replan_over_the_budget_is_a_typed_refusal(compiler: planc.Compiler) -> None:
    """A plan allowing itself no replan, run; then another plan run against
    its record: E0305, as its own exception with the fields an agent loop
    escalates with, and still a ``ValueError`` for loops that catch that."""
    once = dict(PLAN, budget={"replans": 0})
    first = compiler.check(json.dumps(once))
    assert first.ok, first.render("short")
    s = Store()
    done = planc.run(first, {"kv.get": s.get, "kv.put": s.put})
    assert done.exit_code == 0
    # The same plan again is a resume, not a replan: nothing is refused.
    again = planc.run(first, {"kv.get": s.get, "kv.put": s.put}, progress=done.progress)
    assert again.exit_code == 0
    other = json.loads(json.dumps(once))
    other["steps"][1]["args"]["key"] = "elsewhere"
    second = compiler.check(json.dumps(other))
    assert second.ok and second.ir is not None
    with pytest.raises(planc.ReplanBudgetExceeded) as refused:
        planc.run(second, {"kv.get": s.get, "kv.put": s.put}, progress=done.progress)
    e = refused.value
    assert isinstance(e, ValueError)
    assert (e.code, e.used, e.budget) == ("E0305", 0, 0)
    assert e.record_fingerprint == done.progress["fingerprint"]
    assert e.plan_fingerprint == second.ir["fingerprint"]
    assert e.record_fingerprint != e.plan_fingerprint
    assert "E0305" in str(e) and e.plan_fingerprint in str(e)
    # Another refusal of the machine stays a plain ValueError.
    record = json.loads(json.dumps(done.progress))
    record["steps"][2]["args"]["value"] = "something else"
    with pytest.raises(ValueError) as other_refusal:
        planc.run(first, {"kv.get": s.get, "kv.put": s.put}, progress=record)
    assert not isinstance(other_refusal.value, planc.ReplanBudgetExceeded)


def test_python_m_planc(ir: Dict[str, Any], tmp_path: Path) -> None:
    from planc.__main__ import main

    (tmp_path / "ir.json").write_text(json.dumps(ir))
    (tmp_path / "tools.json").write_text(json.dumps([
        {"tool": "kv.get", "args": {"key": "src"}, "result": {"value": "v"}},
        {"tool": "kv.get", "result": {"value": "w"}},
        {"tool": "kv.put", "result": {"version": 3}},
    ]))
    (tmp_path / "tools.plan").write_text(TOOLS)
    (tmp_path / "policy.plan").write_text(POLICY)
    run_args = ["run", str(tmp_path / "ir.json"), f"--tools=fixture:{tmp_path / 'tools.json'}",
                f"--progress={tmp_path / 'p.json'}", f"--catalog={tmp_path / 'tools.plan'}",
                f"--policy={tmp_path / 'policy.plan'}"]
    # Without the catalogue and policy to verify it against, nothing runs.
    assert main(run_args[:4]) == 2
    assert not (tmp_path / "p.json").exists()
    assert main(run_args) == 0
    record = json.loads((tmp_path / "p.json").read_text())
    assert record["steps"][2]["args"] == {"key": "dst", "value": "v"}
    # Started again with no responses at all: every step is complete in the
    # record, so nothing is called (a call would fail, `fixture_exhausted`).
    (tmp_path / "tools.json").write_text("[]")
    assert main(run_args) == 0
    assert main(["run", str(tmp_path / "ir.json"), "--tools=mcp:x"]) == 2
    assert main(["run", str(tmp_path / "nope.json"), f"--tools=fixture:{tmp_path / 'tools.json'}"]) == 2


def test_an_ir_not_compiled_here_is_verified_before_it_runs(ir: Dict[str, Any]) -> None:
    """An IR given as data is verified against a compiler's catalogue and
    policy, as `planc run --ir` verifies it: an edited one does not run,
    its fingerprint stale or recomputed."""
    s = Store()
    tools = {"kv.get": s.get, "kv.put": s.put}
    with pytest.raises(ValueError, match="compiler="):
        planc.run(ir, tools)
    assert planc.verify(ir, _COMPILER) == []
    tampered = json.loads(json.dumps(ir))
    put = next(s for s in tampered["steps"] if s["name"] == "put")
    put["args"]["key"]["value"] = "elsewhere"
    problems = planc.verify(tampered, _COMPILER)
    assert problems and all("fingerprint" in p for p in problems), problems
    # A write relabelled an idempotent read, retried: refused for that too.
    put["effect"], put["idempotent"], put["retry"] = "read", True, 3
    problems = planc.verify(tampered, _COMPILER)
    assert any("catalogue and policy make it" in p for p in problems), problems
    assert any("not idempotent" in p for p in problems), problems
    with pytest.raises(ValueError, match="does not run"):
        planc.run(tampered, tools, compiler=_COMPILER)
    assert s.calls == []


def test_approvals_of_an_ir_name_its_fingerprint(ir: Dict[str, Any]) -> None:
    s = Store()
    tools = {"kv.get": s.get, "kv.put": s.put}
    with pytest.raises(ValueError, match="fingerprint"):
        planc.run(ir, tools, compiler=_COMPILER, approve=["put"])
    with pytest.raises(ValueError, match="not what would run"):
        planc.run(ir, tools, compiler=_COMPILER, approve=["put"], fingerprint="sha256:" + "0" * 64)
    assert s.calls == []
    r = planc.run(ir, tools, compiler=_COMPILER, approve=["put"], fingerprint=ir["fingerprint"])
    assert r.exit_code == 0


def test_a_sealed_record_that_was_edited_is_refused(ir: Dict[str, Any], tmp_path: Path) -> None:
    """With a record key the record is written sealed; edited, or with its
    seal removed, it is refused before anything runs."""
    progress = tmp_path / "p.json"
    s = Store()
    key = b"0123456789abcdef0123456789abcdef"
    assert run(ir, {"kv.get": s.get, "kv.put": s.put}, progress=progress, record_key=key).ok
    record = json.loads(progress.read_text())
    assert record["hmac"].startswith("hmac-sha256:") and record["fingerprint"].startswith("sha256:")
    assert run(ir, {"kv.get": s.get, "kv.put": s.put}, progress=progress, record_key=key).ok
    assert s.calls.count("put dst") == 1
    edited = dict(record, replans_used=0)
    edited["steps"] = [dict(st, status="pending") if st["name"] == "put" else st for st in record["steps"]]
    edited["steps"] = [{k: v for k, v in st.items() if k != "binds" or st["status"] == "complete"} for st in edited["steps"]]
    progress.write_text(json.dumps(edited))
    with pytest.raises(ValueError, match="does not match"):
        run(ir, {"kv.get": s.get, "kv.put": s.put}, progress=progress, record_key=key)
    progress.write_text(json.dumps({k: v for k, v in record.items() if k != "hmac"}))
    with pytest.raises(ValueError, match="no `hmac`"):
        run(ir, {"kv.get": s.get, "kv.put": s.put}, progress=progress, record_key=key)
    assert s.calls.count("put dst") == 1
    # A replan is checked against the record the run will trust: with the
    # key, the edited record and the unsealed one are refused there too.
    plan = json.dumps(PLAN)
    assert _COMPILER.check(plan, progress=record, record_key=key).ok
    with pytest.raises(ValueError, match="does not match"):
        _COMPILER.check(plan, progress=edited, record_key=key)
    with pytest.raises(ValueError, match="no `hmac`"):
        _COMPILER.check(plan, progress={k: v for k, v in record.items() if k != "hmac"}, record_key=key)
    # Without the key the record is trusted input, as for the command line.
    assert _COMPILER.check(plan, progress=edited).diagnostics is not None
