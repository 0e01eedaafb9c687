#!/bin/sh
# Headless Neovim as an LSP client of `planc lsp`: opens a broken plan and
# checks that the server's diagnostics reach the editor (E0105 and E0303),
# then edits the buffer (Neovim sends the changes as ranges) and checks
# that the diagnostics follow (E0303 gone, E0102 come).
# Needs `nvim` (Debian: apt-get install -y neovim). Bounded in time: the
# check itself waits at most 20 s for diagnostics, and nvim is killed after
# 60 s whatever happens.
#
# PLANC_BIN names the planc binary; by default target/debug/planc, built
# when missing.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${PLANC_BIN:-$root/target/debug/planc}

if ! command -v nvim >/dev/null 2>&1; then
    echo "nvim check: nvim not found (apt-get install -y neovim)" >&2
    exit 1
fi
if [ ! -x "$bin" ]; then
    (cd "$root" && cargo build --quiet --bin planc)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/broken.plan" "$work/broken.plan"
out="$work/diagnostics.txt"

status=0
PLANC_BIN="$bin" PLANC_PLAN="$work/broken.plan" PLANC_OUT="$out" \
    PLANC_EXPECT="E0105 E0303" PLANC_EDIT=1 PLANC_TIMEOUT_MS=20000 \
    timeout 60 nvim --headless --clean -n -c "luafile $here/check.lua" </dev/null || status=$?

if [ "$status" -ne 0 ]; then
    echo "nvim check: failed (status $status)" >&2
    exit 1
fi
if [ ! -s "$out" ]; then
    echo "nvim check: no diagnostics written" >&2
    exit 1
fi
echo "nvim check: diagnostics Neovim received from planc lsp:"
cat "$out"
