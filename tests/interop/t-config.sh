#!/usr/bin/env bash
# t-config: config files written by webgit read back exactly in git, and the
# other way round; the same edits by both give the same bytes; both read the
# same entries from the same file; a lock file keeps both out.
#
# webgit's side is the unit-test binary tests/unit/test_config run as a tiny
# `git config` (`test_config --driver CMD FILE [KEY [VALUE]]`, see the end of
# tests/unit/test_config.c). It is taken from $WEBGIT_TEST_CONFIG_BIN, else
# from next to $WEBGIT (both builds put their executables side by side); the
# script is skipped when it is not there.

# shellcheck source=tests/interop/lib.sh
. "$(dirname "$0")/lib.sh"

WEBGIT_TEST_CONFIG_BIN=${WEBGIT_TEST_CONFIG_BIN:-$(dirname "${WEBGIT:-.}")/test_config}
if [ ! -x "$WEBGIT_TEST_CONFIG_BIN" ]; then
	skip_all "no test_config binary at $WEBGIT_TEST_CONFIG_BIN"
fi

wg() { "$WEBGIT_TEST_CONFIG_BIN" --driver "$@"; }
q() { printf '%q' "$1"; }

# written_by_webgit KEY VALUE: webgit sets it, git reads back the very value.
written_by_webgit() {
	printf '[x]\n\ty = 1\n' >w.cfg
	wg set w.cfg "$1" "$2" || return 1
	printf '%s\0' "$2" >expect
	"$GIT" config --file w.cfg -z --get "$1" >got || return 1
	cmp -s expect got || { echo "git read $(q "$(cat got)")" >&2; return 1; }
}

# written_by_git KEY VALUE: git sets it in the same file; same bytes as
# webgit wrote, and webgit reads back the very value.
written_by_git() {
	printf '[x]\n\ty = 1\n' >g.cfg
	"$GIT" config --file g.cfg "$1" "$2" || return 1
	cmp -s w.cfg g.cfg || { echo "the files differ" >&2; diff <(od -c w.cfg) <(od -c g.cfg) >&2; return 1; }
	printf '%s\n' "$2" >expect
	wg get g.cfg "$1" >got || return 1
	cmp -s expect got || { echo "webgit read $(q "$(cat got)")" >&2; return 1; }
}

# Values that need quoting or escaping when written.
# shellcheck disable=SC1003  # backslashes inside single quotes are meant
values=(
	'plain' '' ' ' ' lead' 'trail ' '  both  ' 'in  side' 'a#b' '#' 'a;b' ';'
	'"' 'say "hi"' '\' 'c:\dir\' '\n' 'x = y' '[section]' '[a] k = v'
	$'\n' $'a\nb' $'trail\n' $'\t' $'a\tb' $'\t lead' $'trail \t' $'\r' $'a\rb'
	$'a\r\nb' $'\b' $'\x01\x7f' 'é' $'\xef\xbb\xbf' '"unbalanced' '# c' 'a "#" b'
)
keys=('a.k' 'Sec.Sub "Q" \ x.Key' 'remote.origin.url')

for key in "${keys[@]}"; do
	for v in "${values[@]}"; do
		check "webgit writes $key = $(q "$v"), git reads it back" written_by_webgit "$key" "$v"
		check "git writes $key = $(q "$v") the same, webgit reads it back" written_by_git "$key" "$v"
	done
done

# same_edit VERB KEY [VALUE]: the same command on git's copy (g.cfg) and on
# webgit's (w.cfg) succeeds or fails alike and leaves the same bytes. After
# a difference, webgit's copy restarts from git's so the next ones count.
same_edit() {
	local verb=$1 key=$2 grc=0 wrc=0
	local gargs=("--$verb" "$key")
	[ "$verb" = set ] && gargs=("$key")
	shift 2
	"$GIT" config --file g.cfg "${gargs[@]}" "$@" 2>/dev/null || grc=$?
	wg "$verb" w.cfg "$key" "$@" 2>wg.err || wrc=$?
	if [ $((grc == 0)) != $((wrc == 0)) ]; then
		echo "git exit $grc, webgit exit $wrc: $(cat wg.err)" >&2
		cp g.cfg w.cfg
		return 1
	fi
	if ! cmp -s g.cfg w.cfg; then
		diff <(od -c g.cfg) <(od -c w.cfg) >&2
		cp g.cfg w.cfg
		return 1
	fi
}

fixtures=(
	$'# header\n[core]\n  bare   =  false # c\n\tfilemode = true\n[remote "origin"]\n\turl = u\n\tfetch = one\n\tfetch = two\n'
	$'[a]\r\n\tk = 1\r\n\r\n[b] x = 2\n[a.B]\n\tk = 3\n[a "B"]\n\tk = 4\n; trailing comment\n'
	$'\xef\xbb\xbf[a]\n\tk = "quoted # value" ; comment\n\tl = one\\\n two\n[c]\n\tm\n'
	$'[a]\n\tk = 1'
	''
)
ops=(
	'set a.k v1' 'set core.bare true' 'set Core.NewKey x' 'set a.b.k y' 'set a.B.k z'
	'set new.sub.key w' 'add remote.origin.fetch three' 'add a.k 2'
	'replace-all remote.origin.fetch only' 'unset a.k' 'unset core.filemode'
	'unset remote.origin.url' 'unset-all remote.origin.fetch' 'unset-all a.k' 'unset c.m'
	'set remote.origin.fetch x' 'unset missing.key' 'set a.k'
)
for i in "${!fixtures[@]}"; do
	printf '%s' "${fixtures[$i]}" >start.cfg
	# shellcheck disable=SC2016  # check_same evaluates the strings
	check_same "fixture $i: the same entries" \
		'"$GIT" config --file start.cfg --list' 'wg list start.cfg'
	cp start.cfg g.cfg
	cp start.cfg w.cfg
	for op in "${ops[@]}"; do
		# shellcheck disable=SC2086  # split "verb key [value]" into words
		check "fixture $i: '$op' gives the same file" same_edit $op
	done
done

# A lock file keeps both out, and neither touches the file.
printf '[a]\n\tk = 1\n' >l.cfg
: >l.cfg.lock
locked_set() { wg set l.cfg a.k 2 2>lock.err; }
git_refuses() { ! "$GIT" config --file l.cfg a.k 3 2>/dev/null; }  # git exits 255 here
check_fail "webgit does not write through a held lock" locked_set
check "webgit's message names the lock file" grep -q "l.cfg.lock" lock.err
check "git does not either" git_refuses
check_output "the locked file is unchanged" $'[a]\n\tk = 1' cat l.cfg
rm -f l.cfg.lock
