#!/usr/bin/env bash
# The benchmarks' smoke run, not the benchmarks: the pydantic comparison's
# model validates the bundled JSON plans (benches/pydantic_compare.py
# --smoke), so the shape docs/performance.md times pydantic on stays the
# plan's; then benches/goals.py --smoke, every measurement of the goals
# table once, on a debug build. Pinned pydantic in a virtual environment;
# about a minute.
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
# The goals script end to end on a debug build and the 10-step plan (its
# figures mean nothing here; that it runs and prints every table does).
timeout 900 "$venv/bin/python" benches/goals.py --smoke
