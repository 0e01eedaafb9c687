#!/usr/bin/env bash
# The benchmarks' smoke run, not the benchmarks: the pydantic comparison's
# model validates the bundled JSON plans (benches/pydantic_compare.py
# --smoke), so the shape docs/performance.md times pydantic on stays the
# plan's. Pinned pydantic in a virtual environment; a minute at most.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv --help >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-pip python3-venv >/dev/null
    fi
fi
venv="${TMPDIR:-/tmp}/planc-bench-venv"
python3 -m venv "$venv"
timeout 300 "$venv/bin/pip" install -q -r benches/requirements.txt
timeout 60 "$venv/bin/python" benches/pydantic_compare.py --smoke
