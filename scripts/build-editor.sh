#!/usr/bin/env bash
# scripts/build-editor.sh OUT — the web demo's editor page (web-demo/editor/)
# built into OUT: editor.js, main.js and CodeMirror 6 (web-demo/node_modules,
# installed from npm by scripts/bootstrap.sh with the lock file) bundled
# and minified by esbuild, with index.html and editor.css beside it. The
# webgit package stays out of the bundle: the page loads it from /webgit/
# as any page would (scripts/demo.sh mounts the built package there and
# OUT at /editor/). Prints the bundle's size, raw and gzip -9: counted
# apart from the webgit package's payload budget.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:?usage: scripts/build-editor.sh OUT}
SRC=$ROOT/web-demo/editor
ESBUILD=$ROOT/web-demo/node_modules/.bin/esbuild
if [ ! -x "$ESBUILD" ]; then
	echo "build-editor.sh: web-demo/node_modules is missing: run scripts/bootstrap.sh (npm ci in web-demo/)" >&2
	exit 2
fi
rm -rf "$OUT"
mkdir -p "$OUT"
# each language mode a chunk of its own, loaded when a file needs it
"$ESBUILD" "$SRC/main.js" --bundle --format=esm --splitting --minify --target=es2022 \
	--external:'/webgit/*' --legal-comments=none --log-level=warning \
	--entry-names=editor --chunk-names='chunks/[name]-[hash]' --outdir="$OUT" \
	--metafile="$OUT.meta.json"
cp "$SRC/index.html" "$SRC/editor.css" "$OUT/"
# what the page loads before any file is open: editor.js and the chunks
# it imports statically
mapfile -t first < <(node -e '
const meta = require(process.argv[1]).outputs;
const seen = new Set();
const walk = (f) => { if (seen.has(f)) return; seen.add(f);
  for (const i of meta[f].imports) if (i.kind === "import-statement" && !i.external) walk(i.path); };
walk(Object.keys(meta).find((f) => f.endsWith("/editor.js")));
console.log([...seen].join("\n"));' "$OUT.meta.json")
rm -f "$OUT.meta.json"
printf 'editor page: %d bytes, %d bytes gzip -9 loaded first (CodeMirror and the page, %d files); %d bytes with every language mode (each loads when a file needs it); webgit not included\n' \
	"$(cat "${first[@]}" | wc -c)" "$(cat "${first[@]}" | gzip -9 -c | wc -c)" "${#first[@]}" \
	"$(cat "$OUT"/editor.js "$OUT"/chunks/*.js | wc -c)" >&2
