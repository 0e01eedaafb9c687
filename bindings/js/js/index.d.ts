// Types of the `planc` package (js/index.js). Numbers: in the objects a
// number a JavaScript `number` cannot hold exactly is the string of its
// digits (`JsonValue` allows both); the `*Text` fields keep every digit.

/** A JSON value as planc gives it to JavaScript. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** What a tool may return: JSON, plus exact numbers (`exact("4180.00")`, a `bigint`). */
export type ToolValue =
  | null
  | undefined
  | boolean
  | number
  | bigint
  | string
  | Exact
  | { toJSON(key?: string): unknown }
  | ToolValue[]
  | { [key: string]: ToolValue };

/** A catalogue or policy source: text (JSON when it starts with `{` or `[`,
 * else the plan language), a JSON document, or a named text (a name ending
 * in `.json` is read as JSON). */
export type Source = string | { name: string; text: string } | { [key: string]: unknown } | unknown[];

export interface CompilerOptions {
  /** One source or a list of them (an array of texts or `{name, text}`; any
   * other array is one JSON tool list). */
  catalog?: Source | Array<string | { name: string; text: string }>;
  policy?: Source | null;
  /** The actor's scopes, replacing the policy's `actor` line. */
  actor?: string[] | null;
}

/** A position as `planc check --format json` writes it. */
export interface Location {
  file: string;
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  /** Byte offsets into the UTF-8 text. */
  span: { start: number; end: number };
}

export interface Label extends Location {
  message: string;
  pointer: string | null;
}

export interface Fix extends Location {
  title: string;
  replacement: string;
}

/** One object of `planc check --format json` (schema/diagnostics.schema.json). */
export interface Diagnostic extends Location {
  severity: "error" | "warning" | "note";
  /** `E0303`, `W0201`, `N0303`: `planc explain CODE`. */
  code: string;
  message: string;
  /** RFC 6901 pointer into a JSON document. */
  pointer: string | null;
  step: string | null;
  labels: Label[];
  help: string | null;
  notes: string[];
  fixes: Fix[];
}

/** The IR (schema/plan-ir.schema.json, docs/ir.md). */
export interface PlanIr {
  ir_version: string;
  name: string;
  goal?: string | null;
  source: string;
  steps: Array<{ name: string; index: number; tool: string; [key: string]: JsonValue }>;
  schedule: string[][];
  approvals: string[];
  scopes: string[];
  [key: string]: JsonValue | undefined;
}

export type PlanKind = "json" | "plan";

export interface CheckOptions {
  /** Default: an object, or a text starting with `{`, is JSON; else the plan language. */
  kind?: PlanKind;
  /** A progress record (object or JSON text): check the plan as a replan. */
  progress?: object | string | null;
  /** The file name the diagnostics give (default `plan.json` or `plan.plan`). */
  name?: string;
  /** The operator's record key: a `progress` record that reads is used
   * only when its seal verifies under it; otherwise `check` throws. */
  recordKey?: Uint8Array;
}

export class CheckResult {
  private constructor();
  /** No errors in the plan, the catalogue or the policy: the IR exists. */
  readonly ok: boolean;
  readonly diagnostics: Diagnostic[];
  readonly errors: number;
  readonly warnings: number;
  readonly ir: PlanIr | null;
  /** The IR's JSON text as `planc compile` writes it (every digit). */
  readonly irText: string | null;
  render(format?: "human" | "short" | "json"): string;
  /** `planc review`'s page: one self-contained HTML file; `null` with errors. */
  review(): string | null;
  graph(format?: "dot" | "mermaid"): string | null;
  free(): void;
}

export type Dialect = "json-schema" | "openai" | "anthropic";

export class Compiler {
  constructor(options?: CompilerOptions);
  /** The catalogue's and policy's own diagnostics. */
  readonly diagnostics: Diagnostic[];
  check(plan: string | object, options?: CheckOptions): CheckResult;
  /** The planner's JSON Schema; `wrap` gives the `submit_plan` tool definition. */
  schema(options?: { dialect?: Dialect; wrap?: boolean }): { [key: string]: JsonValue };
  /** What is wrong with an IR not compiled here, against this compiler's
   * catalogue, policy and actor; empty when it may run. */
  verify(ir: IrLike): string[];
  free(): void;
}

/** An IR: a check that compiled, the IR object, or its JSON text. */
export type IrLike = CheckResult | PlanIr | string;

export function diff(
  oldIr: IrLike,
  newIr: IrLike,
  options?: { progress?: object | string | null },
): { [key: string]: JsonValue };

export function invalidate(ir: IrLike, progress: object | string, event: string): { [key: string]: JsonValue };

/** Thrown by a tool: a tool error with its `code`. */
export class ToolError extends Error {
  constructor(code: string, retryable?: boolean, message?: string);
  readonly code: string;
  readonly retryable: boolean;
}

/** A number with exact digits, for a tool's result. */
export class Exact {
  constructor(text: string);
  readonly text: string;
}
export function exact(text: string): Exact;
/** Marks a tool that takes numbers exactly, and returns it: every number
 * of its arguments but an integer a double holds arrives as an `Exact`
 * with its digits (`41.50` stays `41.50`). */
export function exact<T extends Tool>(tool: T): T;

/** JSON text of a value: like `JSON.stringify`, with `Exact` and `bigint`
 * written digit for digit and non-finite numbers refused. */
export function toJsonText(value: ToolValue): string;

export interface ToolCall {
  step: string;
  tool: string;
  /** 1 for the first call, 2 for the first retry, and so on. */
  attempt: number;
}

/** A tool: called with the step's resolved arguments. */
export type Tool = (args: { [key: string]: JsonValue }, call: ToolCall) => ToolValue | Promise<ToolValue>;

/** One trace event (docs/executors.md). */
export interface TraceEvent {
  event:
    | "dispatch"
    | "result"
    | "retry"
    | "precondition_unmet"
    | "guard_refused"
    | "post_unmet"
    | "bind_missing"
    | "result_type"
    | "invalidated"
    | "complete"
    | "stop";
  /** `null` for `stop`. */
  step: string | null;
  [key: string]: JsonValue | undefined;
}

export interface ProgressRecord {
  steps: Array<{ name: string; status: string; [key: string]: JsonValue }>;
  [key: string]: JsonValue;
}

export interface RunOptions {
  tools: { [tool: string]: Tool };
  /** `"all"` (the IR's approvals) or the names of the approved steps. */
  approve?: "all" | string[] | null;
  /** An earlier record (object or, to keep every digit, its JSON text). */
  progress?: object | string | null;
  onEvent?: (event: TraceEvent) => void | Promise<void>;
  /** After every change of a step's status, before any further call. */
  onProgress?: (record: ProgressRecord, text: string) => void | Promise<void>;
  /** Call independent steps at once (default) or one at a time in source order. */
  concurrent?: boolean;
  /** Required for an IR not compiled in this process (anything but a
   * `CheckResult`): it is verified against this compiler's catalogue and
   * policy before anything runs, as `planc run --ir` verifies it. */
  compiler?: Compiler;
  /** The fingerprint the approvals were given for: required with
   * `approve` for an IR not compiled here; a different one refuses the run. */
  fingerprint?: string;
  /** The operator's record key: `progress` is used only when its seal
   * verifies (else the run throws before any call), and every record
   * given out (`onProgress`, `progressText`) is sealed with it. */
  recordKey?: Uint8Array;
}

export interface RunResult {
  /** As `planc run`: 0 complete; 1 halted, refused or approval missing; 3 stopped for a replan or an escalation. */
  exitCode: 0 | 1 | 3;
  ok: boolean;
  reason: "complete" | "approval_missing" | "halt" | "replan" | "escalate" | "outcome_unknown";
  step: string | null;
  progress: ProgressRecord;
  progressText: string;
  events: TraceEvent[];
  reused: string[];
}

/** What `run` (and `new Machine`) throw for a replan over the run's replan
 * budget (E0305): nothing ran; the loop stops replanning and asks a
 * person. Every other refusal is a plain `Error` with its message. */
export interface ReplanBudgetExceeded extends Error {
  name: "ReplanBudgetExceeded";
  code: "E0305";
  /** Replans the record had used. */
  used: number;
  /** The budget: the stricter of the plan's and the policy's. */
  budget: number;
  /** The plan fingerprint the record names; `null` for a record without one. */
  recordFingerprint: string | null;
  /** This plan's fingerprint. */
  planFingerprint: string;
}

export function run(ir: IrLike, options: RunOptions): Promise<RunResult>;

export function versions(): { version: string; irVersion: string };

/** The executor's state machine, for other drivers: methods take and give JSON texts. */
export class Machine {
  constructor(ir: string, approved: string[], progress?: string | null, recordKey?: Uint8Array);
  approvals(): string[];
  next(together: boolean): string[];
  completeOk(step: string, result: string): string | undefined;
  completeError(step: string, code: string, message: string, retryable: boolean): string | undefined;
  drain(): string[];
  finished(): string | undefined;
  record(): string;
  reused(): string[];
  inFlight(): string[];
  free(): void;
}
