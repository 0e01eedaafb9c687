// Builds the playground: one HTML file (dist/index.html) holding the page,
// its script, the WebAssembly compiler and the repository's examples, so it
// opens from disk or any static host and makes no request. esbuild bundles
// main.js with the package's API and the wasm-bindgen glue; the .wasm goes
// in as bytes. Run after build.sh:  node playground/build.mjs

import { readFileSync, readdirSync, existsSync, mkdirSync, writeFileSync, renameSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import * as esbuild from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const read = (p) => readFileSync(p, "utf8");

/** Each plan of each example folder (text and JSON), with the folder's
 * catalogue and policy, the Northwind downgrade first. */
function examples() {
  const dir = path.join(root, "examples");
  const out = [];
  for (const name of readdirSync(dir).sort((a, b) => (a === "northwind" ? -1 : b === "northwind" ? 1 : a.localeCompare(b)))) {
    const folder = path.join(dir, name);
    if (!existsSync(path.join(folder, "tools.plan")) || !existsSync(path.join(folder, "policy.plan"))) continue;
    const plans = readdirSync(folder)
      .filter((f) => (f.endsWith(".plan") || f.endsWith(".plan.json")) && !["tools.plan", "policy.plan"].includes(f))
      .sort();
    for (const plan of plans) {
      out.push({
        name: `${name} / ${plan}`,
        catalog: read(path.join(folder, "tools.plan")),
        policy: read(path.join(folder, "policy.plan")),
        plan: read(path.join(folder, plan)),
      });
    }
  }
  if (out.length === 0) throw new Error("no examples found");
  return out;
}

const result = await esbuild.build({
  entryPoints: [path.join(here, "main.js")],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  write: false,
  loader: { ".wasm": "binary" },
  define: { __EXAMPLES__: JSON.stringify(examples()) },
  logLevel: "warning",
});
const [bundle] = result.outputFiles;
// The script goes inside a <script> element: no `</script` may end it early.
const script = bundle.text.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
const page = read(path.join(here, "index.html")).replace("/*PLAYGROUND*/", () => script);
mkdirSync(path.join(here, "dist"), { recursive: true });
const target = path.join(here, "dist", "index.html");
writeFileSync(`${target}.tmp`, page);
renameSync(`${target}.tmp`, target);
console.log(`playground/dist/index.html: ${page.length} bytes`);
