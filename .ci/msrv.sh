#!/usr/bin/env bash
# The minimum Rust version: builds (`cargo check`) the library, the binary,
# the tests and the benches with the toolchain named by `rust-version` in
# Cargo.toml, so that the README's "1.88 or later" stays true. Needs rustup;
# installs that toolchain (minimal profile) when it is missing.
#
# Usage, from anywhere in the repository:  bash .ci/msrv.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

msrv="$(sed -n 's/^rust-version *= *"\([0-9.]*\)"/\1/p' Cargo.toml | head -n 1)"
[ -n "$msrv" ] || { echo "msrv: error: no rust-version in Cargo.toml" >&2; exit 1; }
command -v rustup >/dev/null || { echo "msrv: error: rustup is needed to install Rust $msrv" >&2; exit 1; }

if ! rustup run "$msrv" rustc --version >/dev/null 2>&1; then
    # A machine that cannot fetch toolchains cannot check this: say so and
    # leave the check to one that can, rather than fail the whole run.
    if ! timeout 600 rustup toolchain install "$msrv" --profile minimal; then
        echo "msrv: notice: Rust $msrv cannot be installed here; the minimum version is not checked" >&2
        exit 0
    fi
fi
rustup run "$msrv" rustc --version
# Its own target folder: the two toolchains' artefacts do not mix.
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/msrv" timeout 1800 \
    cargo "+$msrv" check --all-targets --locked
echo "msrv: planc builds with Rust $msrv"
