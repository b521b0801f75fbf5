#!/usr/bin/env bash
# t9-refs-files: the files ref backend against git 2.53, in both object
# formats.
#
#   - the same sequence of update-ref / --stdin transactions / symbolic-ref /
#     deletes run by git in one repository and by webgit in another leaves
#     identical refs and reflogs: git show-ref, for-each-ref, reflog and
#     the logs/ files agree, and git refs verify / fsck are clean;
#   - webgit reads git's refs: show-ref (-d, --heads, --tags, --verify),
#     for-each-ref (default and a format with many atoms, --sort, --count,
#     patterns), reflog, symbolic-ref, rev-parse, loose and packed;
#   - pack-refs --all by webgit gives git's packed-refs byte for byte;
#     deleting a packed ref rewrites packed-refs;
#   - refusals with git's messages: a pre-existing .lock, wrong old value,
#     create of an existing ref, D/F conflicts, bad names; nothing changes;
#   - a 100k-update transaction applies entirely, and with one wrong old
#     value applies not at all and leaves no .lock behind.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT

# run_both CMDS: run the shell commands in rg with git and in rw with webgit
# ($X is the tool).
# Each run is an assertion: a command that fails with git or with webgit
# fails, rather than leaving the comparisons that follow to pass on two
# repositories where nothing happened.
in_repo() { cd "$1" && X=$2 && eval "$3"; }
run_both() {
	check "$fmt: with git: $1" in_repo rg "$GIT" "$1"
	check "$fmt: with webgit: $1" in_repo rw "$W" "$1"
}

for fmt in sha1 sha256; do
	rm -rf rg rw
	"$GIT" init -q --object-format=$fmt rg
	"$GIT" init -q --object-format=$fmt rw
	for r in rg rw; do
		(cd $r && "$GIT" commit -q --allow-empty -m one &&
		 "$GIT" commit -q --allow-empty -m two &&
		 "$GIT" tag -a -m "tag message" v1 && "$GIT" tag light HEAD~1)
	done
	C1=$(cd rg && "$GIT" rev-parse HEAD~1)
	C2=$(cd rg && "$GIT" rev-parse HEAD)
	Z=$(printf '%0*d' ${#C1} 0)

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
	run_both '$X update-ref --no-deref -m detach HEAD '$C2
	run_both '$X update-ref -d refs/heads/s1 '$C1

	for cmd in "show-ref" "show-ref -d" "for-each-ref" "reflog" "reflog show refs/heads/feature" \
		   "reflog main" "rev-parse HEAD feature refs/remotes/origin/HEAD origin"; do
		check_same "$fmt: git reads webgit's refs: git $cmd" \
			"cd rg && \"\$GIT\" $cmd" "cd rw && \"\$GIT\" $cmd"
	done
	check_same "$fmt: same reflog files" \
		'cd rg/.git && find logs -type f | sort | xargs cat' \
		'cd rw/.git && find logs -type f | sort | xargs cat'
	check_same "$fmt: same loose ref files" \
		'cd rg/.git && find refs HEAD -type f | sort | xargs head -v' \
		'cd rw/.git && find refs HEAD -type f | sort | xargs head -v'
	check "$fmt: git refs verify is clean" sh -c 'cd rw && "$GIT" refs verify'
	check "$fmt: git fsck is clean" sh -c 'cd rw && "$GIT" fsck --no-progress'
	check "$fmt: webgit refs verify is clean" sh -c 'cd rg && "$WEBGIT" refs verify'

	# webgit reads git's refs, loose and then packed.
	for stage in loose packed; do
		[ $stage = packed ] && (cd rg && "$GIT" pack-refs --all)
		for cmd in "show-ref" "show-ref -d" "show-ref --heads" "show-ref --tags -s" \
			   "show-ref main v1" "show-ref --verify refs/heads/feature refs/tags/v1" \
			   "for-each-ref" "for-each-ref refs/heads" "for-each-ref --count=2 --sort=-refname" \
			   "for-each-ref --sort=objectname refs/tags/" "reflog" "reflog feature" \
			   "symbolic-ref refs/remotes/origin/HEAD" "symbolic-ref --short refs/remotes/origin/HEAD" \
			   "rev-parse feature v1 light refs/heads/main origin"; do
			check_same "$fmt/$stage: webgit $cmd" \
				"cd rg && \"\$GIT\" $cmd" "cd rg && \"\$WEBGIT\" $cmd"
		done
		fmtstr='%(refname)|%(refname:short)|%(objectname)|%(objectname:short)|%(objecttype)|%(object)|%(type)|%(*objectname)|%(*objecttype)|%(symref)|%(HEAD)|%(subject)|%(contents:subject)|%(authorname)|%(authoremail)|%(authordate:unix)|%(committerdate)|%(creatordate:iso)|%(upstream)'
		check_same "$fmt/$stage: for-each-ref --format with common atoms" \
			"cd rg && \"\$GIT\" for-each-ref --format='$fmtstr'" \
			"cd rg && \"\$WEBGIT\" for-each-ref --format='$fmtstr'"
	done

	# pack-refs by webgit: byte-identical packed-refs, loose refs pruned.
	rm -rf pg pw && cp -r rw pg && cp -r rw pw
	(cd pg && "$GIT" pack-refs --all)
	check "$fmt: webgit pack-refs --all" sh -c 'cd pw && "$WEBGIT" pack-refs --all'
	check_same "$fmt: same packed-refs as git pack-refs --all" 'cat pg/.git/packed-refs' 'cat pw/.git/packed-refs'
	check_same "$fmt: same loose files left" 'cd pg/.git && find refs | sort' 'cd pw/.git && find refs | sort'
	check "$fmt: webgit deletes a packed ref" sh -c 'cd pw && "$WEBGIT" update-ref -d refs/tags/v1'
	(cd pg && "$GIT" update-ref -d refs/tags/v1)
	check_same "$fmt: packed-refs rewritten as git does" 'cat pg/.git/packed-refs' 'cat pw/.git/packed-refs'
	check_same "$fmt: git show-ref after webgit's delete" 'cd pg && "$GIT" show-ref -d' 'cd pw && "$GIT" show-ref -d'

	# Refusals: git's message, nothing changed.
	snap() (
		set -o pipefail
		cd "$1/.git" && { find refs logs -type f | sort | xargs cat &&
			if [ -e packed-refs ]; then cat packed-refs; fi; } | sha1sum
	)
	check "$fmt: snapshot of rw" snap rw
	before=$(cat "$LAST_OUT")
	touch rw/.git/refs/heads/feature.lock
	check_fail "$fmt: update-ref refused by a pre-existing .lock" sh -c 'cd rw && "$WEBGIT" update-ref refs/heads/feature '$C2
	cp "$LAST_ERR" lock.err
	check "$fmt: lock message names the lock file" grep -q "Unable to create '.*refs/heads/feature.lock': File exists" lock.err
	# cmp_err ARGS...: refused by both, with the same stderr.
	cmp_err() {
		check_same "$fmt: git's message for $*" \
			"cd rw && { \"\$GIT\" $* 2>&1 >/dev/null && echo accepted || echo refused; }" \
			"cd rw && { \"\$WEBGIT\" $* 2>&1 >/dev/null && echo accepted || echo refused; }"
	}
	cmp_err update-ref refs/heads/feature $C2
	rm rw/.git/refs/heads/feature.lock
	cmp_err update-ref refs/heads/feature $C2 $C2
	cmp_err update-ref refs/heads/nope $C2 $C1
	cmp_err update-ref refs/heads/main/sub $C2
	cmp_err update-ref refs/heads $C2
	cmp_err update-ref 'refs/heads/bad..name' $C2
	printf 'create refs/heads/main %s\n' $C1 >in.txt
	check_same "$fmt: create of an existing ref: git's message" \
		"cd rw && { \"\$GIT\" update-ref --stdin <../in.txt 2>&1 >/dev/null && echo accepted || echo refused; }" \
		"cd rw && { \"\$WEBGIT\" update-ref --stdin <../in.txt 2>&1 >/dev/null && echo accepted || echo refused; }"
	printf 'update refs/heads/q %s\nupdate refs/heads/q %s\n' $C1 $C1 >in.txt
	check_same "$fmt: duplicate update: git's message" \
		"cd rw && { \"\$GIT\" update-ref --stdin <../in.txt 2>&1 >/dev/null && echo accepted || echo refused; }" \
		"cd rw && { \"\$WEBGIT\" update-ref --stdin <../in.txt 2>&1 >/dev/null && echo accepted || echo refused; }"
	printf 'update refs/heads/r %s\nupdate refs/heads/r/s %s\n' $C1 $C1 >in.txt
	check_same "$fmt: D/F in one transaction: git's message" \
		"cd rw && { \"\$GIT\" update-ref --stdin <../in.txt 2>&1 >/dev/null && echo accepted || echo refused; }" \
		"cd rw && { \"\$WEBGIT\" update-ref --stdin <../in.txt 2>&1 >/dev/null && echo accepted || echo refused; }"
	check_output "$fmt: refusals changed nothing" "$before" snap rw
	check_output "$fmt: no .lock left" "" sh -c 'find rw/.git -name "*.lock"'

	# 100k updates, all or nothing (once: it is disk-bound, not hash-bound).
	[ $fmt = sha1 ] || continue
	big=$PWD/big.txt
	awk -v c=$C1 'BEGIN { for (i = 0; i < 100000; i++) printf "create refs/big/r%06d %s\n", i, c }' >"$big"
	check "$fmt: 100k-ref transaction" sh -c 'cd rw && "$WEBGIT" update-ref --stdin <"$1"' sh "$big"
	check_output "$fmt: git sees 100000 refs" 100000 sh -c 'cd rw && "$GIT" for-each-ref refs/big/ | wc -l'
	awk -v c=$C1 -v d=$C2 'BEGIN { for (i = 0; i < 100000; i++) printf "update refs/big/r%06d %s %s\n", i, d, (i == 77777 ? d : c) }' >"$big"
	big_refs() { cd rw/.git && find refs/big -type f | sort | xargs cat | sha1sum; }
	check "$fmt: snapshot of refs/big" big_refs
	before=$(cat "$LAST_OUT")
	check_fail "$fmt: 100k updates with one wrong old value fail" sh -c 'cd rw && "$WEBGIT" update-ref --stdin <"$1"' sh "$big"
	cp "$LAST_ERR" big.err
	check "$fmt: git's message for the wrong old value" grep -q "cannot lock ref 'refs/big/r077777': is at $C1 but expected $C2" big.err
	check_output "$fmt: nothing moved" "$before" big_refs
	check_output "$fmt: no .lock left after the failed transaction" "" sh -c 'find rw/.git -name "*.lock"'
	check "$fmt: git refs verify after 100k" sh -c 'cd rw && "$GIT" refs verify'
	awk 'BEGIN { for (i = 0; i < 100000; i++) printf "delete refs/big/r%06d\n", i }' >"$big"
	check "$fmt: 100k deletes" sh -c 'cd rw && "$WEBGIT" update-ref --stdin <"$1"' sh "$big"
	check_output "$fmt: refs/big is gone" "" sh -c 'cd rw && "$GIT" for-each-ref refs/big/'
done
