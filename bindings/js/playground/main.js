// The playground: three editors (catalogue, policy, plan) checked as you
// type by the same compiler as the command line, compiled to WebAssembly
// and inlined into the page with the repository's examples
// (playground/build.mjs). Nothing is fetched and nothing is sent: the
// page's content security policy forbids it, and the browser test counts.

import init from "../pkg/planc_js.js";
import * as glue from "../pkg/planc_js.js";
import wasmBytes from "../pkg/planc_js_bg.wasm";
import { Compiler, bind } from "../js/api.js";

/* global __EXAMPLES__ */
const EXAMPLES = __EXAMPLES__;

const $ = (id) => document.getElementById(id);
const editors = { catalog: $("catalog"), policy: $("policy"), plan: $("plan") };
const status = $("status");

// ---------------------------------------------------------------- text

const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

/** The string index of a UTF-8 byte offset of `text` (spans are bytes). */
function byteToIndex(text, byte) {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    if (bytes >= byte) return i;
    const c = text.codePointAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (c >= 0x10000) i++;
  }
  return text.length;
}

const planKind = (text) => (text.trimStart().startsWith("{") ? "json" : "plan");
const fileOf = { "tools.plan": "catalog", "tools.json": "catalog", "policy.plan": "policy", "policy.json": "policy" };
const names = () => ({
  catalog: planKind(editors.catalog.value) === "json" ? "tools.json" : "tools.plan",
  policy: planKind(editors.policy.value) === "json" ? "policy.json" : "policy.plan",
  plan: planKind(editors.plan.value) === "json" ? "plan.json" : "plan.plan",
});

// ---------------------------------------------------------------- checking

let compiler = null;
let compilerKey = null;
let last = null;

function compilerFor() {
  const n = names();
  const key = `${n.catalog}\u0000${editors.catalog.value}\u0000${n.policy}\u0000${editors.policy.value}`;
  if (key !== compilerKey) {
    compiler?.free();
    const policy = editors.policy.value.trim() === "" ? undefined : { name: n.policy, text: editors.policy.value };
    compiler = new Compiler({ catalog: [{ name: n.catalog, text: editors.catalog.value }], policy });
    compilerKey = key;
  }
  return compiler;
}

function check() {
  const c = compilerFor();
  const n = names();
  last?.free();
  last = c.check(editors.plan.value, { kind: planKind(editors.plan.value), name: n.plan });
  const diags = [...c.diagnostics, ...last.diagnostics];
  showDiagnostics(diags, n);
  showMarks(diags, n);
  const errors = diags.filter((d) => d.severity === "error").length;
  const warnings = diags.filter((d) => d.severity === "warning").length;
  status.className = errors ? "bad" : "good";
  status.dataset.errors = String(errors);
  status.textContent = errors
    ? `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`
    : `compiled: ${last.ir?.steps.length ?? 0} steps, ${warnings} warning${warnings === 1 ? "" : "s"}`;
  showOutputs();
}

function editorOf(d, n) {
  if (d.file === n.plan) return "plan";
  return fileOf[d.file] ?? null;
}

function showDiagnostics(diags, n) {
  const pane = $("diagnostics");
  if (diags.length === 0) {
    pane.innerHTML = '<p class="empty">No diagnostics: the plan compiles.</p>';
    return;
  }
  const items = diags.map((d, i) => {
    const where = editorOf(d, n);
    const notes = d.notes.map((x) => `<div class="note-line">${esc(x)}</div>`).join("");
    const labels = d.labels
      .filter((l) => l.message)
      .map((l) => `<div class="note-line">${esc(`${l.file}:${l.line}:${l.column}: ${l.message}`)}</div>`)
      .join("");
    return `<li class="diag ${d.severity}" data-i="${i}" data-code="${d.code}" data-editor="${where ?? ""}" data-line="${d.line}" data-column="${d.column}">
<div class="head"><span class="code">${d.severity}[${d.code}]</span> ${esc(d.message)}</div>
<div class="at">${esc(d.file)}:${d.line}:${d.column}${d.pointer ? ` · ${esc(d.pointer)}` : ""}</div>
${labels}${d.help ? `<div class="help">${esc(d.help)}</div>` : ""}${notes}</li>`;
  });
  pane.innerHTML = `<ol>${items.join("")}</ol>`;
  pane.querySelectorAll(".diag").forEach((li) => {
    li.addEventListener("click", () => {
      const d = diags[Number(li.dataset.i)];
      const ed = editors[li.dataset.editor];
      if (!ed) return;
      const start = byteToIndex(ed.value, d.span.start);
      ed.focus();
      ed.setSelectionRange(start, byteToIndex(ed.value, d.span.end));
    });
  });
}

function showMarks(diags, n) {
  for (const [key, ed] of Object.entries(editors)) {
    const text = ed.value;
    const spans = diags
      .filter((d) => editorOf(d, n) === key)
      .map((d) => {
        const start = byteToIndex(text, d.span.start);
        // An empty span still shows: one character (or the end of the text).
        const end = Math.max(byteToIndex(text, d.span.end), Math.min(start + 1, text.length));
        return { start, end, severity: d.severity, code: d.code };
      })
      .sort((a, b) => a.start - b.start || b.end - a.end);
    let html = "";
    let at = 0;
    for (const s of spans) {
      if (s.start < at) continue; // overlapping: the first one shows
      html += esc(text.slice(at, s.start));
      html += `<mark class="${s.severity}" data-code="${s.code}">${esc(text.slice(s.start, s.end))}</mark>`;
      at = s.end;
    }
    html += esc(text.slice(at)) + "\n";
    $(`${key}-marks`).innerHTML = html;
    const count = spans.length;
    $(`${key}-count`).textContent = count ? `${count} diagnostic${count === 1 ? "" : "s"}` : "";
  }
}

// ---------------------------------------------------------------- outputs

let tab = "diagnostics";

function frame(pane, html) {
  const f = document.createElement("iframe");
  // No script may run in the page planc wrote (it has none; its own
  // content security policy forbids it too).
  f.setAttribute("sandbox", "allow-same-origin");
  f.srcdoc = html;
  pane.replaceChildren(f);
}

/** The review page with only its graph section (planc's own SVG and style). */
function graphOnly(html) {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const order = doc.getElementById("order");
  if (!order) return html;
  doc.body.replaceChildren(order);
  return `<!doctype html>${doc.documentElement.outerHTML}`;
}

function showOutputs() {
  const ok = last?.ok;
  const none = '<p class="empty">The plan has errors: no IR (see Diagnostics).</p>';
  if (tab === "ir") {
    $("ir").innerHTML = ok ? `<pre class="ir">${esc(last.irText)}</pre>` : none;
  } else if (tab === "graph") {
    if (ok) frame($("graph"), graphOnly(last.review()));
    else $("graph").innerHTML = none;
  } else if (tab === "review") {
    if (ok) frame($("review"), last.review());
    else $("review").innerHTML = none;
  }
}

document.querySelectorAll("nav button").forEach((b) => {
  b.addEventListener("click", () => {
    tab = b.dataset.pane;
    document.querySelectorAll("nav button").forEach((x) => x.setAttribute("aria-selected", String(x === b)));
    document.querySelectorAll(".pane").forEach((p) => p.classList.toggle("shown", p.id === tab));
    showOutputs();
  });
});

// ---------------------------------------------------------------- input

let pending = false;
let since = 0;

/** Checks once per frame of input, however many keys came in it; the time
 * from the last keystroke to the diagnostics on screen is kept on the body
 * (`data-latency-ms`), which the browser test reads. */
function schedule(event) {
  since = event?.timeStamp ?? performance.now();
  if (pending) return;
  pending = true;
  queueMicrotask(() => {
    pending = false;
    const from = since;
    check();
    requestAnimationFrame(() => {
      document.body.dataset.latencyMs = (performance.now() - from).toFixed(1);
    });
  });
}

for (const [key, ed] of Object.entries(editors)) {
  ed.addEventListener("input", schedule);
  ed.addEventListener("scroll", () => {
    const m = $(`${key}-marks`);
    m.scrollTop = ed.scrollTop;
    m.scrollLeft = ed.scrollLeft;
  });
}

const picker = $("example");
EXAMPLES.forEach((ex, i) => picker.append(new Option(ex.name, String(i))));
function load(i) {
  const ex = EXAMPLES[i];
  editors.catalog.value = ex.catalog;
  editors.policy.value = ex.policy;
  editors.plan.value = ex.plan;
  schedule();
}
picker.addEventListener("change", () => load(Number(picker.value)));

// ---------------------------------------------------------------- start

await init({ module_or_path: wasmBytes });
bind(glue);
document.body.dataset.ready = "true";
load(0);
