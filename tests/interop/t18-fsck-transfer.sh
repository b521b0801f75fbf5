#!/usr/bin/env bash
# t18-fsck-transfer: every object a clone or fetch receives is checked
# before any ref moves, as git's transfer.fsckObjects does, on by default.
#
# The corpus (tests/server/make-fsck-corpus.sh, made by the reference git)
# has one repository per fsck finding that can arrive over the wire: tree
# entries (.git in every disguise, "..", "/", duplicates, order, modes,
# .gitmodules symlinks), .gitmodules and .gitattributes contents, broken
# commits and tags. Served over smart HTTP, in both object formats:
#
#   - `git -c transfer.fsckObjects=true clone` reports the case's message
#     id (the corpus is what it claims to be);
#   - `webgit clone -c transfer.fsckObjects=true` (git's own setting)
#     refuses exactly what git refuses, with the same message id, and
#     accepts what it accepts, with the same warning; one deliberate
#     difference: badFilemode, which git only notes and webgit refuses
#     (object/fsck.h);
#   - `webgit clone` with no configuration refuses every error-level id of
#     webgit's table and accepts the warning-level ones (zero-padded modes
#     and the like, which old public histories carry) with git's warning;
#     transfer.fsckObjects=false turns the check off;
#   - a refused clone leaves no directory; an accepted one holds exactly
#     the objects git's clone holds;
#   - a fetch that brings a refused object moves no ref and leaves no pack;
#   - a blob:none clone does not check the .gitmodules it did not receive,
#     as git does not.
#
# interop: leak-check

. "$(dirname "$0")/lib.sh"
require_webgit
. "$(dirname "$0")/http_lib.sh"

W=$WEBGIT
for fmt in sha1 sha256; do
	check "make the $fmt fsck corpus" "$WG_SRC/tests/server/make-fsck-corpus.sh" "corpus/$fmt" "$fmt"
done
start srv --root "$PWD/corpus"

# verdict DIR CMD...: run a clone into DIR (the last argument of CMD) and
# print "refuse:<msgId>" (the first id of an "error:"/"fatal:" line),
# "warn:<msgId>" (accepted, with the first id of a "warning: object" line)
# or "accept". Its stderr stays in DIR.err.
verdict() {
	local dir=$1 id
	shift
	if "$@" 2>"$dir.err"; then
		id=$(sed -n 's/^warning: object [0-9a-f]*: \([A-Za-z0-9]*\): .*/\1/p' "$dir.err" | head -n 1)
		if [ -n "$id" ]; then echo "warn:$id"; else echo accept; fi
	else
		id=$(sed -n 's/^\(error\|fatal\): \(object\|error in [a-z]*\) [0-9a-f]*: \([A-Za-z0-9]*\): .*/\3/p' \
			"$dir.err" | head -n 1)
		echo "refuse:${id:-none}"
	fi
}
objects() { "$GIT" -C "$1" rev-list --all --objects | sort; }

for fmt in sha1 sha256; do
	while read -r name id def; do
		u=$url/git/$fmt/$name.git
		s="$fmt/$name"
		rm -rf g-* w-*
		# The corpus: git flags the case's id (error or warning).
		gv=$(verdict g-strict "$GIT" -c transfer.fsckObjects=true clone -q --bare "$u" g-strict)
		if [ "$id" = ok ]; then
			check_output "$s: git accepts the control" accept echo "$gv"
		else
			check "$s: git reports $id" grep -q ": $id: " g-strict.err
		fi

		# git's own setting: the same verdict as git.
		want=$gv
		[ "$id" = badFilemode ] && want="refuse:badFilemode"   # see above
		check_output "$s: webgit -c transfer.fsckObjects=true: $want" "$want" \
			verdict w-strict "$W" clone -q -c transfer.fsckObjects=true --bare "$u" w-strict

		# webgit's default.
		case $def in
		refuse) want="refuse:$id" ;;
		warn) want="warn:$id" ;;
		*) want=accept ;;
		esac
		check_output "$s: webgit clone: $want" "$want" verdict w-default "$W" clone -q --bare "$u" w-default
		if [ "$def" = refuse ]; then
			check "$s: nothing left behind" test ! -e w-default
		else
			"$GIT" clone -q --bare "$u" g-plain
			check_same "$s: the objects git's clone has" "objects g-plain" "objects w-default"
		fi
	done <"corpus/$fmt/cases"

	# The opt-out.
	u=$url/git/$fmt/dotgit.git
	rm -rf w-off
	check "$fmt: transfer.fsckObjects=false takes what it is given" \
		"$W" clone -q -c transfer.fsckObjects=false --bare "$u" w-off
	check "$fmt: fetch.fsck.<id>=ignore overrides one id" \
		"$W" clone -q -c fetch.fsck.hasDotgit=ignore --bare "$u" w-ignore
	check_fail "$fmt: fetch.fsck.<id>=error refuses a warning" \
		"$W" clone -q -c fetch.fsck.zeroPaddedFilemode=error --bare \
		"$url/git/$fmt/zero-padded-filemode.git" w-err
	check "$fmt: ... and leaves nothing" test ! -e w-err

	# A partial clone does not fetch .gitmodules to check it (nor does git).
	u=$url/git/$fmt/gitmodules-url-option.git
	"$GIT" -C "corpus/$fmt/gitmodules-url-option.git" config uploadpack.allowFilter true
	rm -rf g-partial w-partial
	check "$fmt: git: a blob:none clone leaves the .gitmodules unchecked" \
		"$GIT" -c transfer.fsckObjects=true clone -q --bare --filter=blob:none "$u" g-partial
	check "$fmt: webgit: the same" "$W" clone -q --bare --filter=blob:none "$u" w-partial

	# A fetch that brings a refused object moves nothing.
	srv_repo=corpus/$fmt/fetch-target.git
	rm -rf "$srv_repo" w-fetch
	"$GIT" clone -q --bare "corpus/$fmt/control-plain.git" "$srv_repo"
	check "$fmt: clone the good repository" "$W" clone -q "$url/git/$fmt/fetch-target.git" w-fetch
	before_refs=$("$GIT" -C w-fetch for-each-ref)
	before_packs=$(ls w-fetch/.git/objects/pack | sort)
	check "$fmt: the server's main moves to a .git tree" \
		"$GIT" -C "$srv_repo" fetch -q "$PWD/corpus/$fmt/dotgit.git" "+main:main"
	check_fail "$fmt: webgit fetch refuses the .git tree" "$W" -C w-fetch fetch -q
	cp "$LAST_ERR" fetch.err
	check "$fmt: ... with git's message id" grep -q "hasDotgit" fetch.err
	check_output "$fmt: ... no ref moved" "$before_refs" "$GIT" -C w-fetch for-each-ref
	check_output "$fmt: ... no pack left" "$before_packs" sh -c 'ls w-fetch/.git/objects/pack | sort'
	check "$fmt: ... git fsck is clean" "$GIT" -C w-fetch fsck --no-progress

	# A fetch whose new tree names, as .gitmodules, a blob the repository
	# already has: the blob is read from the repository and checked (git's
	# fsck_finish does the same).
	srv_repo=corpus/$fmt/fetch-gitmodules.git
	rm -rf "$srv_repo" w-gm
	"$GIT" clone -q --bare "corpus/$fmt/gitmodules-url-option.git" "$srv_repo"
	check "$fmt: clone with the check off" "$W" clone -q -c transfer.fsckObjects=false \
		"$url/git/$fmt/fetch-gitmodules.git" w-gm
	check "$fmt: ... then turn it on" "$GIT" -C w-gm config --unset transfer.fsckObjects
	z=$("$GIT" -C "$srv_repo" hash-object -w --stdin <<<z)
	t=$( { "$GIT" -C "$srv_repo" ls-tree main; printf '100644 blob %s\tz\n' "$z"; } |
		"$GIT" -C "$srv_repo" mktree)
	c=$("$GIT" -C "$srv_repo" commit-tree -p main -m more "$t")
	check "$fmt: the server gets a commit that keeps the .gitmodules" \
		"$GIT" -C "$srv_repo" update-ref refs/heads/main "$c"
	before_refs=$("$GIT" -C w-gm for-each-ref)
	check_fail "$fmt: webgit fetch refuses it" "$W" -C w-gm fetch -q
	cp "$LAST_ERR" gm.err
	check "$fmt: ... for its url" grep -q "gitmodulesUrl" gm.err
	check_output "$fmt: ... no ref moved" "$before_refs" "$GIT" -C w-gm for-each-ref
done
