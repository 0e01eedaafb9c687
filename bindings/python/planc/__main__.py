"""``python -m planc run IR.json --tools=fixture:FILE --catalog=FILE
--policy=FILE [--progress=FILE] [--trace=FILE] [--approve=STEP,...
--fingerprint=sha256:…] [--approve-all] [--approvals=FILE]`` (``python -m planc
--async run ...`` for async tools on an event loop): the IR run
by :func:`planc.run` with the recorded responses as Python tools, after
it is verified against the catalogue and policy given. The
command line of an executor under the conformance suite
(``PLANC_EXECUTOR="python -m planc" cargo test --test conformance``);
exit status as ``planc run`` (2 when the command itself fails).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import List, Optional

from . import Compiler, run, run_async
from .fixture import Recorded


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m planc")
    parser.add_argument("--async", dest="use_async", action="store_true",
                        help="async tools on an event loop (independent steps concurrently)")
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run an IR with recorded tool responses")
    r.add_argument("ir")
    r.add_argument("--tools", required=True, help="fixture:FILE")
    r.add_argument("--progress")
    r.add_argument("--trace")
    r.add_argument("--approve", default="")
    r.add_argument("--approve-all", action="store_true")
    r.add_argument("--approvals", help="an approvals file naming the IR's fingerprint")
    r.add_argument("--fingerprint", help="the fingerprint the approvals were given for")
    r.add_argument("--catalog", action="append", default=[], help="a catalogue file; repeatable")
    r.add_argument("--policy", help="the policy file")
    args = parser.parse_args(argv)
    try:
        if not args.tools.startswith("fixture:"):
            raise ValueError("--tools: only `fixture:FILE` here")
        recorded = Recorded.load(args.tools[len("fixture:"):])
        with open(args.ir, encoding="utf-8") as f:
            ir = json.load(f)
        names = sorted({s["tool"] for s in ir.get("steps", [])})
        approve = "all" if args.approve_all else [a for a in args.approve.split(",") if a]
        fingerprint = args.fingerprint
        if args.approvals:
            with open(args.approvals, encoding="utf-8") as f:
                given = json.load(f)
            approve, fingerprint = list(given["steps"]), given["fingerprint"]
        if not args.catalog or args.policy is None:
            raise ValueError("an IR is verified before it runs: give --catalog and --policy")
        compiler = Compiler(catalog=args.catalog, policy=args.policy)
        checked = {"compiler": compiler, "fingerprint": fingerprint}
        if args.use_async:
            result = asyncio.run(run_async(ir, recorded.async_tools(names), approve=approve,
                                           progress=args.progress, trace=args.trace, **checked))
        else:
            result = run(ir, recorded.tools(names), approve=approve,
                         progress=args.progress, trace=args.trace, **checked)
    except (OSError, ValueError, RuntimeError, KeyError) as e:
        print(f"python -m planc: {e}", file=sys.stderr)
        return 2
    print(f"python -m planc: plan `{ir.get('name')}`: {result.reason}", file=sys.stderr)
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
