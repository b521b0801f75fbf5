#!/usr/bin/env bash
# Run the interop tests: every tests/interop/t*.sh (or the scripts given),
# each with bash in its own fresh sandbox, and count their assertions.
#
#   tests/interop/run.sh [-v] [-j N] [--git PATH] [--webgit PATH] [SCRIPT...]
#
#   -v              print every script's full log, not only its failures
#   -j N            run N scripts at a time (default: $WG_INTEROP_JOBS, else
#                   the number of cores); each has its own sandbox, HOME and
#                   servers on ports of their own, so they cannot meet
#   --git PATH      reference git  (default: $GIT, else .cache/git-ref/bin/git)
#   --webgit PATH   webgit binary  (default: $WEBGIT, else build/asan/webgit)
#   --work DIR      put the sandboxes in DIR (emptied first) instead of a new
#                   temporary directory; keep it outside any git repository
#
# The environment each script gets, and the helpers it uses, are described
# at the top of tests/interop/lib.sh. Every script runs under a time limit of
# $WG_INTEROP_TIMEOUT seconds (default 900: t20 takes 400 s of CPU and
# nearly 600 s of wall time when the machine is shared). Prints one line per script as it
# finishes (the slowest scripts start first so that the jobs end together),
# with the seconds it took (keep each well inside that limit) and the CPU
# seconds its processes used (when much less, the machine was busy), and
# finally "N passed, N failed" (plus ", N skipped" when some were); exits
# non-zero if anything failed. Sandboxes and logs are deleted when all pass
# and kept (their path is printed) when something fails.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GIT=${GIT:-$ROOT/.cache/git-ref/bin/git}
WEBGIT=${WEBGIT:-$ROOT/build/asan/webgit}
verbose=0
jobs=${WG_INTEROP_JOBS:-$(nproc 2>/dev/null || echo 1)}
work=
scripts=()

while [ $# -gt 0 ]; do
	case "$1" in
	-v) verbose=1 ;;
	-j) jobs=$2; shift ;;
	-j*) jobs=${1#-j} ;;
	--git) GIT=$2; shift ;;
	--webgit) WEBGIT=$2; shift ;;
	--work) work=$2; shift ;;
	-h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) scripts+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")") ;;
	esac
	shift
done
if [ ${#scripts[@]} -eq 0 ]; then
	for t in "$ROOT"/tests/interop/t*.sh; do
		[ -f "$t" ] && scripts+=("$t")
	done
fi

# Absolute paths: the scripts run in other directories.
case "$GIT" in /*) ;; *) GIT=$(command -v "$GIT" || echo "$GIT") ;; esac
case "$WEBGIT" in /*) ;; *) WEBGIT=$(pwd)/$WEBGIT ;; esac
if [ ! -x "$GIT" ]; then
	echo "run.sh: reference git not found at $GIT (run scripts/bootstrap.sh)" >&2
	exit 2
fi

if [ -n "$work" ]; then
	rm -rf "$work"
	mkdir -p "$work"
	base=$(cd "$work" && pwd)
else
	base=$(mktemp -d "${TMPDIR:-/tmp}/wg-interop.XXXXXX")
fi
total_pass=0 total_fail=0 total_skip=0
failed_scripts=()

# cpu_seconds FILE: the CPU seconds (user + system) of finished children in
# a saved `times` output (its second line: "0m1.250s 0m0.310s"). `times`
# itself must run in this shell, not in a $(...) subshell, whose children
# are not ours.
cpu_seconds() {
	awk 'NR == 2 {
		n = 0
		for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] }
		printf "%d\n", n + 0.5
	}' "$1"
}

# run_one SCRIPT: run one test script in a new sandbox under $base; leaves
# "passed failed skipped" in its sandbox's "counts" and prints its report
# (one line, then any failures) in one piece.
run_one() {
	local script=$1 name sandbox status=0 result p=0 f=0 s=0 all="" start secs cpu
	name=$(basename "$script" .sh)
	sandbox="$base/$name"
	mkdir -p "$sandbox/work" "$sandbox/home" "$sandbox/tmp"
	start=$(date +%s)
	times >"$sandbox/times0"
	# The test user's global config, written by the reference git itself.
	local gc="$sandbox/home/.gitconfig"
	"$GIT" config --file "$gc" user.name "A U Thor"
	"$GIT" config --file "$gc" user.email "author@example.com"
	"$GIT" config --file "$gc" init.defaultBranch main

	# LeakSanitizer stops the process at exit to scan its memory, about
	# 40 ms per webgit run, most of an ASan binary's start-up cost and a
	# quarter of the interop time: it is on only for the scripts marked
	# "# interop: leak-check" (those that drive the error paths, where
	# leaks hide; the unit tests check the core's leaks everywhere). (A
	# smaller ASan quarantine helps one long process, log -p, but costs
	# the many short ones: t9 took 126 s of CPU with 16 MB against 100 s.)
	local leaks=0
	grep -q '^# interop: leak-check$' "$script" && leaks=1

	# A clean environment: nothing from the caller's git set-up leaks in.
	(cd "$sandbox/work" && env -i \
		PATH="$(dirname "$GIT"):$PATH" \
		HOME="$sandbox/home" \
		XDG_CONFIG_HOME="$sandbox/home/.config" \
		TMPDIR="$sandbox/tmp" \
		TERM=dumb TZ=UTC LC_ALL=C LANG=C \
		GIT="$GIT" WEBGIT="$WEBGIT" WG_SRC="$ROOT" \
		GIT_CONFIG_NOSYSTEM=1 GIT_CEILING_DIRECTORIES="$base" \
		GIT_AUTHOR_DATE="1700000000 +0000" \
		GIT_COMMITTER_DATE="1700000000 +0000" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=$leaks:exitcode=199}" \
		UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=198}" \
		WG_INTEROP_RESULT="$sandbox/result" WG_WRITE_DOC="${WG_WRITE_DOC:-}" \
		WG_SAMPLE_REPOS_CACHE="${WG_SAMPLE_REPOS_CACHE:-}" \
		timeout -k 10 "${WG_INTEROP_TIMEOUT:-900}" bash "$script") \
		>"$sandbox/log" 2>&1 || status=$?
	secs=$(($(date +%s) - start))
	times >"$sandbox/times1"
	cpu=$(($(cpu_seconds "$sandbox/times1") - $(cpu_seconds "$sandbox/times0")))

	if [ -f "$sandbox/result" ]; then
		read -r p f s all <"$sandbox/result"
	fi
	if [ ! -f "$sandbox/result" ] || { [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		# Died before lib.sh could count (not sourced, syntax error, timeout).
		local why="exit status $status"
		[ "$status" -eq 124 ] && why="timed out after ${WG_INTEROP_TIMEOUT:-900} s"
		f=$((f + 1))
		echo "not ok - $name did not finish ($why)" >>"$sandbox/log"
	fi
	echo "$p $f $s" >"$sandbox/counts"

	{
		if [ "$f" -gt 0 ]; then
			printf 'FAIL %s: %d passed, %d failed (%d s, CPU %d s)\n' "$name" "$p" "$f" "$secs" "$cpu"
		elif [ -n "$all" ]; then
			printf 'SKIP %s: %s (%d s)\n' "$name" "$(sed -n 's/^1\.\.0 # SKIP //p' "$sandbox/log" | sed -n 1p)" "$secs"
		else
			printf 'ok   %s: %d passed%s (%d s, CPU %d s)\n' "$name" "$p" "$([ "$s" -gt 0 ] && echo ", $s skipped")" "$secs" "$cpu"
		fi
		if [ "$verbose" = 1 ]; then
			sed 's/^/    /' "$sandbox/log"
		elif [ "$f" -gt 0 ]; then
			# Each "not ok" line with its "#" diagnostics; other output (the
			# script's own) only when it did not finish.
			awk '/^not ok/ { show = 1; print; next }
			     /^ok / { show = 0; next }
			     show || !/^#/ { print }' "$sandbox/log" | sed -n '1,200s/^/    /p'
		fi
	} >"$sandbox/report"
	# Reports of scripts finishing together must not interleave.
	flock "$base/.print" cat "$sandbox/report"
}

# The slowest scripts first (by their seconds in a CI run on a 2-core
# machine, longest first; the ones not named take under 45 s), so that the
# last ones to start are short and the jobs finish close together. Keep it
# in that order when a script grows: t30, t29 and t31 started halfway
# through the list once and held the run up at the end.
SLOW="t20-crash-safety t30-branch-tag t3-bad-input t29-commit-reset
t14-hostile-server t31-diff t25-checkout t9-refs-files t18-fsck-transfer
t37-follow t28-add-rm-mv t33-blame t36-copies t34-log t7-pack-objects
t2-objects-write t13-clone-http t40-front-ends t12-refs-reftable t10-http-server
t1-objects-read t15-fetch-http t32-diff-algorithms t6-pack-adversarial
t5-pack-index t8-reftable-format t26-status t39-static-read t24-attr"
SLOW=$(echo $SLOW)
ordered=()
for n in $SLOW; do
	for t in "${scripts[@]}"; do [ "$(basename "$t" .sh)" = "$n" ] && ordered+=("$t"); done
done
for t in "${scripts[@]}"; do
	case " $SLOW " in *" $(basename "$t" .sh) "*) ;; *) ordered+=("$t") ;; esac
done

running=0
for t in "${ordered[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	run_one "$t" &
	running=$((running + 1))
done
wait || true

for t in "${ordered[@]}"; do
	name=$(basename "$t" .sh)
	p=0 f=1 s=0
	[ -f "$base/$name/counts" ] && read -r p f s <"$base/$name/counts"
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
	if [ "$f" -gt 0 ]; then failed_scripts+=("$name"); fi
done

summary="$total_pass passed, $total_fail failed"
[ "$total_skip" -gt 0 ] && summary="$summary, $total_skip skipped"
if [ "$total_fail" -gt 0 ]; then
	echo "failed: ${failed_scripts[*]}"
	echo "interop sandboxes and logs kept in $base"
	echo "$summary"
	exit 1
fi
rm -rf "$base"
echo "$summary"
