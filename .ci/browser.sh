#!/usr/bin/env bash
# The review page (`planc review`) in a real headless browser: Debian's
# chromium driven by playwright-core (tests/browser/). Installs chromium and
# Graphviz when they are missing, builds planc, writes the review pages and
# the graphs of the examples and of a hostile plan into tests/browser/out/,
# checks that Graphviz reads every DOT graph, and runs the browser tests
# (console, network, layout at 390x844 and 1280x900 with screenshots, A4
# print, DOM; the Mermaid graphs rendered by Mermaid). Runs on a fresh Debian
# machine with cargo, node 20 and npm.
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
missing=()
[ -x "$CHROMIUM" ] || missing+=(chromium)
command -v dot >/dev/null || missing+=(graphviz)
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null || fail "${missing[*]} missing and no apt-get to install them"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v dot >/dev/null || fail "no Graphviz (dot) on PATH"
[ -x "$CHROMIUM" ] || fail "no chromium at $CHROMIUM"
# Debian's launcher script prints a harmless shell warning on some machines.
printf 'node %s, npm %s, %s\n' "$(node --version)" "$(npm --version)" "$("$CHROMIUM" --version 2>/dev/null)"

step "playwright-core"
(cd tests/browser && npm ci --ignore-scripts --no-audit --no-fund)

step "planc review and planc graph: the pages and graphs"
cargo build --locked --quiet
planc="$root/target/debug/planc"
out="$root/tests/browser/out"
rm -rf "$out"
mkdir -p "$out"
for entry in northwind:examples/northwind/downgrade.plan \
  config_dag:examples/config_dag/provision.plan \
  pallet_credit:examples/pallet_credit/credit.plan \
  hostile:tests/browser/hostile/hostile.plan; do
  name="${entry%%:*}"
  plan="${entry#*:}"
  "$planc" review "$plan" -o "$out/$name.html"
  "$planc" graph "$plan" -o "$out/$name.dot"
  "$planc" graph --format mermaid "$plan" -o "$out/$name.mmd"
  dot -Tsvg "$out/$name.dot" -o "$out/$name.dot.svg" || fail "Graphviz refuses the DOT graph of $plan"
done
ls -l "$out"

step "the pages in chromium"
(cd tests/browser && PAGES="$out" CHROMIUM="$CHROMIUM" timeout 600 node --test review.test.mjs)
printf '\nbrowser: screenshots and PDFs in %s\n' "$out/screenshots"
printf 'browser: all checks passed in %ss\n' "$((SECONDS - started))"
