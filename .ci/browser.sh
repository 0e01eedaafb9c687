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
# NAME PLAN [FLAGS...]: the review page, the DOT graph and the Mermaid
# graph of PLAN. FLAGS (a progress record, an earlier plan) are review's; a
# `--progress FILE` among them is given to graph too.
view() {
  local name="$1" plan="$2"
  shift 2
  local args=("$@") graph_flags=() i
  for ((i = 0; i + 1 < ${#args[@]}; i++)); do
    if [ "${args[$i]}" = --progress ]; then
      graph_flags+=(--progress "${args[$((i + 1))]}")
    fi
  done
  "$planc" review "$plan" -o "$out/$name.html" "$@"
  "$planc" graph "$plan" -o "$out/$name.dot" "${graph_flags[@]}"
  "$planc" graph --format mermaid "$plan" -o "$out/$name.mmd" "${graph_flags[@]}"
  dot -Tsvg "$out/$name.dot" -o "$out/$name.dot.svg" || fail "Graphviz refuses the DOT graph of $plan"
}
view northwind examples/northwind/downgrade.plan
view config_dag examples/config_dag/provision.plan
view pallet_credit examples/pallet_credit/credit.plan
view hostile tests/browser/hostile/hostile.plan
# The configuration example with a record where fetching the schema failed,
# and its replan against the plan it replaces, with the run's record.
view config_dag_progress examples/config_dag/provision.plan \
  --progress tests/browser/progress/schema_fetch_failed.json
view config_dag_replan examples/config_dag/replan.plan \
  --against examples/config_dag/provision.plan --progress examples/config_dag/progress.json
ls -l "$out"

step "the pages in chromium"
(cd tests/browser && PAGES="$out" CHROMIUM="$CHROMIUM" timeout 600 node --test review.test.mjs)
printf '\nbrowser: screenshots and PDFs in %s\n' "$out/screenshots"
printf 'browser: all checks passed in %ss\n' "$((SECONDS - started))"
