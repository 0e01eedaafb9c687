// The playground (playground/dist/index.html, built by playground/build.mjs)
// in Debian's headless chromium, driven by playwright-core: it loads with no
// console message and no request beyond the page itself; typing a credit
// above the policy's ceiling into a 100-step plan shows E0303 at the typed
// value, with the command line's message and help, within 100 ms of the
// last keystroke; the IR, the graph and the review page show; every example
// compiles. A screenshot of each state is kept in test/out/.
//
// Run:  CHROMIUM=/usr/bin/chromium node --test test/playground.test.mjs

import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { chromium } from "playwright-core";

import { ROOT, cli } from "./support.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const PAGE = path.resolve(here, "../playground/dist/index.html");
const OUT = path.join(here, "out");
const EXECUTABLE = process.env.CHROMIUM ?? "/usr/bin/chromium";

let browser;

before(async () => {
  assert.ok(existsSync(PAGE), `${PAGE} is not built (node playground/build.mjs)`);
  assert.ok(existsSync(EXECUTABLE), `no chromium at ${EXECUTABLE}`);
  mkdirSync(OUT, { recursive: true });
  browser = await chromium.launch({
    executablePath: EXECUTABLE,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    timeout: 60_000,
  });
});

after(async () => {
  await browser?.close();
});

async function open(viewport = { width: 1400, height: 900 }) {
  const url = pathToFileURL(PAGE).href;
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const seen = { console: [], errors: [], requests: [] };
  page.on("console", (m) => seen.console.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => seen.errors.push(String(e)));
  // Every request of the page and its frames, the page's own load aside.
  context.on("request", (r) => {
    if (r.url() !== url) seen.requests.push(r.url());
  });
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  await page.waitForSelector("#status.good, #status.bad");
  return { page, context, seen };
}

/** A JSON plan of 100 steps, one a line: 99 reads, then a credit of 100. */
function hundredSteps() {
  const steps = [];
  for (let i = 0; i < 99; i++) {
    steps.push({ name: `resolve_${i}`, tool: "customer.resolve", args: { email: `user${i}@example.com` } });
  }
  steps.push({ name: "credit", tool: "billing.issue_credit", args: { account_id: "acc_1", amount_eur: 100, reason: "goodwill" } });
  return `{\n  "name": "hundred",\n  "goal": "a hundred steps",\n  "steps": [\n${steps.map((s) => `    ${JSON.stringify(s)}`).join(",\n")}\n  ]\n}\n`;
}

test("the page loads, compiles its first example, and asks for nothing", async () => {
  const { page, context, seen } = await open();
  assert.equal(await page.locator("#status").getAttribute("class"), "good");
  assert.match(await page.locator("#status").textContent(), /compiled: 6 steps/);
  for (const tab of ["IR", "Graph", "Review"]) {
    await page.getByRole("tab", { name: tab }).click();
    await page.waitForTimeout(100);
    await page.screenshot({ path: path.join(OUT, `playground-${tab.toLowerCase()}.png`) });
  }
  await page.getByRole("tab", { name: "IR" }).click();
  const ir = JSON.parse(await page.locator("#ir pre").textContent());
  assert.equal(ir.name, "downgrade_northwind");
  // The graph is the review page's own SVG; the review page is planc's.
  await page.getByRole("tab", { name: "Graph" }).click();
  const graph = page.frameLocator("#graph iframe");
  assert.ok((await graph.locator("svg").count()) >= 1);
  assert.equal(await graph.locator("#steps").count(), 0);
  await page.getByRole("tab", { name: "Review" }).click();
  const review = page.frameLocator("#review iframe");
  assert.ok((await review.locator("#steps").count()) === 1);
  assert.match(await review.locator("body").textContent(), /billing\.change_plan/);
  await page.waitForTimeout(200);
  assert.deepEqual(seen.requests, []);
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(seen.console, []);
  await context.close();
});

test("typing a credit above the ceiling shows E0303 at the value within 100 ms", async () => {
  const { page, context, seen } = await open();
  const plan = hundredSteps();
  await page.locator("#plan").fill(plan);
  await page.waitForSelector("#status.good");
  assert.match(await page.locator("#status").textContent(), /compiled: 100 steps/);
  // The caret after `100` of the credit, then two keystrokes: 10000.
  const at = plan.indexOf('"amount_eur":100') + '"amount_eur":100'.length;
  await page.locator("#plan").evaluate((el, i) => {
    el.focus();
    el.setSelectionRange(i, i);
  }, at);
  await page.keyboard.type("00", { delay: 30 });
  const diag = page.locator('#diagnostics .diag[data-code="E0303"]');
  await diag.waitFor({ timeout: 1000 });
  await page.waitForFunction(() => document.body.dataset.latencyMs !== undefined);
  const latency = Number(await page.evaluate(() => document.body.dataset.latencyMs));
  assert.ok(latency < 100, `${latency} ms from the last keystroke to the diagnostics on screen`);

  // Where the command line puts it, with its message and help.
  const typed = plan.slice(0, at) + "00" + plan.slice(at);
  const file = path.join(OUT, "hundred.json");
  writeFileSync(file, typed);
  const out = cli([
    "check", "--format", "json",
    "--catalog", path.join(ROOT, "examples/northwind/tools.plan"),
    "--policy", path.join(ROOT, "examples/northwind/policy.plan"),
    file,
  ]);
  const want = JSON.parse(out.stdout).diagnostics.find((d) => d.code === "E0303");
  assert.ok(want, out.stdout);
  assert.equal(await diag.getAttribute("data-line"), String(want.line));
  assert.equal(await diag.getAttribute("data-column"), String(want.column));
  assert.equal(want.line, 104);
  assert.match(await diag.textContent(), new RegExp(want.message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  assert.ok(want.help && (await diag.locator(".help").textContent()) === want.help);
  // The mark in the editor covers exactly the typed value.
  assert.equal(await page.locator('#plan-marks mark[data-code="E0303"]').textContent(), "10000");
  assert.equal(await page.locator("#status").getAttribute("class"), "bad");
  await page.locator('#plan-marks mark[data-code="E0303"]').evaluate((m) => {
    const ed = document.getElementById("plan");
    ed.scrollTop = m.offsetTop - 100;
    ed.dispatchEvent(new Event("scroll"));
  });
  await page.screenshot({ path: path.join(OUT, "playground-e0303.png") });

  // Back under the ceiling: clean again.
  await page.keyboard.press("Backspace");
  await page.keyboard.press("Backspace");
  await page.waitForSelector("#status.good");
  assert.equal(await page.locator('#diagnostics .diag[data-code="E0303"]').count(), 0);
  assert.deepEqual(seen.requests, []);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test("every example compiles, and a broken catalogue is reported in its editor", async () => {
  const { page, context, seen } = await open();
  const options = await page.locator("#example option").allTextContents();
  assert.ok(options.length >= 6, options.join(", "));
  for (let i = 0; i < options.length; i++) {
    await page.locator("#example").selectOption(String(i));
    await page.waitForFunction(() => !document.getElementById("status").textContent.startsWith("loading"));
    const errors = await page.locator("#status").getAttribute("data-errors");
    assert.equal(errors, "0", `${options[i]}: ${await page.locator("#diagnostics").textContent()}`);
  }
  await page.locator("#example").selectOption("0");
  await page.locator("#catalog").evaluate((el) => {
    el.value = el.value.replace("tool customer.resolve(", "tool customer.resolve(email: strin, ");
    el.dispatchEvent(new Event("input"));
  });
  const d = page.locator('#diagnostics .diag[data-editor="catalog"]').first();
  await d.waitFor();
  assert.match(await d.textContent(), /strin/);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(OUT, "playground-phone.png") });
  assert.deepEqual(seen.requests, []);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test("markup in a plan stays text: no element, no handler, no request", async () => {
  const { page, context, seen } = await open();
  const dialogs = [];
  page.on("dialog", async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  const hostile = '<img src="https://example.invalid/x.png" onerror="alert(1)"><script>alert(2)</script>';
  const plan = JSON.stringify({
    name: "hostile",
    goal: hostile,
    steps: [{ name: "s", tool: `customer.${hostile}`, args: { email: hostile } }],
  });
  await page.locator("#plan").fill(plan);
  await page.waitForSelector('#diagnostics .diag[data-code="E0101"]');
  // The tool's name is in the message as text, in the marks as text.
  assert.match(await page.locator('#diagnostics .diag[data-code="E0101"]').textContent(), /<img src=/);
  assert.equal(await page.locator("#diagnostics img, #diagnostics script, #plan-marks img, #plan-marks script").count(), 0);
  // Valid again, the goal is shown by the review page as text.
  await page.locator("#plan").fill(JSON.stringify({ name: "hostile", goal: hostile, steps: [{ name: "s", tool: "customer.resolve", args: { email: hostile } }] }));
  await page.waitForSelector("#status.good");
  await page.getByRole("tab", { name: "Review" }).click();
  const review = page.frameLocator("#review iframe");
  await review.locator("body").waitFor();
  assert.match(await review.locator("body").textContent(), /<img src=/);
  assert.equal(await review.locator("img, script").count(), 0);
  await page.waitForTimeout(300);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(seen.requests, []);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
