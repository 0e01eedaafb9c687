#!/usr/bin/env bash
# The Python package (bindings/python): its Rust half formatted and linted,
# then built and installed into a fresh virtual environment the way a user
# does (`pip install ./bindings/python`, a release build of planc through
# maturin), and its tests run: the API, the diagnostics compared with the
# command line's, and the conformance suite through `planc.run`. The
# benchmark is run once to prove it works (its figures are not checked).
# Bounded: the build dominates (a few minutes on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv --help >/dev/null 2>&1 \
    || ! python3 -m pip --version >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-pip python3-venv >/dev/null
    fi
fi

start=$(date +%s)
manifest=bindings/python/Cargo.toml
cargo fmt --manifest-path "$manifest" --check
# In the root's target folder: the dependencies the root's lint step checked
# are reused.
timeout 900 cargo clippy --manifest-path "$manifest" --target-dir target --all-targets -- -D warnings
# The extension is built from the library crates only: no command line,
# no language server (ARCHITECTURE.md, "The crates").
if cargo tree --locked --manifest-path "$manifest" -e normal --prefix none | grep -E '^(clap|clap_builder|lsp-server|lsp-types|planc-lsp) '; then
  echo "python: error: the extension compiles the command line's or the language server's crates" >&2
  exit 1
fi

venv="${TMPDIR:-/tmp}/planc-python-venv"
rm -rf "$venv"
python3 -m venv "$venv"
export PATH="$venv/bin:$PATH"
timeout 600 "$venv/bin/pip" install -q -r bindings/python/requirements-ci.txt
# The pinned maturin builds it (no second download of the build backend).
timeout 1500 "$venv/bin/pip" install --no-build-isolation ./bindings/python
echo "built and installed in $(( $(date +%s) - start ))s"

# The tests compare with the command line: the debug build of `cargo test`.
[ -x target/debug/planc ] || cargo build --locked
PLANC_BIN="$PWD/target/debug/planc" PLANC_REQUIRE_CLI=1 \
    timeout 600 "$venv/bin/pytest" -q bindings/python/tests
# The suite's own runner (tests/conformance.rs) against `python -m planc`:
# sync tools one at a time, then async tools on an event loop.
PLANC_EXECUTOR="$venv/bin/python -m planc" \
    timeout 900 cargo test --locked --test conformance every_case
PLANC_EXECUTOR="$venv/bin/python -m planc --async" \
    timeout 900 cargo test --locked --test conformance every_case
# The types the package publishes (py.typed) hold.
(cd bindings/python && timeout 300 "$venv/bin/mypy" --strict \
    planc/__init__.py planc/fixture.py planc/__main__.py)
timeout 300 "$venv/bin/python" bindings/python/bench/check_speed.py
echo "the Python package: $(( $(date +%s) - start ))s"
