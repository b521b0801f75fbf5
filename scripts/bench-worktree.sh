#!/usr/bin/env bash
# bench-worktree.sh: time webgit's checkout and status against git's on a
# working tree of many small files. Prints figures; not a test (but it
# fails when the two tools disagree on what they checked out or report).
#
#   scripts/bench-worktree.sh
#
# Environment:
#   GIT        reference git (default .cache/git-ref/bin/git)
#   WEBGIT     webgit CLI    (default: the Release build in build/release,
#              made by scripts/release-builds.sh if missing)
#   FILES      files in the tree (default 50000, in directories of 100)
#   RUNS       runs per tool and figure (default 3; the median is shown)
#   BENCH_DIR  work directory (default /tmp/webgit-bench-worktree)
#   WASM_JS    the JS package of a WebAssembly build (default build/wasm/js
#              when it exists; WASM_JS= leaves the WASM column out): the
#              same verbs through the JS API in Node (scripts/wasm-
#              worktree.mjs), one process per command, module load included
#              ("wasm cold"); for the status figures also "wasm warm": a
#              second status in a process that already ran one (the module
#              loaded and compiled, as in an editor that keeps it)
#
# The repository (made once, reused while $BENCH_DIR/src.ok exists): FILES
# files of a few hundred bytes in a tree 3 levels deep, one commit, plus a
# second commit changing 1% of them. Each tool works in its own clone
# (git clone --no-checkout), so both read the same objects:
#
#   checkout     the first checkout of that clone's main (index absent):
#                git checkout main / webgit checkout main
#   switch       to the other commit and back (1% of the files change)
#   status       status --porcelain on the clean tree, right after a
#                previous status (git's and webgit's status both write back
#                refreshed stat data, so this is the steady state)
#   status-mod   the same after 1% of the files were rewritten (same size:
#                content is read)
#   status-new   the same with 1000 untracked files in 10 new directories
#
# Figures: wall seconds (median over RUNS, min-max) and the ratio webgit/git.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
GIT=${GIT:-$ROOT/.cache/git-ref/bin/git}
FILES=${FILES:-50000}
RUNS=${RUNS:-3}
B=${BENCH_DIR:-/tmp/webgit-bench-worktree}
if [ -z "${WEBGIT:-}" ]; then
	if [ ! -x "$ROOT/build/release/webgit" ]; then
		. "$ROOT/scripts/release-builds.sh"
		WG_JOBS=$(nproc) wg_build_release_native "$ROOT" >/dev/null
	fi
	WEBGIT=$ROOT/build/release/webgit
fi
WASM_JS=${WASM_JS-$ROOT/build/wasm/js}
[ -n "$WASM_JS" ] && [ ! -f "$WASM_JS/index.js" ] && WASM_JS=
export GIT_CONFIG_NOSYSTEM=1 HOME=$B/home GIT_CONFIG_PARAMETERS="'gc.auto=0'"
export GIT_AUTHOR_NAME=B GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=B
export GIT_COMMITTER_EMAIL=b@example.com
mkdir -p "$B/home"

if [ ! -f "$B/src.ok" ] || [ "$(cat "$B/src.ok")" != "$FILES" ]; then
	rm -rf "$B/src" "$B/src.ok"
	"$GIT" init -q -b main "$B/src"
	"$GIT" -C "$B/src" config gc.auto 0
	python3 - "$B/src" "$FILES" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "d%02d" % (i // 10000), "e%03d" % (i // 100 % 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d.c" % i), "w") as f:
        f.write("/* file %d */\n" % i + "int f%d(int x) { return x * %d; }\n" % (i, i % 97) * 8)
EOF
	"$GIT" -C "$B/src" add -A
	"$GIT" -C "$B/src" commit -qm one
	"$GIT" -C "$B/src" ls-files | awk 'NR % 100 == 1' | while read -r f; do
		echo "/* changed */" >>"$B/src/$f"
	done
	"$GIT" -C "$B/src" commit -qam two
	"$GIT" -C "$B/src" branch one HEAD~1
	"$GIT" -C "$B/src" gc -q
	echo "$FILES" >"$B/src.ok"
fi

# time_cmd DIR TOOL ARGS...: wall seconds of one run
time_cmd() {
	local dir=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	(cd "$dir" && "$@" >/dev/null)
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.3f (%.3f-%.3f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
med_only() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A RES
run_figure() {  # NAME SETUP(dir tool) CMD-ARGS...
	local name=$1 setup=$2 tool out warm=
	shift 2
	[ -n "$WASM_JS" ] && [ "$1" = status ] && warm=wasm-warm
	for tool in git webgit ${WASM_JS:+wasm} $warm; do
		out=$B/times-$name-$tool
		: >"$out"
		for _ in $(seq 1 "$RUNS"); do
			$setup "$B/$tool" "$tool"
			if [ $tool = git ]; then
				time_cmd "$B/$tool" "$GIT" "$@" >>"$out"
			elif [ $tool = wasm-warm ]; then
				# the process's own figure for its second status
				(cd "$B/$tool" && WEBGIT_JS_DIR="$WASM_JS" node \
					"$ROOT/scripts/wasm-worktree.mjs" status-warm) >>"$out"
			elif [ $tool = wasm ]; then
				time_cmd "$B/$tool" env WEBGIT_JS_DIR="$WASM_JS" node \
					"$ROOT/scripts/wasm-worktree.mjs" "$@" >>"$out"
			else
				time_cmd "$B/$tool" "$WEBGIT" "$@" >>"$out"
			fi
		done
		RES[$name-$tool]=$(median <"$out")
		RES[$name-$tool-m]=$(med_only <"$out")
	done
	printf '%-11s git %-24s webgit %-24s ratio %.2f' "$name" "${RES[$name-git]}" \
		"${RES[$name-webgit]}" "$(echo "${RES[$name-webgit-m]} / ${RES[$name-git-m]}" | bc -l)"
	if [ -n "$WASM_JS" ]; then
		printf '   wasm cold %-24s ratio %.2f' "${RES[$name-wasm]}" \
			"$(echo "${RES[$name-wasm-m]} / ${RES[$name-git-m]}" | bc -l)"
	fi
	if [ -n "$warm" ]; then
		printf '   wasm warm %-24s ratio %.2f' "${RES[$name-wasm-warm]}" \
			"$(echo "${RES[$name-wasm-warm-m]} / ${RES[$name-git-m]}" | bc -l)"
	fi
	printf '\n'
}

fresh_clone() {  # DIR TOOL
	rm -rf "$1"
	"$GIT" clone -q --no-checkout "$B/src" "$1"
}
at_main() {
	if [ ! -f "$1/.git/index" ]; then fresh_clone "$1" "$2"; "$GIT" -C "$1" checkout -q main; fi
	"$GIT" -C "$1" checkout -q -f main
	"$GIT" -C "$1" clean -qfdx
	"$GIT" -C "$1" status --porcelain >/dev/null
}
to_one() { at_main "$@"; }
modified() {
	at_main "$@"
	"$GIT" -C "$1" ls-files | awk 'NR % 100 == 7' | while read -r f; do
		sed -i 's/return/RETURN/' "$1/$f"
	done
}
untracked() {
	at_main "$@"
	for d in $(seq 1 10); do
		mkdir -p "$1/new$d"
		for f in $(seq 1 100); do echo "new $f" >"$1/new$d/n$f.c"; done
	done
}

echo "worktree benchmark: $FILES files, $RUNS runs, $(nproc) cores"
echo "git:    $("$GIT" --version)"
echo "webgit: $WEBGIT"
run_figure checkout fresh_clone checkout -q main
run_figure switch to_one checkout -q one
run_figure status at_main status --porcelain
run_figure status-mod modified status --porcelain
run_figure status-new untracked status --porcelain

# the tools agree
for s in at_main modified untracked; do
	$s "$B/git" git && $s "$B/webgit" webgit
	if ! cmp -s <("$GIT" -C "$B/git" status --porcelain) <("$WEBGIT" -C "$B/webgit" status --porcelain); then
		echo "bench-worktree: status differs after $s" >&2
		exit 1
	fi
	[ -n "$WASM_JS" ] || continue
	$s "$B/wasm" wasm
	if ! cmp -s <("$GIT" -C "$B/git" status --porcelain) \
		<(cd "$B/wasm" && WEBGIT_JS_DIR="$WASM_JS" node "$ROOT/scripts/wasm-worktree.mjs" status); then
		echo "bench-worktree: the WASM status differs after $s" >&2
		exit 1
	fi
done
echo "(the tools report the same status in each state)"
