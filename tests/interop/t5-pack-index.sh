#!/usr/bin/env bash
# t5-pack-index: webgit indexes and reads the packs git writes.
#
# For SHA-1 and SHA-256: the fixture repository plus a history of many
# revisions of a few files, repacked by git with deep delta chains
# (repack -adf --depth=50 --window=50, and gc --aggressive). Then:
#  - `webgit index-pack PACK` prints git's pack hash and writes a .idx and
#    .rev byte-identical to `git index-pack`'s;
#  - `webgit index-pack --stdin` into an empty repository prints
#    "pack\t<hash>" like git and gives the same files;
#  - every object of `git rev-list --objects --all` reads back identically
#    through the pack backend (cat-file --batch, --batch-all-objects
#    --batch-check, and -t, -s of two of them), and ls-tree and
#    rev-parse of a short prefix work on packed objects;
#  - `verify-pack -v` prints git's exact lines and chain histogram;
#  - a thin pack from `git pack-objects --thin --stdout` over a rev range
#    is completed with --fix-thin to the same .pack and .idx as git's;
#  - `unpack-objects` writes loose objects git reads back identically.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fixtures.sh"
require_webgit

# history DIR: 80 commits editing a few files (deep delta chains).
history() (
	cd "$1" || exit 1
	t=1700100000
	for i in $(seq 1 80); do
		t=$((t + 60))
		for f in 1 2 3 4 5; do
			{ seq 1 $((200 + i * 3)); echo "rev $i of file $f"; seq $i 400; } >"hist$f.txt"
		done
		printf 'line %s\n' $(seq 1 $((i % 17 + 1))) >"small$((i % 3)).txt"
		GIT_AUTHOR_DATE="$t +0000" GIT_COMMITTER_DATE="$t +0000" \
			"$GIT" add -A >/dev/null && \
		GIT_AUTHOR_DATE="$t +0000" GIT_COMMITTER_DATE="$t +0000" \
			"$GIT" commit -q -m "rev $i" || exit 1
	done
	"$GIT" tag -a -m "annotated" v-hist HEAD~3
)

for fmt in sha1 sha256; do
	R="$PWD/repo-$fmt"
	if ! { fx_build_repo "$R" "$fmt" && history "$R"; } >build-$fmt.log 2>&1; then
		cat build-$fmt.log >&2
		check "$fmt: build the fixture repository" false
		continue
	fi
	for how in repack aggressive; do
		s="$fmt $how"
		if [ $how = repack ]; then
			"$GIT" -C "$R" repack -adfq --depth=50 --window=50
		else
			"$GIT" -C "$R" gc -q --aggressive --prune=now
		fi
		pack=$(ls "$R"/.git/objects/pack/pack-*.pack | head -1)
		gitdir="$R/.git"
		check "$s: one pack with deltas of depth > 10" \
			sh -c "'$GIT' verify-pack --object-format=$fmt -v '$pack' >verify.out && grep -q 'chain length = 1[0-9]' verify.out"

		# --- index-pack PACK ------------------------------------------------
		mkdir -p "ip-$s" && cp "$pack" "ip-$s/w.pack" && cp "$pack" "ip-$s/g.pack"
		check_same "$s: index-pack PACK prints git's hash" \
			"\"\$WEBGIT\" index-pack --object-format=$fmt 'ip-$s/w.pack'" \
			"\"\$GIT\" index-pack --object-format=$fmt 'ip-$s/g.pack'"
		check "$s: .idx is byte-identical to git's" cmp "ip-$s/w.idx" "ip-$s/g.idx"
		check "$s: .idx is byte-identical to the repository's" cmp "ip-$s/w.idx" "${pack%.pack}.idx"
		check "$s: .rev is byte-identical to git's" cmp "ip-$s/w.rev" "ip-$s/g.rev"
		check "$s: -o writes the index where told" \
			"$WEBGIT" index-pack --object-format=$fmt -o "ip-$s/other.idx" "ip-$s/w.pack"
		check "$s: -o index is the same" cmp "ip-$s/other.idx" "ip-$s/g.idx"
		check_output "$s: no temporary files left" "" find "ip-$s" -name '*tmp_*'

		# --- index-pack --stdin into an empty repository ----------------------
		W="$PWD/stdin-$s" G="$PWD/gstdin-$s"
		"$GIT" init -q --bare --object-format=$fmt "$W"
		"$GIT" init -q --bare --object-format=$fmt "$G"
		check_same "$s: index-pack --stdin output" \
			"\"\$WEBGIT\" -C '$W' index-pack --stdin <'$pack'" \
			"\"\$GIT\" -C '$G' index-pack --stdin <'$pack'"
		check_same "$s: --stdin wrote the same files" \
			"cd '$W/objects/pack' && ls && cat *" "cd '$G/objects/pack' && ls && cat *"
		check_same "$s: index-pack --stdin --keep output" \
			"rm -f '$W'/objects/pack/*; \"\$WEBGIT\" -C '$W' index-pack --stdin --keep=why <'$pack'" \
			"rm -f '$G'/objects/pack/*; \"\$GIT\" -C '$G' index-pack --stdin --keep=why <'$pack'"
		check_same "$s: --keep files" \
			"cd '$W/objects/pack' && ls && cat *.keep" "cd '$G/objects/pack' && ls && cat *.keep"

		# --- reading packed objects -------------------------------------------
		cp -r "$gitdir/refs" "$W/" 2>/dev/null
		cp "$gitdir/packed-refs" "$W/" 2>/dev/null
		cp "$gitdir/HEAD" "$W/HEAD"
		# Every object, in one process each: cat-file --batch prints type,
		# size and bytes (one webgit process per object took minutes).
		if "$GIT" --git-dir="$gitdir" rev-list --objects --all >"objects-$s.tmp"; then
			cut -d' ' -f1 <"objects-$s.tmp" >"objects-$s"
		else
			: >"objects-$s"
		fi
		check "$s: rev-list --objects --all lists many objects" \
			test "$(wc -l <"objects-$s")" -gt 400
		check_same "$s: every object reads back identically (packed, cat-file --batch)" \
			"\"\$WEBGIT\" -C '$W' cat-file --batch <'objects-$s'" \
			"\"\$GIT\" --git-dir='$gitdir' cat-file --batch <'objects-$s'"
		# (W, not the repository: that keeps unreachable loose objects.)
		check_same "$s: cat-file --batch-all-objects --batch-check (packed)" \
			"\"\$WEBGIT\" -C '$W' cat-file --batch-all-objects --batch-check" \
			"\"\$GIT\" --git-dir='$W' cat-file --batch-all-objects --batch-check"
		for id in $(sed -n '1p;$p' "objects-$s"); do
			check_same "$s: cat-file -t, -s of packed ${id:0:12}" \
				"\"\$WEBGIT\" -C '$W' cat-file -t $id && \"\$WEBGIT\" -C '$W' cat-file -s $id" \
				"\"\$GIT\" --git-dir='$gitdir' cat-file -t $id && \"\$GIT\" --git-dir='$gitdir' cat-file -s $id"
		done
		check_same "$s: ls-tree -r of HEAD" "\"\$WEBGIT\" -C '$W' ls-tree -r HEAD" \
			"\"\$GIT\" -C '$R' ls-tree -r HEAD"
		short=$("$GIT" -C "$R" rev-parse --short=7 HEAD~5)
		check_same "$s: rev-parse of a short prefix of a packed commit" \
			"\"\$WEBGIT\" -C '$W' rev-parse $short" "\"\$GIT\" -C '$R' rev-parse $short"
		check_same "$s: cat-file -p HEAD~40:hist3.txt" \
			"\"\$WEBGIT\" -C '$W' cat-file -p HEAD~40:hist3.txt" \
			"\"\$GIT\" -C '$R' cat-file -p HEAD~40:hist3.txt"

		# --- verify-pack --------------------------------------------------
		check_same "$s: verify-pack -v" \
			"\"\$WEBGIT\" verify-pack --object-format=$fmt -v 'ip-$s/w.idx'" \
			"\"\$GIT\" verify-pack --object-format=$fmt -v 'ip-$s/w.idx'"
		check_same "$s: verify-pack -s" \
			"\"\$WEBGIT\" verify-pack --object-format=$fmt -s 'ip-$s/w.pack'" \
			"\"\$GIT\" verify-pack --object-format=$fmt -s 'ip-$s/w.pack'"
		check "$s: verify-pack (quiet) passes" "$WEBGIT" verify-pack --object-format=$fmt "ip-$s/w.idx"
	done

	# --- a thin pack over a rev range, completed from the repository --------
	B="$PWD/thin-base-$fmt"
	"$GIT" init -q --bare --object-format=$fmt "$B"
	"$GIT" -C "$R" push -q "$B" main~30:refs/heads/main
	printf 'main\n^main~30\n' | "$GIT" -C "$R" pack-objects --revs --thin --stdout -q >thin-$fmt.pack
	cp -r "$B" "$B-git"
	cp -r "$B" "$B-probe"
	check "$fmt: the thin pack has REF_DELTAs to missing bases (git refuses it without --fix-thin)" \
		sh -c "! '$GIT' -C '$B-probe' index-pack --stdin <thin-$fmt.pack >/dev/null 2>&1"
	before=$(ls -l "$B/objects/pack")
	check_fail "$fmt: without --fix-thin the thin pack is refused" \
		sh -c "'$WEBGIT' -C '$B' index-pack --stdin <thin-$fmt.pack"
	check_output "$fmt: refusing left objects/pack as it was" "$before" ls -l "$B/objects/pack"
	check_same "$fmt: index-pack --stdin --fix-thin output" \
		"\"\$WEBGIT\" -C '$B' index-pack --stdin --fix-thin <thin-$fmt.pack" \
		"\"\$GIT\" -C '$B-git' index-pack --stdin --fix-thin <thin-$fmt.pack"
	check_same "$fmt: the completed pack, idx and rev are byte-identical" \
		"cd '$B/objects/pack' && ls && cat *" "cd '$B-git/objects/pack' && ls && cat *"
	"$GIT" -C "$B" update-ref refs/heads/main "$("$GIT" -C "$R" rev-parse main)"
	check "$fmt: git fsck accepts the completed repository" "$GIT" -C "$B" fsck --no-progress
	check_same "$fmt: cat-file of a new blob through the completed pack" \
		"\"\$WEBGIT\" -C '$B' cat-file -p main:hist1.txt" "\"\$GIT\" -C '$R' cat-file -p main:hist1.txt"

	# --- unpack-objects -------------------------------------------------------
	U="$PWD/unpack-$fmt"
	"$GIT" init -q --bare --object-format=$fmt "$U"
	pack=$(ls "$R"/.git/objects/pack/pack-*.pack | head -1)
	check "$fmt: unpack-objects -n" sh -c "'$WEBGIT' -C '$U' unpack-objects -n <'$pack'"
	check_output "$fmt: unpack-objects -n wrote nothing" "" find "$U/objects" -mindepth 1 -maxdepth 1 -name '??'
	check "$fmt: unpack-objects" sh -c "'$WEBGIT' -C '$U' unpack-objects -q <'$pack'"
	check_same "$fmt: unpack-objects wrote every object, loose" \
		"\"\$GIT\" -C '$U' cat-file --batch-all-objects --batch-check | sort" \
		"\"\$GIT\" -C '$R' cat-file --batch-all-objects --batch-check | sort"
	check_same "$fmt: the loose objects have git's content" \
		"\"\$GIT\" -C '$U' cat-file --batch-all-objects --batch | md5sum" \
		"\"\$GIT\" -C '$R' cat-file --batch-all-objects --batch | md5sum"
	check_output "$fmt: unpack-objects left no temporary directory" "" \
		find "$U/objects" -mindepth 1 -maxdepth 1 -name '*unpack-*'
	check "$fmt: unpack-objects left no pack" sh -c "[ -z \"\$(ls '$U/objects/pack')\" ]"
done
