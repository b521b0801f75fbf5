#!/usr/bin/env bash
# t35-last-modified: webgit last-modified against git 2.53's, byte for
# byte (git prints a commit's paths in its own hash table's order, which
# webgit reproduces), on the code-like histories of t31 (renames, mode
# and type changes, symlinks, deletions, names that need quoting, a
# clean merge at the tip): the top level, -r, -r -t, paths (a directory,
# a file, a glob), older commits and the merge's second parent; then on
# a history of several branches merged back and forth, where a path's
# last change is on a side branch; and a shallow clone, whose boundary
# answers for what came before it. Both object formats.

. "$(dirname "$0")/lib.sh"
require_webgit
GEN="$(cd "$(dirname "$0")" && pwd)/gen-code-history.py"

W=$WEBGIT
T=$PWD/tmp-t35 && rm -rf "$T" && mkdir -p "$T"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com

same() {
	check_same "$FMT: last-modified $*" "\"\$GIT\" last-modified $*" "\"\$W\" last-modified $*"
}

for FMT in sha1 sha256; do
	R=$T/$FMT
	"$GIT" init -q --object-format=$FMT "$R" || exit 1
	check "$FMT: generate the history" python3 "$GEN" "$GIT" "$R" $([ $FMT = sha1 ] && echo 31 || echo 62) 30
	cd "$R" || exit 1
	"$GIT" commit -qam "the staged and unstaged edits" || exit 1
	same
	same -r
	same -r -t
	same -t
	for d in $("$GIT" ls-tree -d --name-only HEAD); do
		same -- "$d"
		same -r -- "$d"
	done
	f=$("$GIT" ls-files | sed -n 3p)
	same -r -- "$f"
	same -r -- "'*.c'"
	for k in 1 4 9 17; do
		same -r "HEAD~$k"
	done
	same -r -t "HEAD~1^2"

	# branches merged back and forth: files last changed on a side
	"$GIT" checkout -q -b side1 HEAD~6 && echo s1 >side1.txt && "$GIT" add side1.txt &&
		"$GIT" commit -qm s1 || exit 1
	"$GIT" checkout -q -b side2 HEAD~2 && echo s2 >side2.txt && "$GIT" add side2.txt &&
		"$GIT" commit -qm s2 && "$GIT" merge -q --no-edit side1 || exit 1
	"$GIT" checkout -q - && "$GIT" merge -q --no-edit side2 && echo s1b >>side1.txt &&
		"$GIT" commit -qam s1b || exit 1
	"$GIT" checkout -q master 2>/dev/null || "$GIT" checkout -q main 2>/dev/null ||
		"$GIT" checkout -q "$("$GIT" for-each-ref --format='%(refname:short)' refs/heads | grep -v side | head -1)"
	"$GIT" merge -q --no-edit side1 || exit 1
	same
	same -r -t
	same -r side2

	# a shallow clone: the boundary commit answers for the rest
	S=$T/$FMT-shallow
	check "$FMT: shallow clone" "$GIT" clone -q --depth 5 "file://$R" "$S"
	cd "$S" || exit 1
	same -r
	same -r -t
	cd "$T" || exit 1
done

cd "$T/sha1" || exit 1
FMT=errors
check_fail "a bad revision is refused" "$W" last-modified no-such-rev
check_fail "two revisions are refused" "$W" last-modified HEAD HEAD~1
