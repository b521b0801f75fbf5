# tests/interop/lib.sh — assertions for the interop tests (webgit vs. real git).
#
# CONTRACT
#
# A test is a bash script tests/interop/tNNNN-name.sh that starts with
#
#     #!/usr/bin/env bash
#     . "$(dirname "$0")/lib.sh"
#
# and then makes assertions with the helpers below. tests/interop/run.sh runs
# every t*.sh with bash, each in a fresh empty temporary directory that is the
# working directory, and with this environment:
#
#     GIT       the reference git (.cache/git-ref/bin/git); its directory is
#               also first on PATH, so a plain `git` is the reference too
#     WEBGIT    the webgit binary under test (the ASan build by default); it may
#               not exist yet: call require_webgit to skip the script then
#     WG_SRC    the repository root
#     HOME      a private directory whose .gitconfig sets user.name "A U Thor",
#               user.email author@example.com, init.defaultBranch main
#     GIT_CONFIG_NOSYSTEM=1, XDG_CONFIG_HOME=$HOME/.config, TZ=UTC, LC_ALL=C,
#               TMPDIR (private), GIT_CEILING_DIRECTORIES (the sandboxes'
#               parent, so no repository above them is ever found)
#     GIT_AUTHOR_DATE / GIT_COMMITTER_DATE fixed ("1700000000 +0000"), so the
#               same commands give the same object ids every run
#     ASAN_OPTIONS / UBSAN_OPTIONS make sanitizer reports fatal (unless set);
#               LeakSanitizer is on only in a script with the line
#               "# interop: leak-check" (it costs ~40 ms per process)
#
# Running a script directly (bash tests/interop/t0001-x.sh) re-executes it
# through run.sh, so it always gets that environment.
#
# HELPERS (each one is one assertion, counted as passed or failed; a failure
# never stops the script, so one run reports every broken assertion)
#
#   check DESC CMD [ARGS...]        passes if CMD exits 0
#   check_fail DESC CMD [ARGS...]   passes if CMD exits non-zero, but not
#                                   by crashing (see below)
#   check_same DESC "CMD1" "CMD2"   passes if both shell command strings exit
#                                   0 and print the same stdout (a diff is shown
#                                   otherwise). The strings are eval'ed, so
#                                   quote for the shell: "\"\$GIT\" cat-file -p HEAD"
#                                   or more simply '"$GIT" cat-file -p HEAD'
#   check_output DESC EXPECTED CMD [ARGS...]
#                                   passes if CMD exits 0 and its stdout equals
#                                   EXPECTED (one trailing newline ignored, as
#                                   with $(...))
#   skip DESC [REASON]              records a skipped assertion
#   skip_all REASON                 skips the rest of the script (exits 0)
#   require_webgit                  skip_all unless $WEBGIT is executable
#   note TEXT                       prints a comment line into the log
#
# CMD runs in a subshell (a shell function is fine; a `cd` or variable set in
# it does not leak out) with `set -o pipefail`: a pipeline in it (in a
# check_same string or a function) fails when any command of the pipeline
# fails, not only the last one, so `"$WEBGIT" ... | sort` cannot pass on
# webgit's failure. (A `sh -c` or `bash -c` starts a new shell without it:
# write `bash -o pipefail -c` there.) Its stdout and stderr go to the files
# named by $LAST_OUT and $LAST_ERR, which stay readable until the next
# assertion.
#
# Never hide a command's status from an assertion: no `|| true`, no
# `$(cmd)` whose status is dropped, no `grep -v ... || true` to accept an
# empty result (test grep's status instead: 1 is "no line", 2 an error).
#
# A CRASH always fails an assertion, whatever the helper: an exit status of
# 129 or more (death by a signal: bash reports 128+N), 124 (timeout), 125,
# 126 or 127 ("cannot execute", "not found"), or a sanitizer report on stderr
# ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", ...).
# check_fail therefore demands a clean, deliberate error exit: 1..123, or
# exactly 128, which is git's own status for die() ("fatal: ...") and so a
# legitimate status for webgit too. (run.sh makes ASan/UBSan exit with 199/198.)
#
# Write plain commands, not `set -e`: the helpers already count failures.
# Set-up steps that must work can be assertions too (check "make repo" ...).
# The script's result is its assertion counts; exiting with a non-zero
# status on its own (or a bash error) counts as one more failure.
#
# OUTPUT is TAP-like: "ok N - DESC", "not ok N - DESC" followed by "#" lines
# with the command, status, stderr tail or diff; "ok N - DESC # SKIP reason".
# At exit the counts go to $WG_INTEROP_RESULT (a file run.sh reads) as
# "PASSED FAILED SKIPPED", and the script exits 1 if anything failed.

if [ -z "${WG_INTEROP_RESULT:-}" ]; then
	# Not started by run.sh: let it set up the sandbox and run us.
	exec bash "$(dirname "${BASH_SOURCE[0]}")/run.sh" "$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
fi

wg__passed=0
wg__failed=0
wg__skipped=0
wg__n=0
wg__scratch=$(mktemp -d "${TMPDIR:-/tmp}/wg-lib.XXXXXX")
LAST_OUT="$wg__scratch/out"
LAST_ERR="$wg__scratch/err"

# Sanitizer reports and crash markers that fail any assertion.
wg__crash_re='ERROR: AddressSanitizer|ERROR: LeakSanitizer|AddressSanitizer:DEADLYSIGNAL|runtime error:|SUMMARY: UndefinedBehaviorSanitizer|ERROR: MemorySanitizer'

wg__ok() {
	wg__n=$((wg__n + 1)); wg__passed=$((wg__passed + 1))
	printf 'ok %d - %s\n' "$wg__n" "$1"
}

wg__not_ok() {
	wg__n=$((wg__n + 1)); wg__failed=$((wg__failed + 1))
	printf 'not ok %d - %s\n' "$wg__n" "$1"
}

# Print diagnostic lines, each prefixed with "#   ".
wg__diag() { sed 's/^/#   /'; }

# wg__show_run CMDTEXT STATUS ERRFILE: explain a failed command.
wg__show_run() {
	printf '#   command: %s\n#   exit status: %s\n' "$1" "$2"
	if [ -s "$3" ]; then
		echo '#   stderr (last 20 lines):'
		tail -n 20 "$3" | wg__diag
	fi
}

# wg__crashed STATUS ERRFILE: true if the command crashed.
wg__crashed() {
	[ "$1" -ge 124 ] && [ "$1" -ne 128 ] && return 0
	# An empty stderr (most commands') holds no report: no grep process
	# then. Every assertion asks this, and a process costs ~5-10 ms here.
	[ -s "$2" ] && grep -qE "$wg__crash_re" "$2" 2>/dev/null
}

# wg__same_bytes F1 F2: the two files hold the same bytes (two empty files
# without starting cmp).
wg__same_bytes() {
	{ [ ! -s "$1" ] && [ ! -s "$2" ]; } || cmp -s "$1" "$2"
}

# wg__run OUT ERR CMD...: run CMD in a subshell with pipefail, sets
# wg__status.
wg__run() {
	local out=$1 err=$2
	shift 2
	wg__status=0
	(set -o pipefail; "$@") >"$out" 2>"$err" </dev/null || wg__status=$?
}

wg__cmdtext() { local IFS=' '; printf '%s' "$*"; }

check() {
	local desc=$1
	shift
	wg__run "$LAST_OUT" "$LAST_ERR" "$@"
	if [ "$wg__status" -eq 0 ] && ! wg__crashed 0 "$LAST_ERR"; then
		wg__ok "$desc"
	else
		wg__not_ok "$desc"
		wg__show_run "$(wg__cmdtext "$@")" "$wg__status" "$LAST_ERR"
	fi
}

check_fail() {
	local desc=$1
	shift
	wg__run "$LAST_OUT" "$LAST_ERR" "$@"
	if [ "$wg__status" -eq 0 ]; then
		wg__not_ok "$desc"
		wg__show_run "$(wg__cmdtext "$@")" "0 (expected a failure)" "$LAST_ERR"
	elif wg__crashed "$wg__status" "$LAST_ERR"; then
		wg__not_ok "$desc"
		wg__show_run "$(wg__cmdtext "$@")" "$wg__status (a crash, not a clean error)" "$LAST_ERR"
	else
		wg__ok "$desc"
	fi
}

check_output() {
	local desc=$1 expected=$2 actual
	shift 2
	wg__run "$LAST_OUT" "$LAST_ERR" "$@"
	actual=$(<"$LAST_OUT")
	if [ "$wg__status" -eq 0 ] && ! wg__crashed 0 "$LAST_ERR" && [ "$actual" = "$expected" ]; then
		wg__ok "$desc"
	else
		wg__not_ok "$desc"
		wg__show_run "$(wg__cmdtext "$@")" "$wg__status" "$LAST_ERR"
		echo '#   stdout differs (--- expected, +++ actual):'
		diff -u <(printf '%s\n' "$expected") <(printf '%s\n' "$actual") | sed -n '3,42p' | wg__diag
	fi
}

# same_args ARGS...: "$GIT" ARGS and "$W" ARGS print the same bytes and
# exit 0 (check_same with each argument quoted), described with $FMT.
same_args() {
	check_same "$FMT: $(printf '%s ' "$@")" "\"\$GIT\" $(printf '%q ' "$@")" "\"\$W\" $(printf '%q ' "$@")"
}

# same_rc ARGS...: for commands that may fail, the same exit code and
# output, stderr too ("git " in git's messages read as "webgit "), both
# run in $R; described with $FMT.
same_rc() {
	local desc="$FMT: $(printf '%s ' "$@")"
	local g w
	g=$(cd "$R" && "$GIT" "$@" 2>&1; echo "rc=$?")
	w=$(cd "$R" && "$W" "$@" 2>&1; echo "rc=$?")
	g=${g//git /webgit }
	if [ "$g" = "$w" ]; then
		wg__ok "$desc"
	else
		wg__not_ok "$desc"
		diff -u <(printf '%s\n' "$g") <(printf '%s\n' "$w") | sed -n '3,20p' | wg__diag
	fi
}

check_same() {
	local desc=$1 cmd1=$2 cmd2=$3 s1 s2
	local out2="$wg__scratch/out2" err2="$wg__scratch/err2"
	wg__run "$out2" "$err2" eval "$cmd1"
	s1=$wg__status
	wg__run "$LAST_OUT" "$LAST_ERR" eval "$cmd2"
	s2=$wg__status
	if [ "$s1" -eq 0 ] && [ "$s2" -eq 0 ] && ! wg__crashed 0 "$err2" &&
		! wg__crashed 0 "$LAST_ERR" && wg__same_bytes "$out2" "$LAST_OUT"; then
		wg__ok "$desc"
		return
	fi
	wg__not_ok "$desc"
	if [ "$s1" -ne 0 ] || wg__crashed "$s1" "$err2"; then
		wg__show_run "$cmd1" "$s1" "$err2"
	fi
	if [ "$s2" -ne 0 ] || wg__crashed "$s2" "$LAST_ERR"; then
		wg__show_run "$cmd2" "$s2" "$LAST_ERR"
	fi
	if ! wg__same_bytes "$out2" "$LAST_OUT"; then
		printf '#   stdout differs (--- %s, +++ %s):\n' "$cmd1" "$cmd2"
		diff -u "$out2" "$LAST_OUT" | sed -n '3,42p' | wg__diag
	fi
}

skip() {
	wg__n=$((wg__n + 1)); wg__skipped=$((wg__skipped + 1))
	printf 'ok %d - %s # SKIP %s\n' "$wg__n" "$1" "${2:-}"
}

skip_all() {
	printf '1..0 # SKIP %s\n' "$1"
	wg__skip_all=1
	exit 0
}

require_webgit() {
	[ -n "${WEBGIT:-}" ] && [ -x "$WEBGIT" ] || skip_all "webgit binary not built (${WEBGIT:-WEBGIT unset})"
}

note() { printf '# %s\n' "$*"; }

wg__finish() {
	local status=$?
	rm -rf "$wg__scratch"
	if [ "$status" -ne 0 ]; then
		# The script itself died or exited non-zero: one more failure.
		wg__not_ok "script ran to its end (it exited with status $status)"
	fi
	printf '%d %d %d %s\n' "$wg__passed" "$wg__failed" "$wg__skipped" \
		"${wg__skip_all:+skip_all}" >"$WG_INTEROP_RESULT"
	printf '# %d passed, %d failed, %d skipped\n' "$wg__passed" "$wg__failed" "$wg__skipped"
	[ "$wg__failed" -eq 0 ] || exit 1
	exit 0
}
trap wg__finish EXIT

# on_exit CMD: run CMD (a function that keeps $? as its status) when the
# script exits, before what was set to run then (lib.sh's count last); and
# make TERM and INT an exit, so that servers a script started are stopped
# by PID whatever ends it.
on_exit() {
	local prev
	prev=$(trap -p EXIT)
	prev=${prev#trap -- \'}
	prev=${prev%\' EXIT}
	# shellcheck disable=SC2064 # the handlers are expanded now, on purpose
	trap "$1; $prev" EXIT
	trap 'exit 143' TERM INT
}

# --- twin repositories ---------------------------------------------------------------
# For scripts that drive a repository of git's ($G) and one of webgit's
# ($V, webgit as $W) with the same commands (check label prefix $C, scratch
# files in $T) and compare them with their own `state DIR` function.

# wg__check_files DESC F1 F2: one assertion, the two files (outputs saved
# by the caller) hold the same bytes; check_same without its two
# processes that would only print them.
wg__check_files() {
	if wg__same_bytes "$2" "$3"; then
		wg__ok "$1"
		return
	fi
	wg__not_ok "$1"
	printf '#   differs (--- %s, +++ %s):\n' "$2" "$3"
	diff -u "$2" "$3" | sed -n '3,42p' | wg__diag
}

# both DESC ARGS...: git ARGS in $G, webgit ARGS in $V (in their
# subdirectory $IN when set); the same stdout and exit code, the same
# stderr (the repositories' own paths read as REPO; not compared when
# $ERR_DIFFERS is set), the same state, and git fsck --strict passes on
# webgit's repository.
both() {
	local desc=$1
	shift
	(cd "$G/${IN:-}" && "$GIT" "$@" >"$T/g.out" 2>"$T/g.err"; echo "exit $?" >>"$T/g.out")
	(cd "$V/${IN:-}" && "$W" "$@" >"$T/w.out" 2>"$T/w.err"; echo "exit $?" >>"$T/w.out")
	wg__check_files "$C $desc: stdout and exit code" "$T/g.out" "$T/w.out"
	if [ -z "${ERR_DIFFERS:-}" ]; then
		# (the repositories' paths replaced only where there is a stderr)
		if [ -s "$T/g.err" ] || [ -s "$T/w.err" ]; then
			sed "s,$G,REPO,g" "$T/g.err" >"$T/g.err.r"
			sed "s,$V,REPO,g" "$T/w.err" >"$T/w.err.r"
		else
			: >"$T/g.err.r"
			: >"$T/w.err.r"
		fi
		wg__check_files "$C $desc: stderr" "$T/g.err.r" "$T/w.err.r"
	fi
	check_same "$C $desc: state" "state '$G'" "state '$V'"
	check "$C $desc: git fsck --strict" "$GIT" -C "$V" fsck --strict --no-dangling --no-progress
}

# tree_listing DIR [PATH...]: the working tree DIR as a test compares it,
# sorted by path, .git (and each PATH, e.g. ./sub/.git) left out: "p/" for
# a directory, "p -> target" for a symbolic link, "p <mode>" for a file,
# then "<md5>  p" for every file. A fixed handful of processes whatever the
# number of files: the twin-repository scripts list both trees after every
# step, and a few processes per file made that most of their time.
tree_listing() (
	cd "$1" || exit 1
	shift
	local prune=(-path ./.git)
	for p in "$@"; do prune+=(-o -path "$p"); done
	find . \( "${prune[@]}" \) -prune -o \( -type d -printf '%p/\n' \) \
		-o \( -type l -printf '%p -> %l\n' \) -o \( -type f -printf '%p %m\n' \) |
		LC_ALL=C sort
	find . \( "${prune[@]}" \) -prune -o -type f -print0 | LC_ALL=C sort -z |
		xargs -0 -r md5sum
)

# log_files DIR: every file under DIR (a .git/logs), sorted, each after a
# "==> path <==" line; nothing when DIR does not exist.
log_files() {
	[ -d "$1" ] || return 0
	find "$1" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r tail -v -n +1
}

# on_both CMD: the same preparation in both (git's first)
on_both() {
	(cd "$G" && eval "$1") && (cd "$V" && eval "$1")
}
