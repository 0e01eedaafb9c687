// The API: construction from texts and objects, check and its result,
// schema, diff and invalidate against the command line, run with async
// tools (errors, retries, approvals, resume, exact numbers), the types of
// values a tool may return.

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { Compiler, Exact, ToolError, diff, exact, invalidate, run, toJsonText, versions } from "../js/index.js";
import { ROOT, cli, read } from "./support.mjs";

const NW = path.join(ROOT, "examples", "northwind");
const tools = read(path.join(NW, "tools.plan"));
const policy = read(path.join(NW, "policy.plan"));
const planText = read(path.join(NW, "downgrade.plan.json"));
const compiler = new Compiler({ catalog: tools, policy });

const northwindTools = (calls = []) => ({
  "customer.resolve": async () => ({ results: [{ id: "acc_4711", name: "Northwind", country: "GB" }] }),
  "billing.get_subscription": async () => ({ id: "sub_88", commitment: "monthly", current_period_end: "2026-03-31", monthly_price_eur: 249 }),
  "billing.change_plan": async () => ({ status: "scheduled" }),
  "billing.compute_proration": async () => ({ credit_eur: exact("41.50") }),
  "billing.issue_credit": async (args) => {
    calls.push(args);
    return { credit_id: "cn_1" };
  },
  "email.send": async () => ({ message_id: "m" }),
});

test("a clean plan gives its IR, as planc compile does", () => {
  assert.deepEqual(compiler.diagnostics, []);
  const checked = compiler.check(planText, { name: "downgrade.plan.json" });
  assert.equal(checked.ok, true);
  assert.equal(checked.errors, 0);
  assert.equal(checked.ir.name, "downgrade_northwind");
  assert.equal(checked.ir.steps.length, 6);
  const out = cli(["compile", "downgrade.plan.json"], NW);
  assert.equal(out.status, 0, out.stderr);
  assert.deepEqual(JSON.parse(checked.irText), JSON.parse(out.stdout));
  assert.equal(versions().irVersion, checked.ir.ir_version);
});

test("objects, named texts and the plan language are accepted", () => {
  const c = new Compiler({ catalog: [{ name: "tools.plan", text: tools }], policy: { name: "policy.plan", text: policy } });
  assert.equal(c.check(JSON.parse(planText)).ok, true);
  const text = read(path.join(NW, "downgrade.plan"));
  const checked = c.check(text);
  assert.equal(checked.ok, true, checked.render("short"));
  assert.equal(c.check(text, { kind: "json" }).ok, false);
  assert.throws(() => c.check(text, { kind: "yaml" }), /kind `yaml`/);
  // A JSON catalogue as an object: an MCP tools/list answer.
  const mcp = new Compiler({
    catalog: { tools: [{ name: "notes.get", inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] }, annotations: { readOnlyHint: true } }] },
    policy: { name: "notes", actor: { scopes: ["notes:read"] }, tools: { "notes.get": { scopes: ["notes:read"] } } },
  });
  assert.deepEqual(mcp.diagnostics.filter((d) => d.severity === "error"), []);
  assert.equal(mcp.check({ steps: [{ tool: "notes.get", args: { id: "n1" } }] }).ok, true);
  assert.throws(() => new Compiler({ catalog: 42 }), /expected a text/);
  assert.throws(() => new Compiler({ catalog: tools, actor: "crm:read" }), /actor/);
});

test("errors are the command line's diagnostics, with pointers and help", async () => {
  const plan = JSON.parse(planText);
  plan.steps[1].tool = "billing.get_subscripton";
  plan.steps[4].args.amount_eur = 900;
  const checked = compiler.check(plan);
  assert.equal(checked.ok, false);
  assert.equal(checked.ir, null);
  assert.equal(checked.review(), null);
  const codes = checked.diagnostics.map((d) => d.code);
  assert.ok(codes.includes("E0101") && codes.includes("E0303"), codes.join(" "));
  const typo = checked.diagnostics.find((d) => d.code === "E0101");
  assert.equal(typo.pointer, "/steps/1/tool");
  assert.match(typo.help ?? "", /get_subscription/);
  assert.match(checked.render("short"), /E0101/);
  assert.match(checked.render(), /\[E0101\] Error: unknown tool/);
  assert.throws(() => checked.render("xml"), /format `xml`/);
  await assert.rejects(run(checked, { tools: northwindTools() }), /has errors/);
});

test("the actor replaces the policy's line", () => {
  const c = new Compiler({ catalog: tools, policy, actor: ["crm:read"] });
  const codes = c.check(planText).diagnostics.map((d) => d.code);
  assert.ok(codes.includes("E0302"), codes.join(" "));
});

test("schema in each dialect, wrapped as the submit_plan tool", () => {
  const s = compiler.schema();
  assert.equal(s.type, "object");
  const openai = compiler.schema({ dialect: "openai", wrap: true });
  assert.match(JSON.stringify(openai), /submit_plan/);
  const want = JSON.parse(cli(["schema", "--dialect", "anthropic", "--catalog", path.join(NW, "tools.plan"), "--policy", path.join(NW, "policy.plan")]).stdout);
  assert.deepEqual(compiler.schema({ dialect: "anthropic" }), want);
  assert.throws(() => compiler.schema({ dialect: "gemini" }), /dialect `gemini`/);
  assert.throws(() => new Compiler({ catalog: "tool a.b(x: nope) -> {} read" }).schema(), /errors/);
});

test("diff and invalidate equal the command line's", () => {
  const dag = path.join(ROOT, "examples", "config_dag");
  const c = new Compiler({ catalog: read(path.join(dag, "tools.plan")), policy: read(path.join(dag, "policy.plan")) });
  const old = c.check(read(path.join(dag, "provision.plan")));
  const replan = c.check(read(path.join(dag, "replan.plan")));
  assert.ok(old.ok && replan.ok);
  const record = read(path.join(dag, "progress.json"));
  const d = diff(old, replan, { progress: record });
  const want = JSON.parse(cli(["diff", "provision.plan", "replan.plan", "--progress", "progress.json", "--format", "json"], dag).stdout);
  assert.deepEqual(d, want);
  const inv = invalidate(old.ir, JSON.parse(record), "precondition:provision_db");
  const wantInv = JSON.parse(cli(["invalidate", "provision.plan", "--progress", "progress.json", "--event", "precondition:provision_db", "--format", "json"], dag).stdout);
  assert.deepEqual(inv, wantInv);
  assert.throws(() => invalidate(old, record, "sideways:x"), /event/);
});

test("run: async tools, approvals, the trace and the record", async () => {
  const checked = compiler.check(planText);
  const refused = await run(checked, { tools: northwindTools() });
  assert.equal(refused.exitCode, 1);
  assert.equal(refused.reason, "approval_missing");
  assert.ok(!refused.events.some((e) => e.event === "dispatch"));

  const calls = [];
  const records = [];
  const result = await run(checked, { tools: northwindTools(calls), approve: "all", onProgress: (r) => records.push(r) });
  assert.equal(result.exitCode, 0);
  assert.equal(result.ok, true);
  assert.equal(result.reason, "complete");
  assert.ok(result.progress.steps.every((s) => s.status === "complete"));
  // The exact decimal the tool returned reaches the next step's arguments.
  assert.deepEqual(calls, [{ account_id: "acc_4711", amount_eur: 41.5, reason: "downgrade to starter effective 2026-03-31" }]);
  assert.match(result.progressText, /41\.50/);
  assert.equal(result.events.at(-1).event, "stop");
  assert.ok(records.length >= 6);
  assert.throws(() => new Compiler().check("{").render("nope"), /format/);
  await assert.rejects(run(checked, { tools: { "customer.resolve": async () => ({}) } }), /no function for the tools/);
  await assert.rejects(run(checked, { tools: northwindTools(), approve: ["nope"] }), /no step `nope`/);
});

test("a tool error, an exception and a result that is not JSON", async () => {
  const checked = compiler.check(planText);
  const base = northwindTools();
  const failing = (tool, fn) => run(checked, { tools: { ...base, [tool]: fn }, approve: "all" });
  let r = await failing("billing.change_plan", async () => {
    throw new ToolError("conflict", false, "plan locked");
  });
  assert.equal(r.exitCode, 1);
  const failed = r.progress.steps.find((s) => s.name === "change");
  assert.equal(failed.failure.kind, "tool_error");
  assert.match(JSON.stringify(r.events), /conflict/);
  r = await failing("billing.change_plan", async () => {
    throw new RangeError("boom");
  });
  assert.match(JSON.stringify(r.events), /"code":"exception".*RangeError: boom/);
  r = await failing("billing.change_plan", async () => ({ status: "scheduled", n: NaN }));
  assert.match(JSON.stringify(r.events), /invalid_result/);
  r = await failing("billing.change_plan", () => ({ status: "scheduled" })); // a sync tool
  assert.equal(r.exitCode, 0);
});

test("a retryable error is retried on an idempotent read", async () => {
  const c = new Compiler({
    catalog: "tool a.get(id: string) -> { n: int } read idempotent\n",
    policy: "policy p {\n    actor [x:read]\n    a.get requires [x:read]\n}\n",
  });
  const checked = c.check({ steps: [{ tool: "a.get", args: { id: "x" }, retry: 2 }] });
  assert.ok(checked.ok, checked.render("short"));
  let n = 0;
  const r = await run(checked, {
    tools: {
      "a.get": async (_args, call) => {
        n += 1;
        if (call.attempt < 3) throw new ToolError("busy", true);
        return { n: 7 };
      },
    },
  });
  assert.equal(r.exitCode, 0);
  assert.equal(n, 3);
});

test("a resumed run dispatches no complete step again", async () => {
  const checked = compiler.check(planText);
  let record = null;
  const t = northwindTools();
  const crashed = await run(checked, {
    tools: { ...t, "billing.issue_credit": async () => { throw new ToolError("down", false); } },
    approve: "all",
    onProgress: (_r, text) => (record = text),
  });
  assert.notEqual(crashed.exitCode, 0);
  const calls = [];
  const resumed = await run(checked, {
    tools: { ...northwindTools(calls), "billing.change_plan": async () => assert.fail("a write repeated") },
    approve: "all",
    progress: record,
  });
  assert.ok(resumed.reused.includes("change"), resumed.reused.join(" "));
  assert.ok(resumed.events.every((e) => e.step !== "change"));
});

test("a replan over the budget is refused with its fields (E0305)", async () => {
  const once = { ...JSON.parse(planText), budget: { replans: 0 } };
  const first = compiler.check(once);
  assert.ok(first.ok);
  const done = await run(first, { tools: northwindTools(), approve: "all" });
  assert.equal(done.exitCode, 0);
  // The same plan again is a resume, not a replan.
  const again = await run(first, { tools: northwindTools(), approve: "all", progress: done.progressText });
  assert.equal(again.exitCode, 0);
  const other = structuredClone(once);
  other.steps[5].args.template = "another_template";
  const second = compiler.check(other);
  assert.ok(second.ok, second.render("short"));
  const calls = [];
  await assert.rejects(run(second, { tools: northwindTools(calls), approve: "all", progress: done.progressText }), (e) => {
    assert.ok(e instanceof Error);
    assert.equal(e.name, "ReplanBudgetExceeded");
    assert.equal(e.code, "E0305");
    assert.equal(e.used, 0);
    assert.equal(e.budget, 0);
    assert.equal(e.recordFingerprint, done.progress.fingerprint);
    assert.equal(e.planFingerprint, second.ir.fingerprint);
    assert.notEqual(e.recordFingerprint, e.planFingerprint);
    assert.match(e.message, /E0305/);
    return true;
  });
  assert.deepEqual(calls, []);
  // Another refusal of the machine keeps its message alone.
  const edited = structuredClone(done.progress);
  edited.steps[2].args.plan = "enterprise";
  await assert.rejects(run(first, { tools: northwindTools(), approve: "all", progress: edited }), (e) => {
    assert.equal(e.name, "Error");
    assert.equal(e.code, undefined);
    return true;
  });
});

test("records: read by the library's one reader, and sealed with the operator's key", async () => {
  const checked = compiler.check(planText);
  const key = new TextEncoder().encode("the operator's key");
  let record = null;
  const crashed = await run(checked, {
    tools: { ...northwindTools(), "billing.issue_credit": async () => { throw new ToolError("down", false); } },
    approve: "all",
    recordKey: key,
    onProgress: (_r, text) => (record = text),
  });
  assert.notEqual(crashed.exitCode, 0);
  // Every record given out carries the seal, the final one too.
  assert.match(record, /"hmac": "hmac-sha256:[0-9a-f]{64}"/);
  assert.match(crashed.progressText, /"hmac": "hmac-sha256:/);
  // With the key: the sealed record resumes; edited, or without its
  // seal, or under another key, it is refused before any call.
  const resumed = await run(checked, { tools: northwindTools(), approve: "all", progress: record, recordKey: key });
  assert.ok(resumed.reused.includes("change"), resumed.reused.join(" "));
  const edited = record.replace('"attempts": 1', '"attempts": 2');
  assert.notEqual(edited, record);
  const never = { ...northwindTools(), "billing.change_plan": async () => assert.fail("ran from a record that lies") };
  await assert.rejects(run(checked, { tools: never, approve: "all", progress: edited, recordKey: key }), /hmac|seal/);
  const unsealed = JSON.stringify({ ...JSON.parse(record), hmac: undefined });
  await assert.rejects(run(checked, { tools: never, approve: "all", progress: unsealed, recordKey: key }), /no `hmac`/);
  const other = new TextEncoder().encode("another key");
  await assert.rejects(run(checked, { tools: never, approve: "all", progress: record, recordKey: other }), /hmac|seal/);
  assert.throws(() => compiler.check(planText, { progress: edited, recordKey: key }), /hmac|seal/);
  assert.equal(compiler.check(planText, { progress: record, recordKey: key }).errors, 0);
  assert.throws(() => compiler.check(planText, { progress: record, recordKey: "text" }), /Uint8Array/);
  // A step recorded twice is E0603 for every reader, run included.
  const doc = JSON.parse(resumed.progressText);
  doc.steps.push(doc.steps[0]);
  await assert.rejects(run(checked, { tools: never, approve: "all", progress: JSON.stringify(doc) }), /not a progress record/);
});

test("a tool marked exact gets its numbers with their digits", async () => {
  const checked = compiler.check(planText);
  const seen = [];
  const t = northwindTools();
  const marked = exact(async (args) => {
    seen.push(args);
    return { credit_id: "cn_1" };
  });
  assert.equal(exact(marked), marked);
  const result = await run(checked, { tools: { ...t, "billing.issue_credit": marked }, approve: "all" });
  assert.equal(result.exitCode, 0);
  assert.equal(seen.length, 1);
  const { amount_eur, account_id, reason } = seen[0];
  assert.ok(amount_eur instanceof Exact, typeof amount_eur);
  assert.equal(amount_eur.text, "41.50");
  assert.equal(account_id, "acc_4711");
  assert.equal(reason, "downgrade to starter effective 2026-03-31");
  // Nested, huge and exponent numbers, and plain integers, through a
  // record argument of an exact tool.
  const c = new Compiler({
    catalog: "tool pay.batch(lines: [{ amount: decimal, count: int }], ref: int) -> { ok: bool } read idempotent",
    policy: "policy p {\n    actor [pay:r]\n    pay.batch requires [pay:r]\n}",
  });
  const plan = c.check({
    name: "p",
    goal: "g",
    steps: [{ name: "s", tool: "pay.batch", args: { lines: [{ amount: exact("1e3"), count: 2 }, { amount: exact("0.10"), count: exact("9007199254740993") }], ref: 7 } }],
  });
  assert.ok(plan.ok, plan.render("short"));
  const got = [];
  const r = await run(plan, { tools: { "pay.batch": exact(async (args) => (got.push(args), { ok: true })) } });
  assert.equal(r.exitCode, 0);
  const [{ lines, ref }] = got;
  assert.equal(ref, 7);
  // `1e3` is read as the integer 1000 (docs/json.md): a plain number, as
  // are 2 and 7; 0.10 and an integer past 2^53 keep their digits.
  const shown = (v) => (v instanceof Exact ? `exact ${v.text}` : v);
  assert.deepEqual(lines.map((l) => [shown(l.amount), shown(l.count)]), [[1000, 2], ["exact 0.10", "exact 9007199254740993"]]);
});

test("exact numbers: digits a double cannot hold cross as strings, both ways", async () => {
  const c = new Compiler({
    catalog: "tool a.get(id: string) -> { big: int, price: decimal } read idempotent\ntool a.put(big: int, price: decimal) -> { ok: bool } write\n",
    policy: "policy p {\n    actor [x:read, x:write]\n    a.get requires [x:read]\n    a.put requires [x:write]\n}\n",
  });
  const checked = c.check({
    steps: [
      { name: "get", tool: "a.get", args: { id: "x" }, binds: { big: "$.big", price: "$.price" } },
      { name: "put", tool: "a.put", args: { big: "${big}", price: "${price}" } },
    ],
  });
  assert.ok(checked.ok, checked.render("short"));
  let seen = null;
  const r = await run(checked, {
    tools: {
      "a.get": async () => ({ big: 12345678901234567891n, price: exact("0.1000000000000000000001") }),
      "a.put": async (args) => {
        seen = args;
        return { ok: true };
      },
    },
  });
  assert.equal(r.exitCode, 0, JSON.stringify(r.events));
  assert.deepEqual(seen, { big: "12345678901234567891", price: "0.1000000000000000000001" });
  assert.match(r.progressText, /12345678901234567891/);
  assert.equal(r.progress.steps[0].binds.big, "12345678901234567891");
  assert.equal(toJsonText({ a: [1, undefined, exact("1.50")], b: undefined, c: 2n }), '{"a":[1,null,1.50],"c":2}');
  assert.throws(() => exact("1.5.0"), /not a JSON number/);
  assert.throws(() => toJsonText(Infinity), /not a JSON number/);
  const cyc = {};
  cyc.self = cyc;
  assert.throws(() => toJsonText(cyc), /cycle/);
});
