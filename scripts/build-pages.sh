#!/usr/bin/env bash
# scripts/build-pages.sh OUT — the web demo's built pages into OUT, one
# directory each: OUT/editor (web-demo/editor/: CodeMirror 6) and OUT/forge
# (web-demo/forge/: marked and DOMPurify). Each page's main.js is bundled
# and minified by esbuild with its npm dependencies (web-demo/node_modules,
# installed from npm by scripts/bootstrap.sh with the lock file), code it
# loads on demand in chunks of its own; index.html and web-demo/pages.css
# beside it. The webgit package stays out of the bundles: the pages load it
# from /webgit/ as any page would (scripts/demo.sh mounts the built package
# there, and OUT/<page> at /<page>/). Prints each page's size, raw and
# gzip -9, as loaded before any file is opened: counted apart from the
# webgit package's payload budget.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:?usage: scripts/build-pages.sh OUT}
ESBUILD=$ROOT/web-demo/node_modules/.bin/esbuild
if [ ! -x "$ESBUILD" ]; then
	echo "build-pages.sh: web-demo/node_modules is missing: run scripts/bootstrap.sh (npm ci in web-demo/)" >&2
	exit 2
fi
for page in editor forge; do
	src=$ROOT/web-demo/$page out=$OUT/$page
	rm -rf "$out"
	mkdir -p "$out"
	"$ESBUILD" "$src/main.js" --bundle --format=esm --splitting --minify --target=es2022 \
		--external:'/webgit/*' --legal-comments=none --log-level=warning \
		--entry-names="$page" --chunk-names='chunks/[name]-[hash]' --outdir="$out" \
		--metafile="$out.meta.json"
	cp "$src/index.html" "$ROOT/web-demo/pages.css" "$out/"
	# what the page loads first: its script and the chunks that imports
	mapfile -t first < <(node -e '
const meta = require(process.argv[1]).outputs;
const seen = new Set();
const walk = (f) => { if (seen.has(f)) return; seen.add(f);
  for (const i of meta[f].imports) if (i.kind === "import-statement" && !i.external) walk(i.path); };
walk(Object.keys(meta).find((f) => f.endsWith(`/${process.argv[2]}.js`)));
console.log([...seen].join("\n"));' "$out.meta.json" "$page")
	rm -f "$out.meta.json"
	all=("$out/$page.js")
	[ -d "$out/chunks" ] && all+=("$out"/chunks/*.js)
	printf '%s page: %d bytes, %d bytes gzip -9 loaded first (%d files); %d bytes with what it loads on demand; webgit not included\n' \
		"$page" "$(cat "${first[@]}" | wc -c)" "$(cat "${first[@]}" | gzip -9 -c | wc -c)" "${#first[@]}" \
		"$(cat "${all[@]}" | wc -c)" >&2
done
