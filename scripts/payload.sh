#!/usr/bin/env bash
# scripts/payload.sh [JS_DIR] — what a page loads for the JS API, in bytes,
# raw and gzip -9, against the payload budget (issues 16 and 18: 250 KB
# gzip for the webgit package itself). Prints:
#
#   as built    webgit.wasm, the glue webgit.mjs and each module of js/ as
#               the package ships them, and their sum (the gzip total is
#               the sum of per-file sizes: what a server compressing each
#               file sends);
#   bundled     the glue and the modules bundled and minified by esbuild
#               (tests/node_modules; `npm ci` in tests/), as a bundler
#               serves an app that imports webgit, plus the module.
#
# JS_DIR: a built package (default build/demo-wasm/js, the Release build
# scripts/demo.sh makes). Exit status 0 whatever the figures: a report,
# not a test.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
JS_DIR=${1:-$ROOT/build/demo-wasm/js}
BUDGET=250000
ESBUILD=$ROOT/tests/node_modules/.bin/esbuild

[ -f "$JS_DIR/webgit.wasm" ] || { echo "no webgit.wasm in $JS_DIR: build the package first" >&2; exit 2; }
gz() { gzip -9 -c "$1" | wc -c; }
line() { printf '  %-24s %9d bytes raw %9d bytes gzip -9\n' "$1" "$2" "$3"; }

echo "webgit JS payload ($JS_DIR), budget $BUDGET bytes gzip:"
raw_total=0 gz_total=0 js_raw=0 js_gz=0
# the names come from js/, so that a stale file left in the build
# directory is not counted; types and package.json are not code
for f in webgit.wasm webgit.mjs $(cd "$ROOT/js" && ls ./*.js | sed 's|^\./||'); do
	r=$(stat -c %s "$JS_DIR/$f") g=$(gz "$JS_DIR/$f")
	line "$f" "$r" "$g"
	raw_total=$((raw_total + r)) gz_total=$((gz_total + g))
	# the JS modules alone, for the threaded total below
	case $f in webgit.*) ;; *) js_raw=$((js_raw + r)) js_gz=$((js_gz + g)) ;; esac
done
line "as built, total" "$raw_total" "$gz_total"
# The threaded variant, which a cross-origin isolated page served the
# package as it is loads instead of webgit.wasm and webgit.mjs (never
# bundled: js/runtime.js names it through a variable).
if [ -f "$JS_DIR/webgit-mt.wasm" ]; then
	mt_raw=0 mt_gz=0
	for f in webgit-mt.wasm webgit-mt.mjs webgit-mt.worker.cjs; do
		r=$(stat -c %s "$JS_DIR/$f") g=$(gz "$JS_DIR/$f")
		line "$f" "$r" "$g"
		mt_raw=$((mt_raw + r)) mt_gz=$((mt_gz + g))
	done
	line "threaded, as built" "$((js_raw + mt_raw))" "$((js_gz + mt_gz))"
fi

if [ -x "$ESBUILD" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# node: imports stay imports (Node's own modules, loaded only there)
	"$ESBUILD" "$JS_DIR/index.js" --bundle --minify --format=esm --platform=neutral \
		--external:'node:*' --log-level=warning --outfile="$tmp/webgit.min.mjs"
	wr=$(stat -c %s "$JS_DIR/webgit.wasm") wg=$(gz "$JS_DIR/webgit.wasm")
	br=$(stat -c %s "$tmp/webgit.min.mjs") bg=$(gz "$tmp/webgit.min.mjs")
	line "bundled JS (esbuild)" "$br" "$bg"
	line "bundled, total" "$((br + wr))" "$((bg + wg))"
	best=$((bg + wg))
else
	echo "  (no esbuild in tests/node_modules: the bundled figure is left out)"
	best=$gz_total
fi
if [ "$best" -le "$BUDGET" ]; then
	echo "within the budget: $best of $BUDGET bytes gzip"
else
	echo "over the budget by $((best - BUDGET)) bytes gzip ($best of $BUDGET)"
fi
