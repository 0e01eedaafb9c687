// The `planc` package: the WebAssembly module loaded once, then the API.
//
// One ES module for Node 20+ and browsers: wasm-bindgen's `web` output,
// whose `.wasm` is read from the package's own folder: with `node:fs` in
// Node (no fetch of a file: URL), with `fetch` beside this file in a
// browser or a bundler that keeps `new URL(..., import.meta.url)`.
// Top-level await: `import { Compiler } from "planc"` gives a ready API.

import * as glue from "../pkg/planc_js.js";
import { bind } from "./api.js";

const wasmUrl = new URL("../pkg/planc_js_bg.wasm", import.meta.url);

if (typeof process === "object" && process !== null && typeof process.versions?.node === "string") {
  const { readFile } = await import("node:fs/promises");
  glue.initSync({ module: await readFile(wasmUrl) });
} else {
  await glue.default({ module_or_path: wasmUrl });
}
bind(glue);

export {
  Compiler,
  CheckResult,
  Exact,
  ToolError,
  diff,
  exact,
  invalidate,
  run,
  toJsonText,
  versions,
} from "./api.js";
export { Machine } from "../pkg/planc_js.js";
