#!/usr/bin/env bash
# t12-refs-reftable: the reftable ref backend against git 2.53, in both object
# formats.
#
#   - webgit init makes a reftable repository by default, laid out as git's;
#   - the same sequence of update-ref / --stdin transactions / symbolic-ref /
#     deletes run by git in one reftable repository and by webgit in another
#     leaves identical refs and reflogs (git show-ref, for-each-ref, reflog),
#     and git refs verify / fsck are clean, also after many transactions
#     (auto-compaction) and after webgit's full compaction;
#   - webgit reads git's refs, before and after git's own compaction;
#   - git and webgit writing the same repository in turn;
#   - refusals with git's messages (wrong old value, D/F, held lock); nothing
#     changes and no lock is left;
#   - a 100k-update transaction applies entirely, and with one wrong old
#     value not at all;
#   - corrupt tables (footer CRC, truncation, a restart count or block length
#     pointing outside the block, tables.list naming a missing table) give a
#     clear error, writes are refused, and no other table is touched;
#   - concurrent writers either succeed or are refused with a lock error; the
#     stack stays valid.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT

# Each run is an assertion: a command that fails with git or with webgit
# fails, rather than leaving the comparisons that follow to pass on two
# repositories where nothing happened.
in_repo() { cd "$1" && X=$2 && eval "$3"; }
run_both() {
	check "$fmt: with git: $1" in_repo rg "$GIT" "$1"
	check "$fmt: with webgit: $1" in_repo rw "$W" "$1"
}

# Everything that says what a reftable repository holds, as git shows it.
state() {
	(cd "$1" && "$GIT" show-ref -d --head && "$GIT" for-each-ref \
		--format='%(refname) %(objectname) %(*objectname) %(symref)' &&
	 for r in $("$GIT" for-each-ref --format='%(refname)') HEAD; do
		"$GIT" reflog exists "$r" && { echo "log $r"; "$GIT" reflog show --format='%H %gd %gs %gn %ge %gD' "$r"; }
	 done) 2>&1
}

for fmt in sha1 sha256; do
	rm -rf rg rw
	"$GIT" init -q --object-format=$fmt --ref-format=reftable rg
	check "$fmt: webgit init" "$W" init -q --object-format=$fmt rw
	check_output "$fmt: webgit init defaults to reftable" reftable \
		"$GIT" -C rw rev-parse --show-ref-format
	check_same "$fmt: the same layout as git init --ref-format=reftable" \
		'cd rg/.git && find HEAD refs reftable -name "*.ref" -prune -o -print | sort && cat HEAD refs/heads && wc -l <reftable/tables.list' \
		'cd rw/.git && find HEAD refs reftable -name "*.ref" -prune -o -print | sort && cat HEAD refs/heads && wc -l <reftable/tables.list'
	check_same "$fmt: the same unborn HEAD" 'cd rg && "$GIT" symbolic-ref HEAD' 'cd rw && "$GIT" symbolic-ref HEAD'
	for r in rg rw; do
		(cd $r && "$GIT" commit -q --allow-empty -m one &&
		 "$GIT" commit -q --allow-empty -m two &&
		 "$GIT" tag -a -m "tag message" v1 && "$GIT" tag light HEAD~1)
	done
	C1=$(cd rg && "$GIT" rev-parse HEAD~1)
	C2=$(cd rg && "$GIT" rev-parse HEAD)

	run_both '$X update-ref -m "first   msg" refs/heads/feature '$C1
	run_both '$X update-ref refs/heads/feature '$C2' '$C1
	run_both '$X update-ref refs/heads/a/b '$C1
	run_both 'printf "create refs/heads/s1 %s\nupdate refs/heads/main %s %s\ndelete refs/heads/a/b\nverify refs/heads/feature %s\n" '$C1' '$C1' '$C2' '$C2' | $X update-ref --stdin -m stdinmsg'
	run_both '$X update-ref refs/heads/x '$C2' && $X update-ref -d refs/heads/x'
	run_both '$X update-ref --create-reflog refs/tags/logged '$C1
	run_both '$X update-ref refs/remotes/origin/main '$C1' && $X symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main'
	run_both '$X symbolic-ref HEAD refs/heads/feature && $X update-ref -m viahead HEAD '$C1
	run_both 'printf "start\nupdate refs/heads/t1 %s\nprepare\ncommit\nstart\ncreate refs/heads/t2 %s\nabort\n" '$C1' '$C1' | $X update-ref --stdin'
	run_both 'printf "update refs/heads/z1\0%s\0\0create refs/heads/z2\0%s\0" '$C2' '$C1' | $X update-ref -z --stdin'
	run_both '$X update-ref ORIG_HEAD '$C1
	run_both '$X update-ref --no-deref -m detach HEAD '$C2
	run_both '$X update-ref -d refs/heads/s1 '$C1
	# Many small transactions: the stack auto-compacts as it grows.
	run_both 'for i in $(seq 1 40); do $X update-ref -m "loop $i" refs/heads/loop$((i % 7)) $( [ $((i % 2)) = 0 ] && echo '$C1' || echo '$C2') || exit; done'

	check_same "$fmt: git reads webgit's refs and reflogs as its own" "state rg" "state rw"
	for cmd in "show-ref" "show-ref -d" "for-each-ref" "reflog" "reflog show refs/heads/feature" \
		   "reflog main" "rev-parse HEAD feature refs/remotes/origin/HEAD origin ORIG_HEAD"; do
		check_same "$fmt: git $cmd" "cd rg && \"\$GIT\" $cmd" "cd rw && \"\$GIT\" $cmd"
	done
	check "$fmt: git refs verify is clean" sh -c 'cd rw && "$GIT" refs verify'
	check "$fmt: git fsck is clean" sh -c 'cd rw && "$GIT" fsck --no-progress'
	check "$fmt: the stack compacted itself (fewer tables than writes)" \
		sh -c '[ $(wc -l <rw/.git/reftable/tables.list) -lt 20 ]'
	check "$fmt: webgit refs verify is clean on git's stack" sh -c 'cd rg && "$WEBGIT" refs verify'

	# webgit reads git's refs, before and after git's own compaction.
	for stage in stacked compacted; do
		[ $stage = compacted ] && (cd rg && "$GIT" pack-refs --all)
		[ $stage = compacted ] && check_output "$fmt: git compacted to one table" 1 \
			sh -c 'wc -l <rg/.git/reftable/tables.list'
		for cmd in "show-ref" "show-ref -d" "show-ref --heads" "show-ref --tags -s" \
			   "show-ref main v1" "show-ref --verify refs/heads/feature refs/tags/v1" \
			   "for-each-ref" "for-each-ref refs/heads" "for-each-ref --count=2 --sort=-refname" \
			   "reflog" "reflog feature" "reflog refs/heads/loop3" \
			   "symbolic-ref refs/remotes/origin/HEAD" \
			   "rev-parse feature v1 light refs/heads/main origin ORIG_HEAD"; do
			check_same "$fmt/$stage: webgit $cmd" \
				"cd rg && \"\$GIT\" $cmd" "cd rg && \"\$WEBGIT\" $cmd"
		done
		check_same "$fmt/$stage: for-each-ref peeled and symrefs" \
			"cd rg && \"\$GIT\" for-each-ref --format='%(refname) %(objectname) %(*objectname) %(symref)'" \
			"cd rg && \"\$WEBGIT\" for-each-ref --format='%(refname) %(objectname) %(*objectname) %(symref)'"
	done

	# webgit's full compaction: one table, nothing lost.
	before=$(state rw)
	check "$fmt: webgit pack-refs" sh -c 'cd rw && "$WEBGIT" pack-refs --all'
	check_output "$fmt: one table after webgit's compaction" 1 sh -c 'wc -l <rw/.git/reftable/tables.list'
	check_output "$fmt: compaction kept every ref and reflog" "$before" state rw
	check "$fmt: git refs verify after webgit's compaction" sh -c 'cd rw && "$GIT" refs verify'

	# git and webgit writing the same stack in turn.
	(cd rw && "$GIT" update-ref -m by-git refs/heads/mixed $C1)
	check "$fmt: webgit updates after git" sh -c 'cd rw && "$WEBGIT" update-ref -m by-webgit refs/heads/mixed '$C2' '$C1
	(cd rw && "$GIT" update-ref -m by-git-again refs/heads/mixed $C1 $C2)
	check_output "$fmt: the interleaved reflog" "mixed@{0} by-git-again
mixed@{1} by-webgit
mixed@{2} by-git" sh -c 'cd rw && "$GIT" reflog show --format="%gd %gs" refs/heads/mixed'
	check_same "$fmt: webgit reads the interleaved reflog" \
		'cd rw && "$GIT" reflog refs/heads/mixed' 'cd rw && "$WEBGIT" reflog refs/heads/mixed'

	# Refusals: git's message, nothing changed, no lock left.
	snap() { (cd "$1/.git/reftable" && cat tables.list && cat $(cat tables.list)) | sha1sum; }
	before=$(snap rw)
	cmp_err() { # the same stderr as git's
		(cd rw && "$GIT" "$@") >/dev/null 2>git.err
		(cd rw && "$WEBGIT" "$@") >/dev/null 2>wg.err
		check_same "$fmt: git's message for $*" "cat git.err" "cat wg.err"
	}
	cmp_err update-ref refs/heads/feature $C2 $C2
	cmp_err update-ref refs/heads/nope $C2 $C1
	cmp_err update-ref refs/heads/main/sub $C2
	cmp_err update-ref refs/heads $C2
	cmp_err update-ref 'refs/heads/bad..name' $C2
	printf 'create refs/heads/main %s\n' $C1 >in.txt
	(cd rw && "$GIT" update-ref --stdin <../in.txt) 2>git.err; (cd rw && "$WEBGIT" update-ref --stdin <../in.txt) 2>wg.err
	check_same "$fmt: create of an existing ref: git's message" "cat git.err" "cat wg.err"
	printf 'update refs/heads/r %s\nupdate refs/heads/r/s %s\n' $C1 $C1 >in.txt
	(cd rw && "$GIT" update-ref --stdin <../in.txt) 2>git.err; (cd rw && "$WEBGIT" update-ref --stdin <../in.txt) 2>wg.err
	check_same "$fmt: D/F in one transaction: git's message" "cat git.err" "cat wg.err"
	touch rw/.git/reftable/tables.list.lock
	check_fail "$fmt: a held tables.list.lock refuses the update" \
		sh -c 'cd rw && "$WEBGIT" update-ref refs/heads/feature '$C1
	cp "$LAST_ERR" last.err
	check "$fmt: ...with a lock error naming the lock" grep -q "cannot lock references.*tables.list.lock" last.err
	check "$fmt: ...while reading still works" sh -c 'cd rw && "$WEBGIT" show-ref refs/heads/feature'
	rm rw/.git/reftable/tables.list.lock
	check_output "$fmt: refusals changed nothing" "$before" snap rw
	check_output "$fmt: no lock or temporary file left" "" bash -c 'ls rw/.git/reftable >ls.out &&
		{ grep -v -e "\.ref\$" -e "^tables\.list\$" ls.out; [ $? -eq 1 ]; }'

	[ $fmt = sha1 ] || continue

	# 100k updates, all or nothing.
	big=$PWD/big.txt
	awk -v c=$C1 'BEGIN { for (i = 0; i < 100000; i++) printf "create refs/big/r%06d %s\n", i, c }' >"$big"
	check "$fmt: 100k-ref transaction" sh -c 'cd rw && "$WEBGIT" update-ref --stdin <"$1"' sh "$big"
	check_output "$fmt: git sees 100000 refs" 100000 sh -c 'cd rw && "$GIT" for-each-ref refs/big/ | wc -l'
	awk -v c=$C1 -v d=$C2 'BEGIN { for (i = 0; i < 100000; i++) printf "update refs/big/r%06d %s %s\n", i, d, (i == 77777 ? d : c) }' >"$big"
	before=$(snap rw)
	check_fail "$fmt: 100k updates with one wrong old value fail" sh -c 'cd rw && "$WEBGIT" update-ref --stdin <"$1"' sh "$big"
	cp "$LAST_ERR" last.err
	check "$fmt: git's message for the wrong old value" grep -q "cannot lock ref 'refs/big/r077777': is at $C1 but expected $C2" last.err
	check_output "$fmt: nothing moved" "$before" snap rw
	awk 'BEGIN { for (i = 0; i < 100000; i += 2) printf "create refs/big/r%06d/sub %s\n", i, "'$C1'" }' >"$big"
	check_fail "$fmt: 50k creates under existing refs fail (D/F)" sh -c 'cd rw && "$WEBGIT" update-ref --stdin <"$1"' sh "$big"
	cp "$LAST_ERR" last.err
	check "$fmt: ...with git's D/F message" grep -q "'refs/big/r000000' exists; cannot create 'refs/big/r000000/sub'" last.err
	check_output "$fmt: nothing moved either" "$before" snap rw
	check "$fmt: git refs verify after 100k" sh -c 'cd rw && "$GIT" refs verify'
	awk 'BEGIN { for (i = 0; i < 100000; i++) printf "delete refs/big/r%06d\n", i }' >"$big"
	check "$fmt: 100k deletes" sh -c 'cd rw && "$WEBGIT" update-ref --stdin <"$1"' sh "$big"
	check_output "$fmt: refs/big is gone" "" sh -c 'cd rw && "$GIT" for-each-ref refs/big/'
	check_same "$fmt: the other refs are untouched" "state rg | grep -v big" "state rw | grep -v -e big -e mixed"

	# Corrupt tables: a clear error, no write, no other table touched.
	(cd rw && "$W" update-ref refs/heads/newest $C1)
	newest=$(tail -n 1 rw/.git/reftable/tables.list)
	size=$(stat -c %s "rw/.git/reftable/$newest")
	corrupt() { # NAME CMD: apply CMD to a copy's newest table, then check
		local name=$1
		rm -rf rc && cp -r rw rc
		(cd rc/.git/reftable && eval "$2")
		local others
		others=$(cd rc/.git/reftable && grep -v "$newest" tables.list | xargs cat | sha1sum; cat tables.list)
		check_fail "$name: webgit show-ref refuses" sh -c 'cd rc && "$WEBGIT" show-ref'
		cp "$LAST_ERR" last.err
		check "$name: the error names the table" grep -q "$3" last.err
		check_fail "$name: webgit update-ref refuses" sh -c 'cd rc && "$WEBGIT" update-ref refs/heads/after '$C2
		check_output "$name: tables.list and the other tables are untouched" "$others" \
			sh -c 'cd rc/.git/reftable && grep -v "'$newest'" tables.list | xargs cat | sha1sum; cat tables.list'
	}
	flip() { # FILE OFFSET: invert one byte
		local b
		b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
		printf "$(printf '\\%03o' $((255 - b)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
	}
	corrupt "footer CRC" "flip $newest $((size - 2))" "$newest"
	corrupt "truncated table" "truncate -s $((size / 2)) $newest" "$newest"
	corrupt "missing table" "rm $newest" "$newest"
	# The first block starts after the file header (24 bytes for version 1):
	# 'r', then its 24-bit length counted from the start of the file.
	blen=$(od -An -tu1 -j 25 -N3 "rw/.git/reftable/$newest" | awk '{ print $1 * 65536 + $2 * 256 + $3 }')
	corrupt "restart count beyond the block" \
		"printf '\\377\\377' | dd of=$newest bs=1 seek=$((blen - 2)) conv=notrunc 2>/dev/null" "$newest"
	corrupt "block length beyond the file" \
		"printf '\\377\\377\\377' | dd of=$newest bs=1 seek=25 conv=notrunc 2>/dev/null" "$newest"

	# Concurrent writers: each either lands or is refused with a lock error.
	for k in 1 2 3 4; do
		(cd rw && for i in $(seq 1 25); do
			if "$W" update-ref refs/heads/conc$k $( [ $((i % 2)) = 0 ] && echo $C1 || echo $C2) 2>>../conc$k.err; then
				echo ok >>../conc$k.ok
			fi
		done) &
	done
	wait
	check_output "concurrent writers: every refusal is a lock error" "" \
		bash -c 'cat conc*.err >conc.err && { grep -v "cannot lock references" conc.err; [ $? -eq 1 ]; }'
	check "concurrent writers: most updates landed" sh -c '[ $(cat conc*.ok | wc -l) -ge 50 ]'
	check "concurrent writers: git refs verify is clean" sh -c 'cd rw && "$GIT" refs verify'
	check_output "concurrent writers: every ref exists" 4 sh -c 'cd rw && "$GIT" for-each-ref "refs/heads/conc*" | wc -l'
	check "concurrent writers: webgit refs verify is clean" sh -c 'cd rw && "$WEBGIT" refs verify'
done
