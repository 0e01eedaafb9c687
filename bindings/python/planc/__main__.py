"""``python -m planc run IR.json --tools=fixture:FILE [--progress=FILE]
[--trace=FILE] [--approve=STEP,...] [--approve-all]`` (``python -m planc
--async run ...`` for async tools on an event loop): the IR run
by :func:`planc.run` with the recorded responses as Python tools. The
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

from . import run, run_async
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
    args = parser.parse_args(argv)
    try:
        if not args.tools.startswith("fixture:"):
            raise ValueError("--tools: only `fixture:FILE` here")
        recorded = Recorded.load(args.tools[len("fixture:"):])
        with open(args.ir, encoding="utf-8") as f:
            ir = json.load(f)
        names = sorted({s["tool"] for s in ir.get("steps", [])})
        approve = "all" if args.approve_all else [a for a in args.approve.split(",") if a]
        if args.use_async:
            result = asyncio.run(run_async(ir, recorded.async_tools(names), approve=approve,
                                           progress=args.progress, trace=args.trace))
        else:
            result = run(ir, recorded.tools(names), approve=approve,
                         progress=args.progress, trace=args.trace)
    except (OSError, ValueError, RuntimeError) as e:
        print(f"python -m planc: {e}", file=sys.stderr)
        return 2
    print(f"python -m planc: plan `{ir.get('name')}`: {result.reason}", file=sys.stderr)
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
