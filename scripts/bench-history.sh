#!/usr/bin/env bash
# bench-history.sh: the history queries a forge preview makes (log, log -p,
# a path's log, rev-list --count, merge-base, last-modified) on the generated history
# repository (scripts/gen-history-repo.sh: 21k commits, 1,600 files),
# timed for git, the native webgit CLI and the WebAssembly build in Node
# (scripts/wasm-history.mjs), twice: "wasm cold", one process per command
# (Node's start and the module's compile included), and "wasm warm", the
# query run again in a process that already ran it once (the module
# loaded and its code compiled, as a forge's tab or an edge isolate keeps
# it). Prints wall seconds (median of RUNS) and the ratio to git, after
# checking that each tool's answer equals git's. Not a test.
#
#   scripts/bench-history.sh
#
# Environment: GIT (default .cache/git-ref/bin/git), WEBGIT (default
# build/release/webgit), WASM_JS (default build/demo-wasm/js; empty: no
# WASM figures), REPOS (default /tmp/webgit-bench-clone/repos), RUNS (3).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GIT=${GIT:-$ROOT/.cache/git-ref/bin/git}
WEBGIT=${WEBGIT:-$ROOT/build/release/webgit}
WASM_JS=${WASM_JS-$ROOT/build/demo-wasm/js}
REPOS=${REPOS:-/tmp/webgit-bench-clone/repos}
RUNS=${RUNS:-3}
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C TZ=UTC

[ -f "$REPOS/history.ok" ] || "$ROOT/scripts/gen-history-repo.sh" "$REPOS" >&2
B=$(mktemp -d /tmp/webgit-bench-history.XXXXXX)
trap 'rm -rf "$B"' EXIT
"$GIT" clone -q --no-checkout "$REPOS/history.git" "$B/repo"
cd "$B/repo"
path=$("$GIT" ls-tree -r --name-only HEAD | sed -n '500p')
# the file at HEAD that the most commits changed: a long-lived one
long=$("$GIT" log --format= --name-only HEAD | sort | uniq -c | sort -k1,1nr -k2 |
	while read -r _ f; do "$GIT" cat-file -e "HEAD:$f" 2>/dev/null && { echo "$f"; break; }; done || true)
old=$("$GIT" rev-list --first-parent HEAD | sed -n '15000p')
side=$("$GIT" rev-list --merges HEAD | sed -n '10p')^2
echo "history: $("$GIT" rev-list --count HEAD) commits; path $path; blamed $long ($("$GIT" log --format=%H -- "$long" | wc -l) commits)"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# time_warm ARGS...: the median of the "warm" seconds wasm-history.mjs
# prints with WASM_WARM=1; output in $B/warm.out
time_warm() {
	for _ in $(seq "$RUNS"); do
		WASM_WARM=1 WEBGIT_JS_DIR="$WASM_JS" node "$ROOT/scripts/wasm-history.mjs" "$@" \
			2>&1 >"$B/warm.out" | sed -n 's/^warm //p'
	done | median
}
# time_tool NAME CMD...: prints the median wall seconds, output in $B/NAME.out
time_tool() {
	local name=$1 t
	shift
	for _ in $(seq "$RUNS"); do
		t=$( { TIMEFORMAT=%R; time "$@" >"$B/$name.out" 2>/dev/null; } 2>&1 | tail -1)
		echo "$t"
	done | median
}

row() {   # row LABEL 'git args' 'wasm args'
	local label=$1 gargs=$2 wargs=$3 tg tw tj
	# shellcheck disable=SC2086
	tg=$(time_tool git "$GIT" $gargs)
	# shellcheck disable=SC2086
	tw=$(time_tool webgit "$WEBGIT" $gargs)
	cmp -s "$B/git.out" "$B/webgit.out" || echo "   ($label: webgit's output differs from git's)"
	printf '%-34s git %6.3f s   native %6.3f s (%.2fx)' "$label" "$tg" "$tw" "$(echo "$tw / $tg" | bc -l)"
	if [ -n "$WASM_JS" ] && [ -n "$wargs" ]; then
		# shellcheck disable=SC2086
		tj=$(time_tool wasm env WEBGIT_JS_DIR="$WASM_JS" node "$ROOT/scripts/wasm-history.mjs" $wargs)
		cmp -s "$B/git.out" "$B/wasm.out" || echo -n "   (wasm output differs)"
		printf '   wasm cold %6.2f s (%.2fx)' "$tj" "$(echo "$tj / $tg" | bc -l)"
		# shellcheck disable=SC2086
		tj=$(time_warm $wargs)
		cmp -s "$B/git.out" "$B/warm.out" || echo -n "   (wasm warm output differs)"
		printf '   warm %6.3f s (%.2fx)' "$tj" "$(echo "$tj / $tg" | bc -l)"
	fi
	echo
}

# blame_row LABEL FILE: git's and the native CLI's --porcelain compared
# byte for byte; the JS blame() (groups, not text) prints each line's
# commit, compared with the commits of git's porcelain.
blame_row() {
	local label=$1 file=$2 tg tw tj
	tg=$(time_tool git "$GIT" blame --porcelain HEAD -- "$file")
	tw=$(time_tool webgit "$WEBGIT" blame --porcelain HEAD -- "$file")
	cmp -s "$B/git.out" "$B/webgit.out" || echo "   ($label: webgit's output differs from git's)"
	printf '%-34s git %6.3f s   native %6.3f s (%.2fx)' "$label" "$tg" "$tw" "$(echo "$tw / $tg" | bc -l)"
	if [ -n "$WASM_JS" ]; then
		tj=$(time_tool wasm env WEBGIT_JS_DIR="$WASM_JS" node "$ROOT/scripts/wasm-history.mjs" blame "$file")
		awk '/^[0-9a-f]+ [0-9]+ [0-9]+/ { print $1 }' "$B/git.out" >"$B/git.ids"
		cmp -s "$B/git.ids" "$B/wasm.out" || echo -n "   (wasm output differs)"
		printf '   wasm cold %6.2f s (%.2fx)' "$tj" "$(echo "$tj / $tg" | bc -l)"
		tj=$(time_warm blame "$file")
		cmp -s "$B/git.ids" "$B/warm.out" || echo -n "   (wasm warm output differs)"
		printf '   warm %6.3f s (%.2fx)' "$tj" "$(echo "$tj / $tg" | bc -l)"
	fi
	echo
}

row "log (all, ids)" "log --format=%H" "log"
row "log -p, last 1000 commits" "log -p --format=%H -n 1000" "log-p 1000"
row "log of one path" "log --format=%H -- $path" "log -- $path"
row "log of a directory, --topo-order" "log --format=%H --topo-order -- ${path%%/*}" ""
row "rev-list --count --all" "rev-list --count --all" ""
row "merge-base" "merge-base $old $side" "merge-base $old $side"
row "last-modified (top level)" "last-modified" "last-modified"
row "last-modified -r (all files)" "last-modified -r" "last-modified -r"
blame_row "blame --porcelain (long-lived file)" "$long"
