#!/usr/bin/env bash
# Editor support: the tree-sitter grammar (generate, corpus and highlight
# tests, query checks) and the VS Code extension (TypeScript build, TextMate
# grammar tests, client tests, packaging). Runs on a fresh Debian machine with cargo,
# node 20 and npm; installs the tree-sitter CLI when it is missing.
#
# Usage, from anywhere in the repository:  bash .ci/editors.sh
set -euo pipefail

# The CLI version the committed grammar/tree-sitter-planc/src/ was generated
# with. With another version the tests still run, but the check that src/ is
# up to date is skipped (generators differ between versions).
TREE_SITTER_VERSION=0.27.1
# Oldest CLI that reads tree-sitter.json and writes ABI 15 parsers.
TREE_SITTER_MIN=0.25.0

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

started=$SECONDS
step() { printf '\n==> %s\n' "$*"; }
run() {
  printf '+ %s\n' "$*"
  "$@"
}
fail() {
  printf 'editors: error: %s\n' "$*" >&2
  exit 1
}
version_at_least() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }

step "tools"
command -v node >/dev/null || fail "node is not on PATH (node 20 or later is needed)"
command -v npm >/dev/null || fail "npm is not on PATH"
command -v cc >/dev/null || fail "no C compiler (cc) on PATH: tree-sitter test compiles the parser"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || fail "node $(node --version) is too old: node 20 or later is needed"

cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if ! command -v tree-sitter >/dev/null && [ -x "$cargo_bin/tree-sitter" ]; then
  export PATH="$cargo_bin:$PATH"
fi
ts_version=""
if command -v tree-sitter >/dev/null; then
  ts_version="$(tree-sitter --version | awk '{print $2}')"
fi
if [ -z "$ts_version" ] || ! version_at_least "$ts_version" "$TREE_SITTER_MIN"; then
  command -v cargo >/dev/null || fail "tree-sitter ${TREE_SITTER_MIN}+ is not on PATH and cargo is missing to install it"
  run cargo install tree-sitter-cli --locked --version "$TREE_SITTER_VERSION"
  export PATH="$cargo_bin:$PATH"
  ts_version="$(tree-sitter --version | awk '{print $2}')"
fi
printf 'node %s, npm %s, tree-sitter %s\n' "$(node --version)" "$(npm --version)" "$ts_version"

step "tree-sitter grammar (grammar/tree-sitter-planc)"
(
  cd grammar/tree-sitter-planc
  # ABI 14: loadable by every runtime in use (Neovim 0.7+, Helix); the
  # committed src/ is generated the same way.
  run tree-sitter generate --abi 14
  run tree-sitter test
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
  # Every query must compile against the grammar; highlights.scm is also
  # exercised by test/highlight/. (The config only silences the CLI's
  # warning that no parser directories are configured.)
  printf '{"parser-directories": ["%s"]}\n' "$scratch" > "$scratch/config.json"
  for query in queries/*.scm queries/helix/*.scm; do
    run tree-sitter query --quiet --config-path "$scratch/config.json" "$query" test/highlight/plan.plan
  done
  # The project's own plans must parse without errors here too: the examples
  # and the fixtures that the Rust parser accepts (not the err/ ones).
  mapfile -t plans < <(find "$root/examples" "$root/tests/ui" "$root/tests/fmt" -path '*/err' -prune -o -name '*.plan' -print 2>/dev/null | sort)
  if [ "${#plans[@]}" -gt 0 ]; then
    printf '+ tree-sitter parse --quiet (%s .plan files from examples/, tests/ui/ and tests/fmt/, err/ left out)\n' "${#plans[@]}"
    tree-sitter parse --quiet --config-path "$scratch/config.json" "${plans[@]}" ||
      fail "the tree-sitter grammar rejects a plan that the planc parser accepts (listed above)"
  fi
  helix_now="$scratch/helix-highlights.scm"
  run script/helix-queries.sh "$helix_now"
  cmp -s "$helix_now" queries/helix/highlights.scm ||
    fail "queries/helix/highlights.scm is stale: run grammar/tree-sitter-planc/script/helix-queries.sh and commit"
)
if [ "$ts_version" = "$TREE_SITTER_VERSION" ]; then
  if command -v git >/dev/null && git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    printf '+ git diff --exit-code -- grammar/tree-sitter-planc/src\n'
    git -C "$root" diff --exit-code --stat -- grammar/tree-sitter-planc/src ||
      fail "grammar/tree-sitter-planc/src is stale: run \`tree-sitter generate --abi 14\` there and commit"
    untracked="$(git -C "$root" ls-files --others --exclude-standard -- grammar/tree-sitter-planc/src)"
    [ -z "$untracked" ] || fail "tree-sitter generate wrote files that are not committed: $untracked"
  fi
else
  printf 'note: tree-sitter %s is not %s: not checking that src/ is up to date\n' "$ts_version" "$TREE_SITTER_VERSION"
fi

step "VS Code extension (editors/vscode)"
if ! command -v unzip >/dev/null && command -v apt-get >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq unzip >/dev/null
fi
command -v unzip >/dev/null || fail "unzip is needed to inspect the packaged extension"
# The platform package carries a planc: the debug build the tests use,
# stripped (a release build would add minutes; what is checked here is the
# packaging, not the binary).
run cargo build --locked --quiet
(
  cd editors/vscode
  # --ignore-scripts: no dependency needs an install script to build or test.
  run npm ci --ignore-scripts --no-audit --no-fund
  run npm run compile
  # vscode-tmgrammar-test can loop forever on a malformed assertion line.
  run timeout 600 npm run test:grammar
  run npm run test:client
  vsix_dir="$(mktemp -d)"
  trap 'rm -rf "$vsix_dir"' EXIT

  # The two manifests name the same repository address, or neither names
  # one (the project has none yet; an address that leads nowhere is worse
  # than none). The extension's bugs and homepage links follow it.
  crate_repo="$(sed -n 's/^repository *= *"\(.*\)"/\1/p' "$root/Cargo.toml")"
  node_repo="$(node -p 'const p = require("./package.json"); (p.repository && (p.repository.url ?? p.repository)) ?? ""')"
  [ "$crate_repo" = "$node_repo" ] ||
    fail "package.json's repository (${node_repo:-none}) is not Cargo.toml's (${crate_repo:-none})"
  if [ -z "$node_repo" ]; then
    node -e 'const p = require("./package.json"); if (p.bugs || p.homepage) process.exit(1)' ||
      fail "package.json names bugs or homepage links but no repository"
  fi

  # The universal package: the bundle and no server, no sources, no maps,
  # no node_modules.
  run node scripts/package.js --out "$vsix_dir/planc.vsix"
  unzip -Z1 "$vsix_dir/planc.vsix" | sort > "$vsix_dir/universal.txt"
  for f in extension/dist/extension.js extension/images/icon.png extension/snippets/planc.json \
    extension/syntaxes/planc.tmLanguage.json extension/syntaxes/planc.markdown.tmLanguage.json \
    extension/changelog.md extension/LICENSE-MIT extension/LICENSE-APACHE; do
    grep -qx "$f" "$vsix_dir/universal.txt" || fail "the package lacks $f"
  done
  if grep -E '\.map$|\.ts$|/node_modules/|^extension/(out|src|test|server)/' "$vsix_dir/universal.txt"; then
    fail "the package holds files it should not (above)"
  fi

  # The package for this machine carries planc, executable, and it runs.
  cp "$root/target/debug/planc" "$vsix_dir/planc-bin"
  strip "$vsix_dir/planc-bin" 2>/dev/null || true
  run node scripts/package.js --target this --binary "$vsix_dir/planc-bin" --out "$vsix_dir/planc-platform.vsix"
  mkdir "$vsix_dir/unpacked"
  unzip -q "$vsix_dir/planc-platform.vsix" -d "$vsix_dir/unpacked"
  grep -q 'TargetPlatform="' "$vsix_dir/unpacked/extension.vsixmanifest" ||
    fail "the platform package names no target platform"
  [ -x "$vsix_dir/unpacked/extension/server/planc" ] || fail "the platform package's server/planc is not executable"
  run "$vsix_dir/unpacked/extension/server/planc" --version
  [ ! -e server ] || fail "scripts/package.js left server/ behind"
  # The generic plan schema that `jsonValidation` names is in the package.
  grep -qx extension/schemas/plan.schema.json "$vsix_dir/universal.txt" ||
    fail "the VS Code package lacks schemas/plan.schema.json (jsonValidation names it)"
)

printf '\neditors: all checks passed in %ss\n' "$((SECONDS - started))"
