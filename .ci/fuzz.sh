#!/usr/bin/env bash
# Fuzzes every cargo-fuzz target for a bounded time and fails on any crash,
# timeout or out-of-memory. Runs on the stable toolchain (RUSTC_BOOTSTRAP=1
# lets cargo-fuzz use the sanitizer flags it needs).
#
#   FUZZ_SECONDS    seconds per target (default 50)
#   FUZZ_TARGETS    space-separated targets (default: all of them)
#   FUZZ_SANITIZER  none (default: planc has no unsafe code) or address
#   FUZZ_JOBS       libFuzzer processes per target (default 1)
#
# A crash leaves its input under fuzz/artifacts/TARGET/; reproduce it with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run TARGET fuzz/artifacts/TARGET/crash-...
# and turn it into a test under tests/regressions/ before fixing it.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-50}"
sanitizer="${FUZZ_SANITIZER:-none}"
jobs="${FUZZ_JOBS:-1}"
export RUSTC_BOOTSTRAP=1
export CARGO_TERM_COLOR=never

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "==> installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

targets="$(echo ${FUZZ_TARGETS:-$(cargo fuzz list)})"
bash fuzz/seed.sh

# -a: debug assertions (and overflow checks) on, as in the test build.
build=(--sanitizer "$sanitizer" -a)
echo "==> building the fuzz targets"
cargo fuzz build "${build[@]}"

# More than one process per target: libFuzzer writes each one's output to
# fuzz-N.log in the working folder.
parallel=()
if [ "$jobs" -gt 1 ]; then
    parallel=(-jobs="$jobs" -workers="$jobs")
fi

failed=()
for t in $targets; do
    echo "==> fuzzing $t for ${seconds}s"
    # -timeout: an input that takes over 10 s is a hang; -rss_limit_mb: an
    # input that needs over 2 GiB is a memory blow-up. Both count as crashes.
    if ! cargo fuzz run "${build[@]}" "$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -dict=fuzz/plan.dict "${parallel[@]}" \
        -print_final_stats=1; then
        failed+=("$t")
    fi
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzzing found crashes in: ${failed[*]} (inputs under fuzz/artifacts/)" >&2
    exit 1
fi
echo "==> no crashes in: $targets"
