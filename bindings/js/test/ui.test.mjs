// Every fixture of tests/ui (ok/ and err/) checked through the package and
// by the command line (`planc check --format json`): the same verdict and
// the same diagnostics (codes, messages, spans, pointers, labels, help,
// notes, fixes), file names compared by their last component (the command
// line names the paths it read). The catalogue, policy and progress record
// come from the nearest planc.toml, as for the command line; a fixture
// without one declares its own tools and policy.

import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { Compiler } from "../js/index.js";
import { ROOT, UI, cli, compilerOf, findConfig, read } from "./support.mjs";

function fixtures(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) fixtures(p, out);
    else if (/\.(plan|json)$/.test(name) && ["ok", "err"].includes(path.basename(dir))) out.push(p);
  }
  return out;
}

/** Diagnostics with each `file` as its last component, in a stable order. */
function comparable(diags) {
  const base = (x) => ({ ...x, file: path.basename(x.file) });
  return diags
    .map((d) => ({ ...base(d), labels: d.labels.map(base), fixes: d.fixes.map(base) }))
    .map((d) => JSON.stringify(d))
    .sort();
}

const all = fixtures(UI);

test("the fixtures are all there", () => {
  assert.ok(all.length >= 150, `${all.length} fixtures`);
});

const configured = new Map();
function compilerFor(config) {
  if (!configured.has(config)) configured.set(config, compilerOf(config));
  return configured.get(config);
}

for (const file of all) {
  const rel = path.relative(ROOT, file);
  test(rel, () => {
    const want = cli(["check", "--format", "json", rel]);
    assert.ok(want.status === 0 || want.status === 1, `planc check: status ${want.status}: ${want.stderr}`);
    const doc = JSON.parse(want.stdout);
    if (doc.config) {
      // The one difference by design: the command line names the
      // planc.toml it read in E0005's message; the package has no files.
      for (const d of doc.diagnostics) d.message = d.message.replace(` or \`${doc.config}\``, "");
    }

    const config = findConfig(path.dirname(file), UI);
    const kind = file.endsWith(".json") ? "json" : "plan";
    let own = [];
    let checked;
    if (config !== null) {
      const { compiler, progress } = compilerFor(config);
      own = compiler.diagnostics;
      checked = compiler.check(read(file), { kind, progress, name: rel });
    } else {
      checked = new Compiler().check(read(file), { kind, name: rel });
    }
    const got = [...own, ...checked.diagnostics];
    assert.equal(checked.ok, doc.errors === 0, "the verdict");
    assert.equal(want.status, doc.errors === 0 ? 0 : 1);
    assert.deepEqual(comparable(got), comparable(doc.diagnostics));
    assert.equal(own.filter((d) => d.severity === "error").length + checked.errors, doc.errors);
    // An ok/ fixture passes and an err/ fixture fails (those of fmt/ are
    // refusals of the conversion and those of syntax/ are parsed only, as
    // tests/ui.rs runs them).
    if (!/^tests\/ui\/(fmt|syntax)\//.test(rel)) {
      assert.equal(checked.ok, path.basename(path.dirname(file)) === "ok");
    }
  });
}
