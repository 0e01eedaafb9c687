"""planc: check agent plans against a tool catalogue and a policy, and run
them, in-process.

A :class:`Compiler` reads the catalogue and the policy once; its
:meth:`Compiler.check` checks each plan the planner writes (diagnostics
are the dicts of ``planc check --format json``) and gives its IR;
:func:`run` executes the IR with Python callables as the tools, as
``planc run`` does with its backends: the same progress record, the same
trace, the same exit status.
"""

from __future__ import annotations

import asyncio
import decimal
import inspect
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import (
    Any,
    Awaitable,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    TypeVar,
    Union,
    cast,
)

from . import _planc

__all__ = [
    "Compiler",
    "CheckResult",
    "ToolError",
    "RunResult",
    "run",
    "run_async",
    "exact",
    "verify",
    "diff",
    "invalidate",
    "Machine",
    "ReplanBudgetExceeded",
    "IR_VERSION",
    "__version__",
]

__version__: str = _planc.__version__
IR_VERSION: str = _planc.IR_VERSION

#: The native state machine of the executor (``planc::exec::Machine``):
#: what :func:`run` drives, and what another driver (a workflow engine)
#: can drive the same way.
Machine = _planc.Machine

#: A replan over the run's replan budget (E0305), refused by the machine
#: before anything runs: a ``ValueError`` with ``code``, ``used``,
#: ``budget``, ``record_fingerprint`` and ``plan_fingerprint``. An agent
#: loop stops replanning and escalates to a person.
ReplanBudgetExceeded = _planc.ReplanBudgetExceeded

PathLike = Union[str, "os.PathLike[str]"]
Json = Any
Tool = Callable[..., Union[Json, Awaitable[Json]]]


# ------------------------------------------------------------------ inputs


def _source(item: Union[PathLike, str], role: str, n: int) -> "tuple[str, str]":
    """A ``(name, text)`` pair from a path or a text.

    A path-like object is a file. A string is a text when it looks like one
    (JSON starting with ``{`` or ``[``, or plan language: several lines, or
    a ``tool``/``policy`` declaration), else the path of a file. A name
    ending in ``.json`` is read as JSON.
    """
    if isinstance(item, os.PathLike):
        path = Path(item)
        return (str(path), path.read_text(encoding="utf-8"))
    if not isinstance(item, str):
        raise TypeError(f"{role}: expected a path or a text, got {type(item).__name__}")
    stripped = item.lstrip()
    if stripped.startswith(("{", "[")):
        return (f"<{role}{n}>.json", item)
    if "\n" in item or stripped.startswith(("tool ", "policy ", "///", "//")):
        return (f"<{role}{n}>.plan", item)
    return (item, Path(item).read_text(encoding="utf-8"))


def _json_text(value: Union[Mapping[str, Any], str, "os.PathLike[str]"], what: str) -> str:
    """JSON text from a dict, a JSON text, or the path of a JSON file."""
    if isinstance(value, Mapping):
        return json.dumps(value)
    if isinstance(value, os.PathLike):
        return Path(value).read_text(encoding="utf-8")
    if isinstance(value, str):
        if value.lstrip().startswith("{"):
            return value
        return Path(value).read_text(encoding="utf-8")
    raise TypeError(f"{what}: expected a dict, a JSON text or a path, got {type(value).__name__}")


# ------------------------------------------------------------------ checking


class CheckResult:
    """What checking one plan gave.

    ``diagnostics`` are the dicts of ``planc check --format json``; ``ir``
    is the compiled plan as a dict, or ``None`` when there are errors. Each
    is built the first time it is read: an agent loop that reads only
    :attr:`errors` pays for neither.
    """

    __slots__ = ("_native", "_diagnostics", "_counts", "_ir", "_ir_read")

    def __init__(self, native: _planc.Checked) -> None:
        self._native = native
        self._diagnostics: Optional[List[Dict[str, Any]]] = None
        self._counts: "Optional[tuple[int, int]]" = None
        self._ir: Optional[Dict[str, Any]] = None
        self._ir_read = False

    @property
    def diagnostics(self) -> List[Dict[str, Any]]:
        # A list, not a lazier sequence: `json.dumps` takes lists only,
        # and handing the diagnostics back to the model is what they are for.
        if self._diagnostics is None:
            doc = json.loads(self._native.diagnostics_json())
            self._diagnostics = cast(List[Dict[str, Any]], doc["diagnostics"])
        return self._diagnostics

    def _count(self) -> "tuple[int, int]":
        if self._counts is None:
            self._counts = self._native.counts()
        return self._counts

    @property
    def errors(self) -> int:
        """The number of errors, those of the catalogue and policy
        included: a :class:`Compiler` whose catalogue or policy has errors
        fails every check, and each result carries those errors first in
        its :attr:`diagnostics` (their warnings stay in
        :attr:`Compiler.diagnostics`)."""
        return self._count()[0]

    @property
    def warnings(self) -> int:
        return self._count()[1]

    @property
    def ok(self) -> bool:
        """No errors (in the plan, the catalogue or the policy): the IR exists."""
        return self._native.ok()

    @property
    def ir(self) -> Optional[Dict[str, Any]]:
        if not self._ir_read:
            text = self._native.ir_json()
            self._ir = None if text is None else json.loads(text)
            self._ir_read = True
        return self._ir

    def render(self, format: str = "human") -> str:
        """The diagnostics as ``planc check`` prints them: ``human`` (no
        colour), ``short`` or ``json``."""
        return self._native.render(format)

    def __repr__(self) -> str:
        return f"<CheckResult ok={self.ok} errors={self.errors} warnings={self.warnings}>"


class Compiler:
    """A catalogue and a policy, read and checked once; then any number of
    plans checked against them (from any thread: the GIL is released while
    Rust works).

    ``catalog``: paths or texts (JSON tool lists, MCP ``tools/list``
    answers, or ``.plan`` tool declarations); ``policy``: a path, a text or
    ``None``; ``actor``: the actor's scopes, replacing the policy's
    ``actor`` line.
    """

    def __init__(
        self,
        catalog: Sequence[Union[PathLike, str]] = (),
        policy: Optional[Union[PathLike, str]] = None,
        actor: Optional[Sequence[str]] = None,
    ) -> None:
        if isinstance(catalog, (str, os.PathLike)):
            catalog = [catalog]
        sources = [_source(c, "catalog", i) for i, c in enumerate(catalog)]
        pol = None if policy is None else _source(policy, "policy", 0)
        self._native = _planc.Compiler(sources, pol, None if actor is None else list(actor))
        doc = json.loads(self._native.diagnostics_json())
        self._diagnostics: List[Dict[str, Any]] = doc["diagnostics"]

    @property
    def diagnostics(self) -> List[Dict[str, Any]]:
        """The catalogue's and policy's diagnostics (``--format json`` dicts)."""
        return self._diagnostics

    def check(
        self,
        text: str,
        kind: str = "json",
        progress: Optional[Union[Mapping[str, Any], PathLike]] = None,
        lenient: bool = False,
        record_key: Optional[bytes] = None,
    ) -> CheckResult:
        """Checks one plan text: ``kind`` is ``"json"`` (the planner's JSON
        form) or ``"plan"`` (the plan language). With ``progress`` (a record
        as a dict, a JSON text or a path), the plan is checked as a replan
        against what already ran, as ``planc check --progress``: recorded
        artifacts in scope, complete steps reused (N0303), repeated writes
        refused (E0306, E0307), the replan budget (E0305). With
        ``lenient=True``, a JSON plan inside a model's raw reply (a Markdown
        code fence, text before and after the object) is read, and a W0509
        warning says what was ignored, as ``planc check --lenient``. With
        ``record_key`` (the operator's key, as ``planc.run`` takes it), the
        record is used only when its seal verifies, else ``ValueError``:
        a replan is checked against the record the run will trust."""
        rec = None if progress is None else _json_text(progress, "progress")
        name = "plan.json" if kind == "json" else "plan.plan"
        return CheckResult(self._native.check(name, text, kind, rec, lenient, record_key))

    def tools(self) -> List[Dict[str, Any]]:
        """What the catalogue and policy together make of each catalogue
        tool, one dict each: ``tool``, ``permitted`` (the policy names it),
        ``effect`` (``"read"`` or ``"write"``; unstated is a write),
        ``idempotent``, ``untrusted`` (its output is untrusted data),
        ``approval`` and ``trusted`` (the arguments the policy requires
        trusted). A script asks these of the compiler rather than reading
        the policy's text."""
        return cast(List[Dict[str, Any]], json.loads(self._native.tool_facts_json()))

    def schema(self, dialect: str = "json-schema", *, tool: bool = False) -> Dict[str, Any]:
        """The planner's schema (``planc schema``): ``json-schema``,
        ``openai`` or ``anthropic``; ``tool=True`` wraps it as the
        ``submit_plan`` tool definition."""
        return cast(Dict[str, Any], json.loads(self._native.schema(dialect, tool)))


def diff(
    old: Union[Mapping[str, Any], str],
    new: Union[Mapping[str, Any], str],
    progress: Optional[Union[Mapping[str, Any], PathLike]] = None,
) -> Dict[str, Any]:
    """``planc diff``: two IRs matched by step name; with the progress
    record, which complete steps the new plan keeps."""
    rec = None if progress is None else _json_text(progress, "progress")
    text = _planc.diff(_json_text(old, "old"), _json_text(new, "new"), rec)
    return cast(Dict[str, Any], json.loads(text))


def invalidate(
    ir: Union[Mapping[str, Any], str],
    progress: Union[Mapping[str, Any], PathLike],
    event: str,
) -> Dict[str, Any]:
    """``planc invalidate``: what ``event`` (``precondition:STEP``,
    ``failed:STEP``, ``changed:ARTIFACT`` or ``goal``) invalidates."""
    text = _planc.invalidate(_json_text(ir, "ir"), _json_text(progress, "progress"), event)
    return cast(Dict[str, Any], json.loads(text))


# ------------------------------------------------------------------ running

#: What :func:`run` takes as the plan.
IrLike = Union[Mapping[str, Any], str, "os.PathLike[str]", CheckResult]


class ToolError(Exception):
    """Raised by a tool: the call did not return a result. ``retryable``
    says whether the same call may succeed if made again (only idempotent
    steps are retried, up to their ``retry``)."""

    def __init__(self, code: str, retryable: bool = False, message: Optional[str] = None) -> None:
        super().__init__(message or code)
        self.code = code
        self.retryable = retryable
        self.message = message or code


@dataclass
class RunResult:
    """How a run ended: ``exit_code`` as ``planc run`` (0 complete; 1
    halted, refused or failed; 3 stopped for a replan or an escalation),
    ``progress`` the final record, ``events`` the trace."""

    exit_code: int
    progress: Dict[str, Any]
    events: List[Dict[str, Any]] = field(default_factory=list)
    reason: str = "complete"
    step: Optional[str] = None
    reused: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def _ir_text(ir: Any) -> str:
    """The IR's JSON text from a :class:`CheckResult`, a dict, a JSON text
    or a path."""
    if isinstance(ir, CheckResult):
        native_ir = ir._native.ir_json()
        if native_ir is None:
            raise ValueError("the plan has errors, so no IR to run:\n" + ir.render("short"))
        return str(native_ir)
    return _json_text(ir, "ir")


def verify(ir: IrLike, compiler: "Compiler") -> List[str]:
    """What is wrong with ``ir`` (a dict, a JSON text or a path) against
    ``compiler``'s catalogue, policy and actor: its fingerprint recomputed
    and its invariants checked, as ``planc run --ir`` does; empty when it
    may run."""
    return list(_planc.verify(compiler._native, _ir_text(ir)))


def _checked_ir(
    ir: IrLike,
    compiler: Optional["Compiler"],
    approve: Union[str, Sequence[str], None],
    fingerprint: Optional[str],
) -> str:
    """The IR's text, once it may run: a :class:`CheckResult` was compiled
    here; any other IR is verified against ``compiler`` (required), and its
    approvals must name its ``fingerprint``."""
    text = _ir_text(ir)
    if not isinstance(ir, CheckResult):
        if compiler is None:
            raise ValueError(
                "an IR not compiled here is verified before it runs: pass compiler=planc.Compiler(...) "
                "with the catalogue and policy it must keep (or run the CheckResult itself)"
            )
        problems = verify(text, compiler)
        if problems:
            raise ValueError(
                "the IR does not run: it is not the IR planc compiled under this catalogue and policy:\n  - "
                + "\n  - ".join(problems)
            )
        if approve and fingerprint is None:
            raise ValueError(
                "approvals for an IR not compiled here name its fingerprint: pass fingerprint='sha256:...' "
                "(the one reviewed)"
            )
    if fingerprint is not None:
        actual = json.loads(text).get("fingerprint")
        if fingerprint != actual:
            raise ValueError(
                f"the approvals are for the plan with fingerprint {fingerprint!r}, but this plan's is "
                f"{actual!r}: what was approved is not what would run; nothing was run"
            )
    return text


def _approved(ir: Dict[str, Any], approve: Union[str, Sequence[str], None]) -> List[str]:
    """The approved steps: ``"all"`` (every step that needs approval: those
    of ``approvals`` and those whose ``authz.approval`` is set), names, or
    ``None``."""
    if approve == "all":
        needing = set(ir.get("approvals", []))
        needing.update(
            s["name"] for s in ir.get("steps", []) if (s.get("authz") or {}).get("approval")
        )
        return sorted(needing)
    if approve is None:
        return []
    if isinstance(approve, str):
        raise ValueError('approve: use "all", a list of step names, or None')
    return list(approve)


class _Driver:
    """The IO around the machine: the record written after every change,
    the trace appended, the events kept."""

    def __init__(
        self,
        ir: IrLike,
        tools: Mapping[str, Tool],
        approve: Union[str, Sequence[str], None],
        progress: Union[None, PathLike, Mapping[str, Any]],
        trace: Optional[PathLike],
        compiler: Optional["Compiler"] = None,
        fingerprint: Optional[str] = None,
        record_key: Optional[bytes] = None,
    ) -> None:
        ir_text = _checked_ir(ir, compiler, approve, fingerprint)
        ir_dict = json.loads(ir_text)
        needed = sorted({s["tool"] for s in ir_dict.get("steps", [])})
        missing = [t for t in needed if t not in tools]
        if missing:
            raise ValueError(f"no callable for the tools {missing} (pass them in tools={{...}})")
        approved = _approved(ir_dict, approve)
        self.path: Optional[Path] = None
        prior: Optional[str] = None
        if isinstance(progress, Mapping):
            prior = json.dumps(progress)
        elif progress is not None:
            self.path = Path(progress)
            if self.path.exists():
                prior = self.path.read_text(encoding="utf-8")
        self.tools = tools
        self.key = record_key
        self.machine = _planc.Machine(ir_text, approved, prior, record_key)
        self.events: List[Dict[str, Any]] = []
        self.trace = open(trace, "a", encoding="utf-8") if trace is not None else None
        self.flush()

    def flush(self) -> None:
        last = None
        for kind, text in self.machine.drain():
            if kind == "trace":
                self.events.append(json.loads(text))
                if self.trace is not None:
                    self.trace.write(text + "\n")
            else:
                last = text
        if self.trace is not None:
            self.trace.flush()
        if last is not None and self.path is not None:
            if self.key is not None:
                last = _planc.seal_record(last, self.key)
            _write_atomic(self.path, last)

    def give(self, call: Dict[str, Any], outcome: "tuple[bool, Any]") -> Optional[Dict[str, Any]]:
        """The outcome of one call to the machine; a retry, if one is due."""
        ok, value = outcome
        if ok:
            retry = self.machine.complete_ok(call["step"], value)
        else:
            retry = self.machine.complete_error(call["step"], *value)
        self.flush()
        return None if retry is None else _loads_exact(retry)

    def close(self) -> None:
        if self.trace is not None and not self.trace.closed:
            self.trace.close()

    def result(self) -> RunResult:
        done = self.machine.finished()
        if done is None:
            raise RuntimeError("the run ended with calls in flight")
        exit_code, reason, step = done
        return RunResult(
            exit_code=exit_code,
            progress=json.loads(self.machine.record()),
            events=self.events,
            reason=reason,
            step=step,
            reused=self.machine.reused(),
        )


def _write_atomic(path: Path, text: str) -> None:
    """Replaces ``path`` with ``text``: a temporary file beside it, then a
    rename, so a reader (or a run killed mid-write) never sees half a record."""
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _dumps(value: Any) -> str:
    """JSON text of a tool's result. A ``decimal.Decimal`` is written as
    the number it is, digit for digit (``Decimal("4180.00")`` is
    ``4180.00``), so guards and the record see the exact amount."""
    try:
        return json.dumps(value, allow_nan=False)
    except TypeError:
        pass
    parts: List[str] = []

    def put(v: Any) -> None:
        if isinstance(v, decimal.Decimal):
            if not v.is_finite():
                raise ValueError(f"{v} is not a JSON number")
            parts.append(str(v) if "E" not in str(v) else format(v, "f"))
        elif isinstance(v, Mapping):
            parts.append("{")
            for i, (k, item) in enumerate(v.items()):
                if not isinstance(k, str):
                    raise TypeError(f"a key of type {type(k).__name__}: keys are strings")
                parts.append(("," if i else "") + json.dumps(k) + ":")
                put(item)
            parts.append("}")
        elif isinstance(v, (list, tuple)):
            parts.append("[")
            for i, item in enumerate(v):
                if i:
                    parts.append(",")
                put(item)
            parts.append("]")
        else:
            parts.append(json.dumps(v, allow_nan=False))

    put(value)
    return "".join(parts)


def _loads_exact(text: str) -> Any:
    """JSON text with every number written with a fraction or an exponent
    as a ``decimal.Decimal``, digit for digit (integers stay ``int``): a
    call's arguments as the machine resolved them."""
    return json.loads(text, parse_float=decimal.Decimal)


def _floats(value: Any) -> Any:
    """``value`` with each ``decimal.Decimal`` as a ``float``: the
    arguments of a tool not marked :func:`exact`."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return value


_T = TypeVar("_T")


def exact(tool: _T) -> _T:
    """Marks a tool that takes numbers exactly: its arguments' numbers
    that are not integers arrive as ``decimal.Decimal`` with the digits
    the plan or the earlier result wrote (``500.10`` stays ``500.10``),
    not as ``float``. Tools are not marked by default, so a tool written
    for floats keeps working; a tool that moves money should be::

        @planc.exact
        def transfer(iban: str, amount: decimal.Decimal) -> dict: ...
    """
    setattr(tool, "planc_exact", True)
    return tool


def _encode(call: Dict[str, Any], value: Any) -> "tuple[bool, Any]":
    try:
        return (True, _dumps(value))
    except (TypeError, ValueError) as e:
        return (
            False,
            ("invalid_result", f"the tool `{call['tool']}` returned what is not JSON: {e}", False),
        )


def _failure(e: BaseException) -> "tuple[bool, Any]":
    """A tool's failure for the machine. Only a :class:`ToolError` is the
    tool saying the call did not happen; a timeout, a lost connection or
    any other exception leaves a write's outcome unknown (``timeout``,
    ``connection_lost``, ``exception``: ``outcome_unknown``, never retried;
    ``docs/executors.md``)."""
    if isinstance(e, ToolError):
        return (False, (e.code, e.message, bool(e.retryable)))
    message = f"{type(e).__name__}: {e}"
    if isinstance(e, (TimeoutError, asyncio.TimeoutError)):
        return (False, ("timeout", message, True))
    if isinstance(e, ConnectionError):
        return (False, ("connection_lost", message, True))
    return (False, ("exception", message, False))


def _accepts_key(tool: Tool) -> bool:
    """Whether ``tool`` takes an ``idempotency_key`` keyword argument."""
    try:
        params = inspect.signature(tool).parameters
    except (TypeError, ValueError):
        return False
    p = params.get("idempotency_key")
    return p is not None and p.kind in (
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )


def _arguments(tool: Tool, call: Dict[str, Any]) -> Dict[str, Any]:
    """The keyword arguments of a call: the step's resolved arguments, and
    a write's ``idempotency_key`` when the tool takes one (the executor's
    key, whatever an argument of that name says; ``docs/executors.md``)."""
    args = dict(call["args"]) if getattr(tool, "planc_exact", False) else _floats(call["args"])
    key = call.get("idempotency_key")
    if key is not None and _accepts_key(tool):
        args["idempotency_key"] = key
    return args


def _call_sync(tools: Mapping[str, Tool], call: Dict[str, Any]) -> "tuple[bool, Any]":
    try:
        tool = tools[call["tool"]]
        value = tool(**_arguments(tool, call))
        if inspect.isawaitable(value):
            raise TypeError("an async tool in a synchronous run: use planc.run_async")
    except Exception as e:  # every failure of a tool is a tool error
        return _failure(e)
    return _encode(call, value)


async def _call_async(tools: Mapping[str, Tool], call: Dict[str, Any]) -> "tuple[bool, Any]":
    try:
        tool = tools[call["tool"]]
        value = tool(**_arguments(tool, call))
        if inspect.isawaitable(value):
            value = await value
    except Exception as e:  # every failure of a tool is a tool error
        return _failure(e)
    return _encode(call, value)


def run(
    ir: IrLike,
    tools: Mapping[str, Tool],
    *,
    approve: Union[str, Sequence[str], None] = None,
    progress: Union[None, PathLike, Mapping[str, Any]] = None,
    trace: Optional[PathLike] = None,
    compiler: Optional["Compiler"] = None,
    fingerprint: Optional[str] = None,
    record_key: Optional[bytes] = None,
) -> RunResult:
    """Runs the IR (a dict, a JSON text, a path, or the :class:`CheckResult`
    that compiled it) with ``tools`` (a callable
    per tool name, called with the step's arguments as keyword arguments,
    returning JSON-able data; raising :class:`ToolError` is a tool error,
    any other exception one with code ``exception``).

    ``approve``: ``"all"``, the names of the approved steps, or ``None``.
    ``progress``: the record's path (read if it exists, written atomically
    after every step) or an earlier record as a dict; complete steps are
    never dispatched again. ``trace``: a file the events are appended to,
    one JSON object a line. ``record_key``: the operator's key; the record
    is written sealed with it and an earlier one read only when its seal
    verifies (``docs/replanning.md``, "Sealed records"); without one the
    record is trusted input.

    An IR that is not a :class:`CheckResult` of this process is verified
    first against ``compiler`` (required: the catalogue and policy it must
    keep): its fingerprint recomputed and its invariants checked, as
    ``planc run --ir`` does; approvals for it need ``fingerprint``, the one
    reviewed. What fails is a ``ValueError`` and nothing runs.

    With async tools, runs an event loop (:func:`run_async` in one already
    running).
    """
    if any(inspect.iscoroutinefunction(t) for t in tools.values()):
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(
                run_async(
                    ir,
                    tools,
                    approve=approve,
                    progress=progress,
                    trace=trace,
                    compiler=compiler,
                    fingerprint=fingerprint,
                    record_key=record_key,
                )
            )
        raise RuntimeError("async tools inside a running event loop: await planc.run_async(...)")
    d = _Driver(ir, tools, approve, progress, trace, compiler, fingerprint, record_key)
    try:
        # Rounds of ready steps, each call in source order with its
        # retries: the trace is the one `planc run` writes.
        while True:
            round_ = [_loads_exact(c) for c in d.machine.next(True)]
            d.flush()
            if not round_:
                break
            for call in round_:
                while call is not None:
                    call = d.give(call, _call_sync(tools, call))
    finally:
        d.close()
    return d.result()


async def run_async(
    ir: IrLike,
    tools: Mapping[str, Tool],
    *,
    approve: Union[str, Sequence[str], None] = None,
    progress: Union[None, PathLike, Mapping[str, Any]] = None,
    trace: Optional[PathLike] = None,
    compiler: Optional["Compiler"] = None,
    fingerprint: Optional[str] = None,
    record_key: Optional[bytes] = None,
) -> RunResult:
    """:func:`run` on the running event loop: every step whose dependencies
    are complete is dispatched at once, independent steps concurrently;
    sync tools run in the loop's default executor (threads)."""

    async def one(call: Dict[str, Any]) -> "tuple[Dict[str, Any], tuple[bool, Any]]":
        tool = tools[call["tool"]]
        if inspect.iscoroutinefunction(tool):
            return call, await _call_async(tools, call)
        loop = asyncio.get_running_loop()
        return call, await loop.run_in_executor(None, _call_sync, tools, call)

    d = _Driver(ir, tools, approve, progress, trace, compiler, fingerprint, record_key)
    pending: "set[asyncio.Task[Any]]" = set()
    try:
        while True:
            for c in d.machine.next(True):
                pending.add(asyncio.ensure_future(one(_loads_exact(c))))
            d.flush()
            if not pending:
                break
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            # Given to the machine in source order within what finished
            # together, so one schedule always gives one trace.
            finished = sorted((t.result() for t in done), key=lambda r: r[0]["index"])
            for call, outcome in finished:
                retry = d.give(call, outcome)
                if retry is not None:
                    pending.add(asyncio.ensure_future(one(retry)))
    finally:
        for t in pending:
            t.cancel()
        d.close()
    return d.result()
