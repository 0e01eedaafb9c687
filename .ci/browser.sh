#!/usr/bin/env bash
# The review page (`planc review`) in a real headless browser: Debian's
# chromium driven by playwright-core (tests/browser/). Installs chromium
# when it is missing, builds planc, writes the review pages of the examples
# and of a hostile plan into tests/browser/out/, and runs the browser tests
# (console, network, layout at 390x844 and 1280x900 with screenshots, A4
# print, DOM). Runs on a fresh Debian machine with cargo, node 20 and npm.
#
# Usage, from anywhere in the repository:  bash .ci/browser.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
started=$SECONDS
step() { printf '\n==> %s\n' "$*"; }
fail() {
  printf 'browser: error: %s\n' "$*" >&2
  exit 1
}

step "tools"
command -v node >/dev/null || fail "node is not on PATH (node 20 or later is needed)"
command -v npm >/dev/null || fail "npm is not on PATH"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || fail "node $(node --version) is too old: node 20 or later is needed"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  command -v apt-get >/dev/null || fail "no chromium at $CHROMIUM and no apt-get to install it"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
[ -x "$CHROMIUM" ] || fail "no chromium at $CHROMIUM"
# Debian's launcher script prints a harmless shell warning on some machines.
printf 'node %s, npm %s, %s\n' "$(node --version)" "$(npm --version)" "$("$CHROMIUM" --version 2>/dev/null)"

step "playwright-core"
(cd tests/browser && npm ci --ignore-scripts --no-audit --no-fund)

step "planc review: the pages"
cargo build --locked --quiet
planc="$root/target/debug/planc"
out="$root/tests/browser/out"
rm -rf "$out"
mkdir -p "$out"
"$planc" review examples/northwind/downgrade.plan -o "$out/northwind.html"
"$planc" review examples/config_dag/provision.plan -o "$out/config_dag.html"
"$planc" review examples/pallet_credit/credit.plan -o "$out/pallet_credit.html"
"$planc" review tests/browser/hostile/hostile.plan -o "$out/hostile.html"
ls -l "$out"

step "the pages in chromium"
(cd tests/browser && PAGES="$out" CHROMIUM="$CHROMIUM" timeout 600 node --test review.test.mjs)
printf '\nbrowser: screenshots and PDFs in %s\n' "$out/screenshots"
printf 'browser: all checks passed in %ss\n' "$((SECONDS - started))"
