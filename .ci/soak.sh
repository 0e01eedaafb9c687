#!/usr/bin/env bash
# The chaos soaks (bindings/python/tests/soak.py): plans whose writes go to
# a ledger, run while what runs them is killed (SIGKILL) at random; every
# write of a complete plan is in the ledger once, every plan is complete or
# stopped with outcome_unknown, no idempotency key is booked twice.
# - planc run over an MCP ledger server, killed and resumed;
# - Temporal: the dev server, three workers, 100 plans, a random worker
#   killed every few seconds and restarted.
# Bounded: each soak has its own time limit inside and a hard timeout here;
# about three minutes on two cores. Runs after .ci/temporal.sh and reuses
# the environment it installed the SDK and the Temporal CLI into.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
venv="${TMPDIR:-/tmp}/planc-python-venv"
if ! "$venv/bin/python" -c "import planc.temporal" >/dev/null 2>&1 \
    || [ ! -x "$venv/bin/temporal" ]; then
    bash .ci/temporal.sh
fi
[ -x target/debug/planc ] || cargo build --locked

timeout 120 python3 bindings/python/tests/soak.py run "$PWD/target/debug/planc" \
    --plans 40 --seconds 75
timeout 180 "$venv/bin/python" bindings/python/tests/soak.py temporal \
    --plans 100 --seconds 100
echo "chaos soaks: $(( $(date +%s) - start ))s"
