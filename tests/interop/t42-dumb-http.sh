#!/usr/bin/env bash
# t42-dumb-http: webgit clone and fetch from a repository published on a
# static web host (tests/server/static-server.mjs: files only, no Git
# server), as git's dumb HTTP client does (core/remote/dumb_fetch.c).
#
# The published repository has two packs, loose objects, annotated and
# lightweight tags and two branches (`git update-server-info` run). For
# each object format:
#   - webgit clone, --bare, --mirror, -b side, --no-checkout: the objects
#     (cat-file --batch-all-objects), for-each-ref, HEAD, the config's
#     remote and branch sections and the reflogs are git's dumb clone's;
#     git fsck --strict is clean; the checkout is git's;
#   - commits added on the host (loose objects and a new pack): webgit
#     fetch brings what git fetch brings (refs, objects, FETCH_HEAD-free
#     state), tag following included;
#   - the bytes and requests of the clone against git's (noted).
# Refused, nothing written (no directory, no ref moved, no object left):
#   --depth (git's message), a loose object whose content hashes to
#   another id, a truncated pack, an info/refs naming a missing object, a
#   pack name with "../" in objects/info/packs. A host without HEAD:
#   the refs git's clone makes of it. --filter: git's config, all objects.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
S=$WG_SRC/tests/server
ROOT=$PWD/www
mkdir -p "$ROOT"
export GIT_TERMINAL_PROMPT=0
export GIT_CONFIG_NOSYSTEM=1

. "$(dirname "$0")/static_lib.sh"
start_static static
U=$url
LOG=$log


gd() { if [ -d "$1/.git" ]; then echo "$1/.git"; else echo "$1"; fi; }
objects() { "$GIT" -C "$1" cat-file --batch-all-objects --batch-check | LC_ALL=C sort; }
refs() { "$GIT" -C "$1" for-each-ref --format='%(refname) %(objectname) %(symref)'; }
head_of() { "$GIT" -C "$1" symbolic-ref -q HEAD || "$GIT" -C "$1" rev-parse HEAD; }
remote_config() { "$GIT" -C "$1" config --get-regexp '^(remote|branch)\.'; }
reflogs() {
	local r
	for r in HEAD $("$GIT" -C "$1" for-each-ref --format='%(refname)'); do
		"$GIT" -C "$1" reflog exists "$r" && echo "$r: $("$GIT" -C "$1" reflog show --format='%H %gs' "$r" -- 2>&1)"
	done
	return 0
}
# nothing left: the directory does not exist
gone() { [ ! -e "$1" ]; }

commit() {   # commit REPO FILE TEXT
	echo "$3" >"$1/$2" && "$GIT" -C "$1" add "$2" &&
	"$GIT" -C "$1" -c user.name=T -c user.email=t@x commit -qm "$2: $3"
}

# make_repo FORMAT: the work repository $ROOT/FORMAT.work and its published
# bare copy $ROOT/FORMAT/repo.git: a first pack, a second (incremental)
# pack, loose objects on top, tags.
make_repo() {
	local fmt=$1 w=$ROOT/$1.work b=$ROOT/$1/repo.git
	"$GIT" init -q -b main --object-format="$fmt" "$w" &&
	mkdir -p "$w/d/e" && commit "$w" d/e/a.txt one && commit "$w" b.txt two &&
	"$GIT" -C "$w" -c user.name=T -c user.email=t@x tag -a -m "v1 tag" v1 &&
	mkdir -p "$ROOT/$fmt" && "$GIT" clone -q --bare --no-local "$w" "$b" &&
	commit "$w" c.txt three && "$GIT" -C "$w" branch side &&
	commit "$w" d/f.txt four && "$GIT" -C "$w" push -q "$b" main side &&
	"$GIT" -C "$b" repack -q -d &&
	commit "$w" g.txt five && "$GIT" -C "$w" tag light &&
	"$GIT" -C "$w" -c user.name=T -c user.email=t@x tag -a -m "v2 tag" v2 &&
	"$GIT" -C "$w" push -q "$b" main side --tags &&
	"$GIT" -C "$b" update-server-info
}

# compare DESC GIT_DIR WEBGIT_DIR: everything a clone writes
compare() {
	local s=$1 g=$2 w=$3
	check_same "$s: objects" "objects '$g'" "objects '$w'"
	check_same "$s: for-each-ref" "refs '$g'" "refs '$w'"
	check_same "$s: HEAD" "head_of '$g'" "head_of '$w'"
	check_same "$s: remote and branch config" "remote_config '$g'" "remote_config '$w'"
	check_same "$s: reflogs" "reflogs '$g'" "reflogs '$w'"
	check "$s: git fsck --strict" "$GIT" -C "$w" fsck --strict --no-progress
}

for fmt in sha1 sha256; do
	check "$fmt: publish a repository (two packs, loose objects, tags)" make_repo "$fmt"
	B=$ROOT/$fmt/repo.git
	u=$U/$fmt/repo.git
	check_output "$fmt: the host has two packs" 2 sh -c "ls '$B'/objects/pack/*.pack | wc -l"
	check "$fmt: ... and loose objects" sh -c "ls -d '$B'/objects/?? >/dev/null"
	T=$PWD/$fmt
	mkdir -p "$T"

	for opt in "" --symref --tags; do
		check_same "$fmt: ls-remote $opt" "\"\$GIT\" ls-remote $opt '$u'" "\"\$W\" ls-remote $opt '$u'"
	done

	: >"$LOG"
	"$GIT" clone -q "$u" "$T/g" 2>/dev/null
	gbytes=$(sum_bytes "$LOG") greq=$(count_lines "$LOG")
	: >"$LOG"
	check "$fmt: webgit clone" "$W" clone -q "$u" "$T/w"
	wbytes=$(sum_bytes "$LOG") wreq=$(count_lines "$LOG")
	note "$fmt: clone: git $gbytes bytes in $greq requests; webgit $wbytes bytes in $wreq requests"
	compare "$fmt: clone" "$T/g" "$T/w"
	check_same "$fmt: clone: the checkout" "tree_listing '$T/g'" "tree_listing '$T/w'"
	check_output "$fmt: clone: nothing to commit" "" "$GIT" -C "$T/w" status --porcelain

	for opt in --bare --mirror "-b side" --no-checkout; do
		n=$(echo "$opt" | tr -dc a-z)
		# shellcheck disable=SC2086 # the options are words
		"$GIT" clone -q $opt "$u" "$T/g-$n" 2>/dev/null
		# shellcheck disable=SC2086
		check "$fmt: webgit clone $opt" "$W" clone -q $opt "$u" "$T/w-$n"
		compare "$fmt: clone $opt" "$T/g-$n" "$T/w-$n"
	done

	# --- fetch: new loose objects and a new pack on the host -----------------------
	w=$ROOT/$fmt.work
	commit "$w" h.txt six && "$GIT" -C "$w" push -q "$B" main &&
		"$GIT" -C "$B" repack -q -d   # a third pack, on its own
	commit "$w" i.txt seven && commit "$w" d/e/j.txt eight &&
		"$GIT" -C "$w" checkout -q side && commit "$w" k.txt nine &&
		"$GIT" -C "$w" -c user.name=T -c user.email=t@x tag -a -m "v3 tag" v3 &&
		"$GIT" -C "$w" checkout -q main &&
		"$GIT" -C "$w" push -q "$B" main side v3 && "$GIT" -C "$B" update-server-info
	"$GIT" -C "$T/g" fetch -q 2>/dev/null
	check "$fmt: webgit fetch" "$W" -C "$T/w" fetch -q
	check_same "$fmt: fetch: objects" "objects '$T/g'" "objects '$T/w'"
	check_same "$fmt: fetch: for-each-ref" "refs '$T/g'" "refs '$T/w'"
	check "$fmt: fetch: git fsck --strict" "$GIT" -C "$T/w" fsck --strict --no-progress
	"$GIT" -C "$T/g-mirror" fetch -q 2>/dev/null
	check "$fmt: webgit fetch (mirror)" "$W" -C "$T/w-mirror" fetch -q
	check_same "$fmt: fetch (mirror): for-each-ref" "refs '$T/g-mirror'" "refs '$T/w-mirror'"
	check_same "$fmt: fetch (mirror): objects" "objects '$T/g-mirror'" "objects '$T/w-mirror'"
	check "$fmt: fetch (mirror): git fsck --strict" "$GIT" -C "$T/w-mirror" fsck --strict
	check_output "$fmt: fetch again: nothing to do" "" "$W" -C "$T/w" fetch -q
	# the host repacks everything into one pack: the walk stops at what
	# our refs name though the pack holds it all
	commit "$w" l.txt ten && "$GIT" -C "$w" push -q "$B" main &&
		"$GIT" -C "$B" repack -adq && "$GIT" -C "$B" update-server-info
	"$GIT" -C "$T/g" fetch -q 2>/dev/null
	check "$fmt: webgit fetch from one whole pack" "$W" -C "$T/w" fetch -q
	check_same "$fmt: ... the refs of git's fetch" "refs '$T/g'" "refs '$T/w'"
	check_same "$fmt: ... its objects" "objects '$T/g'" "objects '$T/w'"
	check "$fmt: ... git fsck --strict" "$GIT" -C "$T/w" fsck --strict --no-progress
done

# --- what the dumb protocol cannot do, and hostile hosts --------------------------------
T=$PWD/bad
mkdir -p "$T"
B=$ROOT/sha1/repo.git
u=$U/sha1/repo.git
check_fail "--depth 1 fails" "$W" clone --depth 1 "$u" "$T/shallow"
says "... with git's message" "^fatal: dumb http transport does not support shallow capabilities$"
check "... and nothing is written" gone "$T/shallow"

"$GIT" clone -q --filter=blob:none "$u" "$T/g-filter" 2>/dev/null
check "--filter=blob:none" "$W" clone -q --filter=blob:none "$u" "$T/w-filter"
check_same "--filter: config as git's" "remote_config '$T/g-filter'" "remote_config '$T/w-filter'"
check_same "--filter: every object, as git's" "objects '$T/g-filter'" "objects '$T/w-filter'"

# copy_host NAME: a copy of the sha1 host to break
copy_host() { rm -rf "$ROOT/$1" && mkdir -p "$ROOT/$1" && cp -a "$B" "$ROOT/$1/repo.git"; }

# a loose object whose content is another object's: main's tree holds
# main's commit (the commit arrives and is stored before the tree fails)
copy_host badhash
H=$ROOT/badhash/repo.git
commit "$ROOT/sha1.work" m.txt eleven && "$GIT" -C "$ROOT/sha1.work" push -q "$H" main &&
	"$GIT" -C "$H" update-server-info
tip=$("$GIT" -C "$H" rev-parse main) tree=$("$GIT" -C "$H" rev-parse 'main^{tree}')
treefile=$H/objects/${tree:0:2}/${tree:2}
check "badhash: main and its tree are loose on the host" \
	test -f "$treefile" -a -f "$H/objects/${tip:0:2}/${tip:2}"
cp -f "$H/objects/${tip:0:2}/${tip:2}" "$treefile"
check_fail "badhash: clone is refused" "$W" clone -q "$U/badhash/repo.git" "$T/badhash"
says "... saying the hash is bad" "has bad hash"
check "... and nothing is written" gone "$T/badhash"
# the same for a fetch: no ref moved, nothing left
"$GIT" init -q --bare "$T/fetcher"
"$GIT" -C "$ROOT/sha1.work" push -q "$T/fetcher" main~3:refs/heads/main
before=$(refs "$T/fetcher"; objects "$T/fetcher")
check_fail "badhash: fetch is refused" "$W" -C "$T/fetcher" fetch "$U/badhash/repo.git" main:refs/heads/main
check_same "... no ref moved, no object left" "echo \"\$before\"" "refs '$T/fetcher'; objects '$T/fetcher'"

# a truncated pack
copy_host trunc
H=$ROOT/trunc/repo.git
"$GIT" -C "$H" repack -adq && "$GIT" -C "$H" update-server-info
pack=$(ls "$H"/objects/pack/*.pack)
truncate -s $(($(wc -c <"$pack") / 2)) "$pack"
check_fail "truncated pack: clone is refused" "$W" clone -q "$U/trunc/repo.git" "$T/trunc"
says "... saying the pack is truncated" "pack-[0-9a-f]*\.pack: .*truncated"
check "... and nothing is written" gone "$T/trunc"

# info/refs naming an object the host does not have
copy_host missing
H=$ROOT/missing/repo.git
printf '%s\trefs/heads/ghost\n' 0123456789012345678901234567890123456789 >>"$H/info/refs"
check_fail "info/refs naming a missing object: clone is refused" \
	"$W" clone -q "$U/missing/repo.git" "$T/missing"
says "... saying which object cannot be found" "Unable to find 0123456789"
check "... and nothing is written" gone "$T/missing"

# a pack name that climbs out of objects/pack
copy_host climb
H=$ROOT/climb/repo.git
"$GIT" -C "$H" repack -adq && "$GIT" -C "$H" update-server-info
printf 'P ../../../x/pack-%s.pack\n\n' "$(printf '%040d' 0)" >"$H/objects/info/packs"
check_fail "a '../' pack name: clone is refused" "$W" clone -q "$U/climb/repo.git" "$T/climb"
says "... saying the line names no pack" "objects/info/packs line 1 does not name a pack"
check "... and nothing is written" gone "$T/climb"

# no HEAD on the host
copy_host nohead
rm -f "$ROOT/nohead/repo.git/HEAD"
"$GIT" clone -q "$U/nohead/repo.git" "$T/g-nohead" >/dev/null 2>&1
g_rc=$?
"$W" clone -q "$U/nohead/repo.git" "$T/w-nohead" >/dev/null 2>&1
check_output "no HEAD: the exit code of git's clone ($g_rc)" "$g_rc" echo $?
check_same "no HEAD: for-each-ref as git's" "refs '$T/g-nohead'" "refs '$T/w-nohead'"
check_same "no HEAD: HEAD as git's" "head_of '$T/g-nohead'" "head_of '$T/w-nohead'"
