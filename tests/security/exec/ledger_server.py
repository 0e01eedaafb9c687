"""A minimal MCP server over stdio (the standard library only), for
tests/security_exec.rs: its write tool appends every call it receives, with
the `_meta` of the request, to the ledger file LEDGER (one JSON object a
line) before it answers; with HANG set (a file that exists) it then never
answers, as a server that committed and died would look to its client."""

import json
import os
import sys
import time

LEDGER = os.environ["LEDGER"]
HANG = os.environ.get("HANG", "")

TOOLS = [
    {"name": "kv.get", "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
     "annotations": {"readOnlyHint": True, "idempotentHint": True}},
    {"name": "pay.send", "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}, "amount_eur": {"type": "number"}}, "required": ["to", "amount_eur"]},
     "annotations": {"readOnlyHint": False, "idempotentHint": False}},
]


def answer(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    method = msg.get("method")
    if "id" not in msg:
        continue
    if method == "initialize":
        answer(msg["id"], {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                           "serverInfo": {"name": "ledger", "version": "1"}})
    elif method == "tools/list":
        answer(msg["id"], {"tools": TOOLS})
    elif method == "tools/call":
        params = msg["params"]
        if params["name"] == "kv.get":
            value = {"value": "acct_" + params["arguments"]["key"]}
        else:
            with open(LEDGER, "a") as f:
                f.write(json.dumps({"args": params["arguments"], "meta": params.get("_meta")}) + "\n")
            if HANG and os.path.exists(HANG):
                time.sleep(3600)
            value = {"payment_id": "pm_1"}
        answer(msg["id"], {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value})
