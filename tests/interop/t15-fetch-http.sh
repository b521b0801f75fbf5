#!/usr/bin/env bash
# t15-fetch-http: webgit fetch against the local server, beside git fetch in
# a twin clone, protocol v2 and v0, SHA-1 and SHA-256.
#
#   - after new commits, branches, tags, a deleted branch and a forced
#     update on the server, `fetch --prune` leaves the same refs, reflog
#     messages and FETCH_HEAD as git's, and git fsck is clean;
#   - only the new objects travel: the fetch's pack is a small fraction of
#     the clone's (bytes from the server's log);
#   - a fetch with nothing new makes no fetch request;
#   - with hundreds of local commits the server does not have, negotiation
#     takes several rounds and still sends only what is new;
#   - a remote that is not configured is refused.

. "$(dirname "$0")/lib.sh"
require_webgit
. "$(dirname "$0")/http_lib.sh"

W=$WEBGIT
sample_repos
start srv --root "$REPOS" --log "$PWD/log2"
V2=$url/git
start srv0 --root "$REPOS" --v0 --log "$PWD/log0"
V0=$url/git

refs() { "$GIT" -C "$1" for-each-ref --format='%(refname) %(objectname) %(symref)'; }
# total size of a repository's packs
pack_size() { cat "$1"/objects/pack/*.pack | wc -c; }
# The server logs a request when its connection is done, which may be a
# little after the client exits: let it settle before reading or emptying
# its log.
settle() { sleep 1; }
commit_on() { # DIR MSG: commit a new file in the work clone DIR
	echo "$2" >"$1/$2.txt" && "$GIT" -C "$1" add "$2.txt" && "$GIT" -C "$1" commit -q -m "$2"
}

n=0
for repo in sample-sha1-files sample-sha256-reftable; do
	for proto in v2 v0; do
		n=$((n + 1))
		base=$V2 log=$PWD/log2 v0=
		[ $proto = v0 ] && base=$V0 log=$PWD/log0 v0=1
		s="$repo/$proto"
		# a fresh copy of the served repository for each round
		cp -r "$REPOS/$repo.git" "$REPOS/f$n.git"
		u=$base/f$n.git
		rm -rf g w work
		"$GIT" clone -q --no-checkout "$u" g
		check "$s: webgit clone" "$W" clone -q "$u" w
		clone_bytes=$(pack_size w/.git)

		# changes on the server, pushed from a work clone
		"$GIT" clone -q "$REPOS/f$n.git" work
		commit_on work "new-$n-a" && commit_on work "new-$n-b"
		"$GIT" -C work push -q origin main
		"$GIT" -C work push -q origin HEAD~1:refs/heads/brand-new
		"$GIT" -C work tag -a -m "a new tag" "vnew-$n" HEAD
		"$GIT" -C work push -q origin "vnew-$n"
		"$GIT" -C work push -q origin :refs/heads/dev
		"$GIT" -C work push -q -f origin main~5:refs/heads/feature/ui

		check "$s: webgit fetch --prune" sh -c 'cd w && "$WEBGIT" fetch --prune -q'
		fetch_bytes=$(( $(pack_size w/.git) - clone_bytes ))
		(cd g && "$GIT" fetch --prune -q)
		check_same "$s: the refs of git fetch --prune" "refs g" "refs w"
		check_same "$s: the reflog of origin/main" \
			'"$GIT" -C g reflog show --format="%H %gs" refs/remotes/origin/main' \
			'"$GIT" -C w reflog show --format="%H %gs" refs/remotes/origin/main'
		check_same "$s: the reflog of a forced update" \
			'"$GIT" -C g reflog show --format="%H %gs" refs/remotes/origin/feature/ui' \
			'"$GIT" -C w reflog show --format="%H %gs" refs/remotes/origin/feature/ui'
		check_same "$s: FETCH_HEAD as git writes it" "sort g/.git/FETCH_HEAD" "sort w/.git/FETCH_HEAD"
		check "$s: git fsck --strict" "$GIT" -C w fsck --strict --no-progress --no-dangling
		note "$s: the clone's pack has $clone_bytes bytes, the fetch's $fetch_bytes"
		check "$s: the fetch sent only new objects (< 1/5 of the clone)" \
			test $((fetch_bytes * 5)) -lt "$clone_bytes"

		settle; : >"$log"
		check "$s: a fetch with nothing new" sh -c 'cd w && "$WEBGIT" fetch -q'
		settle
		check_output "$s: ...makes no fetch request" \
			"$([ $proto = v2 ] && echo 1 || echo 0)" sh -c 'grep -c POST "$1"; [ $? -le 1 ]' sh "$log"
	done
done

# Negotiation: 300 local commits the server has never seen.
cp -r "$REPOS/sample-sha1-files.git" "$REPOS/nego.git"
rm -rf w work
check "negotiation: webgit clone" "$W" clone -q "$V2/nego.git" w
C=$("$GIT" -C w rev-parse refs/remotes/origin/main)
for i in $(seq 1 300); do
	T=$(printf 'local %d\n' "$i" | "$GIT" -C w hash-object -w --stdin)
	TREE=$(printf '100644 blob %s\tlocal.txt\n' "$T" | "$GIT" -C w mktree)
	C=$(GIT_COMMITTER_DATE="$((1700000000 + i * 60)) +0000" "$GIT" -C w commit-tree "$TREE" -p "$C" -m "local $i")
done
"$GIT" -C w update-ref refs/heads/local "$C"
"$GIT" clone -q "$REPOS/nego.git" work
commit_on work "server-side"
"$GIT" -C work push -q origin main
before=$(pack_size w/.git)
settle; : >log2
check "negotiation: webgit fetch" sh -c 'cd w && "$WEBGIT" fetch -q'
settle
check_same "negotiation: origin/main is the server's main" \
	'"$GIT" -C "$REPOS/nego.git" rev-parse main' '"$GIT" -C w rev-parse refs/remotes/origin/main'
check "negotiation: several rounds of haves" test "$(grep -c POST log2)" -ge 3
check "negotiation: a small pack" test $(( $(pack_size w/.git) - before )) -lt 5000
check "negotiation: git fsck" "$GIT" -C w fsck --no-progress --no-dangling

check_fail "an unknown remote is refused" sh -c 'cd w && "$WEBGIT" fetch nowhere'
cp "$LAST_ERR" nowhere.err
check "...with git's message" grep -q "'nowhere' does not appear to be a git repository" nowhere.err
