// examples/agent-loop.mjs, run as it is: the stub planner's first plan is
// refused with the two codes it was written to get, the repaired plan is
// clean, and it runs to completion with the async tools.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { agentLoop } from "../examples/agent-loop.mjs";

const example = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../examples/agent-loop.mjs");

test("the agent loop repairs its plan from the diagnostics, then runs it", async () => {
  const lines = [];
  const { rounds, result, sent } = await agentLoop({ log: (l) => lines.push(l) });
  assert.deepEqual(rounds.map((codes) => codes.filter((c) => c.startsWith("E")).sort()), [["E0101", "E0303"], []]);
  assert.equal(result.exitCode, 0);
  assert.equal(result.reason, "complete");
  assert.deepEqual(sent, [{ to: "a.kohl@northwind-traders.co.uk", facts: { plan: "starter", effective: "2026-03-31" } }]);
  const credit = result.progress.steps.find((s) => s.name === "credit_note");
  assert.equal(credit.status, "complete");
  assert.match(result.progressText, /"credit":41\.50/);
});

test("node examples/agent-loop.mjs", () => {
  const r = spawnSync(process.execPath, [example], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /round 1: .*E0101/s);
  assert.match(r.stdout, /round 2: clean/);
  assert.match(r.stdout, /run: complete \(exit 0\)/);
  assert.equal(r.stderr, "");
});
