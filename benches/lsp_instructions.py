#!/usr/bin/env python3
"""Instructions the language server spends on one edit of a 1,000-step plan.

Runs `planc lsp` under callgrind twice, on the plan of `tests/support/big.rs`
(each step resolving a customer from the previous one's binding) against
`tests/ui/check/tools.plan` and `policy.plan`: once opening the plan only,
once opening it and making EDITS changes, every other one misspelling a
reference (E0105, with a "did you mean" search over the bindings) and the
next one mending it, as `latency_of_a_thousand_step_plan` in
`tests/lsp_e2e.rs` does. Each change waits for its diagnostics before the
next is sent: the server coalesces changes already waiting. The difference
of the two counts over EDITS is one edit's cost, every thread of the
server included (the reader parses the message, the main thread checks).
Each change carries the whole text, as from a client that asks for full
sync; with `--ranged`, only the character it replaces, as an editor sends
it under the incremental sync the server asks for.

    cargo build --release --bin planc
    python3 benches/lsp_instructions.py [--steps 1000] [--edits 20] [--ranged]
"""

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def big_plan(steps: int) -> str:
    """The text of `tests/support/big.rs`'s `big_plan`."""
    s = 'plan big "many steps" {\n'
    s += ('    step s0 = customer.resolve(email: "a@b.c") {\n'
          '        post len($.results) == 1\n        bind acct0 = $.results[0].id\n    }\n')
    for i in range(1, steps):
        s += (f'    step s{i} = customer.resolve(email: "${{acct{i - 1}}}@x.y") {{\n'
              f'        post len($.results) == 1\n        bind acct{i} = $.results[0].id\n    }}\n')
    return s + "}\n"


class Session:
    """A `planc lsp` process and its JSON-RPC framing."""

    def __init__(self, cmd: list[str], cwd: Path):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, cwd=cwd)

    def send(self, msg: dict) -> None:
        msg["jsonrpc"] = "2.0"
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def recv(self) -> dict:
        size = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("the server ended early")
            if line == b"\r\n":
                break
            if line.lower().startswith(b"content-length:"):
                size = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(size))

    def wait(self, want) -> dict:
        while not want(m := self.recv()):
            pass
        return m


def published(version: int):
    return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"].get("version") == version)


def instructions(planc: Path, project: Path, steps: int, edits: int, ranged: bool) -> int:
    out = project / f"callgrind.{edits}.out"
    s = Session(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                 str(planc), "lsp"], project)
    uri = (project / "big.plan").as_uri()
    text = big_plan(steps)
    misspelt = text.replace("${acct499}", "${acct49x}", 1)
    s.send({"id": 1, "method": "initialize", "params": {"capabilities": {}}})
    s.wait(lambda m: m.get("id") == 1)
    s.send({"method": "initialized", "params": {}})
    s.send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "planc", "version": 1, "text": text}}})
    s.wait(published(1))
    # The one character the two texts differ in, as a line and a column
    # (the text is ASCII: bytes are UTF-16 units).
    at = next(i for i, (a, b) in enumerate(zip(text, misspelt)) if a != b)
    line = text.count("\n", 0, at)
    where = {"line": line, "character": at - (text.rfind("\n", 0, at) + 1)}
    for version in range(2, 2 + edits):
        new = misspelt if version % 2 == 0 else text
        change = {"text": new}
        if ranged:
            change = {"range": {"start": where, "end": dict(where, character=where["character"] + 1)},
                      "text": new[at]}
        s.send({"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
        s.wait(published(version))
    s.send({"id": 2, "method": "shutdown"})
    s.wait(lambda m: m.get("id") == 2)
    s.send({"method": "exit"})
    s.p.wait()
    totals = subprocess.run(["callgrind_annotate", str(out)], capture_output=True,
                            text=True, check=True).stdout
    match = re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", totals)
    if not match:
        sys.exit(f"no total in {out}")
    return int(match.group(1).replace(",", ""))


def per_edit(planc: Path, steps: int = 1000, edits: int = 20,
             ranged: bool = False, opened: int | None = None) -> tuple[int, float]:
    """Instructions of opening the plan, and of one edit of it. `opened`:
    the opening's count from an earlier call with the same `steps` (an
    opening sends no edit, whole or ranged), not counted again."""
    if steps <= 500 or edits < 2:
        raise ValueError("steps must be over 500 (the edit is at step 500), edits at least 2")
    planc = planc.resolve()
    with tempfile.TemporaryDirectory(prefix="planc-lsp-instr-") as tmp:
        project = Path(tmp)
        for f in ("tools.plan", "policy.plan"):
            shutil.copy(ROOT / "tests/ui/check" / f, project / f)
        (project / "planc.toml").write_text('catalog = ["tools.plan"]\npolicy = "policy.plan"\n')
        if opened is None:
            opened = instructions(planc, project, steps, 0, ranged)
        edited = instructions(planc, project, steps, edits, ranged)
    return opened, (edited - opened) / edits


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--planc", type=Path, default=ROOT / "target/release/planc")
    ap.add_argument("--ranged", action="store_true",
                    help="send each change as the range it replaces (incremental sync)")
    a = ap.parse_args()
    try:
        opened, edit = per_edit(a.planc, a.steps, a.edits, a.ranged)
    except ValueError as e:
        sys.exit(str(e))
    print(f"{a.steps}-step plan: opening {opened / 1e6:.1f} M instructions, "
          f"one edit {edit / 1e6:.2f} M (over {a.edits} edits, "
          f"{'each a range' if a.ranged else 'each the whole text'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
