#!/usr/bin/env bash
# bench-clone.sh: time `webgit clone` against `git clone` over smart HTTP on a
# big repository. Prints figures; not a test (but it fails if a clone is
# broken or the two clones' refs differ).
#
#   scripts/bench-clone.sh
#   REPO=history MODES=no-co PACK_THREADS=1 scripts/bench-clone.sh
#
# Environment:
#   REPO      big (default): big.git, large mostly incompressible blobs, where
#             the cost is hashing and inflating bytes; history: history.git,
#             shaped like a real project's history (21000 commits of small
#             edits over 1600 files, ~175k objects, a ~20 MB pack of deep
#             delta chains), where the cost is handling many small objects;
#             history-sha256: the same history as a SHA-256 repository
#   MODES     the modes to run (default "bare depth1", and no-co with NONBARE=1)
#   PACK_THREADS  when set, both clients clone with -c pack.threads=N (the
#             threads of index-pack's delta resolution; unset: each
#             client's default, one per core for both on this machine)
#   GIT       reference git   (default .cache/git-ref/bin/git; also runs the
#             server's http-backend, and does the fsck/for-each-ref checks)
#   WEBGIT    webgit CLI      (default: a Release build made in $BENCH_DIR/build)
#   RUNS      runs per tool and mode (default 3)
#   NONBARE   1 (default) also measures non-bare clones, 0 skips them
#   BENCH_DIR work directory  (default /tmp/webgit-bench-clone)
#
# SET-UP. tests/server/make-repos.sh --big makes $BENCH_DIR/repos/big.git once
# (12000 commits, one ~78 MB pack; ~1 minute) and it is reused while
# $BENCH_DIR/repos/big.ok exists; likewise --history makes history.git
# (scripts/gen-history-repo.sh runs it on its own and describes the result).
# tests/server/git-http-server.mjs serves it
# (git http-backend, protocol v2) with --log; it is stopped by its PID on exit
# (trap). Both clients run with no system or global git config.
#
# MODES, each run by both tools RUNS times, from the same URL into a fresh
# directory (the git/webgit order alternates between runs to spread drift):
#   bare       git clone --bare            webgit clone --bare
#   depth1     git clone --bare --depth 1  webgit clone --bare --depth 1
#   no-co      git clone --no-checkout     webgit clone --no-checkout
#              (non-bare: refs/remotes/origin/*; webgit has no checkout)
#
# FIGURES (the median over the runs; wall also shows min-max):
#   wall s     elapsed time of the clone command: /usr/bin/time %e.
#   cpu s      user+system CPU of the command and all its children: %U+%S.
#   peak MiB   peak resident set size: /usr/bin/time %M. `git clone` does its
#              work in children (git-remote-https -> git fetch-pack -> git
#              index-pack), so a figure of the top process alone would be
#              wrong for git. %M is not that, on Linux: /usr/bin/time takes it
#              from wait4(), whose rusage for the child is the child's own
#              and its reaped descendants' (the kernel folds each reaped
#              process's max RSS into its parent's "cmaxrss", and wait4
#              reports max(maxrss, cmaxrss); see getrusage(2), RUSAGE_CHILDREN).
#              So %M is the largest peak RSS of any single process in the
#              tree, e.g. `time -f %M sh -c 'python3 -c "x=b\"a\"*(300<<20)"; true'`
#              prints ~320000 although sh itself stays under 2 MB. git waits
#              for all its children, so none escape this. The figure is exact
#              (the kernel's high-water mark, no sampling).
#   tree MiB   what %M cannot show: the peak of the SUM of the RSS of all the
#              processes of the tree alive at the same moment (git's
#              remote-https, fetch-pack and index-pack run concurrently). A
#              small Python helper (treepeak, below) starts the command and
#              every 50 ms scans /proc for the descendants of it and sums their
#              VmRSS. Sampled, so a spike shorter than 50 ms can be missed,
#              and shared pages (libc, a pack mapped by two processes) are
#              counted once per process. The helper also keeps the largest
#              per-process VmHWM it saw, a cross-check of %M (column
#              tree_hwm_kb of the raw results, not in the table).
#   requests   the server log lines of the run (the log's line count is taken
#              before the run; after it, we wait until the log stops growing).
#   MB moved   sum of REQ_BYTES + RESP_BYTES of those lines: HTTP body bytes
#              as sent on the wire (no headers or chunk framing), 10^6 bytes.
#   pack MB    total size of objects/pack/*.pack in the new clone.
# Then per mode a "webgit/git" row with the ratio of the medians (< 1: webgit
# uses less). Raw per-run figures: $BENCH_DIR/results.tsv. The machine's
# other load makes the times noisy: look at the min-max spread.
#
# CHECKS, every run: `git fsck --connectivity-only` of the clone, and
# `git for-each-ref` (object, name, symref target) plus HEAD and the shallow
# file of every clone must equal those of the first git clone of its mode.
# A failed check is reported and makes the script exit 1 after the table.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
GIT=${GIT:-$ROOT/.cache/git-ref/bin/git}
RUNS=${RUNS:-3}
NONBARE=${NONBARE:-1}
REPO=${REPO:-big}
PACK_THREADS=${PACK_THREADS:-}
W=${BENCH_DIR:-/tmp/webgit-bench-clone}
TIME=/usr/bin/time

[ -x "$GIT" ] || { echo "reference git missing ($GIT): run scripts/bootstrap.sh" >&2; exit 1; }
[ -x "$TIME" ] || { echo "$TIME missing (apt-get install time)" >&2; exit 1; }
case "$RUNS" in ''|*[!0-9]*|0) echo "RUNS must be a positive number" >&2; exit 2 ;; esac
case "$REPO" in big|history|history-sha256) ;; *) echo "REPO must be big, history or history-sha256" >&2; exit 2 ;; esac
case "$PACK_THREADS" in *[!0-9]*) echo "PACK_THREADS must be a number" >&2; exit 2 ;; esac
mkdir -p "$W"
W=$(cd "$W" && pwd)

# Neither client (nor the checks) may read the caller's git set-up.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT \
	GIT_NAMESPACE GIT_COMMON_DIR GIT_TRACE GIT_TRACE2 GIT_TRACE2_PERF
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C GIT_TERMINAL_PROMPT=0

# ---- webgit ----------------------------------------------------------------
if [ -z "${WEBGIT:-}" ]; then
	echo "building webgit (Release) in $W/build ..." >&2
	if ! { cmake -S "$ROOT" -B "$W/build" -DCMAKE_BUILD_TYPE=Release -DWG_WERROR=OFF &&
		cmake --build "$W/build" -j2 --target webgit; } >"$W/build.log" 2>&1; then
		tail -n 40 "$W/build.log" >&2
		echo "build failed (log: $W/build.log)" >&2
		exit 1
	fi
	WEBGIT=$W/build/webgit
fi
[ -x "$WEBGIT" ] || { echo "no webgit at $WEBGIT" >&2; exit 1; }

# ---- the repository ----------------------------------------------------------
if [ ! -f "$W/repos/$REPO.ok" ]; then
	echo "making $W/repos/$REPO.git (about a minute) ..." >&2
	rm -rf "$W/repos/$REPO.git"
	GIT=$GIT "$ROOT/tests/server/make-repos.sh" "--$REPO" "$W/repos" >"$W/make-repos.log" 2>&1 ||
		{ tail -n 20 "$W/make-repos.log" >&2; exit 1; }
	touch "$W/repos/$REPO.ok"
fi

# ---- the server ----------------------------------------------------------------
STATE=$W/server
LOG=$W/server.log
RUNDIR=$W/runs
rm -rf "$RUNDIR"
mkdir -p "$RUNDIR"

# shellcheck source=scripts/bench-server.sh
. "$ROOT/scripts/bench-server.sh"
bench_server_start "$STATE" "$W/repos" "$LOG"
URL=$URL/git/$REPO.git
echo "server pid $SERVER_PID at $URL" >&2

# ---- measuring one clone ---------------------------------------------------------

# treepeak OUT CMD...: run CMD; every 50 ms sum the VmRSS of all its
# descendants (found by scanning the ppid of every /proc/N/stat; this kernel
# may lack /proc/N/task/N/children) and keep the largest sum, and the largest
# VmHWM of any of them. Writes "SUM_KB HWM_KB PROCS_SEEN" to OUT; exits with
# CMD's status.
TREEPEAK='
import os, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
p = subprocess.Popen(cmd)
root, peak_sum, peak_hwm, seen = p.pid, 0, 0, set()
def kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
while True:
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d))
    tree, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    seen.update(tree)
    peak_sum = max(peak_sum, sum(kb(pid, "VmRSS:") for pid in tree))
    peak_hwm = max([peak_hwm] + [kb(pid, "VmHWM:") for pid in tree])
    if p.poll() is not None:
        break
    time.sleep(0.05)
with open(out, "w") as f:
    print(peak_sum, peak_hwm, len(seen), file=f)
sys.exit(p.returncode)
'

# clone_cmd TOOL MODE DIR: the clone command line, one word per line.
clone_cmd() {
	local bin
	case $1 in git) bin=$GIT ;; webgit) bin=$WEBGIT ;; esac
	printf '%s\n' "$bin" clone -q
	if [ -n "$PACK_THREADS" ]; then printf '%s\n' -c "pack.threads=$PACK_THREADS"; fi
	case $2 in
	bare) printf '%s\n' --bare "$URL" "$3" ;;
	depth1) printf '%s\n' --bare --depth 1 "$URL" "$3" ;;
	no-co) printf '%s\n' --no-checkout "$URL" "$3" ;;
	esac
}

FAILED=0
RESULTS=$W/results.tsv
printf 'mode\ttool\trun\twall_s\tcpu_s\tpeak_kb\ttree_kb\ttree_hwm_kb\tprocs\trequests\treq_bytes\tresp_bytes\tpack_bytes\tprotocol\n' >"$RESULTS"

# run_one TOOL MODE RUN: one measured clone, then its checks; appends a line
# to $RESULTS and removes the clone.
run_one() {
	local tool=$1 mode=$2 run=$3 dir="$RUNDIR/$2-$1-$3" gitdir n0 n1 cmd
	local wall cpu user sys peak tree hwm procs reqs reqb respb proto pack
	mapfile -t cmd < <(clone_cmd "$tool" "$mode" "$dir")
	n0=$(log_lines)
	if ! python3 -c "$TREEPEAK" "$RUNDIR/peak" "$TIME" -f '%e %M %U %S' -o "$RUNDIR/time" \
			"${cmd[@]}" >"$RUNDIR/$mode-$tool-$run.log" 2>&1; then
		echo "FAILED: ${cmd[*]}" >&2
		sed 's/^/  /' "$RUNDIR/$mode-$tool-$run.log" >&2
		exit 1
	fi
	n1=$(log_lines)
	read -r wall peak user sys < <(tail -n 1 "$RUNDIR/time")
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	read -r tree hwm procs <"$RUNDIR/peak"
	read -r reqs reqb respb proto < <(sed -n "$((n0 + 1)),${n1}p" "$LOG" |
		awk '{ n++; q += $4; r += $5; p = $7 } END { print n + 0, q + 0, r + 0, (p == "" ? "-" : p) }')
	pack=$(find "$dir" -path '*/objects/pack/*.pack' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')

	# Checks (not timed).
	gitdir=$dir
	[ "$mode" = no-co ] && gitdir=$dir/.git
	if ! "$GIT" --git-dir="$gitdir" fsck --connectivity-only >"$RUNDIR/fsck.log" 2>&1; then
		echo "CHECK FAILED: fsck of $mode $tool run $run:" >&2
		sed 's/^/  /' "$RUNDIR/fsck.log" >&2
		FAILED=1
	fi
	{
		"$GIT" --git-dir="$gitdir" for-each-ref --format='%(objectname) %(refname) %(symref)'
		echo "HEAD -> $("$GIT" --git-dir="$gitdir" symbolic-ref HEAD 2>/dev/null || echo detached)"
		if [ -f "$gitdir/shallow" ]; then sed 's/^/shallow /' "$gitdir/shallow" | sort; fi
	} >"$RUNDIR/refs-$mode-$tool-$run"
	if [ -f "$RUNDIR/refs-$mode-expected" ]; then
		if ! diff -u "$RUNDIR/refs-$mode-expected" "$RUNDIR/refs-$mode-$tool-$run" >"$RUNDIR/refs.diff"; then
			echo "CHECK FAILED: refs of $mode $tool run $run differ from git's:" >&2
			head -n 20 "$RUNDIR/refs.diff" | sed 's/^/  /' >&2
			FAILED=1
		fi
	elif [ "$tool" = git ]; then
		cp "$RUNDIR/refs-$mode-$tool-$run" "$RUNDIR/refs-$mode-expected"
	fi

	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$tool" "$run" \
		"$wall" "$cpu" "$peak" "$tree" "$hwm" "$procs" "$reqs" "$reqb" "$respb" "$pack" "$proto" >>"$RESULTS"
	printf '  %-7s %-6s run %s: %6ss %7.1f MiB peak, %3d requests\n' "$mode" "$tool" "$run" \
		"$wall" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')" "$reqs" >&2
	rm -rf "$dir"
}

if [ -z "${MODES:-}" ]; then
	MODES="bare depth1"
	if [ "$NONBARE" = 1 ]; then MODES="$MODES no-co"; fi
fi
for mode in $MODES; do
	case $mode in bare|depth1|no-co) ;; *) echo "unknown mode $mode" >&2; exit 2 ;; esac
done
for mode in $MODES; do
	for run in $(seq "$RUNS"); do
		# git first on odd runs, webgit first on even ones; git always makes
		# the reference refs on run 1.
		if [ $((run % 2)) = 1 ]; then
			run_one git "$mode" "$run"; run_one webgit "$mode" "$run"
		else
			run_one webgit "$mode" "$run"; run_one git "$mode" "$run"
		fi
	done
done
bench_server_stop

# ---- the table -----------------------------------------------------------------

# median MODE TOOL COLUMN: the median of a results.tsv column.
median() {
	awk -F'\t' -v m="$1" -v t="$2" -v c="$3" 'NR > 1 && $1 == m && $2 == t { print $c }' "$RESULTS" |
		sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# span MODE TOOL COLUMN: "min-max" of a column.
span() {
	awk -F'\t' -v m="$1" -v t="$2" -v c="$3" 'NR > 1 && $1 == m && $2 == t { print $c }' "$RESULTS" |
		sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }'
}

echo
SRC=$W/repos/$REPO.git
echo "clone of $REPO.git ($("$GIT" --git-dir="$SRC" rev-list --count --all) commits," \
	"$("$GIT" --git-dir="$SRC" for-each-ref | wc -l) refs) over smart HTTP on 127.0.0.1, median of $RUNS runs"
echo "server pack: $(find "$SRC/objects/pack" -name '*.pack' -printf '%s\n' |
	awk '{ s += $1 } END { printf "%.2f MB (%d bytes)", s / 1e6, s }')," \
	"$("$GIT" --git-dir="$SRC" count-objects -v | sed -n 's/^in-pack: //p') objects"
echo "pack.threads: ${PACK_THREADS:-unset (the default of each client)}"
echo "git:    $("$GIT" --version)"
echo "webgit: $WEBGIT"
echo
fmt='%-7s %-10s %7s %-11s %7s %9s %9s %8s %9s %9s  %s\n'
# shellcheck disable=SC2059
printf "$fmt" mode tool "wall s" "(min-max)" "cpu s" "peak MiB" "tree MiB" requests "MB moved" "pack MB" protocol
declare -A med
# ratio KEY: webgit's median over git's.
ratio() { awk -v a="${med[webgit,$1]}" -v b="${med[git,$1]}" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
for mode in $MODES; do
	med=()
	for tool in git webgit; do
		med[$tool,wall]=$(median "$mode" $tool 4)
		med[$tool,cpu]=$(median "$mode" $tool 5)
		med[$tool,peak]=$(median "$mode" $tool 6)
		med[$tool,tree]=$(median "$mode" $tool 7)
		med[$tool,reqs]=$(median "$mode" $tool 10)
		med[$tool,bytes]=$(awk -F'\t' -v m="$mode" -v t=$tool 'NR > 1 && $1 == m && $2 == t { print $11 + $12 }' "$RESULTS" |
			sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
		med[$tool,pack]=$(median "$mode" $tool 13)
		proto=$(awk -F'\t' -v m="$mode" -v t=$tool 'NR > 1 && $1 == m && $2 == t { print $14 }' "$RESULTS" | sort -u | paste -sd,)
		# shellcheck disable=SC2059
		printf "$fmt" "$mode" "$tool" "${med[$tool,wall]}" "($(span "$mode" $tool 4))" "${med[$tool,cpu]}" \
			"$(awk -v k="${med[$tool,peak]}" 'BEGIN { printf "%.1f", k / 1024 }')" \
			"$(awk -v k="${med[$tool,tree]}" 'BEGIN { printf "%.1f", k / 1024 }')" \
			"${med[$tool,reqs]}" \
			"$(awk -v b="${med[$tool,bytes]}" 'BEGIN { printf "%.2f", b / 1e6 }')" \
			"$(awk -v b="${med[$tool,pack]}" 'BEGIN { printf "%.2f", b / 1e6 }')" "$proto"
	done
	# shellcheck disable=SC2059
	printf "$fmt" "$mode" webgit/git "$(ratio wall)" "" "$(ratio cpu)" "$(ratio peak)" "$(ratio tree)" \
		"$(ratio reqs)" "$(ratio bytes)" "$(ratio pack)" ""
done
echo
echo "wall/cpu/peak (%M, max single process incl. children)/tree (sampled sum over the"
echo "process tree) are medians; MB moved = HTTP body bytes both ways (10^6 B)."
echo "raw figures: $RESULTS"
if [ "$FAILED" = 1 ]; then
	echo "SOME CHECKS FAILED (see above)" >&2
	exit 1
fi
echo "checks: fsck --connectivity-only and refs (for-each-ref, HEAD, shallow) match git's in every run"
