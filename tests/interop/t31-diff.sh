#!/usr/bin/env bash
# t31-diff: webgit diff, diff-tree and show against git's, byte for byte,
# on repositories whose history a seeded generator writes like code is
# written: C-like files with functions, nested blocks and blank lines,
# edited by inserted and deleted blocks, moved blocks, changed lines,
# blank-line-heavy insertions that the indent heuristic places, files
# that lose or gain their final newline, binary files (NUL bytes), mode
# changes, symlinks, renames with and without edits, deletions, new files
# and names that need quoting. For every commit: show (patch, --stat, -p
# --stat, --numstat, --shortstat, --name-only, --name-status, --raw),
# diff-tree (raw with and without -r, -p, -p -M, --root on the first),
# and diff between commits with -U0, -U1, -U5, --inter-hunk-context and
# paths; show of a clean merge (its header); then diff of the working
# tree and of the index (--cached) after unstaged and staged edits. Both
# object formats.

. "$(dirname "$0")/lib.sh"
require_webgit
GEN="$(cd "$(dirname "$0")" && pwd)/gen-code-history.py"   # shared with t32

W=$WEBGIT
T=$PWD/tmp-t31 && rm -rf "$T" && mkdir -p "$T"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com


NCOMMITS=${WG_T31_COMMITS:-30}
for FMT in sha1 sha256; do
	R=$T/$FMT
	"$GIT" init -q --object-format=$FMT "$R"
	export GIT_COMMITTER_DATE="1690000000 +0000" GIT_AUTHOR_DATE="1690000000 +0000"
	check "$FMT: generate the history" python3 "$GEN" "$GIT" "$R" $([ $FMT = sha1 ] && echo 31 || echo 62) "$NCOMMITS"
	cd "$R" || exit 1
	mapfile -t COMMITS < <("$GIT" rev-list --reverse --no-merges HEAD)
	# same CMD...: git and webgit print the same bytes and exit 0
	same() {
		check_same "$FMT: $*" "\"\$GIT\" $*" "\"\$W\" $*"
	}
	ROOT=${COMMITS[0]}
	same diff-tree --root "$ROOT"
	same diff-tree --root -p "$ROOT"
	same diff-tree "$ROOT"
	same show --stat "$ROOT"
	same show "$ROOT"
	# the merge: its header (a clean merge has no combined diff)
	same show HEAD
	same show -s HEAD
	same diff-tree HEAD
	for c in "${COMMITS[@]:1}"; do
		same show "$c"
		same show --stat "$c"
		same show --stat -p "$c"
		same show --numstat "$c"
		same show --shortstat "$c"
		same show --name-only "$c"
		same show --name-status "$c"
		same show --raw "$c"
		same diff-tree "$c"
		same diff-tree -r "$c"
		same diff-tree -p "$c"
		same diff-tree -p -M "$c"
		same diff -U0 "$c~1" "$c"
		same diff -U1 "$c~1" "$c"
		same diff --inter-hunk-context=3 "$c~1" "$c"
	done
	for k in 3 7 12 20; do
		same diff "HEAD~$k" HEAD
		same diff --stat "HEAD~$k" HEAD
		same diff -U5 --numstat "HEAD~$k" HEAD
		same diff "HEAD~$k" HEAD -- src
		same diff --name-status --no-renames "HEAD~$k" HEAD
		same diff-tree -r -M50% "HEAD~$k" HEAD
	done
	# git's diff_setup_done: --name-only/--name-status/-s drop the other
	# formats, and a later format option undoes -s
	for fmts in "--name-status -p" "-p --name-status" "--name-only --stat --summary" \
		"--raw --name-only" "-s -p" "-s --stat" "-p -s"; do
		# shellcheck disable=SC2086
		same show $fmts HEAD~1
		# shellcheck disable=SC2086
		same log -3 --format=%H $fmts
		# shellcheck disable=SC2086
		same diff-tree -r $fmts HEAD~1
		# shellcheck disable=SC2086
		same diff $fmts HEAD~4 HEAD
	done
	for fmts in "--name-only --name-status" "-s --name-status"; do
		# shellcheck disable=SC2086
		check_fail "$FMT: $fmts cannot be used together" "$W" show $fmts HEAD
		check_same "$FMT: $fmts: git's message" \
			"\"\$GIT\" show $fmts HEAD 2>&1 >/dev/null; echo \$?" "\"\$W\" show $fmts HEAD 2>&1 >/dev/null; echo \$?"
	done
	same diff
	same diff --stat
	same diff --numstat
	same diff --raw
	same diff --name-status
	same diff --cached
	same diff --cached --stat
	same diff --cached --raw
	same diff --cached HEAD~2
	same diff --cached -- src
	# the working tree against a commit (git diff <commit>)
	same diff HEAD
	same diff --stat HEAD
	same diff --raw HEAD
	same diff --numstat HEAD~3
	same diff HEAD~2 -- src
	# a working tree with every kind of change, made by git: staged and
	# unstaged edits of one file, intent-to-add, a staged rename edited
	# again, a new executable bit, a file become a link, a deleted file,
	# CRLF bytes that check-in converts back (text), a touched file
	W2=$T/$FMT-wt
	"$GIT" init -q --object-format=$FMT "$W2"
	(
		cd "$W2" || exit 1
		printf '*.txt text\n' >.gitattributes
		seq 1 40 >a.txt && seq 1 30 >b.txt && seq 1 25 >mv.txt && printf 'x\n' >run.sh
		printf 'one\ntwo\n' >crlf.txt && seq 1 5 >touched.txt && printf 'gone\n' >gone.txt
		printf 'link me\n' >lnk && "$GIT" add . && "$GIT" commit -qm base
		seq 2 41 >a.txt && "$GIT" add a.txt && seq 3 41 >a.txt
		"$GIT" mv mv.txt moved.txt && seq 1 26 >moved.txt
		chmod +x run.sh && rm lnk && ln -s a.txt lnk && rm gone.txt
		printf 'one\r\ntwo\r\n' >crlf.txt && touch -d '+1 hour' touched.txt
		seq 1 3 >ita.txt && "$GIT" add -N ita.txt && printf 'u\n' >untracked.txt
	)
	cd "$W2" || exit 1
	for args in "" "--stat" "--raw" "--numstat" "--name-status" "--cached" "--cached --raw" \
		"HEAD" "HEAD --raw" "HEAD --stat" "HEAD --name-status" "--no-renames HEAD" "HEAD -- a.txt lnk"; do
		# shellcheck disable=SC2086
		same diff $args
	done
	cd "$R" || exit 1
	if [ -d src ]; then
		check_same "$FMT: diff in a subdirectory, paths relative to it" \
			'cd src && "$GIT" diff -- . ../lib' 'cd src && "$W" diff -- . ../lib'
		check_same "$FMT: diff --stat in a subdirectory" \
			'cd src && "$GIT" diff --stat HEAD~5 HEAD' 'cd src && "$W" diff --stat HEAD~5 HEAD'
	fi
	cd "$T" || exit 1
done
