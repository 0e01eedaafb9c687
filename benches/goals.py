#!/usr/bin/env python3
"""Every row of planc's performance goals (docs/performance.md, "Against the
goals"), measured side by side in one run: planc beside serde_json and
pydantic v2, by instructions (callgrind) and by time, the peak memory of a
`planc` process against its input, and the language server's latency.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install -r benches/requirements.txt
    /tmp/v/bin/python benches/goals.py                # everything: about six minutes
    /tmp/v/bin/python benches/goals.py --sizes 10,100,1000 --no-lsp
    /tmp/v/bin/python benches/goals.py --smoke        # CI: a debug build, the
        # 10-step plan, one pass of each measurement; checks the plumbing, not speed

It builds the release `planc` and the `agent_loop` benchmark, writes the
benchmark plans (the Northwind downgrade repeated, in both forms), then:

- instructions: callgrind of one run of each stage of `agent_loop`
  (`serde_json`, `check_only`, `check`, `check_run`, `text_compile`), and of
  pydantic's `model_validate_json` inside CPython (the difference of N calls
  and none, over N); of the stages that fingerprint the IR, how many of the
  instructions are SHA-256's (portable code under valgrind, whose CPU has no
  SHA extensions; a CPU that has them runs a fraction of those);
- time: `agent_loop`'s median per call, and pydantic's and `json.loads`'s
  (`benches/pydantic_compare.py`), one after the other;
- memory: the peak resident set of `planc check` and `planc compile` of the
  10,000- and 100,000-step plans, and of a `serde_json::Value` of the JSON
  plan, over the input's size;
- the Python package (when `import planc` works in this interpreter, as
  after `pip install ./bindings/python`): `Compiler.check(text).errors` of
  the same JSON plans beside pydantic's `model_validate_json`, by
  instructions inside CPython and by time;
- growth: the time of `planc check` (short and human formats), `compile`,
  `graph`, `review` and `diff` at the two largest sizes, as an exponent
  (1 linear, 2 quadratic);
- the language server: the ignored latency test of `tests/lsp_e2e.rs`
  (200 edits of a 1,000-step plan), p50 and p99, on the idle machine and
  with one spinning process per core beside it; and the instructions of
  one of those edits, every thread of the server (`lsp_instructions.py`).

Instruction counts are the figures to compare by: a shared virtual machine's
clock moves by up to 2x between runs. Prints markdown; exits 0 whatever the
figures (a goal missed is a finding, not a failure), 2 when a measurement
could not be made.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

STAGES = ["serde_json", "check_only", "check", "check_run", "text_compile"]
# pydantic under callgrind is slow (CPython interprets the import): its
# instructions are counted at these sizes only.
PYDANTIC_COUNT_SIZES = (10, 1000)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=kw.pop("cwd", ROOT), text=True, capture_output=True, **kw)


def fail(why: str) -> None:
    print(f"goals.py: {why}", file=sys.stderr)
    sys.exit(2)


def build(smoke: bool) -> tuple[Path, Path]:
    """The `planc` binary and the `agent_loop` executable."""
    profile = [] if smoke else ["--release"]
    r = run(["cargo", "build", "--locked", "--bin", "planc", *profile])
    if r.returncode != 0:
        fail(f"cargo build failed:\n{r.stderr}")
    # `cargo test --bench` builds the benchmark with the debug profile.
    verb = ["test"] if smoke else ["bench"]
    r = run(["cargo", *verb, "--locked", "--bench", "agent_loop", "--no-run",
             "--message-format=json"])
    if r.returncode != 0:
        fail(f"building the agent_loop benchmark failed:\n{r.stderr}")
    exe = None
    for line in r.stdout.splitlines():
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") \
                and msg.get("target", {}).get("name") == "agent_loop":
            exe = Path(msg["executable"])
    if exe is None:
        fail("cargo did not name the agent_loop executable")
    planc = ROOT / "target" / ("debug" if smoke else "release") / "planc"
    return planc, exe


def emit(bench: Path, sizes: list[int], folder: Path) -> None:
    env = dict(os.environ, PLANC_BENCH_EMIT=str(folder),
               PLANC_BENCH_SIZES=",".join(map(str, sizes)))
    r = run([str(bench)], env=env)
    if r.returncode != 0:
        fail(f"writing the plans failed:\n{r.stderr}")


def callgrind(cmd: list[str], env: dict | None = None, toggle: str | None = None) -> int:
    """Instructions callgrind counts for `cmd` (within `toggle`, if given)."""
    return callgrind_of(cmd, env, toggle)[0]


# The function SHA-256's blocks go through, whichever code the CPU runs:
# valgrind's virtual CPU has no SHA extensions, so under callgrind it is
# the portable code, about 52 instructions a byte, where `sha2` picks the
# SHA-NI instructions on a CPU that has them.
SHA256 = "sha2::sha256::compress256"


def callgrind_of(cmd: list[str], env: dict | None = None,
                 toggle: str | None = None) -> tuple[int, int]:
    """Instructions callgrind counts for `cmd` (within `toggle`, if given),
    and how many of them are SHA-256's (the IR's fingerprint)."""
    with tempfile.TemporaryDirectory() as tmp:
        args = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out"]
        if toggle:
            args.append(f"--toggle-collect={toggle}")
        r = subprocess.run(args + cmd, env=env, text=True, capture_output=True, cwd=ROOT)
        m = re.search(r"Collected : (\d+)", r.stderr)
        if r.returncode != 0 or not m:
            fail(f"callgrind of {cmd} failed:\n{r.stderr[-2000:]}")
        a = subprocess.run(["callgrind_annotate", "--inclusive=yes", f"{tmp}/cg.out"],
                           text=True, capture_output=True)
    sha = 0
    for line in a.stdout.splitlines():
        if f":{SHA256} " in line:
            sha = int(line.split()[0].replace(",", ""))
            break
    return int(m.group(1)), sha


def stage_instructions(bench: Path, stage: str, n: int) -> tuple[int, int]:
    env = dict(os.environ, PLANC_BENCH_STAGE=f"{stage}:{n}")
    return callgrind_of([str(bench)], env=env, toggle="*run_stage*")


def pydantic_instructions(plan: Path, calls: int) -> int:
    """pydantic's instructions per call of `model_validate_json`, in
    CPython: the whole interpreter with `calls` calls and with none."""
    script = Path(__file__).resolve()
    counts = [callgrind([sys.executable, str(script), "--validate", str(plan), str(k)])
              for k in (calls, 0)]
    return max(0, counts[0] - counts[1]) // calls


def validate_loop(plan: Path, calls: int) -> None:
    """The body `pydantic_instructions` counts: `calls` validations."""
    from pydantic_compare import Plan

    text = plan.read_text()
    for _ in range(calls):
        Plan.model_validate_json(text)


def binding_check(plan: Path):
    """The Python package's check of `plan` against the catalogue and
    policy written beside it, as an agent loop calls it (the diagnostics'
    count read; the dicts and the IR built only when read)."""
    import planc

    compiler = planc.Compiler(catalog=[plan.parent / "tools.plan"],
                              policy=plan.parent / "policy.plan")
    text = plan.read_text()
    if compiler.check(text).errors:
        fail(f"the Python package finds errors in {plan.name}")
    return lambda t=text: compiler.check(t).errors


def binding_loop(plan: Path, calls: int) -> None:
    """The body `binding_instructions` counts: `calls` checks (one more,
    not counted, built the compiler)."""
    check = binding_check(plan)
    for _ in range(calls):
        check()


def binding_instructions(plan: Path, calls: int) -> int:
    """`Compiler.check`'s instructions per call, in CPython: the whole
    interpreter with `calls` calls and with none."""
    script = Path(__file__).resolve()
    counts = [callgrind([sys.executable, str(script), "--binding", str(plan), str(k)])
              for k in (calls, 0)]
    return max(0, counts[0] - counts[1]) // calls


def binding_available() -> bool:
    try:
        import planc  # noqa: F401
    except ImportError:
        return False
    return True


def binding_profile() -> str:
    """How the installed package's extension was built: `debug` or
    `release` (`unknown` for a package older than the attribute)."""
    import planc._planc as ext

    return getattr(ext, "BUILD_PROFILE", "unknown")


def planc_times(bench: Path, sizes: list[int]) -> dict[int, dict[str, float]]:
    """`agent_loop`'s own table: median microseconds per call, per stage."""
    env = dict(os.environ, PLANC_BENCH_SIZES=",".join(map(str, sizes)))
    r = run([str(bench), "--bench"], env=env)
    if r.returncode != 0:
        fail(f"agent_loop failed:\n{r.stderr}")
    out: dict[int, dict[str, float]] = {}
    for line in r.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 + len(STAGES) and cells[0].isdigit():
            out[int(cells[0])] = {s: float(cells[2 + i]) for i, s in enumerate(STAGES)}
    return out


def python_times(plan: Path, quick: bool) -> tuple[float, float]:
    """Median microseconds of `json.loads` and pydantic's validation."""
    import pydantic_compare as pc

    text = plan.read_text()
    if quick:
        def once(fn) -> float:
            t = time.perf_counter()
            fn(text)
            return (time.perf_counter() - t) * 1e6

        return once(json.loads), once(pc.Plan.model_validate_json)
    return pc.median_us(json.loads, text), pc.median_us(pc.Plan.model_validate_json, text)


def peak_kib(cmd: list[str], cwd: Path, env: dict | None = None) -> int:
    """The peak resident set of one process, in KiB, as GNU time reports
    it. (Not this script's own rusage of a child: a child forked from this
    interpreter counts the interpreter's pages in its peak before exec.)"""
    with tempfile.NamedTemporaryFile("r") as out:
        r = subprocess.run([GNU_TIME, "-f", "%M", "-o", out.name, *cmd], cwd=cwd, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # 0: no diagnostic worse than a warning; 1: diagnostics (not
        # expected of the benchmark plan, but measured all the same).
        if r.returncode not in (0, 1):
            fail(f"{cmd} exited {r.returncode}")
        return int(out.read().split()[-1])


GNU_TIME = "/usr/bin/time"

# The commands whose time should grow as the plan does: each once at the
# two largest sizes (`{f}`: the JSON plan, `{t}`: the same plan as text).
GROWTH = [
    ("check --format short", ["check", "--format", "short", "{f}"]),
    ("check (the human format)", ["check", "{f}"]),
    ("compile", ["compile", "-o", "out.ir.json", "{f}"]),
    ("graph", ["graph", "{f}"]),
    ("review", ["review", "-o", "out.html", "{f}"]),
    ("diff", ["diff", "{f}", "{t}"]),
]


def seconds(cmd: list[str], cwd: Path) -> float:
    """The shorter wall time of two runs of a command."""
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
        if r.returncode not in (0, 1):
            fail(f"{cmd} exited {r.returncode}")
    return best


def growth(planc: Path, plans: Path, small: int, big: int) -> list[tuple[str, float, float, float]]:
    """Each command's time at `small` and `big` steps, and the exponent of
    its growth: log(time ratio) / log(size ratio), 1 for linear, 2 for
    quadratic."""
    import math

    out = []
    for name, args in GROWTH:
        t = []
        for n in (small, big):
            cmd = [a.format(f=f"plan_{n}.json", t=f"plan_{n}.plan") for a in args]
            t.append(seconds([str(planc), *cmd], plans))
        exponent = math.log(max(t[1], 1e-3) / max(t[0], 1e-3)) / math.log(big / small)
        out.append((name, t[0], t[1], exponent))
    return out


def lsp_latency(busy: bool) -> tuple[float, float] | None:
    """p50 and p99 of the latency test; with `busy`, one spinning process
    per core runs beside it (and is stopped after it)."""
    cmd = ["cargo", "test", "--release", "--locked", "--test", "lsp_e2e", "--",
           "--ignored", "--nocapture", "latency_of_a_thousand_step_plan"]
    run(cmd[:-4] + ["--no-run"])
    spinners = []
    if busy:
        spin = "import time\nend = time.time() + 600\nwhile time.time() < end: pass"
        spinners = [subprocess.Popen([sys.executable, "-c", spin])
                    for _ in range(os.cpu_count() or 2)]
    try:
        r = run(cmd)
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    m = re.search(r"p50 ([\d.]+) ms, p99 ([\d.]+) ms", r.stdout + r.stderr)
    return (float(m.group(1)), float(m.group(2))) if m else None


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,100,1000,10000,100000",
                    help="plan sizes in steps (time: all; instructions: up to 10,000)")
    ap.add_argument("--smoke", action="store_true",
                    help="debug build, the 10-step plan, one pass: checks that it runs")
    ap.add_argument("--no-lsp", action="store_true", help="leave out the language server")
    ap.add_argument("--no-callgrind", action="store_true", help="leave out instruction counts")
    ap.add_argument("--validate", nargs=2, metavar=("PLAN", "N"), help=argparse.SUPPRESS)
    ap.add_argument("--binding", nargs=2, metavar=("PLAN", "N"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.validate:
        validate_loop(Path(a.validate[0]), int(a.validate[1]))
        return 0
    if a.binding:
        binding_loop(Path(a.binding[0]), int(a.binding[1]))
        return 0

    sizes = [10] if a.smoke else sorted({int(s) for s in a.sizes.split(",") if s.strip()})
    counted = [n for n in sizes if n <= 10_000]
    use_callgrind = not a.no_callgrind and shutil.which("valgrind") is not None
    started = time.time()
    planc, bench = build(a.smoke)
    import pydantic

    print(f"# planc's performance goals, measured in one run\n")
    print(f"{time.strftime('%Y-%m-%d %H:%M')}; {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.2f}; pydantic {pydantic.VERSION}; "
          f"{'debug build (smoke: not figures to compare)' if a.smoke else 'release build'}\n")

    with tempfile.TemporaryDirectory() as tmp:
        plans = Path(tmp)
        emit(bench, sizes, plans)
        size_of = {n: (plans / f"plan_{n}.json").stat().st_size for n in sizes}
        text_size = {n: (plans / f"plan_{n}.plan").stat().st_size for n in sizes}

        instr: dict[tuple[str, int], int] = {}
        sha: dict[tuple[str, int], int] = {}
        pyd_instr: dict[int, int] = {}
        if use_callgrind:
            for n in counted:
                for s in STAGES:
                    instr[(s, n)], sha[(s, n)] = stage_instructions(bench, s, n)
            for n in (n for n in PYDANTIC_COUNT_SIZES if n in sizes):
                pyd_instr[n] = pydantic_instructions(plans / f"plan_{n}.json", 2 if a.smoke else 20)

        # The Python package, at the sizes pydantic's instructions are
        # counted at.
        binding = binding_available()
        bind_sizes = [n for n in PYDANTIC_COUNT_SIZES if n in sizes] if binding else []
        bind_instr: dict[int, int] = {}
        bind_times: dict[int, float] = {}
        for n in bind_sizes:
            plan = plans / f"plan_{n}.json"
            if use_callgrind:
                bind_instr[n] = binding_instructions(plan, 2 if a.smoke else 20)
            import pydantic_compare as pc

            check = binding_check(plan)
            bind_times[n] = pc.median_us(lambda _t: check(), "") if not a.smoke else 0.0

        times = planc_times(bench, sizes)
        py_times = {n: python_times(plans / f"plan_{n}.json", a.smoke) for n in sizes}

        big = [n for n in sizes if n >= 10_000] or ([max(sizes)] if a.smoke else [])
        if not Path(GNU_TIME).exists():
            print(f"(no {GNU_TIME}, Debian's package `time`: peak memory left out)\n")
            big = []
        memory = []
        for n in big:
            for form, size in (("json", size_of[n]), ("plan", text_size[n])):
                f = f"plan_{n}.{form}"
                check = peak_kib([str(planc), "check", "--format", "short", f], plans)
                out = plans / "out.ir.json"
                compile_ = peak_kib([str(planc), "compile", "-o", str(out), f], plans)
                memory.append((f, size, check, compile_))
            value = peak_kib([str(bench)], plans,
                             env=dict(os.environ, PLANC_BENCH_VALUE=str(plans / f"plan_{n}.json")))
            memory.append((f"plan_{n}.json: serde_json Value", size_of[n], value, None))
        # How each command's time grows, from the two largest sizes of at
        # least 1,000 steps (none in a smoke run).
        grown = [n for n in sizes if n >= 1_000][-2:]
        grows = growth(planc, plans, grown[0], grown[1]) if len(grown) == 2 else []

    lsp = None if (a.smoke or a.no_lsp) else lsp_latency(busy=False)
    lsp_busy = None if (a.smoke or a.no_lsp) else lsp_latency(busy=True)
    lsp_steps = 600 if a.smoke else 1000
    lsp_edit = lsp_ranged = None
    if use_callgrind and not a.no_lsp:
        import lsp_instructions
        lsp_edits = 2 if a.smoke else 20
        opened, lsp_edit = lsp_instructions.per_edit(planc, lsp_steps, lsp_edits)
        lsp_ranged = lsp_instructions.per_edit(planc, lsp_steps, lsp_edits, ranged=True,
                                               opened=opened)[1]

    def without_sha(stage: str, n: int) -> str:
        """The ratio without SHA-256's instructions, where the stage hashes."""
        if not sha.get((stage, n)):
            return ""
        r = (instr[(stage, n)] - sha[(stage, n)]) / instr[("serde_json", n)]
        return f" ({r:.2f} without SHA-256's portable code, {sha[(stage, n)] / 1e6:.1f} M)"

    # ------------------------------------------------------------ the goals
    print("## Against the goals\n")
    print("| goal | measured | |")
    print("|---|---|---|")
    if (("check_only", 10) in instr):
        r = instr[("check_only", 10)] / instr[("serde_json", 10)]
        print(f"| 10-step check with a compiled catalogue / serde_json, by instructions, <= 2 "
              f"| {r:.2f} | {'met' if r <= 2 else 'missed'} |")
    for n in sizes:
        t = times.get(n, {}).get("check_only")
        if t is not None:
            p = py_times[n][1]
            line = f"by time {t:.1f} against {p:.1f} µs"
            if n in pyd_instr and ("check_only", n) in instr:
                line += (f"; by instructions {instr[('check_only', n)] / 1e3:,.0f} k against "
                         f"{pyd_instr[n] / 1e3:,.0f} k")
            faster = t < p and (n not in pyd_instr or ("check_only", n) not in instr
                                or instr[("check_only", n)] < pyd_instr[n])
            print(f"| check faster than pydantic `model_validate_json`, {n:,} steps | {line} "
                  f"| {'met' if faster else 'missed'} |")
    if not binding:
        print("| the Python package's `Compiler.check` against pydantic | not measured: "
              "`import planc` fails in this Python (`pip install ./bindings/python`) | |")
    if binding and binding_profile() != "release" and not a.smoke:
        print(f"| the Python package is a {binding_profile()} build "
              "(`pip install ./bindings/python` builds a release one; `maturin develop` "
              "without `--release` does not): its rows below are not the package's figures | |")
    for n in bind_sizes:
        pyd_t = py_times[n][1]
        line = f"by time {bind_times[n]:.1f} against {pyd_t:.1f} µs"
        faster = bind_times[n] < pyd_t
        if n in bind_instr and n in pyd_instr:
            line += (f"; by instructions {bind_instr[n] / 1e3:,.0f} k against "
                     f"{pyd_instr[n] / 1e3:,.0f} k")
            faster = faster and bind_instr[n] < pyd_instr[n]
        print(f"| the Python package's `Compiler.check` faster than pydantic, {n:,} steps "
              f"| {line} | {'met' if faster else 'missed'} |")
    for n in counted:
        if ("check_run", n) in instr and n >= 100:
            r = instr[("check_run", n)] / instr[("serde_json", n)]
            print(f"| R2: `driver::run` / serde_json, {n:,} steps, by instructions, <= 2 "
                  f"| {r:.2f} | {'met' if r <= 2 else 'missed'} |")
    for n in counted:
        if ("text_compile", n) in instr and n >= 100:
            r = instr[("text_compile", n)] / instr[("serde_json", n)]
            print(f"| R1: text compile to IR / serde_json, {n:,} steps, by instructions, <= 3 "
                  f"| {r:.2f}{without_sha('text_compile', n)} | {'met' if r <= 3 else 'missed'} |")
    for n in counted:
        if ("check", n) in instr and n in (10, 1000):
            r = instr[("check", n)] / instr[("serde_json", n)]
            print(f"| {n:,}-step check with the IR / serde_json, by instructions, <= 2 "
                  f"| {r:.2f}{without_sha('check', n)} | {'met' if r <= 2 else 'missed'} |")
    for f, size, check, compile_ in memory:
        if compile_ is None:
            print(f"| (baseline) peak RSS / input, {f} | {check * 1024 / size:.1f}x | |")
            continue
        for what, kib in (("check", check), ("compile", compile_)):
            r = kib * 1024 / size
            print(f"| peak RSS / input, `planc {what}` {f}, <= 10x | {r:.1f}x ({kib / 1024:.0f} MiB) "
                  f"| {'met' if r <= 10 else 'missed'} |")
    for name, t_small, t_big, exponent in grows:
        # The clock moves by up to 2x between runs: over a tenfold size,
        # that is 0.3 of an exponent.
        print(f"| `planc {name}`: time grows with the plan, exponent <= 1.3 "
              f"({grown[0]:,} to {grown[1]:,} steps) | {exponent:.2f} ({t_small:.2f} to "
              f"{t_big:.2f} s) | {'met' if exponent <= 1.3 else 'missed'} |")
    if lsp:
        print(f"| language server, 1,000 steps, change to diagnostics, p99 <= 5 ms idle "
              f"| p50 {lsp[0]:.2f} ms, p99 {lsp[1]:.2f} ms | {'met' if lsp[1] <= 5 else 'missed'} |")
    if lsp_busy:
        print(f"| the same with every core busy, p99 <= 10 ms "
              f"| p50 {lsp_busy[0]:.2f} ms, p99 {lsp_busy[1]:.2f} ms "
              f"| {'met' if lsp_busy[1] <= 10 else 'missed'} |")
    if lsp_edit is not None and lsp_ranged is not None:
        print(f"| (no goal) the language server's instructions per edit, {lsp_steps:,} steps, "
              f"every thread | {lsp_edit / 1e6:.2f} M with the whole text, "
              f"{lsp_ranged / 1e6:.2f} M as a range | |")

    # ------------------------------------------------------------ details
    if instr:
        print("\n## By instructions (callgrind, one run of the stage)\n")
        print("| steps | serde_json | " + " | ".join(f"{s} | / serde_json" for s in STAGES[1:])
              + " | pydantic |")
        print("|---:|---:|" + "---:|---:|" * (len(STAGES) - 1) + "---:|")
        for n in counted:
            base = instr[("serde_json", n)]
            cells = [f"{instr[(s, n)] / 1e6:.3f} M | {ratio(instr[(s, n)], base)}" for s in STAGES[1:]]
            pyd = f"{pyd_instr[n] / 1e6:.3f} M" if n in pyd_instr else ""
            print(f"| {n:,} | {base / 1e6:.3f} M | " + " | ".join(cells) + f" | {pyd} |")
    print("\n## By time (median microseconds per call)\n")
    print("| steps | JSON bytes | serde_json | " + " | ".join(STAGES[1:])
          + " | pydantic | json.loads |")
    print("|---:|---:|---:|" + "---:|" * (len(STAGES) - 1) + "---:|---:|")
    for n in sizes:
        t = times.get(n, {})
        cells = " | ".join(f"{t.get(s, float('nan')):,.1f}" for s in STAGES)
        loads, pyd = py_times[n]
        print(f"| {n:,} | {size_of[n]:,} | {cells} | {pyd:,.1f} | {loads:,.1f} |")
    if memory:
        print("\n## Peak memory (resident set of one process)\n")
        print("| input | bytes | `planc check` | / input | `planc compile` | / input |")
        print("|---|---:|---:|---:|---:|---:|")
        for f, size, check, compile_ in memory:
            c2 = f"{compile_ / 1024:.1f} MiB | {compile_ * 1024 / size:.1f}x" if compile_ else " | "
            print(f"| {f} | {size:,} | {check / 1024:.1f} MiB | {check * 1024 / size:.1f}x | {c2} |")
    print(f"\n{time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
