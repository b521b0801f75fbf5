#!/usr/bin/env bash
# t21-index: webgit reads the index git writes and writes the index git
# would, byte for byte, in versions 2, 3 and 4, SHA-1 and SHA-256.
#
#   - A repository of each object format with what an index can hold:
#     nested directories, an executable, a symlink, a gitlink, names that
#     need quoting, a path longer than 4095 bytes (the name-length field's
#     limit), an intent-to-add and a skip-worktree entry (version 3), the
#     cache tree (TREE), conflict stages 1-3 left by a failed merge, and
#     resolve-undo (REUC) after git resolves one.
#   - For each state and each version: `webgit ls-files -s --debug` (and
#     --resolve-undo, -z) equals git's; `webgit update-index
#     --index-version N` writes the very bytes `git update-index
#     --index-version N` writes from the same index; git fsck, git status
#     and git ls-files accept webgit's index.
#   - read-tree of a commit, and write-tree after changes (a changed file,
#     a removed directory, a new intent-to-add entry, an executable bit):
#     the same index bytes (entries and cache tree) and the same tree ids
#     as git's, from the same starting index; an unmerged index and a tree
#     with a ".git" entry are refused and the index is left alone.
#   - What webgit refuses, with git's words or a clear one: a bad checksum,
#     a truncated file, a bad signature or version, entries out of order,
#     a split index, a sparse index; and a missing index is an empty one.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t21 && mkdir -p "$T"
export GIT_COMMITTER_DATE="1700000000 +0000" GIT_AUTHOR_DATE="1700000000 +0000"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com

# said TEXT: the last failing command's stderr says TEXT.
said() {
	cp "$LAST_ERR" "$T/said"
	check "  saying '$1'" grep -qF "$1" "$T/said"
}

# compare STATE: in the current repository, every reading and writing of
# the index git made, in each version.
compare() {
	local state=$1 v
	cp .git/index ../index.orig
	for v in 2 3 4; do
		cp ../index.orig .git/index
		"$GIT" update-index --index-version $v
		cp .git/index ../index.git
		check_same "$state, v$v: ls-files -s --debug" \
			"'$GIT' ls-files -s --debug" "'$W' ls-files -s --debug"
		check_same "$state, v$v: ls-files -z, -u, --resolve-undo" \
			"'$GIT' ls-files -z && '$GIT' ls-files -u && '$GIT' ls-files --resolve-undo" \
			"'$W' ls-files -z && '$W' ls-files -u && '$W' ls-files --resolve-undo"
		# webgit rewriting git's index in the same version: the same bytes
		check "$state, v$v: webgit rewrites it" "$W" update-index --index-version $v
		check "$state, v$v: the bytes git wrote" cmp .git/index ../index.git
		# and converting from another version gives what git's would
		cp ../index.orig .git/index
		"$W" update-index --index-version $((v == 4 ? 2 : 4))
		"$W" update-index --index-version $v
		check "$state, v$v: converted through v$((v == 4 ? 2 : 4)), the bytes git wrote" \
			cmp .git/index ../index.git
		check "$state, v$v: git fsck accepts webgit's index" "$GIT" fsck --strict --no-dangling
		check_same "$state, v$v: git status reads webgit's index as its own" \
			"cp ../index.git .git/index && '$GIT' status --porcelain=v2" \
			"'$W' update-index --index-version $v && '$GIT' status --porcelain=v2"
	done
	cp ../index.orig .git/index
}

for fmt in sha1 sha256; do
	rm -rf "$fmt" && mkdir "$fmt" && cd "$fmt" || exit 1
	"$GIT" init -q --object-format=$fmt -b main repo
	cd repo || exit 1
	mkdir -p d/e deep
	echo 1 >f && echo 2 >d/g && echo 3 >d/e/h && chmod +x d/g && ln -s f link
	printf 'x' >"sp ace" && printf 'y' >"$(printf 'uni\303\251')" && printf 'z' >'q"uote'
	"$GIT" add . && "$GIT" commit -q -m base
	# a gitlink, and a path too long for the file system (and for the
	# 12-bit length field): index entries need no file
	"$GIT" update-index --add --cacheinfo "160000,$("$GIT" rev-parse HEAD),sub"
	long=deep/$(printf 'a%.0s' $(seq 1 200))
	for i in $(seq 1 21); do long=$long/$(printf 'b%.0s' $(seq 1 200)); done
	"$GIT" update-index --add --cacheinfo "100644,$("$GIT" rev-parse HEAD:f),$long"
	"$GIT" commit -q -m "gitlink and a long path"
	check "$fmt: a path longer than 4095 bytes is in the index" \
		test "$("$GIT" ls-files deep | head -c 5000 | wc -c)" -gt 4096
	compare "$fmt: plain"

	echo n >new && "$GIT" add -N new && "$GIT" update-index --skip-worktree f
	# (a check of the fixture, so that the version 3 case is real)
	check_output "$fmt: git wrote version 3 for extended flags" "4449524300000003" \
		sh -c 'head -c 8 .git/index | od -An -tx1 | tr -d " \n"'
	compare "$fmt: intent-to-add and skip-worktree"
	"$GIT" update-index --no-skip-worktree f && "$GIT" rm -q --cached new && rm new

	# conflict stages, then resolve-undo
	{
		"$GIT" checkout -q -b side && echo side >f && echo side >d/g && "$GIT" commit -q -am side
		"$GIT" checkout -q main && echo main >f && echo main >d/g && "$GIT" commit -q -am main
	} >/dev/null 2>&1
	"$GIT" merge -q side >/dev/null 2>&1
	check "$fmt: the merge left conflict stages" \
		sh -c "'$GIT' ls-files -u | grep -q ' 3	f'"
	compare "$fmt: conflicts"
	echo resolved >f && "$GIT" add f
	check "$fmt: git kept resolve-undo" sh -c "'$GIT' ls-files --resolve-undo | grep -q ' 1	f'"
	compare "$fmt: resolve-undo and a conflict"
	cd ../.. || exit 1
done

# --- read-tree and write-tree ---------------------------------------------------
# same_as_git DESC CMD...: run CMD with git and with webgit from the same
# index; same stdout, same index bytes after.
same_as_git() {
	local desc=$1
	shift
	rm -f "$T/start"
	[ -f .git/index ] && cp .git/index "$T/start"
	"$GIT" "$@" >"$T/g.out" 2>&1
	cp .git/index "$T/g.index"
	if [ -f "$T/start" ]; then cp "$T/start" .git/index; else rm -f .git/index; fi
	check "$desc: webgit $*" sh -c '"$@" >"$0"' "$T/w.out" "$W" "$@"
	check "$desc: the same output as git's" cmp "$T/g.out" "$T/w.out"
	check "$desc: the same index bytes as git's" cmp "$T/g.index" .git/index
}
for fmt in sha1 sha256; do
	rm -rf "rw-$fmt" && "$GIT" init -q --object-format=$fmt "rw-$fmt" && cd "rw-$fmt" || exit 1
	mkdir -p d/e d/f x && echo 1 >a && echo 2 >d/e/g && echo 3 >d/f/h && echo 4 >x/y &&
		echo 5 >d.c && chmod +x x/y && ln -s a l
	"$GIT" add . && "$GIT" commit -q -m one
	echo 6 >d/f/h && "$GIT" commit -q -am two
	# a gitlink and a path past the 12-bit length field (index only)
	"$GIT" update-index --add --cacheinfo "160000,$("$GIT" rev-parse HEAD),sub"
	long=deep/$(printf 'a%.0s' $(seq 1 200))
	for i in $(seq 1 21); do long=$long/$(printf 'b%.0s' $(seq 1 200)); done
	"$GIT" update-index --add --cacheinfo "100644,$("$GIT" rev-parse HEAD:a),$long"
	"$GIT" commit -q -m three
	same_as_git "$fmt: read-tree" read-tree HEAD~2
	same_as_git "$fmt: read-tree back" read-tree HEAD
	rm .git/index
	same_as_git "$fmt: read-tree into no index" read-tree HEAD
	echo changed >d/e/g && "$GIT" update-index d/e/g && "$GIT" update-index --chmod=-x x/y
	same_as_git "$fmt: write-tree" write-tree
	same_as_git "$fmt: write-tree again (all from the cache tree)" write-tree
	"$GIT" rm -q --cached -r d/f && echo n >new && "$GIT" add -N new
	same_as_git "$fmt: write-tree without a directory, with intent-to-add" write-tree
	check "$fmt: git fsck accepts the trees webgit wrote" "$GIT" fsck --strict --no-dangling
	"$GIT" read-tree HEAD
	# conflict stages, made directly (first beside the stage 0 entry, which
	# git's --index-info leaves there, then alone)
	for how in beside alone; do
		[ $how = alone ] && "$GIT" update-index --force-remove a
		printf '100644 %s 1\ta\n100644 %s 2\ta\n' "$("$GIT" rev-parse HEAD:a)" \
			"$("$GIT" rev-parse HEAD:d.c)" | "$GIT" update-index --index-info
		same_as_git "$fmt: conflict stages $how stage 0: ls-files" ls-files -s
		cp .git/index "$T/unmerged"
		check_fail "$fmt: write-tree refuses an unmerged index ($how)" "$W" write-tree
		said "a: unmerged ("
		check "  and leaves the index alone" cmp .git/index "$T/unmerged"
	done
	"$GIT" read-tree HEAD
	blob=$("$GIT" rev-parse HEAD:a)
	evil=$( { printf '100644 .git\0'; printf '%s' "$blob" | xxd -r -p; } |
		"$GIT" hash-object -w -t tree --literally --stdin)
	evil2=$(printf '040000 tree %s\tsub\n' "$evil" | "$GIT" mktree)
	cp .git/index "$T/before-evil"
	check_fail "$fmt: read-tree refuses a tree with a .git entry" "$W" read-tree "$evil2"
	said "invalid path 'sub/.git'"
	check "  and leaves the index alone" cmp .git/index "$T/before-evil"
	cd .. || exit 1
done

# --- what webgit refuses ----------------------------------------------------
cd sha1/repo || exit 1
"$GIT" merge --abort
cp .git/index ../good
size=$(wc -c <../good)
flip() { # flip OFFSET: a copy of the good index with one byte changed
	cp ../good .git/index
	printf '\377' | dd of=.git/index bs=1 seek="$1" conv=notrunc 2>/dev/null
}
flip $((size - 1))
check_fail "a bad checksum is refused" "$W" ls-files
said "bad index file sha1 signature"
head -c 40 ../good >.git/index
check_fail "a truncated index is refused" "$W" ls-files
flip 0
check_fail "a bad signature is refused" "$W" ls-files
said "bad signature 0x"
cp ../good .git/index
printf '\000\000\000\011' | dd of=.git/index bs=1 seek=4 conv=notrunc 2>/dev/null
check_fail "version 9 is refused" "$W" ls-files
said "bad index version 9"
cp ../good .git/index
"$GIT" update-index --split-index
check_fail "a split index is refused" "$W" ls-files
said "git update-index --no-split-index"
"$GIT" update-index --no-split-index
check "after git --no-split-index, it reads" "$W" ls-files
rm .git/index
check_output "a missing index is empty" "" "$W" ls-files -s
cp ../good .git/index
check "git status is clean with the index webgit left" \
	sh -c "test -z \"\$('$GIT' status --porcelain --untracked-files=no)\""
cd ../.. || exit 1

# entries out of order: two entries swapped in a version-2 index, with a
# valid checksum (git itself does not check the order when it reads)
rm -rf order && "$GIT" init -q order && cd order || exit 1
echo a >a && echo b >b && "$GIT" add a b
python3 - .git/index <<'EOF'
import hashlib, sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
body = d[:-20]
# version 2 entries: 62 fixed bytes and a 1-byte name, padded to 64
e1, e2 = body[12:76], body[76:140]
assert e1[62:63] == b'a' and e2[62:63] == b'b', (e1, e2)
out = body[:12] + e2 + e1 + body[140:]
open(p, 'wb').write(out + hashlib.sha1(out).digest())
EOF
check_fail "entries out of order are refused" "$W" ls-files
said "unordered stage entries in index"
cd .. || exit 1
