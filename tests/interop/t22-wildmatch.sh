#!/usr/bin/env bash
# t22-wildmatch: webgit's pattern matcher (core/util/wildmatch.c) gives
# git's answer for every vector of git's own wildmatch test (t3070, read
# from the git source scripts/bootstrap.sh fetches, not kept here), in
# each of git's four modes: with pathname rules or without, with case or
# without.

. "$(dirname "$0")/lib.sh"
require_webgit

TOOL=$(dirname "$WEBGIT")/wildmatch_tool
[ -x "$TOOL" ] || skip_all "wildmatch_tool not built (tests/tools/wildmatch_tool.c)"
VECTORS=${WG_SRC:-}/.cache/src/git/t/t3070-wildmatch.sh
[ -f "$VECTORS" ] || skip_all "no git source at $VECTORS (scripts/bootstrap.sh fetches it)"

modes=(wildmatch iwildmatch pathmatch ipathmatch)
: >input
: >expected
n=0
# git's lines: match <4 answers> [<4 answers for git ls-files>] <text> <pattern>
match() {
	local text pattern i
	if [ $# = 6 ]; then text=$5 pattern=$6; else text=$9 pattern=${10}; fi
	case $text$pattern in *$'\t'*|*$'\n'*) return ;; esac
	n=$((n + 1))
	for i in 0 1 2 3; do
		printf '%s\t%s\t%s\n' "${modes[$i]}" "$text" "$pattern" >>input
		printf '%s\t%s\t%s\t%s\n' "${modes[$i]}" "${@:$((i + 1)):1}" "$text" "$pattern" >>expected
	done
}
# (a vector may go on over a backslash-newline)
sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$VECTORS" | grep '^match ' >vectors.sh
. ./vectors.sh
check "git's t3070 has its vectors ($n read)" test "$n" -ge 150

"$TOOL" <input >got
paste got expected | awk -F'\t' '{ print $2 "\t" $1 "\t" $3 "\t" $4 "\t" $5 }' >result
for m in "${modes[@]}"; do
	# mode, got, expected, text, pattern
	awk -F'\t' -v m="$m" '$1 == m && $2 != $3 {
		printf "# %s: text %s, pattern %s: got %s, git says %s\n", m, $4, $5, $2, $3 }' result >"wrong-$m"
	check "$m: every vector as git answers it" test ! -s "wrong-$m"
	if [ -s "wrong-$m" ]; then head -20 "wrong-$m"; fi
done
