#!/usr/bin/env bash
# bench-wasm-clone.sh: in ONE run, on the same local server, time a clone of a
# big repository by webgit's WebAssembly build in Node (the JS API), by the
# reference `git clone`, and by isomorphic-git in Node. Prints figures; not a
# test (but a broken clone fails the run: it is never reported as fast).
#
#   scripts/bench-wasm-clone.sh [--size big|small] [--runs N] [--timeout S]
#                               [--tools "git webgit-wasm isomorphic-git"]
#                               [--modes "full depth1"]
#
# Options (each also an environment variable, the option wins):
#   --size SIZE     SIZE: big (default), the repository of
#                   tests/server/make-repos.sh --big (12000 commits, one ~78 MB
#                   pack); small, the first SMALL_COMMITS (default 2000)
#                   first-parent commits of big's main and the tags on them,
#                   for trying the script out quickly; history, the
#                   real-history-shaped repository of
#                   scripts/gen-history-repo.sh (21000 commits, 175k
#                   objects, mostly deltas, a 20 MB pack).
#   --runs N        RUNS: runs per tool and mode, the table shows the median
#                   (default 3).
#   --timeout S     TIMEOUT: seconds one clone may take before it is killed
#                   and reported as "timeout" (default 900: isomorphic-git
#                   on the big pack takes minutes). A tool that times out in
#                   a mode is not run again in that mode.
#   --tools LIST    TOOLS: which of git, webgit-wasm, webgit-wasm-1t,
#                   isomorphic-git (default git webgit-wasm isomorphic-git).
#                   webgit-wasm loads as in any Node program: the threaded
#                   module where there are two cores or more;
#                   webgit-wasm-1t is the same package with
#                   init({ threads: false }), the single-threaded module.
#   --modes LIST    MODES: full and/or depth1 (default both).
# Environment only:
#   GIT        reference git (default .cache/git-ref/bin/git; also runs the
#              server's http-backend and the checks)
#   NODE       node (default node)
#   WASM_BUILD the Emscripten build directory (default build/bench-wasm);
#              WASM_BUILD_SKIP=1 uses it as it is, without building
#   BENCH_DIR  work directory: server state, log, clones, results
#              (default build/bench-wasm-clone)
#   REPOS_DIR  where the repositories are made and cached
#              (default .cache/bench-repos)
#
# WHAT IS COMPARED. webgit's JS clone is `git clone --no-checkout`: a
# non-bare repository (DIR/.git) with refs/remotes/origin/*, a local branch
# for the remote's HEAD and the tags, and no working tree files. So all three
# make exactly that:
#   full    git clone --no-checkout URL DIR
#           wg.clone({ url, dir })
#           isomorphic-git clone({ fs, http, dir, url, noCheckout: true })
#   depth1  git clone --no-checkout --depth 1 URL DIR
#           wg.clone({ url, dir, depth: 1, singleBranch: true })
#           isomorphic-git clone({ ..., noCheckout: true, depth: 1,
#                                  singleBranch: true })
#           (git's --depth implies --single-branch, as the JS API's depth
#           does; isomorphic-git's does not, so it is asked for)
# Each clone runs in its own process: git directly, the JS ones through
# tests/bench/clone-wasm.mjs (one clone per node process, so the process's
# peak RSS is the clone's own).
#
# SET-UP (cached, so a rerun starts measuring at once):
# - the release WebAssembly build of the JS package, in $WASM_BUILD/js
#   (emcmake cmake ... -DCMAKE_BUILD_TYPE=Release
#   -DCMAKE_PROJECT_INCLUDE=wasm/wasm.cmake; target webgit_js_files);
#   cmake rebuilds only what changed.
# - isomorphic-git in tests/node_modules: `npm ci` in tests/ if missing.
# - the repository: $REPOS_DIR/big.git from make-repos.sh --big (about a
#   minute), kept while $REPOS_DIR/big.ok exists; small.git is derived from it.
# - the server: tests/server/start.sh (git http-backend, protocol v2 and v0)
#   with --log, stopped by its PID on exit (trap).
# - per mode, an untimed reference `git clone` first: it warms the server's
#   page cache and gives the refs every timed clone must have.
#
# FIGURES per clone (the table shows the median over the runs; wall also
# shows min-max):
#   wall s     elapsed time of the clone's process: /usr/bin/time %e. For the
#              JS tools that includes starting node, importing the library
#              and, for webgit, compiling the .wasm (see load s).
#   clone s    JS tools only: the clone call alone, measured in the process.
#   load s     JS tools only: import + wg.init() (the .wasm compile).
#   cpu s      user+system CPU of the process and its children: %U+%S.
#   peak MiB   peak RSS: /usr/bin/time %M. For git this is its largest
#              process (git clone works in children: remote-https,
#              fetch-pack, index-pack), because wait4() reports the largest of
#              the child's own and its reaped descendants' high-water marks
#              (see getrusage(2), RUSAGE_CHILDREN; scripts/bench-clone.sh has
#              the details and a sampled sum over the process tree). For the
#              JS tools it is the node process (clone-wasm.mjs also records
#              process.resourceUsage().maxRSS; results.tsv, child_rss_kb).
#   requests   the server's log lines during the clone; MB moved: the HTTP
#              body bytes of those requests, both ways (10^6 bytes).
#   pack MB    objects/pack/*.pack in the clone; objects: `git count-objects
#              -v` in-pack + count.
# Ratio rows: webgit-wasm/git and isomorphic-git/webgit-wasm, of the medians.
# Targets, printed beside the wall-time ratios: webgit-wasm <= 1.5x git (both
# modes), isomorphic-git >= 5x webgit-wasm (the full clone).
# Raw per-run figures: $BENCH_DIR/results.tsv; each clone's output:
# $BENCH_DIR/runs/*.log. The machine may be shared: look at min-max.
#
# PAYLOAD: the raw and gzip -9 sizes of what a page loads for the JS API,
# as built and as a bundler serves it (scripts/payload.sh).
#
# CHECKS, every timed clone (untimed): the process succeeded; `git fsck
# --no-dangling` (every object hashed, connectivity); HEAD is the same
# symref and object as the reference clone's; all refs (object, name, symref
# target) and the shallow file equal the reference clone's, except that a
# difference in refs/remotes/origin/HEAD is only printed as a note (it says
# nothing of the clone's objects), and, for isomorphic-git (the comparison,
# not under test), so is a difference in refs/tags/* (it follows tags
# otherwise than git). A failed check is reported, that tool is not run
# again in that mode, and the script exits 1 after the table.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--size) SIZE=${2:?}; shift 2 ;;
	--runs) RUNS=${2:?}; shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--tools) TOOLS=${2:?}; shift 2 ;;
	--modes) MODES=${2:?}; shift 2 ;;
	-h|--help) usage ;;
	*) echo "unknown argument: $1" >&2; usage ;;
	esac
done

GIT=${GIT:-$ROOT/.cache/git-ref/bin/git}
NODE=${NODE:-node}
SIZE=${SIZE:-big}
RUNS=${RUNS:-3}
TIMEOUT=${TIMEOUT:-900}
TOOLS=${TOOLS:-git webgit-wasm isomorphic-git}
MODES=${MODES:-full depth1}
SMALL_COMMITS=${SMALL_COMMITS:-2000}
WASM_BUILD=${WASM_BUILD:-$ROOT/build/bench-wasm}
W=${BENCH_DIR:-$ROOT/build/bench-wasm-clone}
REPOS=${REPOS_DIR:-$ROOT/.cache/bench-repos}
TIME=/usr/bin/time

[ -x "$GIT" ] || { echo "reference git missing ($GIT): run scripts/bootstrap.sh" >&2; exit 1; }
[ -x "$TIME" ] || { echo "$TIME missing (apt-get install time)" >&2; exit 1; }
command -v timeout >/dev/null || { echo "timeout (coreutils) missing" >&2; exit 1; }
case "$RUNS" in ''|*[!0-9]*|0) echo "--runs must be a positive number" >&2; exit 2 ;; esac
case "$TIMEOUT" in ''|*[!0-9]*|0) echo "--timeout must be a positive number of seconds" >&2; exit 2 ;; esac
case "$SIZE" in big|small|history) ;; *) echo "--size must be big, small or history" >&2; exit 2 ;; esac
for t in $TOOLS; do
	case $t in git|webgit-wasm|webgit-wasm-1t|isomorphic-git) ;; *) echo "unknown tool $t" >&2; exit 2 ;; esac
done
for m in $MODES; do
	case $m in full|depth1) ;; *) echo "unknown mode $m" >&2; exit 2 ;; esac
done
mkdir -p "$W" "$REPOS"
W=$(cd "$W" && pwd)
REPOS=$(cd "$REPOS" && pwd)
has_tool() { case " $TOOLS " in *" $1 "*) return 0 ;; esac; return 1; }

# No client (nor the checks) may read the caller's git set-up.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT \
	GIT_NAMESPACE GIT_COMMON_DIR GIT_TRACE GIT_TRACE2 GIT_TRACE2_PERF
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C GIT_TERMINAL_PROMPT=0
# emcc (Debian's) needs its node modules from here.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

# ---- the WebAssembly JS package ---------------------------------------------------
JS_DIR=$WASM_BUILD/js
if [ "${WASM_BUILD_SKIP:-0}" != 1 ] && { has_tool webgit-wasm || has_tool webgit-wasm-1t; }; then
	echo "building the WebAssembly JS package (Release) in $WASM_BUILD ..." >&2
	mkdir -p "$WASM_BUILD"
	if ! {
		{ [ -f "$WASM_BUILD/CMakeCache.txt" ] ||
			emcmake cmake -S "$ROOT" -B "$WASM_BUILD" -DCMAKE_BUILD_TYPE=Release \
				-DCMAKE_PROJECT_INCLUDE="$ROOT/wasm/wasm.cmake" -DWG_WERROR=OFF; } &&
		cmake --build "$WASM_BUILD" -j2 --target webgit_js_files
	} >"$W/build.log" 2>&1; then
		tail -n 40 "$W/build.log" >&2
		echo "build failed (log: $W/build.log)" >&2
		exit 1
	fi
fi
if { has_tool webgit-wasm || has_tool webgit-wasm-1t; }; then
	for f in index.js webgit.mjs webgit.wasm; do
		[ -f "$JS_DIR/$f" ] || { echo "no $JS_DIR/$f" >&2; exit 1; }
	done
fi

# ---- isomorphic-git ---------------------------------------------------------------
if has_tool isomorphic-git && [ ! -f "$ROOT/tests/node_modules/isomorphic-git/package.json" ]; then
	echo "npm ci in tests/ (isomorphic-git) ..." >&2
	(cd "$ROOT/tests" && npm ci --no-fund --no-audit) >"$W/npm.log" 2>&1 ||
		{ tail -n 20 "$W/npm.log" >&2; exit 1; }
fi
ISOGIT_VERSION=$(sed -n 's/^ *"version": *"\(.*\)",*$/\1/p' \
	"$ROOT/tests/node_modules/isomorphic-git/package.json" 2>/dev/null | head -n 1)

# ---- the repository ----------------------------------------------------------------
if [ ! -f "$REPOS/big.ok" ]; then
	echo "making $REPOS/big.git (about a minute) ..." >&2
	rm -rf "$REPOS/big.git" "$REPOS/small.git" "$REPOS/small.ok"
	GIT=$GIT "$ROOT/tests/server/make-repos.sh" --big "$REPOS" >"$W/make-repos.log" 2>&1 ||
		{ tail -n 20 "$W/make-repos.log" >&2; exit 1; }
	touch "$REPOS/big.ok"
fi
# small.git: big's history cut at its SMALL_COMMITS-th first-parent commit
# (merged topics included), with the tags on that history. Same kind of
# content as big, a fraction of the size, so the whole script runs in
# about a minute. Remade when SMALL_COMMITS changes.
if [ "$SIZE" = small ] && [ "$(cat "$REPOS/small.ok" 2>/dev/null)" != "$SMALL_COMMITS" ]; then
	echo "making $REPOS/small.git ($SMALL_COMMITS commits of big's main) ..." >&2
	rm -rf "$REPOS/small.git" "$REPOS/small.ok"
	cut=$("$GIT" --git-dir="$REPOS/big.git" rev-list --first-parent --reverse main | sed -n "${SMALL_COMMITS}p")
	[ -n "$cut" ] || { echo "big.git's main has fewer than $SMALL_COMMITS commits" >&2; exit 1; }
	"$GIT" init -q --bare -b main "$REPOS/small.git"
	mapfile -t tags < <("$GIT" --git-dir="$REPOS/big.git" for-each-ref --merged="$cut" \
		--format='%(refname):%(refname)' refs/tags)
	"$GIT" --git-dir="$REPOS/big.git" push -q "$REPOS/small.git" "$cut:refs/heads/main" "${tags[@]}"
	"$GIT" --git-dir="$REPOS/small.git" repack -a -d -q --write-bitmap-index
	"$GIT" --git-dir="$REPOS/small.git" pack-refs --all
	echo "$SMALL_COMMITS" >"$REPOS/small.ok"
fi
if [ "$SIZE" = history ] && [ ! -f "$REPOS/history.ok" ]; then
	echo "making $REPOS/history.git (about a minute and a half) ..." >&2
	GIT=$GIT "$ROOT/scripts/gen-history-repo.sh" "$REPOS" >"$W/gen-history.log" 2>&1 ||
		{ tail -n 20 "$W/gen-history.log" >&2; exit 1; }
fi
REPO=$REPOS/$SIZE.git

# ---- the server ----------------------------------------------------------------------
STATE=$W/server
LOG=$W/server.log
RUNDIR=$W/runs
rm -rf "$RUNDIR"
mkdir -p "$RUNDIR"

# shellcheck source=scripts/bench-server.sh
. "$ROOT/scripts/bench-server.sh"
bench_server_start "$STATE" "$REPOS" "$LOG"
URL=$URL/git/$SIZE.git
echo "server pid $SERVER_PID at $URL" >&2

# ---- measuring one clone ----------------------------------------------------------------

# clone_cmd TOOL MODE DIR OUT: the clone command line, one word per line.
# OUT is where clone-wasm.mjs writes its JSON line.
clone_cmd() {
	local tool=$1 mode=$2 dir=$3 out=$4
	case $tool in
	git)
		printf '%s\n' "$GIT" clone -q --no-checkout
		[ "$mode" = depth1 ] && printf '%s\n' --depth 1
		printf '%s\n' "$URL" "$dir" ;;
	webgit-wasm|webgit-wasm-1t|isomorphic-git)
		printf '%s\n' "$NODE" "$ROOT/tests/bench/clone-wasm.mjs" "${tool%-1t}" "$URL" "$dir" \
			--js-dir "$JS_DIR" --out "$out"
		[ "$tool" = webgit-wasm-1t ] && printf '%s\n' --no-threads
		[ "$mode" = depth1 ] && printf '%s\n' --depth 1 --single-branch
		;;
	esac
	return 0
}

# refs_of GITDIR: what the checks compare, one line each: "object refname
# symref-target", then HEAD, then the shallow file.
refs_of() {
	"$GIT" --git-dir="$1" for-each-ref --format='%(objectname) %(refname) %(symref)'
	echo "$("$GIT" --git-dir="$1" rev-parse HEAD 2>/dev/null || echo none) HEAD" \
		"$("$GIT" --git-dir="$1" symbolic-ref HEAD 2>/dev/null || echo detached)"
	if [ -f "$1/shallow" ]; then sed 's/^/shallow /' "$1/shallow" | sort; fi
}

# The reference clone of each mode (untimed, git): its refs are what every
# timed clone must have. It also warms the server's page cache.
for mode in $MODES; do
	mapfile -t cmd < <(clone_cmd git "$mode" "$RUNDIR/ref-$mode" /dev/null)
	echo "reference clone ($mode): ${cmd[*]}" >&2
	"${cmd[@]}" >"$RUNDIR/ref-$mode.log" 2>&1 ||
		{ sed 's/^/  /' "$RUNDIR/ref-$mode.log" >&2; echo "the reference clone failed" >&2; exit 1; }
	refs_of "$RUNDIR/ref-$mode/.git" >"$RUNDIR/refs-$mode-expected"
	rm -rf "$RUNDIR/ref-$mode"
done
SERVER_HEAD=$("$GIT" --git-dir="$REPO" rev-parse HEAD)
grep -q "^$SERVER_HEAD HEAD " "$RUNDIR/refs-full-expected" 2>/dev/null ||
	grep -q "^$SERVER_HEAD HEAD " "$RUNDIR/refs-depth1-expected" ||
	{ echo "the reference clone's HEAD is not the server's ($SERVER_HEAD)" >&2; exit 1; }

# For the peak RSS of the JS tools: what node alone takes (no import).
NODE_BASE_KB=$("$TIME" -f %M "$NODE" -e 0 2>&1 >/dev/null | tail -n 1)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

FAILED=0
NOTES=()
RESULTS=$W/results.tsv
printf 'mode\ttool\trun\tstatus\twall_s\tcpu_s\tpeak_kb\tclone_ms\tload_ms\tchild_rss_kb\trequests\treq_bytes\tresp_bytes\tprotocol\tpack_bytes\tobjects\n' >"$RESULTS"
declare -A STOPPED   # "tool,mode" -> timeout|failed: not run again

# check_refs TOOL MODE FILE: compare FILE with the reference clone's refs.
# Returns 1 on a failed check. Differences that are not failures (origin/HEAD;
# isomorphic-git's tags) become notes, once per tool and mode.
declare -A NOTED
check_refs() {
	local tool=$1 mode=$2 got=$3 exp=$RUNDIR/refs-$2-expected strict loose
	# origin/HEAD is the line "oid refs/remotes/origin/HEAD target".
	local ohead='^[^ ]+ refs/remotes/origin/HEAD '
	strict='.' loose="$ohead"
	if [ "$tool" = isomorphic-git ]; then
		strict='^[^ ]+ (refs/heads/|refs/remotes/origin/|HEAD )|^shallow '
		loose="$ohead|^[^ ]+ refs/tags/"
	fi
	if ! diff -u <(grep -E "$strict" "$exp" | grep -Ev "$loose" || true) \
			<(grep -E "$strict" "$got" | grep -Ev "$loose" || true) >"$RUNDIR/refs.diff"; then
		head -n 20 "$RUNDIR/refs.diff" | sed 's/^/  /' >&2
		return 1
	fi
	if [ -z "${NOTED[$tool,$mode]:-}" ] &&
		! diff <(grep -E "$loose" "$exp" || true) <(grep -E "$loose" "$got" || true) >"$RUNDIR/loose.diff"; then
		NOTED[$tool,$mode]=1
		NOTES+=("$mode $tool: refs that differ from git's reference clone (< git, > $tool):"$'\n'"$(grep '^[<>]' "$RUNDIR/loose.diff" | head -n 8 | sed 's/^/    /')")
	fi
	return 0
}

# run_one TOOL MODE RUN: one measured clone, then its checks; appends a line
# to $RESULTS and removes the clone.
run_one() {
	local tool=$1 mode=$2 run=$3 dir="$RUNDIR/$2-$1-$3" out="$RUNDIR/$2-$1-$3.json"
	local n0 n1 rc=0 status=ok wall='' peak='' user='' sys='' cpu='' cms=- lms=- crss=-
	local reqs reqb respb proto pack objects cmd ok=1
	mapfile -t cmd < <(clone_cmd "$tool" "$mode" "$dir" "$out")
	n0=$(log_lines)
	# timeout runs the command in its own process group and signals all of it,
	# so git's children and node go too.
	timeout --kill-after=10 "$TIMEOUT" "$TIME" -f '%e %M %U %S' -o "$RUNDIR/time" \
		"${cmd[@]}" >"$RUNDIR/$mode-$tool-$run.log" 2>&1 || rc=$?
	n1=$(log_lines)
	read -r reqs reqb respb proto < <(sed -n "$((n0 + 1)),${n1}p" "$LOG" |
		awk '{ n++; q += $4; r += $5; p = $7 } END { print n + 0, q + 0, r + 0, (p == "" ? "-" : p) }')
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		status=timeout
		STOPPED[$tool,$mode]=timeout
		echo "  $mode $tool run $run: TIMEOUT after ${TIMEOUT}s (not run again in $mode)" >&2
	elif [ "$rc" != 0 ]; then
		status=failed
		STOPPED[$tool,$mode]=failed
		FAILED=1
		echo "FAILED (exit $rc): ${cmd[*]}" >&2
		sed 's/^/  /' "$RUNDIR/$mode-$tool-$run.log" | head -n 40 >&2
		cp "$RUNDIR/$mode-$tool-$run.log" "$W/failed-$mode-$tool-$run.log"
	else
		read -r wall peak user sys < <(tail -n 1 "$RUNDIR/time")
		cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
		if [ -f "$out" ]; then
			read -r cms lms crss < <(sed 's/.*"load_ms":\([0-9]*\).*"clone_ms":\([0-9]*\).*"max_rss_kb":\([0-9]*\).*/\2 \1 \3/' "$out")
		fi
	fi
	pack=$(find "$dir" -path '*/objects/pack/*.pack' -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
	objects=-

	# Checks (untimed) of a clone that finished.
	if [ "$status" = ok ]; then
		objects=$("$GIT" --git-dir="$dir/.git" count-objects -v 2>/dev/null |
			awk '$1 == "count:" || $1 == "in-pack:" { s += $2 } END { print s + 0 }')
		if ! "$GIT" --git-dir="$dir/.git" fsck --no-dangling >"$RUNDIR/fsck.log" 2>&1; then
			echo "CHECK FAILED: git fsck of $mode $tool run $run:" >&2
			head -n 20 "$RUNDIR/fsck.log" | sed 's/^/  /' >&2
			ok=0
		fi
		refs_of "$dir/.git" >"$RUNDIR/refs-$mode-$tool-$run"
		if ! check_refs "$tool" "$mode" "$RUNDIR/refs-$mode-$tool-$run"; then
			echo "CHECK FAILED: refs of $mode $tool run $run differ from git's (above)" >&2
			ok=0
		fi
		if [ "$ok" = 0 ]; then
			status=badclone
			FAILED=1
			STOPPED[$tool,$mode]=badclone
		fi
	fi

	printf '%s\t' "$mode" "$tool" "$run" "$status" "${wall:--}" "${cpu:--}" "${peak:--}" "$cms" "$lms" "$crss" \
		"$reqs" "$reqb" "$respb" "$proto" "$pack" >>"$RESULTS"
	printf '%s\n' "$objects" >>"$RESULTS"
	if [ "$status" = ok ]; then
		printf '  %-6s %-14s run %s: %7ss %8.1f MiB peak, %3d requests, %s objects\n' "$mode" "$tool" "$run" \
			"$wall" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')" "$reqs" "$objects" >&2
	fi
	rm -rf "$dir" "$out"
}

read -r -a TOOL_LIST <<<"$TOOLS"
NT=${#TOOL_LIST[@]}
for mode in $MODES; do
	for run in $(seq "$RUNS"); do
		# The order rotates between runs to spread drift in the machine's load.
		for i in $(seq 0 $((NT - 1))); do
			tool=${TOOL_LIST[$(((i + run - 1) % NT))]}
			[ -z "${STOPPED[$tool,$mode]:-}" ] || continue
			run_one "$tool" "$mode" "$run"
		done
	done
done
bench_server_stop

# ---- the table ------------------------------------------------------------------------------

# col MODE TOOL COLUMN: the values of a results.tsv column over the good runs.
col() {
	awk -F'\t' -v m="$1" -v t="$2" -v c="$3" 'NR > 1 && $1 == m && $2 == t && $4 == "ok" && $c != "-" { print $c }' "$RESULTS"
}
median() {
	col "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
span() { col "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) print "(" lo "-" hi ")" }'; }
# status MODE TOOL: timeout/failed/badclone if any run was, else ok ("" if none).
status_of() {
	awk -F'\t' -v m="$1" -v t="$2" 'NR > 1 && $1 == m && $2 == t { s = ($4 != "ok" ? $4 : (s == "" ? "ok" : s)) } END { print s }' "$RESULTS"
}
mib() { [ -n "$1" ] && awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }' || echo -; }
mb() { [ -n "$1" ] && awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e6 }' || echo -; }
sec() { [ -n "$1" ] && awk -v m="$1" 'BEGIN { printf "%.2f", m / 1000 }' || echo -; }
f2() { [ -n "$1" ] && awk -v x="$1" 'BEGIN { printf "%.2f", x }' || echo -; }

echo
echo "clone of $SIZE.git ($("$GIT" --git-dir="$REPO" rev-list --count --all) commits," \
	"$("$GIT" --git-dir="$REPO" for-each-ref | wc -l) refs) over smart HTTP on 127.0.0.1 (one server), median of $RUNS runs"
echo "server pack: $(find "$REPO/objects/pack" -name '*.pack' -printf '%s\n' |
	awk '{ s += $1 } END { printf "%.2f MB (%d bytes)", s / 1e6, s }'),"\
	"$("$GIT" --git-dir="$REPO" count-objects -v | awk '$1 == "in-pack:" { print $2 }') objects"
echo "git:            $("$GIT" --version) ($GIT)"
echo "webgit-wasm:    $JS_DIR (Release), node $("$NODE" --version)"
echo "isomorphic-git: ${ISOGIT_VERSION:-?} (tests/node_modules, isomorphic-git/http/node)"
echo "load average:   $LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (1/5/15 min; $(nproc) cores)"
echo "node baseline:  $(mib "$NODE_BASE_KB") MiB peak RSS for \`node -e 0\` (part of every JS tool's peak)"
echo "modes:          full = git clone --no-checkout | wg.clone({url, dir}) | isomorphic-git noCheckout"
echo "                depth1 = the same with --depth 1 (JS: depth: 1, singleBranch: true)"
if { has_tool webgit-wasm || has_tool webgit-wasm-1t; }; then
	echo
	"$ROOT/scripts/payload.sh" "$JS_DIR"
fi
echo
fmt='%-6s %-21s %8s %-15s %7s %6s %7s %8s %5s %8s %7s %7s %-4s %s\n'
# shellcheck disable=SC2059
printf "$fmt" mode tool "wall s" "(min-max)" "clone s" "load s" "cpu s" "peak MiB" reqs "MB moved" "pack MB" objects prot target
declare -A med st
# ratio A B KEY: A's median over B's, "-" if either is missing.
ratio() {
	awk -v a="${med[$1,$3]:-}" -v b="${med[$2,$3]:-}" 'BEGIN { if (a != "" && b != "" && b > 0) printf "%.2fx", a / b; else print "-" }'
}
for mode in $MODES; do
	med=() st=()
	for tool in $TOOLS; do
		st[$tool]=$(status_of "$mode" "$tool")
		med[$tool,wall]=$(median "$mode" "$tool" 5)
		med[$tool,cms]=$(median "$mode" "$tool" 8)
		med[$tool,lms]=$(median "$mode" "$tool" 9)
		med[$tool,cpu]=$(median "$mode" "$tool" 6)
		med[$tool,peak]=$(median "$mode" "$tool" 7)
		med[$tool,reqs]=$(median "$mode" "$tool" 11)
		med[$tool,bytes]=$(awk -F'\t' -v m="$mode" -v t="$tool" 'NR > 1 && $1 == m && $2 == t && $4 == "ok" { print $12 + $13 }' "$RESULTS" |
			sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
		med[$tool,pack]=$(median "$mode" "$tool" 15)
		med[$tool,objects]=$(median "$mode" "$tool" 16)
		# The log's Git-Protocol header: "version=2", or "-" when the client
		# sent none (protocol v0, as isomorphic-git speaks).
		proto=$(awk -F'\t' -v m="$mode" -v t="$tool" 'NR > 1 && $1 == m && $2 == t && $4 == "ok" { print $14 }' "$RESULTS" |
			sed 's/^version=/v/; s/^-$/v0/' | sort -u | paste -sd,)
		wall=$(f2 "${med[$tool,wall]}")
		case ${st[$tool]} in
		ok) ;;
		timeout) wall=">$TIMEOUT"; med[$tool,wall]= ;;
		'') wall=-; ;;
		*) wall=${st[$tool]}; med[$tool,wall]= ;;
		esac
		# shellcheck disable=SC2059
		printf "$fmt" "$mode" "$tool" "$wall" "$(span "$mode" "$tool" 5)" "$(sec "${med[$tool,cms]}")" \
			"$(sec "${med[$tool,lms]}")" "$(f2 "${med[$tool,cpu]}")" "$(mib "${med[$tool,peak]}")" "${med[$tool,reqs]:--}" \
			"$(mb "${med[$tool,bytes]}")" "$(mb "${med[$tool,pack]}")" "${med[$tool,objects]:--}" "${proto:--}" ""
	done
	if has_tool webgit-wasm && has_tool git; then
		r=$(ratio webgit-wasm git wall)
		verdict=$(awk -v r="${r%x}" 'BEGIN { if (r == "-") print "?"; else print (r + 0 <= 1.5) ? "met" : "MISSED" }')
		# shellcheck disable=SC2059
		printf "$fmt" "$mode" "webgit-wasm/git" "$r" "" "" "" "$(ratio webgit-wasm git cpu)" \
			"$(ratio webgit-wasm git peak)" "$(ratio webgit-wasm git reqs)" "$(ratio webgit-wasm git bytes)" \
			"$(ratio webgit-wasm git pack)" "" "" "wall <= 1.5x: $verdict"
	fi
	if has_tool webgit-wasm && has_tool isomorphic-git; then
		if [ "${st[isomorphic-git]}" = timeout ] && [ -n "${med[webgit-wasm,wall]}" ]; then
			# A lower bound: isomorphic-git took more than TIMEOUT seconds.
			r=$(awk -v t="$TIMEOUT" -v w="${med[webgit-wasm,wall]}" 'BEGIN { printf ">%.1fx", t / w }')
			verdict=$(awk -v r="${r#>}" 'BEGIN { print (r + 0 >= 5) ? "met" : "? (timeout too short to tell)" }')
		else
			r=$(ratio isomorphic-git webgit-wasm wall)
			verdict=$(awk -v r="${r%x}" 'BEGIN { if (r == "-") print "?"; else print (r + 0 >= 5) ? "met" : "MISSED" }')
		fi
		target=
		[ "$mode" = full ] && target="wall >= 5x: $verdict"
		# shellcheck disable=SC2059
		printf "$fmt" "$mode" "isomorphic-git/webgit" "$r" "" "" "" "$(ratio isomorphic-git webgit-wasm cpu)" \
			"$(ratio isomorphic-git webgit-wasm peak)" "$(ratio isomorphic-git webgit-wasm reqs)" \
			"$(ratio isomorphic-git webgit-wasm bytes)" "$(ratio isomorphic-git webgit-wasm pack)" "" "" "$target"
	fi
done
echo
echo "wall = the clone process's elapsed time (/usr/bin/time %e; for node: start-up, load and clone);"
echo "clone s = the JS clone call alone; load s = import (+ wg.init(): the .wasm compile);"
echo "peak = /usr/bin/time %M (git: its largest process); MB moved = HTTP bodies both ways (10^6 B)."
echo "isomorphic-git/webgit is isomorphic-git's median over webgit-wasm's (> 1: webgit is faster)."
echo "raw figures: $RESULTS"
for n in "${NOTES[@]}"; do echo "note: $n"; done
if [ "$FAILED" = 1 ]; then
	echo "SOME CLONES FAILED OR FAILED THEIR CHECKS (see above; logs in $W)" >&2
	exit 1
fi
echo "checks: every timed clone passed git fsck and its refs, HEAD and shallow file match git's reference clone"
