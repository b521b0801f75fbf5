#!/usr/bin/env bash
# t1-objects-read: webgit reads what git wrote.
#
# For a SHA-1 and a SHA-256 fixture repository built by the reference git
# (fixtures.sh), every loose object is read with webgit and git and the
# outputs compared: all at once with cat-file --batch and --batch-check
# (default and custom formats, --batch-all-objects, names of every kind),
# cat-file -t, -s, -p, -e and `cat-file TYPE` (raw bytes) on a sample of
# each type, ls-tree in every mode on a few trees and ls-tree -r -t of every
# commit (which lists every tree's entries).  Then refs:
# rev-parse of HEAD, branches, tags (short and full names), full ids, short
# unique and ambiguous prefixes, --show-object-format, --git-dir,
# --is-bare-repository; and cat-file/ls-tree through ref names, with the
# tag/commit peeling git does.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fixtures.sh"
require_webgit

# wg/rg: webgit and git on the repository $R.
wg() { "$WEBGIT" -C "$R" "$@"; }
rg() { "$GIT" -C "$R" "$@"; }

for fmt in sha1 sha256; do
	R="$PWD/repo-$fmt"
	if ! fx_build_repo "$R" "$fmt" >build-$fmt.log 2>&1; then
		cat build-$fmt.log >&2
		check "$fmt: build the fixture repository" false
		continue
	fi
	objects=$(fx_loose_objects "$R/.git")
	nobj=$(printf '%s\n' "$objects" | wc -l)
	check "$fmt: fixture has many loose objects ($nobj)" test "$nobj" -gt 90

	check_same "$fmt: rev-parse --show-object-format" \
		"wg rev-parse --show-object-format" "rg rev-parse --show-object-format"

	# --- every object -------------------------------------------------------
	# All of them at once through cat-file --batch (below, with the other
	# batch checks); here each single-object mode on the first two objects
	# of each type, ls-tree in every mode on three trees, and ls-tree -r -t
	# of every commit, which lists every tree's entries. (One webgit process
	# per object and mode took many minutes under ASan on a busy machine.)
	if ! rg cat-file --batch-check='%(objecttype) %(objectname)' <<<"$objects" >types-$fmt; then
		check "$fmt: git cat-file --batch-check of the fixture" false
		continue
	fi
	sample=$(for t in blob tree commit tag; do awk -v t=$t '$1 == t { print $2 }' types-$fmt | head -n 2; done)
	trees=$(awk '$1 == "tree" { print $2 }' types-$fmt)
	commits=$(awk '$1 == "commit" { print $2 }' types-$fmt)
	check "$fmt: the fixture has every type" test "$(printf '%s\n' "$sample" | wc -l)" -eq 8
	for id in $sample; do
		type=$(awk -v id="$id" '$2 == id { print $1 }' types-$fmt)
		s="$fmt $type ${id:0:12}"
		check "$s: cat-file -e" wg cat-file -e "$id"
		check_same "$s: cat-file -t" "wg cat-file -t $id" "rg cat-file -t $id"
		check_same "$s: cat-file -s" "wg cat-file -s $id" "rg cat-file -s $id"
		check_same "$s: cat-file -p (bytes)" "wg cat-file -p $id" "rg cat-file -p $id"
		check_same "$s: cat-file $type (bytes)" "wg cat-file $type $id" "rg cat-file $type $id"
		if [ "$type" = blob ]; then
			check_fail "$s: cat-file tree on a blob fails" wg cat-file tree "$id"
			check_fail "$s: ls-tree on a blob fails" wg ls-tree "$id"
		fi
	done
	for id in $(printf '%s\n' $trees | sed -n '1p;2p;$p'); do
		for opts in "" "-r -t" "-z" "-r" "-d" "-r -d" "--name-only" "-r -t -z --name-only"; do
			check_same "$fmt tree ${id:0:12}: ls-tree $opts" "wg ls-tree $opts $id" "rg ls-tree $opts $id"
		done
	done
	for id in $commits; do
		check_same "$fmt commit ${id:0:12}: ls-tree -r -t" "wg ls-tree -r -t $id" "rg ls-tree -r -t $id"
	done

	# --- refs ---------------------------------------------------------------
	refs=
	for ref in HEAD main refs/heads/main feature refs/heads/feature oct1 oct2 oct3 side orphan \
		v1.0 refs/tags/v1.0 v1.0-outer light refs/tags/light light-tree tree-tag blob-tag \
		signed-v2 side-signed; do
		refs="$refs $ref"
	done
	for ref in HEAD refs/heads/main oct1 v1.0 light-tree signed-v2; do
		check_same "$fmt: rev-parse --verify $ref" "wg rev-parse --verify $ref" "rg rev-parse --verify $ref"
	done
	check_same "$fmt: rev-parse of every ref name" "wg rev-parse $refs" "rg rev-parse $refs"
	check_same "$fmt: cat-file --batch of every ref name" \
		"printf '%s\n' $refs | wg cat-file --batch" "printf '%s\n' $refs | rg cat-file --batch"
	for ref in HEAD v1.0 light-tree tree-tag blob-tag; do
		check_same "$fmt: cat-file -t $ref" "wg cat-file -t $ref" "rg cat-file -t $ref"
		check_same "$fmt: cat-file -p $ref" "wg cat-file -p $ref" "rg cat-file -p $ref"
	done
	check_same "$fmt: rev-parse several args" \
		"wg rev-parse HEAD refs/heads/feature refs/tags/v1.0" "rg rev-parse HEAD refs/heads/feature refs/tags/v1.0"
	for id in $(printf '%s\n' "$objects" | sed -n '1p;17p;33p;$p'); do
		check_same "$fmt: rev-parse full id ${id:0:12}" "wg rev-parse $id" "rg rev-parse $id"
		check_same "$fmt: rev-parse --verify full id ${id:0:12}" "wg rev-parse --verify $id" "rg rev-parse --verify $id"
	done
	check_same "$fmt: rev-parse --is-bare-repository" \
		"wg rev-parse --is-bare-repository" "rg rev-parse --is-bare-repository"
	check_same "$fmt: rev-parse --git-dir" "wg rev-parse --git-dir" "rg rev-parse --git-dir"
	check_same "$fmt: rev-parse --git-dir from a subdirectory" \
		"(cd '$R/src/lib' && \"\$WEBGIT\" rev-parse --git-dir)" "(cd '$R/src/lib' && \"\$GIT\" rev-parse --git-dir)"
	check_fail "$fmt: rev-parse --verify of a missing ref" wg rev-parse --verify refs/heads/no-such-branch
	check_fail "$fmt: cat-file -e of a missing object" wg cat-file -e "$(printf '%0*d' "$(fx_hexlen $fmt)" 0 | tr 0 e)"
	check_fail "$fmt: cat-file -t of a missing ref" wg cat-file -t no-such-ref

	# --- ls-tree and cat-file through refs, with peeling ----------------------
	for ref in HEAD main v1.0 v1.0-outer tree-tag light-tree signed-v2; do
		check_same "$fmt: ls-tree $ref" "wg ls-tree $ref" "rg ls-tree $ref"
		check_same "$fmt: ls-tree -r -t $ref" "wg ls-tree -r -t $ref" "rg ls-tree -r -t $ref"
	done
	check_fail "$fmt: ls-tree of a tag of a blob fails" wg ls-tree blob-tag
	check_same "$fmt: cat-file commit peels an annotated tag" "wg cat-file commit v1.0" "rg cat-file commit v1.0"
	check_same "$fmt: cat-file commit peels a tag of a tag" "wg cat-file commit v1.0-outer" "rg cat-file commit v1.0-outer"
	check_same "$fmt: cat-file tree peels a commit" "wg cat-file tree HEAD" "rg cat-file tree HEAD"
	check_same "$fmt: cat-file blob peels a tag of a blob" "wg cat-file blob blob-tag" "rg cat-file blob blob-tag"
	check_fail "$fmt: cat-file blob of a commit fails" wg cat-file blob HEAD
	check_fail "$fmt: cat-file commit of a tree fails" wg cat-file commit light-tree

	# --- short prefixes -----------------------------------------------------
	for id in $(printf '%s\n' "$objects" | sed -n '2p;20p;40p;60p'); do
		short=$(rg rev-parse --short=12 "$id")
		check_same "$fmt: cat-file -t of a 12-digit prefix" "wg cat-file -t $short" "rg cat-file -t $short"
		check_same "$fmt: cat-file -p of a 12-digit prefix" "wg cat-file -p $short" "rg cat-file -p $short"
		short=$(rg rev-parse --short "$id")
		check_same "$fmt: rev-parse of the shortest unique prefix ($short)" \
			"wg rev-parse $short" "rg rev-parse $short"
	done
	# Two blobs whose ids share their first 4 hex digits: that prefix is
	# ambiguous and must be refused, a longer one resolves.
	pair=$(fx_prefix_collision "$fmt" 4)
	if [ -n "$pair" ]; then
		set -- $pair
		printf 'collide %s\n' "$1" | rg hash-object -w --stdin >/dev/null
		printf 'collide %s\n' "$2" | rg hash-object -w --stdin >/dev/null
		a=$(printf 'collide %s\n' "$1" | rg hash-object --stdin)
		b=$(printf 'collide %s\n' "$2" | rg hash-object --stdin)
		check "$fmt: the two colliding blobs share a 4-digit prefix" test "${a:0:4}" = "${b:0:4}"
		check_fail "$fmt: cat-file -t of an ambiguous prefix fails" wg cat-file -t "${a:0:4}"
		check "$fmt: the ambiguous-prefix error says 'ambiguous'" \
			fx_error_like 'ambiguous' wg cat-file -t "${a:0:4}"
		long=$(rg rev-parse --short "$a")
		check_same "$fmt: cat-file -p of a unique prefix next to an ambiguous one" \
			"wg cat-file -p $long" "rg cat-file -p $long"
	else
		check "$fmt: found two blobs whose ids share a 4-digit prefix" false
	fi

	# --- cat-file --batch and --batch-check, byte for byte ----------------------
	# Every object at once (also what the loop above does one by one), then
	# names of every kind: refs, peeling, paths (with spaces), missing ones,
	# an ambiguous prefix, an empty line, a CRLF line end, text after the
	# name (which only %(rest) splits off), a last line without newline.
	printf '%s\n' "$objects" >objects-$fmt
	check "$fmt: the object list is not empty" test -s objects-$fmt
	for mode in --batch --batch-check; do
		check_same "$fmt: cat-file $mode of every object" \
			"wg cat-file $mode <objects-$fmt" "rg cat-file $mode <objects-$fmt"
		check_same "$fmt: cat-file --batch-all-objects $mode" \
			"wg cat-file --batch-all-objects $mode" "rg cat-file --batch-all-objects $mode"
	done
	missing=$(printf '%0*d' "$(fx_hexlen $fmt)" 0 | tr 0 e)
	{
		printf '%s\n' HEAD main v1.0 v1.0-outer 'v1.0^{}' 'HEAD^{tree}' HEAD~2 'HEAD:README.md' \
			'HEAD:dir with space/file with space' 'HEAD~3:dir with space' light-tree blob-tag \
			no-such-ref 'HEAD:no/such/path' "$missing" '' 'HEAD^{blob}' \
			"${a:0:4}" "$(rg rev-parse --short=12 HEAD)" 'main	tab then text' 'v1.0 and some rest'
		printf 'HEAD~1\r\n'
		printf '  leading-space\n'
		printf 'light'
	} >names-$fmt
	check_same "$fmt: cat-file --batch of all kinds of names" \
		"wg cat-file --batch <names-$fmt" "rg cat-file --batch <names-$fmt"
	check_same "$fmt: cat-file --batch-check --buffer of all kinds of names" \
		"wg cat-file --batch-check --buffer <names-$fmt" "rg cat-file --batch-check --buffer <names-$fmt"
	for format in '%(objectname)' '%(objecttype) %(objectsize)' '%(objectname) %(objecttype) %(objectsize)' \
		'[%(rest)] %(objectname)' '%(rest)%(rest)' '%%(objectname) %x %(objecttype)%' ''; do
		check_same "$fmt: cat-file --batch-check='$format'" \
			"wg cat-file --batch-check='$format' <names-$fmt" "rg cat-file --batch-check='$format' <names-$fmt"
	done
	# With the contents after each line: the same expansion, two formats.
	for format in '[%(rest)] %(objectname)' ''; do
		check_same "$fmt: cat-file --batch='$format'" \
			"wg cat-file --batch='$format' <names-$fmt" "rg cat-file --batch='$format' <names-$fmt"
	done
	check_same "$fmt: cat-file --batch-all-objects --batch-check='%(objecttype) %(objectname)'" \
		"wg cat-file --batch-all-objects --batch-check='%(objecttype) %(objectname)'" \
		"rg cat-file --batch-all-objects --batch-check='%(objecttype) %(objectname)'"
	for format in '%(nosuchatom)' '%(objectname' '%()'; do
		check_same "$fmt: cat-file --batch-check='$format': git's error and status" \
			"wg cat-file --batch-check='$format' </dev/null 2>&1; echo \"exit \$?\"" \
			"rg cat-file --batch-check='$format' </dev/null 2>&1; echo \"exit \$?\""
	done
done


# --- core.maxTreeDepth (docs/limits.md) ------------------------------------------
# Trees nested 40 deep, made with git's mktree (no work tree needed): with
# core.maxTreeDepth=20 both git and webgit refuse ls-tree -r, and both list
# it with the default (2048).
R="$PWD/repo-deep"
"$GIT" init -q --bare "$R"
t=$(printf 'x\n' | rg hash-object -w --stdin)
t=$(printf '100644 blob %s\tf\n' "$t" | rg mktree)
for _ in $(seq 40); do t=$(printf '040000 tree %s\td\n' "$t" | rg mktree); done
check_same "deep trees: ls-tree -r lists all 40 levels as git does" \
	"wg ls-tree -r $t" "rg ls-tree -r $t"
rg config core.maxTreeDepth 20
check_fail "deep trees: with core.maxTreeDepth=20, webgit ls-tree -r refuses" wg ls-tree -r "$t"
check "...naming the limit" fx_error_like 'nested more than 20 deep \(core\.maxTreeDepth\)' wg ls-tree -r "$t"
check_same "...while a plain ls-tree still works" "wg ls-tree $t" "rg ls-tree $t"
rg config core.maxTreeDepth 0
check_fail "a core.maxTreeDepth that is not positive is refused" wg ls-tree "$t"
check "...naming the key" fx_error_like 'core\.maxTreeDepth' wg ls-tree "$t"
