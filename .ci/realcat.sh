#!/usr/bin/env bash
# A real MCP server's tools/list, imported by planc: installs the reference
# filesystem server pinned in tests/mcp/package-lock.json and runs the test
# that starts it over stdio (tests/mcp.rs), which may not skip here.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v npm >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
    fi
fi
(cd tests/mcp && timeout 600 npm ci --no-audit --no-fund)
PLANC_REQUIRE_MCP=1 timeout 900 cargo test --locked --test mcp
