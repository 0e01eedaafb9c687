#!/usr/bin/env bash
# planc.temporal against a real Temporal server: the SDK and the Temporal CLI
# (pinned, bindings/python/requirements-temporal.txt) installed into the
# Python package's environment, then tests/test_temporal.py, which starts the
# CLI's dev server on a free localhost port: the conformance cases as
# workflows, a worker killed mid-run, two workers sharing 50 plans. The skip
# for a missing SDK or CLI is turned into a failure here.
#
# Runs after .ci/python.sh and reuses the environment it built and installed
# the package into; alone, it builds that environment itself.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
venv="${TMPDIR:-/tmp}/planc-python-venv"
if ! "$venv/bin/python" -c "import planc._planc" >/dev/null 2>&1; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    if [ -f bindings/python/requirements-ci.txt ]; then
        timeout 600 "$venv/bin/pip" install -q -r bindings/python/requirements-ci.txt
    else
        timeout 600 "$venv/bin/pip" install -q "maturin>=1.16,<2" "pytest>=8"
    fi
    timeout 1500 "$venv/bin/pip" install -q --no-build-isolation ./bindings/python
fi
export PATH="$venv/bin:$PATH"
timeout 600 "$venv/bin/pip" install -q -r bindings/python/requirements-temporal.txt
echo "installed in $(( $(date +%s) - start ))s"

PLANC_REQUIRE_TEMPORAL=1 timeout 600 "$venv/bin/pytest" -q bindings/python/tests/test_temporal.py
if "$venv/bin/python" -m mypy --version >/dev/null 2>&1; then
    (cd bindings/python && timeout 300 "$venv/bin/python" -m mypy --strict planc/temporal.py)
fi
echo "plans on Temporal: $(( $(date +%s) - start ))s"
