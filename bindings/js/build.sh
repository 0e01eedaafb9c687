#!/usr/bin/env sh
# Builds the package's WebAssembly half into pkg/: the crate for
# wasm32-unknown-unknown (release), the JavaScript glue by wasm-bindgen
# (`--target web`: one ES module that js/index.js initialises from the
# .wasm's bytes in Node and from its URL in a browser), then wasm-opt when
# it is installed (the npm package `binaryen`; PLANC_WASM_OPT=0 skips it).
#
# Needs: `rustup target add wasm32-unknown-unknown` and `wasm-bindgen` at
# the version Cargo.lock pins (.ci/js.sh installs both).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
target_dir="${CARGO_TARGET_DIR:-$here/../../target}"

pinned="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
have="$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }')"
if [ "$have" != "$pinned" ]; then
  echo "build.sh: wasm-bindgen $pinned is needed (Cargo.lock), found '${have:-none}':" >&2
  echo "  cargo install wasm-bindgen-cli --version $pinned" >&2
  exit 1
fi

cargo build --locked --lib --release --target wasm32-unknown-unknown --target-dir "$target_dir"
rm -rf pkg
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section --out-dir pkg \
  "$target_dir/wasm32-unknown-unknown/release/planc_js.wasm"

opt="${WASM_OPT:-$here/node_modules/.bin/wasm-opt}"
if [ "${PLANC_WASM_OPT:-1}" != 0 ] && [ -x "$opt" ]; then
  "$opt" -Os --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals pkg/planc_js_bg.wasm -o pkg/planc_js_bg.wasm.opt
  mv pkg/planc_js_bg.wasm.opt pkg/planc_js_bg.wasm
fi
# The licence texts the package ships.
cp ../../LICENSE-MIT ../../LICENSE-APACHE .
wc -c pkg/planc_js_bg.wasm | awk '{ printf "pkg/planc_js_bg.wasm: %d bytes", $1 }'
gzip -9 -c pkg/planc_js_bg.wasm | wc -c | awk '{ printf ", %d gzipped\n", $1 }'
