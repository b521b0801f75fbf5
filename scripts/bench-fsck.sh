#!/usr/bin/env bash
# bench-fsck.sh: what checking every received object costs a clone. Prints
# figures; not a test (it fails only if a clone fails).
#
#   scripts/bench-fsck.sh
#
# On history.git (tests/server/make-repos.sh --history: 21000 commits of
# small edits, ~175k objects, a ~20 MB pack of deep delta chains, the shape
# of a real project's history), served over smart HTTP (protocol v2), RUNS
# times each, order rotating between runs:
#   git             git clone --bare                 (git checks nothing by default)
#   git fsck        git -c transfer.fsckObjects=true clone --bare
#   webgit          webgit clone --bare              (checks every object: the default)
#   webgit no-fsck  webgit clone -c transfer.fsckObjects=false --bare
# and prints the medians of wall and CPU (user+system) seconds and peak RSS
# (/usr/bin/time), with the ratios that matter: webgit / git, and what the
# check costs each tool (with / without).
#
# Environment: GIT (default .cache/git-ref/bin/git), WEBGIT (default: the
# Release build of scripts/release-builds.sh, made if missing), RUNS
# (default 3), BENCH_DIR (default /tmp/webgit-bench-fsck; the repository is
# made once and reused while BENCH_DIR/repos/history.ok exists).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
GIT=${GIT:-$ROOT/.cache/git-ref/bin/git}
RUNS=${RUNS:-3}
BENCH_DIR=${BENCH_DIR:-/tmp/webgit-bench-fsck}
export GIT GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_TERMINAL_PROMPT=0
. "$ROOT/scripts/bench-server.sh"
. "$ROOT/scripts/release-builds.sh"

if [ -z "${WEBGIT:-}" ]; then
	wg_build_release_native "$ROOT" >"$BENCH_DIR.build.log" 2>&1 ||
		{ tail -n 30 "$BENCH_DIR.build.log"; exit 1; }
	WEBGIT=$ROOT/build/release/webgit
fi
mkdir -p "$BENCH_DIR"
if [ ! -f "$BENCH_DIR/repos/history.ok" ]; then
	"$ROOT/tests/server/make-repos.sh" --history "$BENCH_DIR/repos"
	touch "$BENCH_DIR/repos/history.ok"
fi
bench_server_start "$BENCH_DIR/server" "$BENCH_DIR/repos" "$BENCH_DIR/server.log"
u=$URL/git/history.git

tools=(git git-fsck webgit webgit-no-fsck)
run_tool() {   # run_tool TOOL DIR
	case $1 in
	git) "$GIT" clone -q --bare "$u" "$2" ;;
	git-fsck) "$GIT" -c transfer.fsckObjects=true clone -q --bare "$u" "$2" ;;
	webgit) "$WEBGIT" clone -q --bare "$u" "$2" ;;
	webgit-no-fsck) "$WEBGIT" clone -q -c transfer.fsckObjects=false --bare "$u" "$2" ;;
	esac
}
export -f run_tool
export u WEBGIT

res=$BENCH_DIR/results
: >"$res"
for run in $(seq "$RUNS"); do
	for k in 0 1 2 3; do
		t=${tools[$(((k + run) % 4))]}
		rm -rf "$BENCH_DIR/clone"
		/usr/bin/time -f "%e %U %S %M" -o "$BENCH_DIR/time" bash -c 'run_tool "$0" "$1"' \
			"$t" "$BENCH_DIR/clone"
		read -r wall user sys rss <"$BENCH_DIR/time"
		echo "$t $wall $(echo "$user + $sys" | bc) $rss" >>"$res"
	done
done
rm -rf "$BENCH_DIR/clone"

median() {   # median TOOL COLUMN
	awk -v t="$1" -v c="$2" '$1 == t { print $c }' "$res" | sort -n |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { echo "scale=2; $1 / $2" | bc; }

echo "history.git: $("$GIT" -C "$BENCH_DIR/repos/history.git" count-objects -v |
	sed -n 's/^in-pack: //p') objects, pack $(du -m "$BENCH_DIR"/repos/history.git/objects/pack/*.pack |
	cut -f1) MB; $RUNS runs, medians"
printf '%-16s %8s %8s %10s\n' tool "wall s" "cpu s" "peak MiB"
for t in "${tools[@]}"; do
	printf '%-16s %8s %8s %10s\n' "$t" "$(median "$t" 2)" "$(median "$t" 3)" \
		"$(echo "$(median "$t" 4) / 1024" | bc)"
done
for pair in "webgit git" "webgit git-fsck" "git-fsck git" "webgit webgit-no-fsck"; do
	set -- $pair
	printf '%-26s wall %5sx  cpu %5sx\n' "$1 / $2" "$(ratio "$(median "$1" 2)" "$(median "$2" 2)")" \
		"$(ratio "$(median "$1" 3)" "$(median "$2" 3)")"
done
