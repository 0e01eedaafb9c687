#!/usr/bin/env bash
# Real MCP servers: installs the pinned reference filesystem server (npm ci)
# and the pinned Python MCP SDK, then runs the tests that import the
# server's own tools/list (tests/mcp_catalog.rs) and that run plans against
# the servers (tests/mcp.rs). Both skip when the servers are absent; here
# they may not. Bounded: the installs and the tests take a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
    fi
fi
if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-pip python3-venv >/dev/null
    fi
fi

(cd tests/mcp && timeout 600 npm ci --no-audit --no-fund)

PLANC_REQUIRE_MCP=1 timeout 900 cargo test --locked --test mcp_catalog

# The SDK in a virtual environment of its own, first on PATH for the tests.
venv="${TMPDIR:-/tmp}/planc-mcp-venv"
python3 -m venv "$venv"
timeout 600 "$venv/bin/pip" install -q -r tests/mcp/requirements.txt
export PATH="$venv/bin:$PATH"

# Each test says "skipped" when its server is missing: refuse that here.
out=$(timeout 900 cargo test --locked --test mcp -- --nocapture 2>&1) || { echo "$out"; exit 1; }
echo "$out" | tail -n 20
if echo "$out" | grep -q '^skipped:'; then
    echo "an MCP test was skipped although its server was installed" >&2
    exit 1
fi
