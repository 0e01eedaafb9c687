"""An MCP server whose tools fail, hang and die on command, for tests/mcp.rs.

Written with the official Python SDK (`mcp`, pinned in requirements.txt).
Every call that takes effect is appended to the file named by FAULT_CALLS
(one JSON object a line), so a test can count what was dispatched, across
restarts of the server.

- store_read(key): a read; returns {"value": ...} from FAULT_STORE (a JSON file).
- store_write(key, value): a write; records the call, updates the store.
- flaky_read(key): fails (isError) until it has been called FAULT_FLAKY times.
- hang(): never answers.
- die(): the process exits at once.
- lying_status(ticket): its `tools/list` entry declares an outputSchema
  (`status` one of "open", "closed") and it answers with structuredContent
  outside it ("escalated"): the attacker's server, whose result a client
  must validate before anything is bound.
- honest_status(ticket): the same schema, a result inside it.
- task_only(): listed with `execution.taskSupport: "required"`: it runs
  only as a task (the MCP tasks extension).

FAULT_HANG_AT=N: the N-th call counted in FAULT_CALLS hangs before it takes
effect, once (a marker file beside FAULT_CALLS remembers it), so a test can
kill the client at a step boundary.
"""

import json
import os
import time

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from mcp_types import ToolExecution
from typing_extensions import TypedDict

CALLS = os.environ["FAULT_CALLS"]
STORE = os.environ.get("FAULT_STORE", CALLS + ".store")
HANG_AT = int(os.environ.get("FAULT_HANG_AT", "0"))
FLAKY = int(os.environ.get("FAULT_FLAKY", "2"))

STATUS_SCHEMA = {
    "type": "object",
    "properties": {"status": {"type": "string", "enum": ["open", "closed"]}},
    "required": ["status"],
}


class Status(TypedDict):
    """What the status tools return (a string: the listing narrows it)."""

    status: str


class FaultServer(MCPServer):
    """Lists some tools as other than they are (see the module's doc)."""

    async def list_tools(self):
        tools = await super().list_tools()
        for tool in tools:
            if tool.name in ("lying_status", "honest_status"):
                tool.output_schema = STATUS_SCHEMA
            if tool.name == "task_only":
                tool.execution = ToolExecution(task_support="required")
        return tools


server = FaultServer("fault")
READ = ToolAnnotations(readOnlyHint=True, idempotentHint=True)
WRITE = ToolAnnotations(readOnlyHint=False, idempotentHint=False)


def calls():
    try:
        with open(CALLS) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def take_effect(tool, args):
    """Counts the call, first hanging if it is the one to hang on."""
    n = len(calls()) + 1
    marker = CALLS + ".hung"
    if HANG_AT and n == HANG_AT and not os.path.exists(marker):
        open(marker, "w").close()
        while True:
            time.sleep(60)
    with open(CALLS, "a") as f:
        f.write(json.dumps({"tool": tool, "args": args}) + "\n")
        f.flush()
        os.fsync(f.fileno())


def load():
    try:
        with open(STORE) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


@server.tool(annotations=READ)
def store_read(key: str) -> dict:
    """Reads a key of the store."""
    take_effect("store_read", {"key": key})
    return {"value": load().get(key, "")}


@server.tool(annotations=WRITE)
def store_write(key: str, value: str) -> dict:
    """Writes a key of the store."""
    take_effect("store_write", {"key": key, "value": value})
    data = load()
    data[key] = value
    with open(STORE, "w") as f:
        json.dump(data, f)
    return {"written": key, "calls": len(calls())}


@server.tool(annotations=READ)
def flaky_read(key: str) -> dict:
    """Fails until it has been called FAULT_FLAKY times, then reads."""
    take_effect("flaky_read", {"key": key})
    if sum(1 for c in calls() if c["tool"] == "flaky_read") < FLAKY:
        raise RuntimeError("temporarily unavailable")
    return {"value": load().get(key, "")}


@server.tool(annotations=READ)
def hang() -> dict:
    """Never answers."""
    while True:
        time.sleep(60)


@server.tool(annotations=WRITE)
def die() -> dict:
    """Ends the server at once, mid-call."""
    os._exit(3)


@server.tool(annotations=READ)
def lying_status(ticket: str) -> Status:
    """Answers outside the outputSchema its listing declares."""
    take_effect("lying_status", {"ticket": ticket})
    return Status(status="escalated")


@server.tool(annotations=READ)
def honest_status(ticket: str) -> Status:
    """Answers inside the outputSchema its listing declares."""
    take_effect("honest_status", {"ticket": ticket})
    return Status(status="closed")


@server.tool(annotations=READ)
def task_only() -> dict:
    """Listed as runnable only as a task."""
    take_effect("task_only", {})
    return {"done": True}


if __name__ == "__main__":
    # The pid, so a test can end a server its killed client left hanging.
    with open(CALLS + ".pids", "a") as f:
        f.write(f"{os.getpid()}\n")
    server.run("stdio")
