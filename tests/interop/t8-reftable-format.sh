#!/usr/bin/env bash
# t8-reftable-format: the reftable library (core/refs/reftable*.c) against the
# reference git, at the file-format level, through the small driver
# tests/tools/reftable_tool.c (independent of the refs CLI).
#
#   - git writes, webgit reads: repositories made with
#     `git init --ref-format=reftable` (SHA-1 and SHA-256), several
#     transactions (thousands of refs in one update-ref --stdin, deletions,
#     an annotated tag, a symref, reflogs), before and after `git pack-refs`:
#     our merged view lists exactly `git show-ref -d`, the symrefs git
#     reports, and exactly the reflogs git itself exports when it migrates a
#     copy to the files backend; every table passes our structural check.
#   - webgit writes, git reads: tables added by our stack (a small one, and
#     one with 5000 refs, i.e. a multi-level index and obj blocks), then our
#     full compaction: `git show-ref -d`, `git for-each-ref`, `git reflog`
#     and `git refs verify` accept them and agree with what we wrote; git
#     then adds its own tables on top of ours (and auto-compacts them).
#   - damaged tables: a flipped footer byte, a truncated file, a
#     tables.list naming a missing table give a clean error, never a crash.
#
# The driver is found at $REFTABLE_TOOL, else next to $WEBGIT.

. "$(dirname "$0")/lib.sh"

TOOL=${REFTABLE_TOOL:-$(dirname "${WEBGIT:-/nonexistent}")/reftable_tool}
if [ ! -x "$TOOL" ]; then
	skip_all "reftable_tool not built (tests/tools/reftable_tool.c; set REFTABLE_TOOL)"
fi

# files_logs GITDIR: every reflog of a files-backend repository as
# "<ref>\t<line>", refs in byte order, entries oldest first.
files_logs() {
	# (one awk over all the files: a process per reflog made this test slow)
	(cd "$1/logs" && find . -type f | sed 's|^\./||' | LC_ALL=C sort |
		xargs -r -d '\n' awk '{ print FILENAME "\t" $0 }')
}

# git_logs REPO: reflogs as git exports them (through a migrated copy).
git_logs() {
	rm -rf "$wg__scratch/mig" &&
	cp -R "$1" "$wg__scratch/mig" &&
	"$GIT" -C "$wg__scratch/mig" refs migrate --ref-format=files >/dev/null &&
	files_logs "$wg__scratch/mig/.git"
}

tool_refs_direct() { "$TOOL" $FMT refs "$1/.git/reftable" | grep -v '^ref: '; }
tool_symrefs() { "$TOOL" $FMT refs "$1/.git/reftable" | sed -n 's/^ref: //p'; }

compare_repo() {
	local repo=$1 what=$2
	# show-ref lists refs/heads/sym resolved; we list it as a symref
	check_same "$what: refs match git show-ref -d" \
		"tool_refs_direct $repo" '"$GIT" -C '"$repo"' show-ref -d | grep -v " refs/heads/sym$"'
	check_output "$what: symrefs" "$(printf 'refs/heads/main HEAD\nrefs/heads/side refs/heads/sym')" \
		tool_symrefs "$repo"
	check_same "$what: reflogs match git's" \
		'"$TOOL" $FMT logs '"$repo"'/.git/reftable' "git_logs $repo"
	check "$what: every table passes verify" "$TOOL" $FMT verify "$repo/.git/reftable"
}

make_git_repo() {
	local repo=$1 fmt=$2
	"$GIT" init -q -b main --ref-format=reftable --object-format="$fmt" "$repo" &&
	"$GIT" -C "$repo" commit -q --allow-empty -m one &&
	"$GIT" -C "$repo" tag -a -m "annotated" v1.0 &&
	"$GIT" -C "$repo" commit -q --allow-empty -m two &&
	"$GIT" -C "$repo" branch side HEAD~1 &&
	"$GIT" -C "$repo" symbolic-ref refs/heads/sym refs/heads/side &&
	for i in $(seq 1 3000); do echo "create refs/heads/many/$i HEAD"; done |
		"$GIT" -C "$repo" update-ref --stdin -m "bulk create" &&
	"$GIT" -C "$repo" update-ref -d refs/heads/many/17 &&
	"$GIT" -C "$repo" update-ref -m "moved back" refs/heads/many/18 HEAD~1 &&
	"$GIT" -C "$repo" commit -q --allow-empty -m three
}

for fmt in sha1 sha256; do
	FMT=
	[ "$fmt" = sha256 ] && FMT=--sha256
	note "object format $fmt"

	# --- git writes, we read -------------------------------------------------
	repo=$PWD/git-$fmt
	check "$fmt: make a reftable repository with git" make_git_repo "$repo" "$fmt"
	check "$fmt: git wrote several tables" test "$(wc -l <"$repo/.git/reftable/tables.list")" -ge 2
	compare_repo "$repo" "$fmt git tables"
	check "$fmt: git pack-refs" "$GIT" -C "$repo" pack-refs --all
	check_output "$fmt: one table after pack-refs" 1 "$TOOL" $FMT count "$repo/.git/reftable"
	compare_repo "$repo" "$fmt git packed table"

	# --- we write, git reads ---------------------------------------------------
	head=$("$GIT" -C "$repo" rev-parse HEAD)
	prev=$("$GIT" -C "$repo" rev-parse HEAD~1)
	tag=$("$GIT" -C "$repo" rev-parse v1.0)
	peeled=$("$GIT" -C "$repo" rev-parse 'v1.0^{}')
	zero=$(echo "$head" | tr '0-9a-f' '0')
	add_small() {
		printf 'ref\trefs/heads/ours\t%s\n' "$head"
		printf 'peeled\trefs/tags/ours-tag\t%s\t%s\n' "$tag" "$peeled"
		printf 'delete\trefs/heads/many/20\n'
		printf 'ref\trefs/heads/many/21\t%s\n' "$prev"
		printf 'log\trefs/heads/ours\t%s\t%s\tO Urs\tours@example.com\t1700000100\t-0230\tcreated by webgit\n' "$zero" "$head"
		printf 'log\trefs/heads/many/21\t%s\t%s\tO Urs\tours@example.com\t1700000200\t+0100\tmoved by webgit\n' "$head" "$prev"
	}
	check "$fmt: add a table with our writer" \
		bash -c "$(declare -f add_small); head=$head prev=$prev tag=$tag peeled=$peeled zero=$zero add_small | \"$TOOL\" $FMT add \"$repo/.git/reftable\""
	compare_repo "$repo" "$fmt after our table"
	check "$fmt: git refs verify accepts our table" "$GIT" -C "$repo" refs verify --strict
	check_output "$fmt: git reads our ref" "$head" "$GIT" -C "$repo" rev-parse refs/heads/ours
	check_output "$fmt: git reads our peeled tag" "$peeled" "$GIT" -C "$repo" rev-parse "refs/tags/ours-tag^{}"
	check_fail "$fmt: git sees our deletion" "$GIT" -C "$repo" rev-parse --verify -q refs/heads/many/20
	check_output "$fmt: git reflog of our ref" "$head created by webgit" \
		"$GIT" -C "$repo" reflog show --format='%H %gs' refs/heads/ours

	big() {
		for i in $(seq 1 5000); do printf 'ref\trefs/tags/big/%05d\t%s\n' "$i" "$head"; done
		printf 'peeled\trefs/tags/big-annotated\t%s\t%s\n' "$tag" "$peeled"
	}
	check "$fmt: add a 5000-ref table with our writer" \
		bash -c "$(declare -f big); head=$head tag=$tag peeled=$peeled big | \"$TOOL\" $FMT add \"$repo/.git/reftable\""
	compare_repo "$repo" "$fmt after our big table"
	check "$fmt: git refs verify accepts the big table" "$GIT" -C "$repo" refs verify --strict
	check_same "$fmt: git for-each-ref agrees" \
		'"$GIT" -C '"$repo"' for-each-ref --format="%(objectname) %(refname)" refs/tags/big' \
		'tool_refs_direct '"$repo"' | grep " refs/tags/big/"'

	check "$fmt: our full compaction" "$TOOL" $FMT compact "$repo/.git/reftable"
	check_output "$fmt: one table after our compaction" 1 "$TOOL" $FMT count "$repo/.git/reftable"
	compare_repo "$repo" "$fmt after our compaction"
	check "$fmt: git refs verify after our compaction" "$GIT" -C "$repo" refs verify --strict
	check_fail "$fmt: deletion gone after compaction" "$GIT" -C "$repo" rev-parse --verify -q refs/heads/many/20

	check "$fmt: git writes on top of our table" "$GIT" -C "$repo" update-ref -m "git again" refs/heads/ours HEAD~1
	check "$fmt: git packs our table with its own" "$GIT" -C "$repo" pack-refs --all
	compare_repo "$repo" "$fmt after git compacted our table"
	check_output "$fmt: git's reflog keeps our entry" \
		"$(printf '%s git again\n%s created by webgit' "$prev" "$head")" \
		"$GIT" -C "$repo" reflog show --format='%H %gs' refs/heads/ours
done

# --- damaged tables ------------------------------------------------------------
FMT=
repo=$PWD/git-sha1
table=$(head -n1 "$repo/.git/reftable/tables.list")
cp "$repo/.git/reftable/$table" good.ref
size=$(wc -c <good.ref)
check "intact copy reads" "$TOOL" verify good.ref
cp good.ref flipped.ref
printf '\377' | dd of=flipped.ref bs=1 seek=$((size - 20)) conv=notrunc 2>/dev/null
check_fail "flipped footer byte is refused" "$TOOL" verify flipped.ref
cp "$LAST_ERR" flipped.err
check "the message names the CRC" grep -q "CRC-32" flipped.err
head -c $((size - 100)) good.ref >truncated.ref
check_fail "truncated table is refused" "$TOOL" verify truncated.ref
head -c 50 good.ref >tiny.ref
check_fail "tiny table is refused" "$TOOL" refs tiny.ref
mkdir -p broken && cp "$repo/.git/reftable/tables.list" broken/ && cp good.ref "broken/$table"
echo 0x000000000099-0x000000000099-deadbeef.ref >>broken/tables.list
check_fail "tables.list naming a missing table is refused" "$TOOL" refs broken
cp "$LAST_ERR" broken.err
check "the message names the missing table" grep -q deadbeef broken.err
