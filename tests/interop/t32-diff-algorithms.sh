#!/usr/bin/env bash
# t32-diff-algorithms: webgit's --minimal, --patience, --histogram and
# --diff-algorithm, the diff.algorithm and diff.indentHeuristic config,
# --no-indent-heuristic and the whitespace options (-w, -b,
# --ignore-space-at-eol, --ignore-cr-at-eol, in patches and in stats)
# against git's, byte for byte, on histories a
# seeded generator writes: t31's code-like edits plus what the
# algorithms disagree on (swapped blocks, braces and blank lines that
# match everywhere, duplicated functions, long runs of a few distinct
# lines that send patience and histogram back to Myers, CRLF and
# whitespace-only changes, files that lose their final newline). For
# every commit, show --stat -p and --numstat with each algorithm and
# whitespace option; then
# diff between commits with the config variables set (and overridden on
# the command line), diff-tree (which ignores diff.algorithm, as git's
# plumbing does) and a bad algorithm name. Both object formats.

. "$(dirname "$0")/lib.sh"
require_webgit
GEN="$(cd "$(dirname "$0")" && pwd)/gen-code-history.py"   # shared with t31

W=$WEBGIT
T=$PWD/tmp-t32 && rm -rf "$T" && mkdir -p "$T"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com



NCOMMITS=${WG_T32_COMMITS:-14}
for FMT in sha1 sha256; do
	R=$T/$FMT
	"$GIT" init -q --object-format=$FMT "$R"
	export GIT_COMMITTER_DATE="1690000000 +0000" GIT_AUTHOR_DATE="1690000000 +0000"
	check "$FMT: generate the history" python3 "$GEN" "$GIT" "$R" $([ $FMT = sha1 ] && echo 32 || echo 64) "$NCOMMITS" tricky
	cd "$R" || exit 1
	mapfile -t COMMITS < <("$GIT" rev-list --reverse --no-merges HEAD)
	same() {
		check_same "$FMT: $*" "\"\$GIT\" $*" "\"\$W\" $*"
	}
	for c in "${COMMITS[@]:1}"; do
		for a in --minimal --patience --histogram; do
			same show --stat -p "$a" "$c"
		done
		same show --numstat --diff-algorithm=histogram "$c"
		same show --no-indent-heuristic --patience "$c"
		same diff-tree -p --diff-algorithm patience "$c"
		same show --stat -p -w "$c"
		same show --stat -p -b --histogram "$c"
		same show --numstat --ignore-space-at-eol "$c"
		same show -p --ignore-cr-at-eol --patience "$c"
	done
	for k in 4 11; do
		for a in myers default minimal patience histogram; do
			same diff --diff-algorithm=$a "HEAD~$k" HEAD
		done
		same diff -U0 --histogram "HEAD~$k" HEAD
		same diff --stat --patience "HEAD~$k" HEAD
		same diff -w --stat -p "HEAD~$k" HEAD
		same diff --ignore-space-change -U1 "HEAD~$k" HEAD
		same diff --ignore-all-space --ignore-cr-at-eol --numstat "HEAD~$k" HEAD
		same diff --ignore-space-at-eol --minimal "HEAD~$k" HEAD
		same diff-tree -p -r -w "HEAD~$k" HEAD
		"$GIT" config diff.algorithm histogram
		same diff "HEAD~$k" HEAD
		same diff --stat "HEAD~$k" HEAD
		same diff --minimal "HEAD~$k" HEAD
		same diff-tree -p "HEAD~$k" HEAD
		"$GIT" config diff.algorithm Patience
		same show --stat -p "HEAD~$((k - 1))"
		same diff --diff-algorithm=default "HEAD~$k" HEAD
		"$GIT" config --unset diff.algorithm
		"$GIT" config diff.indentHeuristic false
		same diff "HEAD~$k" HEAD
		same diff --indent-heuristic --histogram "HEAD~$k" HEAD
		same diff-tree -p "HEAD~$k" HEAD
		"$GIT" config --unset diff.indentHeuristic
	done
	# a commit whose only change, in one file, is whitespace next to a
	# real change in another: the stats leave the first out under -w
	F=$("$GIT" ls-files '*.c' | head -1)
	G=$("$GIT" ls-files '*.h' | head -1)
	sed -i 's/;$/;  /; s/^\t/    /' "$F"
	echo "/* more */" >>"$G"
	"$GIT" commit -q -a -m "whitespace only in $F"
	for opt in -w -b --ignore-space-at-eol; do
		same show --stat -p $opt HEAD
		same show --numstat $opt HEAD
		same show --shortstat $opt HEAD
	done
	same show --stat HEAD
	check_fail "$FMT: --diff-algorithm=nope is refused" "$W" diff --diff-algorithm=nope HEAD~1 HEAD
	cd "$T" || exit 1
done
