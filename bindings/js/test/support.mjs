// What the tests share: the repository's folders, a `planc.toml` read the
// way the command line reads the keys the fixtures use, the command line
// itself, and tools answering from a case's recorded responses.

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

import { Compiler, ToolError } from "../js/index.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const CONFORMANCE = path.join(ROOT, "conformance");
export const UI = path.join(ROOT, "tests", "ui");

export const read = (p) => readFileSync(p, "utf8");

/** `planc.toml`'s `catalog`, `policy`, `progress` and `actor` (basic strings
 * and arrays of them, which is all the repository's files use); another key
 * or form is an error, so a fixture is never read differently from the CLI. */
export function readConfig(file) {
  const out = {};
  for (const raw of read(file).split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-z_]+)\s*=\s*(.+)$/.exec(line);
    if (!m) throw new Error(`${file}: cannot read \`${line}\``);
    const [, key, value] = m;
    if (!["catalog", "policy", "progress", "actor"].includes(key)) {
      throw new Error(`${file}: key \`${key}\` is not read by the tests`);
    }
    out[key] = JSON.parse(value.replace(/\s+#.*$/, ""));
  }
  return out;
}

/** The nearest `planc.toml` from `dir` up to `stop`, or null. */
export function findConfig(dir, stop) {
  for (let d = dir; d.startsWith(stop); d = path.dirname(d)) {
    const f = path.join(d, "planc.toml");
    if (existsSync(f)) return f;
    if (d === stop) break;
  }
  return null;
}

/** A source for `Compiler` from a file: `{name, text}`, named as the
 * command line run from the repository's root names it. */
export const named = (file) => ({ name: path.relative(ROOT, file), text: read(file) });

/** The compiler a `planc.toml` configures. */
export function compilerOf(configFile) {
  const dir = path.dirname(configFile);
  const cfg = readConfig(configFile);
  const catalog = (Array.isArray(cfg.catalog) ? cfg.catalog : cfg.catalog ? [cfg.catalog] : []).map((c) =>
    named(path.join(dir, c)),
  );
  return {
    compiler: new Compiler({
      catalog,
      policy: cfg.policy ? named(path.join(dir, cfg.policy)) : undefined,
      actor: cfg.actor,
    }),
    progress: cfg.progress ? read(path.join(dir, cfg.progress)) : undefined,
  };
}

/** The `planc` binary: PLANC_BIN, else the repository's debug build. */
export function planc() {
  const bin = process.env.PLANC_BIN ?? path.join(ROOT, "target", "debug", "planc");
  return existsSync(bin) ? bin : null;
}

/** `planc ARGS...` in `cwd`: its stdout, stderr and status. */
export function cli(args, cwd = ROOT) {
  const bin = planc();
  if (bin === null) throw new Error("no planc binary: build the repository or set PLANC_BIN");
  const r = spawnSync(bin, args, { cwd, encoding: "utf8", maxBuffer: 1 << 28 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

export function cases() {
  return readdirSync(CONFORMANCE)
    .map((n) => path.join(CONFORMANCE, n))
    .filter((p) => statSync(p).isDirectory() && existsSync(path.join(p, "expect.json")))
    .sort();
}

/** The IR a case runs: its plan compiled here, or its `ir.json`. */
export function compileCase(c) {
  const plan = ["plan.plan", "plan.json"].map((f) => path.join(c, f)).find(existsSync);
  if (!plan) return read(path.join(c, "ir.json"));
  const { compiler } = compilerOf(path.join(c, "planc.toml"));
  if (compiler.diagnostics.length > 0) throw new Error(JSON.stringify(compiler.diagnostics));
  const checked = compiler.check(read(plan), { kind: plan.endsWith(".json") ? "json" : "plan" });
  if (!checked.ok) throw new Error(checked.render("short"));
  return checked;
}

export function approvals(c) {
  const f = path.join(c, "approvals.json");
  return existsSync(f) ? JSON.parse(read(f)) : undefined;
}

/** Recorded responses (`planc run --tools fixture:FILE`) as tools: a call
 * gets the first unused entry of its tool whose `args`, when given, equal
 * the call's; none left is `fixture_exhausted`. */
export class Recorded {
  constructor(entries) {
    this.queues = new Map();
    this.calls = [];
    for (const e of entries) {
      if (!this.queues.has(e.tool)) this.queues.set(e.tool, []);
      this.queues.get(e.tool).push(e);
    }
  }
  static load(file) {
    return new Recorded(JSON.parse(read(file)));
  }
  answer(tool, args) {
    this.calls.push([tool, args]);
    const queue = this.queues.get(tool) ?? [];
    const i = queue.findIndex((e) => e.args === undefined || e.args === null || isDeepStrictEqual(e.args, args));
    if (i < 0) {
      throw new ToolError("fixture_exhausted", false, `no response left for \`${tool}\` with ${JSON.stringify(args)}`);
    }
    const [entry] = queue.splice(i, 1);
    if (entry.error) throw new ToolError(entry.error.code, Boolean(entry.error.retryable), entry.error.message);
    return entry.result;
  }
  /** An async function per tool, answering after `delay(tool)` ms. */
  tools(names, delay = () => 0) {
    return Object.fromEntries(
      names.map((n) => [
        n,
        async (args) => {
          const ms = delay(n);
          if (ms > 0) await new Promise((r) => setTimeout(r, ms));
          return this.answer(n, args);
        },
      ]),
    );
  }
}

export const traceLines = (events) =>
  events.map((e) => (e.event === "stop" ? `stop ${e.reason}` : `${e.event} ${e.step}`));

export { execFileSync };
