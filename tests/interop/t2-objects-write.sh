#!/usr/bin/env bash
# t2-objects-write: git reads what webgit wrote, with the same object ids.
#
# For SHA-1 and SHA-256, in a repository made by `webgit init` (W) next to
# the git-built fixture repository (FX):
#   - hash-object (with and without -w, --stdin, several files, -t, --literally)
#     of assorted files (empty, binary, large) gives git's ids, also outside
#     any repository;
#   - every fixture object is re-created by webgit: blobs with hash-object -w
#     --stdin, trees with hash-object -w -t tree of their raw bytes and again
#     with mktree from git's ls-tree output (bottom-up; and with -z for a
#     few, shuffled input, --missing), commits and tags with hash-object -w -t
#     commit/tag of their raw bytes -- same ids;
#   - commit-tree (root, one parent, several, -m repeated, -F file, -F -,
#     stdin, author/committer from the environment in several date formats,
#     and from config) gives the ids `git commit-tree` gives for the same input;
#   - finally W holds exactly the objects FX holds, `git fsck --strict` of W
#     is clean (refs set with git so connectivity is checked too), and git
#     reads every object of W as it reads FX's (cat-file --batch).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fixtures.sh"
require_webgit

FILES="$PWD/files"
fx_make_files "$FILES"

for fmt in sha1 sha256; do
	FX="$PWD/fx-$fmt"
	W="$PWD/w-$fmt"
	if ! fx_build_repo "$FX" "$fmt" >build-$fmt.log 2>&1; then
		cat build-$fmt.log >&2
		check "$fmt: build the fixture repository" false
		continue
	fi
	wg() { "$WEBGIT" -C "$W" "$@"; }
	fxg() { "$GIT" -C "$FX" "$@"; }

	check "$fmt: webgit init W" "$WEBGIT" init --object-format="$fmt" "$W"
	check_output "$fmt: git sees W's object format" "$fmt" "$GIT" -C "$W" rev-parse --show-object-format
	before=$(fx_object_count "$W/.git")
	check "$fmt: W starts with no objects" test "$before" = 0

	# --- hash-object of files -------------------------------------------------
	for f in "$FILES"/*; do
		n=$(basename "$f")
		check_same "$fmt: hash-object '$n'" "wg hash-object '$f'" "fxg hash-object '$f'"
		check_same "$fmt: hash-object --stdin <'$n'" "wg hash-object --stdin <'$f'" "fxg hash-object --stdin <'$f'"
		check_same "$fmt: hash-object -w '$n'" "wg hash-object -w '$f'" "fxg hash-object -w '$f'"
		id=$(fxg hash-object "$f")
		check "$fmt: git reads back '$n' written by webgit" cmp "$f" <("$GIT" -C "$W" cat-file blob "$id")
	done
	check_same "$fmt: hash-object -w of several files" \
		"wg hash-object -w '$FILES/hello.txt' '$FILES/empty' '$FILES/all-bytes.bin'" \
		"fxg hash-object -w '$FILES/hello.txt' '$FILES/empty' '$FILES/all-bytes.bin'"
	check_same "$fmt: hash-object -w --stdin and a file" \
		"wg hash-object -w --stdin '$FILES/crlf.txt' <'$FILES/utf8.txt'" \
		"fxg hash-object -w --stdin '$FILES/crlf.txt' <'$FILES/utf8.txt'"
	check_same "$fmt: hash-object -t blob --literally" \
		"wg hash-object -t blob --literally '$FILES/hello.txt'" "fxg hash-object -t blob --literally '$FILES/hello.txt'"
	check_same "$fmt: hash-object relative path with -C" \
		"(cd '$PWD' && \"\$WEBGIT\" -C files hash-object hello.txt)" "(cd '$PWD' && \"\$GIT\" -C files hash-object hello.txt)"
	if [ "$fmt" = sha1 ]; then
		# Outside any repository git hashes with SHA-1.
		mkdir -p outside
		check_same "hash-object outside a repository" \
			"(cd outside && GIT_CEILING_DIRECTORIES='$PWD' \"\$WEBGIT\" hash-object '$FILES/random-1m.bin')" \
			"(cd outside && GIT_CEILING_DIRECTORIES='$PWD' \"\$GIT\" hash-object '$FILES/random-1m.bin')"
		check_same "hash-object --stdin outside a repository" \
			"(cd outside && GIT_CEILING_DIRECTORIES='$PWD' \"\$WEBGIT\" hash-object --stdin <'$FILES/hello.txt')" \
			"(cd outside && GIT_CEILING_DIRECTORIES='$PWD' \"\$GIT\" hash-object --stdin <'$FILES/hello.txt')"
	fi

	# --- re-create every fixture object in W -----------------------------------
	# Blobs.
	for id in $(fx_objects_of_type "$FX/.git" blob); do
		check_output "$fmt: blob ${id:0:12} re-hashed by webgit -w --stdin" "$id" \
			sh -c '"$GIT" -C "$1" cat-file blob "$2" | "$WEBGIT" -C "$3" hash-object -w --stdin' sh "$FX" "$id" "$W"
	done
	# Trees from their raw bytes (so that what follows does not depend on
	# mktree), then every tree again with mktree, children first: mk_tree ID
	# makes the subtrees then ID itself.
	trees=$(fx_objects_of_type "$FX/.git" tree)
	for id in $trees; do
		check_output "$fmt: tree ${id:0:12} re-hashed by webgit -w -t tree" "$id" \
			sh -c '"$GIT" -C "$1" cat-file tree "$2" | "$WEBGIT" -C "$3" hash-object -w -t tree --stdin' sh "$FX" "$id" "$W"
	done
	declare -A made=()
	mk_tree() {
		local id=$1 mode type sub rest
		[ -n "${made[$id]:-}" ] && return
		while read -r mode type sub rest; do
			[ "$type" = tree ] && mk_tree "$sub"
		done < <(fxg ls-tree "$id")
		check_output "$fmt: mktree reproduces tree ${id:0:12}" "$id" \
			sh -c '"$GIT" -C "$1" ls-tree "$2" | "$WEBGIT" -C "$3" mktree' sh "$FX" "$id" "$W"
		made[$id]=1
	}
	for id in $trees; do mk_tree "$id"; done
	# -z reads the same entries another way: three trees are enough.
	for id in $(printf '%s\n' $trees | sed -n '1p;2p;$p'); do
		check_output "$fmt: mktree -z reproduces tree ${id:0:12}" "$id" \
			sh -c '"$GIT" -C "$1" ls-tree -z "$2" | "$WEBGIT" -C "$3" mktree -z' sh "$FX" "$id" "$W"
	done
	root=$(fxg rev-parse 'HEAD~3^{tree}')
	check_output "$fmt: mktree sorts shuffled input" "$root" \
		sh -c '"$GIT" -C "$1" ls-tree "$2" | sort -r | "$WEBGIT" -C "$3" mktree' sh "$FX" "$root" "$W"
	empty_tree=$(fxg mktree </dev/null)
	check_output "$fmt: mktree of nothing is the empty tree" "$empty_tree" \
		sh -c '"$WEBGIT" -C "$1" mktree </dev/null' sh "$W"
	mkdir -p "$PWD/w2-$fmt"
	W2="$PWD/w2-$fmt"
	check "$fmt: webgit init W2 (empty)" "$WEBGIT" init --object-format="$fmt" "$W2"
	check_fail "$fmt: mktree without --missing refuses entries that are not there" \
		sh -c '"$GIT" -C "$1" ls-tree "$2" | "$WEBGIT" -C "$3" mktree' sh "$FX" "$root" "$W2"
	check_output "$fmt: mktree --missing writes a tree whose entries are not there" "$root" \
		sh -c '"$GIT" -C "$1" ls-tree "$2" | "$WEBGIT" -C "$3" mktree --missing' sh "$FX" "$root" "$W2"
	check_output "$fmt: W2 holds just that tree" "1" fx_object_count "$W2/.git"

	# Commits and tags from their raw bytes (signed, mergetag, encoding, ...).
	for type in commit tag; do
		for id in $(fx_objects_of_type "$FX/.git" $type); do
			check_output "$fmt: $type ${id:0:12} re-hashed by webgit -w -t $type" "$id" \
				sh -c '"$GIT" -C "$1" cat-file "$4" "$2" | "$WEBGIT" -C "$3" hash-object -w -t "$4" --stdin' \
				sh "$FX" "$id" "$W" "$type"
		done
	done
	check_same "$fmt: W now holds every fixture object" \
		"fx_loose_objects '$FX/.git'" "fx_loose_objects '$W/.git'"

	# --- commit-tree -----------------------------------------------------------
	# wct/gct ARGS...: webgit/git commit-tree with a fixed, distinct author
	# and committer; each prints the new id and then (read by git) the commit,
	# so that a failure shows how the commits differ.
	wct() {
		local id
		id=$(GIT_AUTHOR_NAME='Ann Author' GIT_AUTHOR_EMAIL='ann@example.org' GIT_AUTHOR_DATE='1234567890 +0530' \
			GIT_COMMITTER_NAME='Cy Committer' GIT_COMMITTER_EMAIL='cy@example.net' GIT_COMMITTER_DATE='1234567999 -0800' \
			"$WEBGIT" -C "$W" commit-tree "$@") || return
		printf '%s\n' "$id"
		"$GIT" -C "$W" cat-file commit "$id"
	}
	gct() {
		local id
		id=$(GIT_AUTHOR_NAME='Ann Author' GIT_AUTHOR_EMAIL='ann@example.org' GIT_AUTHOR_DATE='1234567890 +0530' \
			GIT_COMMITTER_NAME='Cy Committer' GIT_COMMITTER_EMAIL='cy@example.net' GIT_COMMITTER_DATE='1234567999 -0800' \
			"$GIT" -C "$FX" commit-tree "$@") || return
		printf '%s\n' "$id"
		"$GIT" -C "$FX" cat-file commit "$id"
	}
	# wshow/gshow CMD...: run a commit-tree command line, print id and commit.
	wshow() { local id; id=$("$@") || return; printf '%s\n' "$id"; "$GIT" -C "$W" cat-file commit "$id"; }
	gshow() { local id; id=$("$@") || return; printf '%s\n' "$id"; "$GIT" -C "$FX" cat-file commit "$id"; }
	T1=$(fxg rev-parse 'HEAD^{tree}')
	T2=$(fxg rev-parse 'HEAD~5^{tree}')
	P1=$(fxg rev-parse HEAD)
	P2=$(fxg rev-parse feature)
	P3=$(fxg rev-parse oct2)
	printf 'Message from a file\n\nwith a body\nof two lines\n' >msg-file
	printf 'no final newline' >msg-nonl
	printf '\n\nleading blank lines and trailing spaces   \n\n\n' >msg-blank
	printf 'Caf\351 latin-1 bytes\n' >msg-latin1
	check_same "$fmt: commit-tree root commit -m" "wct $T1 -m 'root commit'" "gct $T1 -m 'root commit'"
	check_same "$fmt: commit-tree one parent" "wct $T1 -p $P1 -m 'one parent'" "gct $T1 -p $P1 -m 'one parent'"
	check_same "$fmt: commit-tree two parents" \
		"wct $T2 -p $P1 -p $P2 -m 'two parents'" "gct $T2 -p $P1 -p $P2 -m 'two parents'"
	check_same "$fmt: commit-tree four parents" \
		"wct $T2 -p $P3 -p $P1 -p $P2 -p $(fxg rev-parse oct1) -m octopus" \
		"gct $T2 -p $P3 -p $P1 -p $P2 -p $(fxg rev-parse oct1) -m octopus"
	check_same "$fmt: commit-tree -m given three times" \
		"wct $T1 -p $P1 -m subject -m 'body line 1
body line 2' -m 'Signed-off-by: X <x@example.com>'" \
		"gct $T1 -p $P1 -m subject -m 'body line 1
body line 2' -m 'Signed-off-by: X <x@example.com>'"
	check_same "$fmt: commit-tree -m with a multi-line message" \
		"wct $T1 -m 'line 1

line 3
'" "gct $T1 -m 'line 1

line 3
'"
	for m in msg-file msg-nonl msg-blank msg-latin1; do
		check_same "$fmt: commit-tree -F $m" "wct $T1 -p $P1 -F '$PWD/$m'" "gct $T1 -p $P1 -F '$PWD/$m'"
		check_same "$fmt: commit-tree message on stdin ($m)" "wct $T1 <'$PWD/$m'" "gct $T1 <'$PWD/$m'"
	done
	check_same "$fmt: commit-tree -F -" "wct $T1 -F - <'$PWD/msg-file'" "gct $T1 -F - <'$PWD/msg-file'"
	check_same "$fmt: commit-tree -m then -F" \
		"wct $T1 -m first -F '$PWD/msg-file'" "gct $T1 -m first -F '$PWD/msg-file'"
	check_same "$fmt: commit-tree -p before the tree" \
		"wct -p $P1 $T1 -m 'parent first'" "gct -p $P1 $T1 -m 'parent first'"
	# A chain: each commit is the parent of the next, in both repositories.
	wp=$(wct "$T2" -m 'chain 0' 2>/dev/null | head -n 1)
	gp=$(gct "$T2" -m 'chain 0' | head -n 1)
	check "$fmt: chain start ids equal" test -n "$gp" -a "$wp" = "$gp"
	for i in 1 2 3; do
		check_same "$fmt: commit-tree chain $i" "wct $T1 -p $gp -m 'chain $i'" "gct $T1 -p $gp -m 'chain $i'"
		gp=$(gct "$T1" -p "$gp" -m "chain $i" | head -n 1)
	done
	# Identities and dates.
	for d in '1234567890 +0000' '@1234567890 -0130' '@0 +0000' '@4102444800 +1400' '1234567890 -1200'; do
		check_same "$fmt: commit-tree with dates '$d'" \
			"GIT_AUTHOR_DATE='$d' GIT_COMMITTER_DATE='$d' wshow \"\$WEBGIT\" -C '$W' commit-tree $T1 -m dated" \
			"GIT_AUTHOR_DATE='$d' GIT_COMMITTER_DATE='$d' gshow \"\$GIT\" -C '$FX' commit-tree $T1 -m dated"
	done
	check_same "$fmt: commit-tree with ISO 8601 dates" \
		"GIT_AUTHOR_DATE='2005-04-07T22:13:13+02:00' GIT_COMMITTER_DATE='2005-04-07 22:13:13 -0700' wshow \"\$WEBGIT\" -C '$W' commit-tree $T1 -m iso" \
		"GIT_AUTHOR_DATE='2005-04-07T22:13:13+02:00' GIT_COMMITTER_DATE='2005-04-07 22:13:13 -0700' gshow \"\$GIT\" -C '$FX' commit-tree $T1 -m iso"
	check_same "$fmt: commit-tree takes user.name/email from the global config" \
		"wshow \"\$WEBGIT\" -C '$W' commit-tree $T1 -m 'from config'" \
		"gshow \"\$GIT\" -C '$FX' commit-tree $T1 -m 'from config'"
	check_same "$fmt: commit-tree: GIT_AUTHOR_* override config, committer from config" \
		"GIT_AUTHOR_NAME='Env Author' GIT_AUTHOR_EMAIL='env@example.com' wshow \"\$WEBGIT\" -C '$W' commit-tree $T1 -m env" \
		"GIT_AUTHOR_NAME='Env Author' GIT_AUTHOR_EMAIL='env@example.com' gshow \"\$GIT\" -C '$FX' commit-tree $T1 -m env"
	UNAME_A=$(printf 'Jos\303\251 \346\227\245') UNAME_C=$(printf 'Zo\303\253')
	check_same "$fmt: commit-tree: unicode names in identities" \
		"GIT_AUTHOR_NAME=\"\$UNAME_A\" GIT_COMMITTER_NAME=\"\$UNAME_C\" wshow \"\$WEBGIT\" -C '$W' commit-tree $T1 -m unicode" \
		"GIT_AUTHOR_NAME=\"\$UNAME_A\" GIT_COMMITTER_NAME=\"\$UNAME_C\" gshow \"\$GIT\" -C '$FX' commit-tree $T1 -m unicode"
	"$GIT" -C "$W" config user.name 'Repo Local'
	"$GIT" -C "$W" config user.email 'local@example.com'
	"$GIT" -C "$FX" config user.name 'Repo Local'
	"$GIT" -C "$FX" config user.email 'local@example.com'
	check_same "$fmt: commit-tree: repository config overrides global config" \
		"wshow \"\$WEBGIT\" -C '$W' commit-tree $T1 -m 'local config'" \
		"gshow \"\$GIT\" -C '$FX' commit-tree $T1 -m 'local config'"
	missing=$(printf '%0*d' "$(fx_hexlen $fmt)" 0 | tr 0 d)
	blob=$(fxg rev-parse HEAD:README.md)
	n=$(fx_object_count "$W/.git")
	check_fail "$fmt: commit-tree of a missing tree fails" wct "$missing" -m x
	check_fail "$fmt: commit-tree of a blob as the tree fails" wct "$blob" -m x
	check_fail "$fmt: commit-tree with a missing parent fails" wct "$T1" -p "$missing" -m x
	check_fail "$fmt: commit-tree with a tree as parent fails" wct "$T1" -p "$T2" -m x
	check_output "$fmt: failed commit-tree wrote nothing" "$n" fx_object_count "$W/.git"

	# --- git's view of W ------------------------------------------------------
	check_same "$fmt: W and FX hold the same objects" \
		"fx_loose_objects '$W/.git'" "fx_loose_objects '$FX/.git'"
	check_output "$fmt: nothing but loose objects under W/.git/objects" "" \
		bash -o pipefail -c 'cd "$1/.git" && find objects -type f ! -path "objects/info/*" ! -path "objects/pack/*" |
			{ grep -Ev "^objects/[0-9a-f]{2}/[0-9a-f]{$2}\$"; [ $? -eq 1 ]; }' sh "$W" "$(($(fx_hexlen $fmt) - 2))"
	# Point refs at the fixture's branches and tags so fsck walks everything.
	fxg for-each-ref --format='%(objectname) %(refname)' | while read -r id ref; do
		"$GIT" -C "$W" update-ref "$ref" "$id"
	done
	"$GIT" -C "$W" symbolic-ref HEAD refs/heads/main
	check "$fmt: git fsck --strict --no-dangling of W" "$GIT" -C "$W" fsck --strict --no-dangling
	check_output "$fmt: git fsck of W reports nothing" "" \
		bash -o pipefail -c '"$GIT" -C "$1" fsck --strict --no-dangling --no-progress 2>&1 |
			{ grep -v "^notice:"; [ $? -eq 1 ]; }' sh "$W"
	check_same "$fmt: git cat-file --batch-all-objects --batch same in W and FX" \
		"\"\$GIT\" -C '$W' cat-file --batch-all-objects --batch" \
		"\"\$GIT\" -C '$FX' cat-file --batch-all-objects --batch"
	check_same "$fmt: git log of W" \
		"\"\$GIT\" -C '$W' log --all --format='%H %P %T %an %ae %ad %cn %s' --date=raw" \
		"\"\$GIT\" -C '$FX' log --all --format='%H %P %T %an %ae %ad %cn %s' --date=raw"
done
