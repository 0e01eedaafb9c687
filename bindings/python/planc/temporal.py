"""Plans run durably on Temporal (``pip install "planc[temporal]"``).

:class:`PlanWorkflow` executes an IR: every decision (``pre``, guards,
posts, binds, ``on_unmet``, invalidation, which step is due) is made in the
workflow by planc's executor machine, which does no IO and reads no clock,
so a replay of the workflow's history makes the same decisions; each tool
call is an activity, run on a worker by the handler given for its tool.

- Retries are Temporal's, with the policy the IR allows: ``retry + 1``
  attempts for an idempotent step, one for any other. A handler raising
  ``planc.ToolError(code, retryable=False)`` (or any other exception) is not
  retried; a step whose worker stopped is retried, after ``step_timeout``,
  only when it is idempotent — a write that may have happened is never
  dispatched twice: it fails with ``outcome_unknown`` (code ``timeout``)
  and the workflow stops for a decision.
- A write's activity id is its idempotency key, and the handler gets the
  key as the keyword ``idempotency_key`` when it takes one.
- Approvals are the ``approve`` signal (a list of step names): the workflow
  waits until the steps the IR needs approved are, or, with
  ``approval_timeout``, ends with ``approval_missing`` when they are not.
- The ``progress`` query gives the progress record as it stands; the record
  is the workflow's result. The ``trace`` query gives the trace events, and
  ``outcome`` the exit status as ``planc run`` (``None`` while running).

:func:`worker` builds a worker for a task queue; :func:`run` starts a
workflow and waits for its record. The starter verifies what it starts as
:func:`planc.run` does: an IR not compiled in the process against the
catalogue and policy (its fingerprint recomputed, its invariants checked),
approvals bound to its fingerprint, and an earlier record's seal under the
operator's key, which stays on the starter's side.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

try:
    from temporalio import activity, workflow
    from temporalio.common import RetryPolicy
    from temporalio.exceptions import ActivityError, ApplicationError
    from temporalio.exceptions import TimeoutError as TemporalTimeout
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"planc.temporal needs the temporalio package: pip install 'planc[temporal]' ({e})"
    ) from e

with workflow.unsafe.imports_passed_through():
    # The native module holds no state between calls, and cannot be loaded
    # twice in one process: the sandbox shares the host's.
    from . import _planc
    from . import (
        _approved,
        _call_async,
        _call_sync,
        _checked_ir,
        _dumps,
        _json_text,
        _loads_exact,
    )

__all__ = [
    "MachineVersionError",
    "PlanWorkflow",
    "PlanInput",
    "StepCall",
    "StepOutcome",
    "worker",
    "run",
    "start",
    "sandbox_restrictions",
    "activities",
    "ACTIVITY",
]

#: The activity's name: one activity for every tool, dispatching to the
#: worker's handler for the call's tool.
ACTIVITY = "planc.dispatch"

#: The error code of an attempt that did not finish within ``step_timeout``
#: (its worker may have stopped mid-call).
TIMEOUT = "timeout"


@dataclass
class PlanInput:
    """The workflow's input. Texts, not dicts: the IR's and the record's
    numbers keep their exact digits."""

    ir: str
    approved: List[str] = field(default_factory=list)
    progress: Optional[str] = None
    step_timeout_seconds: float = 300.0
    retry_interval_seconds: float = 1.0
    approval_timeout_seconds: Optional[float] = None


@dataclass
class StepCall:
    """One tool call: what the activity is given."""

    step: str
    tool: str
    args: str  # the resolved arguments, a JSON object's text
    idempotency_key: Optional[str] = None  # a write's (docs/executors.md)


@dataclass
class StepOutcome:
    """What the activity returns: the result's JSON text, and the errors of
    the attempts before the one that returned it (each ``{code, message,
    retryable}``)."""

    result: str
    errors: List[Dict[str, Any]] = field(default_factory=list)


def _lost(attempt: int) -> Dict[str, Any]:
    return {
        "code": TIMEOUT,
        "message": f"attempt {attempt} did not finish within the step timeout "
        "(its worker may have stopped)",
        "retryable": True,
    }


def _earlier_errors(details: Sequence[Any], attempt: int) -> List[Dict[str, Any]]:
    """The errors of the attempts before ``attempt``: those the last attempt
    recorded (its heartbeat), and a timeout for each that recorded nothing."""
    known: List[Dict[str, Any]] = []
    if details and isinstance(details[0], list):
        known = [e for e in details[0] if isinstance(e, dict)]
    known = known[: max(attempt - 1, 0)]
    while len(known) < attempt - 1:
        known.append(_lost(len(known) + 1))
    return known


class _Dispatcher:
    """The activity: a call of one tool, by the worker's handler for it."""

    def __init__(self, tools: Mapping[str, Callable[..., Any]]) -> None:
        for name, tool in tools.items():
            if not callable(tool):
                raise TypeError(f"tools[{name!r}] is not callable")
        self.tools = dict(tools)

    @activity.defn(name=ACTIVITY)
    async def dispatch(self, call: StepCall) -> StepOutcome:
        info = activity.info()
        earlier = _earlier_errors(info.heartbeat_details, info.attempt)
        tool = self.tools.get(call.tool)
        request = {
            "tool": call.tool,
            "args": _loads_exact(call.args),
            "idempotency_key": call.idempotency_key,
        }
        if tool is None:
            outcome: Tuple[bool, Any] = (
                False,
                ("unknown_tool", f"no handler for the tool `{call.tool}` on this worker", False),
            )
        elif inspect.iscoroutinefunction(tool):
            outcome = await _call_async(self.tools, request)
        else:
            loop = asyncio.get_running_loop()
            outcome = await loop.run_in_executor(None, _call_sync, self.tools, request)
        ok, value = outcome
        if ok:
            return StepOutcome(result=value, errors=earlier)
        code, message, retryable = value
        errors = earlier + [{"code": code, "message": message, "retryable": bool(retryable)}]
        # The next attempt, if the policy allows one, reads what came before.
        activity.heartbeat(errors)
        raise ApplicationError(message, errors, type=code, non_retryable=not retryable)


def _attempts_of(err: BaseException, most: int) -> List[Dict[str, Any]]:
    """Every failed attempt of a call the engine gave up on, in order."""
    cause = err.__cause__ if isinstance(err, ActivityError) else err
    if isinstance(cause, ApplicationError) and cause.details:
        details = cause.details[0]
        if isinstance(details, list) and details:
            return [e for e in details if isinstance(e, dict)]
    if isinstance(cause, TemporalTimeout):
        known = _earlier_errors(cause.last_heartbeat_details, most)
        return known + [dict(_lost(len(known) + 1), retryable=False)]
    message = str(cause) if cause is not None else str(err)
    return [{"code": "activity_failed", "message": message, "retryable": False}]


def machine_patch() -> str:
    """The patch id that records the machine's version in a workflow's
    history (``planc-machine-`` and ``_planc.MACHINE_VERSION``)."""
    return f"planc-machine-{_planc.MACHINE_VERSION}"


def _over_budget(e: Any) -> Any:
    """A replan over the run's budget (E0305) as the workflow's failure:
    type ``replan_budget``, not retried, with the machine's fields as its
    one detail, so that the starter escalates instead of replanning."""
    details = {
        "code": e.code,
        "used": e.used,
        "budget": e.budget,
        "record_fingerprint": e.record_fingerprint,
        "plan_fingerprint": e.plan_fingerprint,
    }
    return ApplicationError(str(e), details, type="replan_budget", non_retryable=True)


class MachineVersionError(RuntimeError):
    """A workflow's history was made by another version of the machine.
    Raised inside the workflow, it fails the workflow task, not the
    workflow: Temporal retries the task until a worker of the version the
    workflow started with takes it."""


@workflow.defn(name="PlanWorkflow")
class PlanWorkflow:
    """Runs one IR durably. Signal ``approve`` (step names); queries
    ``progress`` (the record), ``trace`` (the events) and ``outcome``."""

    def __init__(self) -> None:
        self._approved: "set[str]" = set()
        self._steps: "set[str]" = set()
        self._record: Optional[Dict[str, Any]] = None
        self._events: List[Dict[str, Any]] = []
        self._outcome: Optional[Dict[str, Any]] = None

    @workflow.signal(name="approve")
    def approve(self, steps: List[str]) -> None:
        """Approves steps by name (names of no step are ignored)."""
        for name in steps:
            if isinstance(name, str) and (not self._steps or name in self._steps):
                self._approved.add(name)

    @workflow.query(name="progress")
    def progress(self) -> Optional[Dict[str, Any]]:
        return self._record

    @workflow.query(name="trace")
    def trace(self) -> List[Dict[str, Any]]:
        return self._events

    @workflow.query(name="outcome")
    def outcome(self) -> Optional[Dict[str, Any]]:
        return self._outcome

    def _drain(self, machine: Any) -> None:
        for kind, text in machine.drain():
            if kind == "trace":
                self._events.append(json.loads(text))
            else:
                self._record = json.loads(text)

    @workflow.run
    async def run(self, plan: PlanInput) -> Dict[str, Any]:
        # The machine's decisions are made again on every replay, so a
        # workflow continues only under the machine it started with: its
        # version is a patch marker in the history, written when the run
        # starts. A worker of another version finds no marker of its own and
        # fails the workflow task (not the workflow), which Temporal retries
        # until a worker of the starting version takes it
        # (docs/executors.md, "Upgrading planc under running workflows").
        if not workflow.patched(machine_patch()):
            raise MachineVersionError(
                f"this workflow started under another planc machine than this worker's "
                f"({_planc.MACHINE_VERSION}): run it on a worker of the version it started with"
            )
        try:
            ir = json.loads(plan.ir)
            steps = [s["name"] for s in ir["steps"]]
            attempts = _planc.max_attempts_by_step(plan.ir)
            prior = json.loads(plan.progress) if plan.progress is not None else None
            self._steps = set(steps)
            self._approved = {s for s in self._approved | set(plan.approved) if s in self._steps}
            done = {
                s["name"] for s in (prior or {}).get("steps", []) if s.get("status") == "complete"
            }
            needed = {s for s in ir.get("approvals", []) if s not in done}
            # The record as it stands before anything runs, for the query.
            preview = _planc.Machine(plan.ir, sorted(needed | self._approved), plan.progress)
            self._record = json.loads(preview.record())
        except _planc.ReplanBudgetExceeded as e:
            raise _over_budget(e)
        except (ValueError, KeyError, TypeError, RuntimeError) as e:
            raise ApplicationError(
                f"not a plan to run: {e}", type="invalid_plan", non_retryable=True
            )

        if not needed <= self._approved:
            try:
                await workflow.wait_condition(
                    lambda: needed <= self._approved, timeout=plan.approval_timeout_seconds
                )
            except asyncio.TimeoutError:
                pass  # the machine says which approvals are missing

        try:
            machine = _planc.Machine(plan.ir, sorted(self._approved), plan.progress)
        except _planc.ReplanBudgetExceeded as e:
            raise _over_budget(e)
        except (ValueError, RuntimeError) as e:
            raise ApplicationError(
                f"not a plan to run: {e}", type="invalid_plan", non_retryable=True
            )
        self._drain(machine)

        def start(call: Dict[str, Any]) -> "asyncio.Task[Any]":
            most = int(attempts.get(call["step"], 1))
            interval = timedelta(seconds=plan.retry_interval_seconds)
            return asyncio.ensure_future(
                workflow.execute_activity(
                    ACTIVITY,
                    StepCall(
                        call["step"],
                        call["tool"],
                        _dumps(call["args"]),
                        call.get("idempotency_key"),
                    ),
                    result_type=StepOutcome,
                    # A write's activity is named by its idempotency key:
                    # one call of one plan, one activity id.
                    activity_id=call.get("idempotency_key"),
                    start_to_close_timeout=timedelta(seconds=plan.step_timeout_seconds),
                    retry_policy=RetryPolicy(
                        initial_interval=interval,
                        maximum_interval=interval * 10,
                        maximum_attempts=most,
                    ),
                    summary=f"{call['step']}: {call['tool']}",
                )
            )

        running: Dict["asyncio.Task[Any]", Dict[str, Any]] = {}
        while True:
            for text in machine.next(True):
                call = _loads_exact(text)
                running[start(call)] = call
            self._drain(machine)
            if not running:
                break
            finished, _ = await workflow.wait(list(running), return_when=asyncio.FIRST_COMPLETED)
            # In source order within what finished together: one history,
            # one sequence of decisions.
            for task in sorted(finished, key=lambda t: running[t]["index"]):
                call = running.pop(task)
                self._settle(machine, call, task, int(attempts.get(call["step"], 1)))
                self._drain(machine)

        stop = machine.finished()
        if stop is not None:
            exit_code, reason, step = stop
            self._outcome = {"exit_code": exit_code, "reason": reason, "step": step}
        self._record = json.loads(machine.record())
        return self._record

    def _settle(
        self, machine: Any, call: Dict[str, Any], task: "asyncio.Task[Any]", most: int
    ) -> None:
        """Tells the machine every attempt of one call, in order: the failed
        ones the engine retried, then the last."""
        step = call["step"]
        err = task.exception()
        if err is None:
            out: StepOutcome = task.result()
            failed, result = list(out.errors), out.result
        else:
            failed, result = _attempts_of(err, most), None
        retry: Optional[str] = "start"
        for e in failed:
            if retry is None:
                return
            retry = machine.complete_error(
                step, str(e.get("code")), str(e.get("message")), bool(e.get("retryable"))
            )
        if result is not None and retry is not None:
            retry = machine.complete_ok(step, result)
        # The engine made no further attempt: whatever the machine would
        # allow, the call is over.
        while retry is not None:
            retry = machine.complete_error(
                step, "attempts_exhausted", "the engine made no further attempt", False
            )


# ------------------------------------------------------------------ host side


def sandbox_restrictions() -> Any:
    """The workflow sandbox's default restrictions, with planc's native
    module passed through (for a Worker built by hand)."""
    from temporalio.worker.workflow_sandbox import SandboxRestrictions

    return SandboxRestrictions.default.with_passthrough_modules("planc._planc")


def activities(tools: Mapping[str, Callable[..., Any]]) -> List[Callable[..., Any]]:
    """The activities a worker of :class:`PlanWorkflow` runs: one,
    ``planc.dispatch``, calling ``tools`` (for a Worker built by hand)."""
    return [_Dispatcher(tools).dispatch]


def worker(
    client: Any,
    task_queue: str,
    tools: Mapping[str, Callable[..., Any]],
    **options: Any,
) -> Any:
    """A ``temporalio.worker.Worker`` on ``task_queue`` running
    :class:`PlanWorkflow` and the activity that calls ``tools`` (a callable
    per tool name, sync or async, called with the step's arguments as
    keyword arguments, as with :func:`planc.run`). ``options`` go to the
    Worker (``max_concurrent_activities``, ``identity``, …)."""
    from temporalio.worker import Worker
    from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

    options.setdefault(
        "workflow_runner", SandboxedWorkflowRunner(restrictions=sandbox_restrictions())
    )
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[PlanWorkflow],
        activities=activities(tools),
        **options,
    )


def _plan_input(
    ir: Any,
    *,
    approve: Union[str, Sequence[str], None] = None,
    step_timeout: timedelta = timedelta(minutes=5),
    progress: Union[None, Mapping[str, Any], str] = None,
    approval_timeout: Optional[timedelta] = None,
    retry_interval: timedelta = timedelta(seconds=1),
    compiler: Any = None,
    fingerprint: Optional[str] = None,
    record_key: Optional[bytes] = None,
) -> Tuple[PlanInput, Dict[str, Any]]:
    """The workflow's input from :func:`run`'s arguments (their defaults
    are these), once it may run: the IR verified as :func:`planc.run`
    verifies it (an IR not compiled in this process against ``compiler``,
    its approvals naming ``fingerprint``), and the record's seal verified
    under ``record_key``. The key stays here: it never enters the
    workflow's input or history."""
    ir_text = _checked_ir(ir, compiler, approve, fingerprint)
    ir_dict = json.loads(ir_text)
    names = [s["name"] for s in ir_dict.get("steps", [])]
    approved = _approved(ir_dict, approve)
    unknown = [a for a in approved if a not in names]
    if unknown:
        raise ValueError(f"approve: the plan has no step {unknown}")
    prior = None if progress is None else _json_text(progress, "progress")
    if prior is not None:
        # The machine's reader: a record that is not one, whose seal does
        # not verify under the key, or that disagrees with the IR is a
        # ValueError here, before the workflow starts.
        _planc.Machine(ir_text, approved, prior, record_key)
    plan = PlanInput(
        ir=ir_text,
        approved=approved,
        progress=prior,
        step_timeout_seconds=step_timeout.total_seconds(),
        retry_interval_seconds=retry_interval.total_seconds(),
        approval_timeout_seconds=(
            None if approval_timeout is None else approval_timeout.total_seconds()
        ),
    )
    return plan, ir_dict


async def start(
    client: Any, ir: Any, *, task_queue: str, id: Optional[str] = None, **options: Any
) -> Any:
    """Starts a :class:`PlanWorkflow` and returns its handle (signal
    ``approve``, query ``progress``, ``await handle.result()`` for the
    record). Arguments as :func:`run`; what fails verification is a
    ``ValueError`` and no workflow starts."""
    plan, ir_dict = _plan_input(ir, **options)
    workflow_id = id or f"plan-{ir_dict.get('name', 'plan')}-{uuid.uuid4()}"
    return await client.start_workflow(
        PlanWorkflow.run, plan, id=workflow_id, task_queue=task_queue
    )


async def run(
    client: Any,
    ir: Any,
    *,
    task_queue: str,
    approve: Union[str, Sequence[str], None] = None,
    id: Optional[str] = None,
    step_timeout: timedelta = timedelta(minutes=5),
    **more: Any,
) -> Dict[str, Any]:
    """Runs the IR (a :class:`planc.CheckResult`, a dict, a JSON text or a
    path) on Temporal and returns its progress record.

    ``approve``: ``"all"``, step names, or ``None`` — sent up front; more
    can come later as the ``approve`` signal. ``id``: the workflow id (a
    fresh one by default). ``step_timeout``: each call's start-to-close
    timeout, after which an idempotent step is tried again (a stopped
    worker's call among them). And, as for :func:`start`: ``progress``, the
    record of an earlier run to resume from (its complete steps are not
    dispatched again); ``approval_timeout``, how long to wait for approvals
    (forever by default); ``retry_interval``, the first wait before a retry
    (doubling).

    As :func:`planc.run`: an IR that is not a :class:`planc.CheckResult` of
    this process is verified against ``compiler`` (required) before the
    workflow starts, and approvals for it need ``fingerprint``, the one
    reviewed; ``record_key``, the operator's key: ``progress`` is read only
    when its seal verifies, and the record returned is sealed with it
    (``docs/replanning.md``, "Sealed records"). What fails is a
    ``ValueError`` and nothing starts.
    """
    handle = await start(
        client, ir, task_queue=task_queue, id=id, approve=approve, step_timeout=step_timeout, **more
    )
    record: Dict[str, Any] = await handle.result()
    key = more.get("record_key")
    if key is not None:
        sealed: Dict[str, Any] = json.loads(_planc.seal_record(json.dumps(record), key))
        return sealed
    return record
