#!/usr/bin/env bash
# The npm package (bindings/js): planc built to WebAssembly with
# wasm-bindgen, its Rust half formatted and linted, its tests run with
# Node's own runner (the API, the conformance suite through `run`, every
# tests/ui fixture against the command line, the agent-loop example), the
# playground built and tested in headless chromium, and `npm pack`'s tarball
# installed into a fresh project that runs the README's TypeScript example
# (type-checked by tsc). Installs what is missing: the wasm32 target,
# wasm-bindgen-cli at the version Cargo.lock pins (skipped when that version
# is on PATH), chromium.
#
# Usage, from anywhere in the repository:  bash .ci/js.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
started=$SECONDS
step() { printf '\n==> %s\n' "$*"; }
fail() {
  printf 'js: error: %s\n' "$*" >&2
  exit 1
}
js=bindings/js
manifest=$js/Cargo.toml

step "tools"
command -v node >/dev/null || fail "node is not on PATH (node 20 or later is needed)"
command -v npm >/dev/null || fail "npm is not on PATH"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || fail "node $(node --version) is too old: node 20 or later is needed"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
pinned="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' $js/Cargo.lock)"
[ -n "$pinned" ] || fail "no wasm-bindgen in $js/Cargo.lock"
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }')" != "$pinned" ]; then
  # Not --locked: the CLI's own lock file names crate versions a registry
  # mirror may not carry yet; the version of the CLI itself is what must match.
  timeout 1800 cargo install wasm-bindgen-cli --version "$pinned"
fi
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  command -v apt-get >/dev/null || fail "no chromium at $CHROMIUM and no apt-get to install it"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
printf 'node %s, npm %s, wasm-bindgen %s, %s\n' "$(node --version)" "$(npm --version)" "$pinned" \
  "$("$CHROMIUM" --version 2>/dev/null)"

step "format and lints (the Rust half, for wasm32 and natively), and its unit tests"
cargo fmt --manifest-path "$manifest" --check
timeout 1200 cargo clippy --locked --manifest-path "$manifest" --target-dir target \
  --target wasm32-unknown-unknown -- -D warnings
timeout 1200 cargo clippy --locked --manifest-path "$manifest" --target-dir target --all-targets -- -D warnings
timeout 1200 cargo test --locked --manifest-path "$manifest" --target-dir target --lib
# The module is built from the library crates only: no command line, no
# language server, no mimalloc (ARCHITECTURE.md, "The crates").
if cargo tree --locked --manifest-path "$manifest" -e normal --prefix none | grep -E '^(clap|clap_builder|lsp-server|lsp-types|planc-lsp|mimalloc) '; then
  fail "the wasm module compiles the command line's or the language server's crates, or mimalloc"
fi

step "build: the crate for wasm32-unknown-unknown, wasm-bindgen --target web"
(cd $js && npm ci --ignore-scripts --no-audit --no-fund)
CARGO_TARGET_DIR="$root/target" timeout 1800 sh $js/build.sh
gz="$(gzip -9 -c $js/pkg/planc_js_bg.wasm | wc -c)"
[ "$gz" -lt 2000000 ] || fail "the .wasm is $gz bytes gzipped: the goal is under 2 MB"

step "node --test: the API, the conformance suite through run, tests/ui against the CLI, the example"
# The tests compare with the command line: the debug build of `cargo test`.
[ -x target/debug/planc ] || cargo build --locked
(cd $js && PLANC_BIN="$root/target/debug/planc" timeout 900 node --test \
  test/api.test.mjs test/conformance.test.mjs test/ui.test.mjs test/example.test.mjs)

step "the playground in headless chromium"
(cd $js && node playground/build.mjs)
(cd $js && PLANC_BIN="$root/target/debug/planc" CHROMIUM="$CHROMIUM" timeout 600 \
  node --test test/playground.test.mjs)
printf 'screenshots in %s\n' "$js/test/out"

step "npm pack, installed into a fresh project: the README's TypeScript example"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd $js && npm pack --pack-destination "$tmp" --silent >/dev/null)
tarball="$(ls "$tmp"/planc-*.tgz)"
tar -tzf "$tarball" | sort
app="$tmp/app"
mkdir -p "$app"
# The first ```ts block of the README's "From TypeScript" section.
awk '/^## From TypeScript/ { s = 1 } s && /^```ts$/ { c = 1; next } c && /^```$/ { exit } c { print }' \
  README.md >"$app/example.ts"
[ -s "$app/example.ts" ] || fail "no TypeScript example in the README's \"From TypeScript\" section"
cat >"$app/package.json" <<'JSON'
{ "name": "planc-pack-test", "private": true, "type": "module" }
JSON
cat >"$app/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext", "lib": ["es2022", "dom"],
    "strict": true, "noEmitOnError": true, "outDir": "out", "types": []
  },
  "files": ["example.ts"]
}
JSON
(cd "$app" && npm install --no-audit --no-fund --ignore-scripts "$tarball" >/dev/null)
# The package's own types, strictly; then the compiled example run by node.
(cd "$app" && "$root/$js/node_modules/.bin/tsc" -p . --noEmit)
(cd "$app" && "$root/$js/node_modules/.bin/tsc" -p .)
out="$(cd "$app" && node out/example.js)"
printf '%s\n' "$out"
printf '%s\n' "$out" | tail -n 1 | grep -qx 'complete 0' || fail "the README's example did not complete"
# And in plain JavaScript, from the installed package.
(cd "$app" && node --input-type=module -e '
import { Compiler, versions } from "planc";
const c = new Compiler({ catalog: "tool a.get(id: string) -> { n: int } read\n" });
if (!versions().irVersion || c.diagnostics.length) process.exit(1);
')

step "the benchmark runs (no figures)"
(cd $js/bench && npm ci --no-audit --no-fund >/dev/null)
plans="$tmp/plans"
mkdir -p "$plans"
cp examples/northwind/tools.plan examples/northwind/policy.plan "$plans/"
cp examples/northwind/downgrade.plan.json "$plans/plan_6.json"
node $js/bench/check_speed.mjs --smoke "$plans"

printf '\njs: all checks passed in %ss\n' "$((SECONDS - started))"
