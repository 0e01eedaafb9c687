// The `planc` API over its WebAssembly module: `Compiler`, `check`,
// `schema`, `diff`, `invalidate` and `run`, the JavaScript twin of the
// Python package (bindings/python/planc/__init__.py). The module is given
// by `bind` (index.js loads it in Node and in browsers; the playground
// inlines it), so nothing here reads a file or makes a request.
//
// Values cross the boundary as JSON text. Numbers keep their exact digits
// in the texts (`irText`, `progressText`); in the objects, a number a
// JavaScript `number` cannot hold exactly is the string of its digits
// (bindings/js/README.md, "Exact numbers").

let wasm = null;

/** Gives the API its WebAssembly module (the wasm-bindgen glue, initialised). */
export function bind(glue) {
  wasm = glue;
}

function native() {
  if (wasm === null) {
    throw new Error("planc: the WebAssembly module is not loaded (import \"planc\", not its files)");
  }
  return wasm;
}

/** JSON text from the library, as a JavaScript value. */
function parseExact(text) {
  return JSON.parse(native().forJs(text));
}

// ------------------------------------------------------------------ inputs

/** A source given as text, as a JSON value, or as `{name, text}`. */
function isNamed(item) {
  return (
    item !== null &&
    typeof item === "object" &&
    !Array.isArray(item) &&
    typeof item.name === "string" &&
    typeof item.text === "string" &&
    Object.keys(item).length === 2
  );
}

/** `[name, text]` of one catalogue or policy source. A text is JSON when it
 * starts with `{` or `[`, else the plan language; an object or array is a
 * JSON document; `{name, text}` is named (`.json` names are read as JSON). */
function source(item, role, n) {
  if (isNamed(item)) return [item.name, item.text];
  if (typeof item === "string") {
    const head = item.trimStart();
    const json = head.startsWith("{") || head.startsWith("[");
    return [`<${role}${n}>.${json ? "json" : "plan"}`, item];
  }
  if (item !== null && typeof item === "object") {
    return [`<${role}${n}>.json`, toJsonText(item)];
  }
  throw new TypeError(`${role}: expected a text, a JSON object or {name, text}, got ${typeof item}`);
}

/** The catalogue's sources: one source, or a list of them. An array whose
 * items are all texts or `{name, text}` is a list; any other array is one
 * JSON tool list (an OpenAI `tools` array). */
function catalogSources(catalog) {
  if (catalog === undefined || catalog === null) return [];
  const list =
    Array.isArray(catalog) && catalog.every((c) => typeof c === "string" || isNamed(c))
      ? catalog
      : [catalog];
  return list.map((c, i) => source(c, "catalog", i));
}

/** JSON text of a record, an IR or a plan given as an object or a text. */
function jsonText(value, what) {
  if (typeof value === "string") return value;
  if (value instanceof CheckResult) {
    const text = value.irText;
    if (text === null) {
      throw new Error(`${what}: the plan has errors, so there is no IR:\n${value.render("short")}`);
    }
    return text;
  }
  if (value !== null && typeof value === "object") return toJsonText(value);
  throw new TypeError(`${what}: expected an object or a JSON text, got ${typeof value}`);
}

// ------------------------------------------------------------------ exact numbers

/** A number written with exact digits (`exact("4180.00")`): a tool's result
 * or a record holds the digits, never a double's rounding of them. */
export class Exact {
  constructor(text) {
    const t = String(text);
    if (!native().isJsonNumber(t)) {
      throw new TypeError(`exact: \`${t}\` is not a JSON number`);
    }
    this.text = t;
    Object.freeze(this);
  }
  toString() {
    return this.text;
  }
}

/** The mark of a tool that takes numbers exactly (`exact(tool)`). */
const EXACT_TOOL = Symbol.for("planc.exact");

/** An exact number from its digits: `exact("4180.00")`. Given a tool
 * function instead, marks it as one that takes numbers exactly and
 * returns it: every number of its arguments but an integer a double holds
 * (`41.50`, `1e3`, a 20-digit integer) arrives as an `Exact` with the
 * digits the plan or the earlier result wrote. Unmarked tools get
 * JavaScript numbers (`41.5`). */
export function exact(value) {
  if (typeof value === "function") {
    value[EXACT_TOOL] = true;
    return value;
  }
  return new Exact(value);
}

/** `args` with each number the call's `exact` list names replaced by an
 * `Exact` of its digits (a path of keys and indices, then the digits). */
function withExact(args, numbers) {
  for (const [path, digits] of numbers) {
    let parent = args;
    for (const key of path.slice(0, -1)) parent = parent[key];
    parent[path[path.length - 1]] = new Exact(digits);
  }
  return args;
}

/** JSON text of a JavaScript value, like `JSON.stringify` (`toJSON`
 * honoured, `undefined` members left out) except that an `Exact` or a
 * `bigint` is written digit for digit and a non-finite number, a cycle or
 * a value JSON cannot hold is an error rather than `null`. */
export function toJsonText(value) {
  const parts = [];
  const seen = new Set();
  const put = (v, key, inArray) => {
    if (v !== null && typeof v === "object" && typeof v.toJSON === "function" && !(v instanceof Exact)) {
      v = v.toJSON(key);
    }
    switch (typeof v) {
      case "string":
        parts.push(JSON.stringify(v));
        return true;
      case "boolean":
        parts.push(v ? "true" : "false");
        return true;
      case "bigint":
        parts.push(v.toString());
        return true;
      case "number":
        if (!Number.isFinite(v)) throw new TypeError(`${v} is not a JSON number`);
        parts.push(JSON.stringify(v));
        return true;
      case "undefined":
      case "function":
      case "symbol":
        if (inArray) {
          parts.push("null");
          return true;
        }
        return false;
      default:
        break;
    }
    if (v === null) {
      parts.push("null");
      return true;
    }
    if (v instanceof Exact) {
      parts.push(v.text);
      return true;
    }
    if (seen.has(v)) throw new TypeError("a cycle: JSON cannot hold it");
    seen.add(v);
    if (Array.isArray(v)) {
      parts.push("[");
      v.forEach((item, i) => {
        if (i > 0) parts.push(",");
        put(item, String(i), true);
      });
      parts.push("]");
    } else {
      parts.push("{");
      let first = true;
      for (const [k, item] of Object.entries(v)) {
        const mark = parts.length;
        parts.push(first ? "" : ",", JSON.stringify(k), ":");
        if (put(item, k, false)) first = false;
        else parts.length = mark;
      }
      parts.push("}");
    }
    seen.delete(v);
    return true;
  };
  if (!put(value, "", false)) throw new TypeError(`${typeof value} is not JSON`);
  return parts.join("");
}

// ------------------------------------------------------------------ checking

/** What checking one plan gave. */
export class CheckResult {
  #native;
  #doc = null;
  #irText;
  #ir;
  constructor(nativeChecked) {
    this.#native = nativeChecked;
    /** No errors in the plan, the catalogue or the policy: the IR exists. */
    this.ok = nativeChecked.ok();
  }
  #report() {
    if (this.#doc === null) this.#doc = JSON.parse(this.#native.diagnosticsJson());
    return this.#doc;
  }
  /** The objects of `planc check --format json`. */
  get diagnostics() {
    return this.#report().diagnostics;
  }
  get errors() {
    return this.#report().errors;
  }
  get warnings() {
    return this.#report().warnings;
  }
  /** The IR's JSON text as `planc compile -o FILE` writes it (every digit), or `null`. */
  get irText() {
    if (this.#irText === undefined) this.#irText = this.#native.irJson() ?? null;
    return this.#irText;
  }
  /** The IR as an object, or `null` (a number a double cannot hold is a string). */
  get ir() {
    if (this.#ir === undefined) {
      const text = this.#native.irJs();
      this.#ir = text === undefined ? null : JSON.parse(text);
    }
    return this.#ir;
  }
  /** The diagnostics as `planc check` prints them: `human` (no colour), `short` or `json`. */
  render(format = "human") {
    return this.#native.render(format);
  }
  /** `planc review`'s page of the plan (self-contained HTML), or `null` with errors. */
  review() {
    return this.#native.review() ?? null;
  }
  /** `planc graph`'s text, `dot` or `mermaid`, or `null` with errors. */
  graph(format = "dot") {
    return this.#native.graph(format) ?? null;
  }
  /** Frees the WebAssembly memory now rather than when collected. */
  free() {
    this.#native.free();
  }
}

/** A catalogue and a policy, read and checked once; then any number of plans
 * checked against them. */
export class Compiler {
  #native;
  #diagnostics;
  constructor({ catalog, policy, actor } = {}) {
    const sources = catalogSources(catalog);
    const hasPolicy = policy !== undefined && policy !== null;
    if (hasPolicy) sources.push(source(policy, "policy", 0));
    if (actor !== undefined && actor !== null && !(Array.isArray(actor) && actor.every((a) => typeof a === "string"))) {
      throw new TypeError("actor: expected an array of scopes");
    }
    this.#native = new (native().Compiler)(
      sources.map((s) => s[0]),
      sources.map((s) => s[1]),
      hasPolicy,
      actor ?? undefined,
    );
    this.#diagnostics = JSON.parse(this.#native.diagnosticsJson()).diagnostics;
  }
  /** What is wrong with an IR not compiled here, against this compiler's
   * catalogue, policy and actor (`planc run --ir`'s verification): an
   * empty array when it may run. */
  verify(ir) {
    return this.#native.verify(jsonText(ir, "ir"));
  }
  /** The catalogue's and policy's diagnostics (`--format json` objects). */
  get diagnostics() {
    return this.#diagnostics;
  }
  /** Checks one plan: a JSON text, a JSON object, or plan-language text.
   * `kind`: `"json"` or `"plan"` (default: an object or a text starting
   * with `{` is JSON). `progress`: a record (object or text) to check the
   * plan as a replan against. `name`: the file name diagnostics give.
   * `recordKey` (a `Uint8Array`): the operator's record key; a record that
   * reads is used only when its seal verifies, else this throws. */
  check(plan, { kind, progress, name, recordKey } = {}) {
    let text = plan;
    if (typeof plan !== "string") {
      if (plan === null || typeof plan !== "object") throw new TypeError("check: expected a plan text or object");
      text = toJsonText(plan);
      kind ??= "json";
    }
    kind ??= text.trimStart().startsWith("{") ? "json" : "plan";
    const record = progress === undefined || progress === null ? undefined : jsonText(progress, "progress");
    const file = name ?? (kind === "json" ? "plan.json" : "plan.plan");
    return new CheckResult(this.#native.check(file, text, kind, record, keyBytes(recordKey)));
  }
  /** The planner's schema (`planc schema`): `dialect` `json-schema`,
   * `openai` or `anthropic`; `wrap: true` gives the `submit_plan` tool. */
  schema({ dialect = "json-schema", wrap = false } = {}) {
    return JSON.parse(this.#native.schema(dialect, wrap));
  }
  free() {
    this.#native.free();
  }
}

/** `planc diff`: two IRs matched by step name; with the record, which
 * complete steps the new plan keeps. */
export function diff(oldIr, newIr, { progress } = {}) {
  const record = progress === undefined || progress === null ? undefined : jsonText(progress, "progress");
  return JSON.parse(native().diff(jsonText(oldIr, "old"), jsonText(newIr, "new"), record));
}

/** `planc invalidate`: what `event` (`precondition:STEP`, `failed:STEP`,
 * `changed:ARTIFACT` or `goal`) invalidates. */
export function invalidate(ir, progress, event) {
  return JSON.parse(native().invalidate(jsonText(ir, "ir"), jsonText(progress, "progress"), event));
}

// ------------------------------------------------------------------ running

/** Thrown by a tool: the call did not return a result. `retryable` says
 * whether the same call may succeed if made again (only idempotent steps
 * are retried, up to their `retry`). */
export class ToolError extends Error {
  constructor(code, retryable = false, message = undefined) {
    super(message ?? code);
    this.name = "ToolError";
    this.code = String(code);
    this.retryable = Boolean(retryable);
  }
}

function approvedSteps(ir, approve) {
  if (approve === "all") return [...(ir.approvals ?? [])];
  if (approve === undefined || approve === null) return [];
  if (Array.isArray(approve) && approve.every((a) => typeof a === "string")) return [...approve];
  throw new TypeError('approve: use "all", an array of step names, or leave it out');
}

/** One call of a tool; never rejects: a failure is `[false, error]`. */
async function callTool(tools, call) {
  let value;
  try {
    const tool = tools[call.tool];
    const args = tool[EXACT_TOOL] === true ? withExact(call.args, call.exact) : call.args;
    value = await tool(args, { step: call.step, tool: call.tool, attempt: call.attempt });
  } catch (e) {
    if (e instanceof ToolError) return [false, [e.code, e.message, e.retryable]];
    const name = e?.constructor?.name ?? "Error";
    return [false, ["exception", `${name}: ${e?.message ?? String(e)}`, false]];
  }
  try {
    return [true, toJsonText(value === undefined ? null : value)];
  } catch (e) {
    return [false, ["invalid_result", `the tool \`${call.tool}\` returned what is not JSON: ${e.message}`, false]];
  }
}

/** The operator's record key as bytes for the native module: a
 * `Uint8Array` (or a Node `Buffer`), or `undefined` for none. */
function keyBytes(recordKey) {
  if (recordKey === undefined || recordKey === null) return undefined;
  if (!(recordKey instanceof Uint8Array)) throw new TypeError("recordKey: expected a Uint8Array (the key's bytes)");
  return recordKey;
}

/** Runs a compiled plan with JavaScript functions as its tools, on planc's
 * own executor (the machine every driver uses): the same record, trace and
 * exit status as `planc run`. */
export async function run(ir, options = {}) {
  const { tools = {}, approve, progress, onEvent, onProgress, concurrent = true, compiler, fingerprint, recordKey } = options;
  const key = keyBytes(recordKey);
  const irText = jsonText(ir, "ir");
  const irObj = parseExact(irText);
  // What is approved is what runs (docs/executors.md): an IR not compiled
  // here is verified against the compiler's catalogue and policy, and
  // approvals for it name its fingerprint.
  if (!(ir instanceof CheckResult)) {
    if (!(compiler instanceof Compiler)) {
      throw new TypeError(
        "an IR not compiled here is verified before it runs: pass compiler (a Compiler with the catalogue and policy it must keep), or run the CheckResult itself",
      );
    }
    const problems = compiler.verify(irText);
    if (problems.length > 0) {
      throw new Error(`the IR does not run: it is not the IR planc compiled under this catalogue and policy:\n  - ${problems.join("\n  - ")}`);
    }
    if (approve !== undefined && approve !== null && fingerprint === undefined) {
      throw new Error("approvals for an IR not compiled here name its fingerprint: pass fingerprint (the one reviewed)");
    }
  }
  if (fingerprint !== undefined && fingerprint !== irObj.fingerprint) {
    throw new Error(
      `the approvals are for the plan with fingerprint ${JSON.stringify(fingerprint)}, but this plan's is ${JSON.stringify(irObj.fingerprint)}: what was approved is not what would run; nothing was run`,
    );
  }
  const missing = [...new Set((irObj.steps ?? []).map((s) => s.tool))]
    .filter((t) => typeof tools[t] !== "function")
    .sort();
  if (missing.length > 0) {
    throw new TypeError(`no function for the tools ${missing.map((t) => `\`${t}\``).join(", ")} (pass them in tools)`);
  }
  const prior = progress === undefined || progress === null ? undefined : jsonText(progress, "progress");
  const machine = new (native().Machine)(irText, approvedSteps(irObj, approve), prior, key);
  // With a record key, every record given out is sealed with it, as
  // `planc run --record-key` writes it (docs/replanning.md).
  const sealed = (text) => (key === undefined ? text : native().sealRecord(text, key));
  const events = [];
  let progressText = null;
  const flush = async () => {
    const items = machine.drain();
    let last = null;
    for (let i = 0; i + 1 < items.length; i += 2) {
      if (items[i] === "trace") {
        const event = parseExact(items[i + 1]);
        events.push(event);
        if (onEvent) await onEvent(event);
      } else {
        last = items[i + 1];
      }
    }
    if (last !== null) {
      last = sealed(last);
      progressText = last;
      // Before any further call: a driver that persists the record writes it here.
      if (onProgress) await onProgress(parseExact(last), last);
    }
  };
  const give = async (call, [ok, value]) => {
    const retry = ok ? machine.completeOk(call.step, value) : machine.completeError(call.step, ...value);
    await flush();
    return retry === undefined ? null : JSON.parse(retry);
  };
  try {
    await flush();
    if (!concurrent) {
      // Rounds of ready steps, each call in source order with its retries:
      // the trace `planc run` writes.
      for (;;) {
        const round = machine.next(true).map((c) => JSON.parse(c));
        await flush();
        if (round.length === 0) break;
        for (let call of round) {
          while (call !== null) call = await give(call, await callTool(tools, call));
        }
      }
    } else {
      // Every step whose dependencies are complete is called at once;
      // results that arrive together are given in source order.
      let inFlight = 0;
      let done = [];
      let wake = null;
      const launch = (call) => {
        inFlight += 1;
        callTool(tools, call).then((outcome) => {
          done.push([call, outcome]);
          if (wake) wake();
        });
      };
      for (;;) {
        for (const c of machine.next(true)) launch(JSON.parse(c));
        await flush();
        if (inFlight === 0) break;
        if (done.length === 0) await new Promise((resolve) => (wake = resolve));
        wake = null;
        const batch = done.sort((a, b) => a[0].index - b[0].index);
        done = [];
        for (const [call, outcome] of batch) {
          inFlight -= 1;
          const retry = await give(call, outcome);
          if (retry !== null) launch(retry);
        }
      }
    }
    const finished = machine.finished();
    if (finished === undefined) throw new Error("planc: the run ended with calls in flight");
    const [exitCode, reason, step] = JSON.parse(finished);
    progressText = sealed(machine.record());
    return {
      exitCode,
      ok: exitCode === 0,
      reason,
      step: step ?? null,
      progress: parseExact(progressText),
      progressText,
      events,
      reused: machine.reused(),
    };
  } finally {
    machine.free();
  }
}

/** The library's version and the version of the IR it writes. */
export function versions() {
  const [version, irVersion] = native().versions();
  return { version, irVersion };
}
