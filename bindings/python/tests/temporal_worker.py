"""A worker in its own process, for the tests that kill one: the key-value
tools of the conformance catalogue, each call appended to a ledger file
shared by every worker process (``OP KEY PID`` a line). The call named by
``--slow OP:KEY`` hangs the first time it is made, so the test can kill
the worker while it is in flight.

Usage: python temporal_worker.py ADDRESS TASK_QUEUE LEDGER [--slow OP:KEY]
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path

from temporalio.client import Client

import planc.temporal


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("address")
    p.add_argument("task_queue")
    p.add_argument("ledger")
    p.add_argument("--slow", default=None)
    a = p.parse_args()
    ledger = Path(a.ledger)

    def record(op: str, key: str) -> int:
        """Appends the call; how many times it was made before."""
        before = ledger.read_text().splitlines() if ledger.exists() else []
        with open(ledger, "a", encoding="utf-8") as f:
            f.write(f"{op} {key} {os.getpid()}\n")
            f.flush()
            os.fsync(f.fileno())
        return sum(1 for l in before if l.split(" ")[:2] == [op, key])

    async def get(key: str) -> dict:
        if record("get", key) == 0 and a.slow == f"get:{key}":
            await asyncio.sleep(3600)
        return {"value": f"value of {key}", "items": []}

    async def put(key: str, value: str) -> dict:
        made = record("put", key)
        if made == 0 and a.slow == f"put:{key}":
            await asyncio.sleep(3600)
        return {"version": made + 1}

    async def serve() -> None:
        client = await Client.connect(a.address)
        w = planc.temporal.worker(client, a.task_queue, {"kv.get": get, "kv.put": put})
        print("ready", flush=True)
        await w.run()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
