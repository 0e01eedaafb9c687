#!/usr/bin/env bash
# Seeds each fuzz target's corpus (fuzz/corpus/TARGET/, not committed) from
# the project's examples and test fixtures. Safe to run again: files are
# named by content, so reruns add nothing twice.
set -euo pipefail
cd "$(dirname "$0")/.."

seed() { # seed TARGET FILE...
    local dir="fuzz/corpus/$1"
    shift
    mkdir -p "$dir"
    local f
    for f in "$@"; do
        [ -f "$f" ] || continue
        cp "$f" "$dir/seed-$(sha1sum "$f" | cut -c1-16)"
    done
}

mapfile -t plans < <(find examples tests/ui tests/fmt tests/regressions -name '*.plan' 2>/dev/null | sort)
mapfile -t jsons < <(find examples tests/ui tests/regressions -name '*.json' 2>/dev/null | sort)

seed parse_text "${plans[@]}"
seed json_document "${jsons[@]}"
seed json_catalog "${jsons[@]}"
seed compile "${plans[@]}" "${jsons[@]}"
seed fmt_layout "${plans[@]}"
seed invariants fuzz/fixtures/refund.plan "${plans[@]}" "${jsons[@]}"
echo "seeded: ${#plans[@]} .plan and ${#jsons[@]} .json files"
