// The executor conformance suite (conformance/) through `run` with
// JavaScript tools answering from each case's recorded responses: the same
// exit status, step statuses, failure kinds, artifacts and trace as
// `planc run` (tests/conformance.rs), one call at a time; and, with every
// independent step called at once, the same events up to interleaving.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { run } from "../js/index.js";
import { Recorded, approvals, cases, compileCase, compilerOf, read, traceLines } from "./support.mjs";

function outcome(result) {
  const steps = result.progress.steps;
  return {
    exit: result.exitCode,
    steps: Object.fromEntries(steps.map((s) => [s.name, s.status])),
    failures: Object.fromEntries(steps.filter((s) => s.failure).map((s) => [s.name, s.failure.kind])),
    artifacts: Object.fromEntries(
      steps.filter((s) => s.status === "complete").flatMap((s) => Object.entries(s.binds ?? {})),
    ),
  };
}

function expected(c) {
  const e = JSON.parse(read(path.join(c, "expect.json")));
  return { exit: e.exit, steps: e.steps, failures: e.failures ?? {}, artifacts: e.artifacts };
}

const toolNames = (ir) => [...new Set(JSON.parse(typeof ir === "string" ? ir : ir.irText).steps.map((s) => s.tool))];

const prior = (c) => {
  const f = path.join(c, "progress.json");
  return existsSync(f) ? read(f) : undefined;
};

/** The same events, each step's own in order, the same last event, and no
 * step dispatched before its dependencies completed. */
function sameUpToInterleaving(want, got, ir) {
  assert.deepEqual([...got].sort(), [...want].sort());
  assert.equal(got.at(-1), want.at(-1));
  for (const step of ir.steps) {
    const own = (lines) => lines.filter((l) => l.split(" ")[1] === step.name);
    assert.deepEqual(own(got), own(want), step.name);
    const first = got.indexOf(`dispatch ${step.name}`);
    if (first >= 0) {
      for (const dep of step.depends_on) {
        const done = got.indexOf(`complete ${dep.step}`);
        if (done >= 0) assert.ok(done < first, `${step.name} dispatched before ${dep.step} completed`);
      }
    }
  }
}

/** What `run` takes beside the IR and the tools: the approvals (an
 * approvals file's steps), the compiler an IR file is verified against,
 * and the fingerprint the approvals name (the file's, else the IR's own). */
function runOptions(c, ir) {
  const loaded = approvals(c);
  const object = loaded !== undefined && loaded !== null && !Array.isArray(loaded) && typeof loaded === "object";
  const irObj = JSON.parse(typeof ir === "string" ? ir : ir.irText);
  return {
    approve: object ? loaded.steps : loaded,
    compiler: compilerOf(path.join(c, "planc.toml")).compiler,
    fingerprint: object ? loaded.fingerprint : irObj.fingerprint,
  };
}

/** A case whose IR or approvals must not run (exit 2): `run` rejects
 * before any tool is called. */
async function refused(c, go) {
  if (expected(c).exit !== 2) return false;
  await assert.rejects(go());
  return true;
}

const all = cases();

test("the suite is all there", () => {
  assert.ok(all.length >= 21, `${all.length} cases`);
});

for (const c of all) {
  const name = path.basename(c);

  test(`${name}: one call at a time, the trace of planc run`, async () => {
    const ir = compileCase(c);
    const rec = Recorded.load(path.join(c, "tools.json"));
    const records = [];
    const seen = [];
    const go = () =>
      run(ir, {
        tools: rec.tools(toolNames(ir)),
        progress: prior(c),
        concurrent: false,
        onEvent: (e) => seen.push(e),
        onProgress: (record, text) => records.push([record, text]),
        ...runOptions(c, ir),
      });
    if (await refused(c, go)) {
      assert.deepEqual(rec.calls, []);
      return;
    }
    const result = await go();
    assert.deepEqual(outcome(result), expected(c));
    assert.deepEqual(traceLines(result.events), JSON.parse(read(path.join(c, "expect.json"))).trace);
    assert.deepEqual(seen, result.events);
    // The last record handed out is the result's.
    if (records.length > 0) assert.deepEqual(JSON.parse(records.at(-1)[1]), JSON.parse(result.progressText));
  });

  test(`${name}: independent steps at once, the same events up to interleaving`, async () => {
    const ir = compileCase(c);
    const rec = Recorded.load(path.join(c, "tools.json"));
    // Later steps answer sooner, so results arrive out of source order.
    const go = () =>
      run(ir, {
        tools: rec.tools(toolNames(ir), (tool) => (tool.length % 3) * 3),
        progress: prior(c),
        ...runOptions(c, ir),
      });
    if (await refused(c, go)) return;
    const result = await go();
    assert.deepEqual(outcome(result), expected(c));
    const irObj = JSON.parse(typeof ir === "string" ? ir : ir.irText);
    sameUpToInterleaving(JSON.parse(read(path.join(c, "expect.json"))).trace, traceLines(result.events), irObj);
  });
}

test("a wrong expectation is caught", async () => {
  const c = all.find((p) => path.basename(p) === "northwind_completes");
  const ir = compileCase(c);
  const rec = Recorded.load(path.join(c, "tools.json"));
  const result = await run(ir, { tools: rec.tools(toolNames(ir)), ...runOptions(c, ir) });
  const wrong = { ...expected(c), exit: 3 };
  assert.notDeepEqual(outcome(result), wrong);
});
