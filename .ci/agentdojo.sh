#!/usr/bin/env bash
# AgentDojo (v1.2, agentdojo 0.1.35, pinned) as planc's own benchmark, with
# no model: each suite's tools imported as a catalogue (checked for drift
# against benches/agentdojo/catalogs/), the ground-truth plans of its user
# tasks checked under benches/agentdojo/policies/ and run through planc.run
# against AgentDojo's environments, its attacker plans, data-flow variants
# and replans checked. Fails when a figure falls below the thresholds of
# docs/security.md (benches/agentdojo/run.py --check). The Python package
# is the one .ci/python.sh built, when it did; else it is built here the
# same way.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${TMPDIR:-/tmp}/planc-python-venv"
if ! [ -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import planc" 2>/dev/null; then
    if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv --help >/dev/null 2>&1; then
        if command -v apt-get >/dev/null 2>&1; then
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-pip python3-venv >/dev/null
        fi
    fi
    rm -rf "$venv"
    python3 -m venv "$venv"
    timeout 600 "$venv/bin/pip" install -q -r bindings/python/requirements-ci.txt
    PATH="$venv/bin:$PATH" timeout 1500 "$venv/bin/pip" install -q --no-build-isolation ./bindings/python
fi
timeout 600 "$venv/bin/pip" install -q --no-deps agentdojo==0.1.35
timeout 600 "$venv/bin/pip" install -q -r benches/agentdojo/requirements.txt

start=$(date +%s)
(cd benches/agentdojo && timeout 300 "$venv/bin/python" run.py --check)
echo "AgentDojo: $(( $(date +%s) - start ))s"
