// compiler.check in Node beside zod, the schema library a TypeScript agent
// loop validates a planner's output with today.
//
// The plans are the agent_loop benchmark's (benches/support/plans.rs: the
// Northwind downgrade repeated with fresh names, six steps per customer),
// written by its emit mode with the catalogue and policy beside them:
//
//   PLANC_BENCH_EMIT=DIR PLANC_BENCH_SIZES=10,1000 cargo bench --bench agent_loop
//   (cd bindings/js/bench && npm ci) && node bindings/js/bench/check_speed.mjs DIR
//
// Per plan, the median microseconds per call (the lowest of five runs) of:
// - `JSON.parse` of the text;
// - zod 4 `safeParse` of the parsed plan against a schema of its shape (the
//   benchmark's pydantic model in zod: closed objects, the probes told apart
//   by `probe`): a shape check only, no catalogue, references or policy;
//   timed with and without the `JSON.parse` before it;
// - `compiler.check(text)` with its diagnostics read (everything
//   `planc check` reports), and with the IR as an object as well.
// `--smoke` runs each once on the 10-step plan (CI: it works; no figures).

import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";

import { z } from "zod";

import { Compiler } from "../js/index.js";

const op = z.enum(["<", "<=", ">", ">=", "==", "!="]);
const probe = z.discriminatedUnion("probe", [
  z.strictObject({ probe: z.literal("result_count"), path: z.string().optional(), equals: z.number().int().optional(), op: op.optional(), value: z.number().int().optional() }),
  z.strictObject({ probe: z.literal("field_exists"), path: z.string() }),
  z.strictObject({ probe: z.literal("field_equals"), path: z.string(), value: z.unknown() }),
  z.strictObject({ probe: z.enum(["field_in", "field_not_in"]), path: z.string(), values: z.array(z.unknown()) }),
  z.strictObject({ probe: z.literal("field_compare"), path: z.string(), op, value: z.unknown() }),
  z.strictObject({ probe: z.literal("contains"), path: z.string(), value: z.unknown() }),
]);
const probes = z.union([probe, z.array(probe)]);
const step = z.strictObject({
  n: z.number().int().optional(),
  name: z.string().optional(),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()).default({}),
  pre: probes.optional(),
  post: probes.optional(),
  binds: z.record(z.string(), z.string()).optional(),
  after: z.array(z.string()).optional(),
  retry: z.number().int().optional(),
  on_unmet: z.enum(["replan", "halt", "escalate"]).optional(),
});
export const Plan = z.looseObject({
  name: z.string().optional(),
  goal: z.string().optional(),
  budget: z.strictObject({ replans: z.number().int().optional(), max_steps: z.number().int().optional() }).optional(),
  steps: z.array(step),
});

/** The lowest of five medians, each of about half a second of calls: on a
 * shared machine, the run least disturbed by other work. */
function medianUs(fn) {
  let t = process.hrtime.bigint();
  fn();
  const once = Number(process.hrtime.bigint() - t) / 1e3;
  const runs = Math.min(10_000, Math.max(5, Math.floor(5e5 / Math.max(once, 0.1))));
  for (let i = 0; i < Math.min(runs, 200); i++) fn(); // warm the JIT
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const samples = [];
    for (let i = 0; i < runs; i++) {
      t = process.hrtime.bigint();
      fn();
      samples.push(Number(process.hrtime.bigint() - t) / 1e3);
    }
    samples.sort((a, b) => a - b);
    best = Math.min(best, samples[samples.length >> 1]);
  }
  return best;
}

const args = process.argv.slice(2);
const smoke = args.includes("--smoke");
const dir = path.resolve(args.find((a) => !a.startsWith("--")) ?? "plans");
const read = (f) => readFileSync(path.join(dir, f), "utf8");
const compiler = new Compiler({
  catalog: { name: "tools.plan", text: read("tools.plan") },
  policy: { name: "policy.plan", text: read("policy.plan") },
});
if (compiler.diagnostics.length > 0) throw new Error(JSON.stringify(compiler.diagnostics));
const plans = readdirSync(dir)
  .filter((f) => /^plan_\d+\.json$/.test(f))
  .sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0]));
if (plans.length === 0) throw new Error(`no plan_N.json in ${dir}`);

if (!smoke) {
  const zodVersion = JSON.parse(readFileSync(new URL("node_modules/zod/package.json", import.meta.url), "utf8")).version;
  console.log(`Node ${process.versions.node}, zod ${zodVersion}; median microseconds per call`);
  console.log("| steps | JSON bytes | JSON.parse | zod safeParse | JSON.parse + zod | check | check + IR | check / (JSON.parse + zod) |");
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|");
}
for (const file of smoke ? plans.slice(0, 1) : plans) {
  const text = read(file);
  const parsed = JSON.parse(text);
  const shape = Plan.safeParse(parsed);
  if (!shape.success) throw new Error(`${file}: zod refuses the plan: ${shape.error}`);
  const first = compiler.check(text);
  if (!first.ok) throw new Error(`${file}: ${first.render("short")}`);
  if (smoke) {
    console.log(`${file}: ${parsed.steps.length} steps, zod and planc agree it is well formed`);
    continue;
  }
  const loads = medianUs(() => JSON.parse(text));
  const zodOnly = medianUs(() => Plan.safeParse(parsed));
  const zodAll = medianUs(() => Plan.safeParse(JSON.parse(text)));
  const check = medianUs(() => {
    const r = compiler.check(text);
    r.diagnostics;
    r.free();
  });
  const checkIr = medianUs(() => {
    const r = compiler.check(text);
    r.diagnostics;
    r.ir;
    r.free();
  });
  const f = (x) => x.toFixed(1);
  console.log(
    `| ${parsed.steps.length} | ${Buffer.byteLength(text)} | ${f(loads)} | ${f(zodOnly)} | ${f(zodAll)} | ${f(check)} | ${f(checkIr)} | ${(check / zodAll).toFixed(2)} |`,
  );
}
