#!/usr/bin/env bash
# t13-clone-http: webgit ls-remote and clone over smart HTTP, against the
# local server (git http-backend), protocol v2 and v0, both object formats
# and both ref formats on the server.
#
#   - ls-remote prints what git ls-remote prints (also --heads, --tags,
#     --refs, --symref, patterns);
#   - clone --mirror has exactly the refs and objects of git clone --mirror;
#     git fsck --strict is clean; --bare and a plain clone (no checkout: HEAD,
#     the branch, origin/* and the config as git writes them);
#   - --depth 1, --shallow-since, --shallow-exclude (the shallow file and
#     history as git's), --filter=blob:none
#     and tree:0 (promisor config; webgit fetches a missing blob or tree
#     when it reads it, and so does git),
#     -b with --single-branch;
#   - empty repositories; a missing repository and a non-empty target are
#     refused with git's message and leave nothing behind.

. "$(dirname "$0")/lib.sh"
require_webgit
. "$(dirname "$0")/http_lib.sh"

W=$WEBGIT
sample_repos
start srv --root "$REPOS"
V2=$url/git
start srv0 --root "$REPOS" --v0
V0=$url/git

objects() { "$GIT" -C "$1" rev-list --all --objects | sort; }
refs() { "$GIT" -C "$1" for-each-ref --format='%(refname) %(objectname) %(symref)'; }
# The git directory of a clone, bare or not.
gd() { if [ -d "$1/.git" ]; then echo "$1/.git"; else echo "$1"; fi; }

for repo in sample-sha1-files sample-sha256-reftable sample-sha1-reftable sample-sha256-files; do
	for proto in v2 v0; do
		base=$V2; [ $proto = v0 ] && base=$V0
		u=$base/$repo.git
		s="$repo/$proto"
		check_same "$s: ls-remote" "\"\$GIT\" ls-remote '$u'" "\"\$W\" ls-remote '$u'"
		[ $proto = v2 ] && for opt in --heads --tags --refs --symref; do
			check_same "$s: ls-remote $opt" "\"\$GIT\" ls-remote $opt '$u'" "\"\$W\" ls-remote $opt '$u'"
		done
		[ $proto = v2 ] && for pat in "'v1*'" main "refs/heads/feature/*" "'*ui'"; do
			check_same "$s: ls-remote URL $pat" "\"\$GIT\" ls-remote '$u' $pat" "\"\$W\" ls-remote '$u' $pat"
		done

		rm -rf g.git w.git
		"$GIT" clone -q --mirror "$u" g.git
		check "$s: webgit clone --mirror" "$W" clone -q --mirror "$u" w.git
		check_same "$s: the refs of git clone --mirror" "refs g.git" "refs w.git"
		check_same "$s: the objects of git clone --mirror" "objects g.git" "objects w.git"
		check "$s: git fsck --strict" "$GIT" -C w.git fsck --strict --no-progress
		check_same "$s: the same object format" "\"\$GIT\" -C g.git rev-parse --show-object-format" \
			"\"\$GIT\" -C w.git rev-parse --show-object-format"
		check_output "$s: config as git's" "$u
+refs/*:refs/*
true" sh -c '"$GIT" -C w.git config remote.origin.url; "$GIT" -C w.git config remote.origin.fetch; "$GIT" -C w.git config remote.origin.mirror'
	done

	u=$V2/$repo.git
	rm -rf g w gb.git wb.git
	"$GIT" clone -q --no-checkout "$u" g
	check "$repo: webgit clone" "$W" clone -q "$u" w
	check_same "$repo: refs as git clone's" "refs g" "refs w"
	check_same "$repo: HEAD as git clone's" '"$GIT" -C g symbolic-ref HEAD' '"$GIT" -C w symbolic-ref HEAD'
	for k in remote.origin.url remote.origin.fetch branch.main.remote branch.main.merge; do
		check_same "$repo: $k as git clone's" "\"\$GIT\" -C g config $k" "\"\$GIT\" -C w config $k"
	done
	check_same "$repo: reflog of the branch" '"$GIT" -C g reflog show --format="%H %gs" refs/heads/main' \
		'"$GIT" -C w reflog show --format="%H %gs" refs/heads/main'
	check "$repo: git fsck --strict on the clone" "$GIT" -C w fsck --strict --no-progress
	"$GIT" clone -q --bare "$u" gb.git
	check "$repo: webgit clone --bare" "$W" clone -q --bare "$u" wb.git
	check_same "$repo: refs as git clone --bare's" "refs gb.git" "refs wb.git"
	check_same "$repo: objects as git clone --bare's" "objects gb.git" "objects wb.git"
done

# Shallow, partial, single branch (sha1 and sha256).
for repo in sample-sha1-files sample-sha256-reftable; do
	u=$V2/$repo.git
	rm -rf g w
	"$GIT" clone -q --bare --depth 1 "$u" g
	check "$repo: clone --depth 1" "$W" clone -q --bare --depth 1 "$u" w
	check_same "$repo: the shallow file of git clone --depth 1" "cat g/shallow" "cat w/shallow"
	check_same "$repo: depth-1 refs" "refs g" "refs w"
	check_same "$repo: depth-1 objects" "objects g" "objects w"
	check "$repo: git fsck on the shallow clone" "$GIT" -C w fsck --no-progress
	for opt in "--shallow-since=2023-11-14 23:26:00 +0000" "--shallow-exclude=release/1.x"; do
		rm -rf g w
		"$GIT" clone -q --bare "$opt" "$u" g
		check "$repo: clone $opt" "$W" clone -q --bare "$opt" "$u" w
		check_same "$repo: $opt: the shallow file of git's" "cat g/shallow" "cat w/shallow"
		check_same "$repo: $opt: the objects of git's" "objects g" "objects w"
		check "$repo: $opt: git fsck" "$GIT" -C w fsck --no-progress
	done

	for filter in blob:none tree:0; do
		rm -rf w
		check "$repo: clone --filter=$filter" "$W" clone -q --bare --filter=$filter "$u" w
		check_output "$repo/$filter: promisor config as git writes it" "true
$filter
origin" sh -c '"$GIT" -C w config remote.origin.promisor; "$GIT" -C w config remote.origin.partialclonefilter; "$GIT" -C w config extensions.partialclone'
		check "$repo/$filter: the pack is marked .promisor" sh -c 'ls w/objects/pack/*.promisor'
		check "$repo/$filter: git fsck accepts the partial clone" "$GIT" -C w fsck --no-progress
		check_same "$repo/$filter: webgit fetches a missing file's content when read" \
			"\"\$GIT\" -C '$REPOS/$repo.git' show main:src/parser/parser.c" \
			'"$W" -C w cat-file -p main:src/parser/parser.c'
		check_same "$repo/$filter: webgit ls-tree fetches missing trees" \
			"\"\$GIT\" -C '$REPOS/$repo.git' ls-tree -r main" '"$W" -C w ls-tree -r main'
		check "$repo/$filter: what webgit fetched is a promisor pack too" \
			sh -c 'test $(ls w/objects/pack/*.promisor | wc -l) -ge 2'
		check_same "$repo/$filter: git reads the other file (its own lazy fetch)" \
			"\"\$GIT\" -C '$REPOS/$repo.git' show main:README.md" '"$GIT" -C w show main:README.md'
		check_same "$repo/$filter: git lazily fetches a file's content" \
			"\"\$GIT\" -C '$REPOS/$repo.git' show main:src/parser/parser.c" \
			'"$GIT" -C w show main:src/parser/parser.c'
	done
	check "$repo/blob:none: git log -p runs (lazy fetches)" sh -c '"$GIT" -C w log -p -3 main >/dev/null'

	# a partial clone git made (git 2.53 writes remote.origin.promisor and
	# no extensions.partialClone): webgit fetches what it lacks there too
	rm -rf g
	"$GIT" clone -q --bare --filter=blob:none "$u" g
	check_fail "$repo: git's partial clone lacks the file's content" \
		env GIT_NO_LAZY_FETCH=1 "$GIT" -C g cat-file -e main:src/parser/parser.c
	check_same "$repo: webgit fetches it in git's partial clone" \
		"\"\$GIT\" -C '$REPOS/$repo.git' show main:src/parser/parser.c" \
		'"$W" -C g cat-file -p main:src/parser/parser.c'
	check "$repo: ...into a promisor pack" sh -c 'test $(ls g/objects/pack/*.promisor | wc -l) -ge 2'
	check "$repo: ...that git fsck accepts" "$GIT" -C g fsck --no-progress

	# --revision: one commit's history, no ref but a detached HEAD (git
	# 2.53 cannot take a SHA-256 id there: "Remote revision ... not found")
	rev=$("$GIT" -C "$REPOS/$repo.git" rev-parse main~1)
	if [ "$repo" = sample-sha256-reftable ]; then
		rm -rf w
		check "$repo: clone --revision" "$W" clone -q --bare --revision=$rev "$u" w
		check_output "$repo: --revision: HEAD, no refs" "$rev" \
			sh -c '"$GIT" -C w rev-parse HEAD; "$GIT" -C w for-each-ref'
		check_same "$repo: --revision: the objects of its history" \
			"\"\$GIT\" -C '$REPOS/$repo.git' rev-list --objects $rev | sort" "objects w"
		check "$repo: --revision: git fsck --strict" "$GIT" -C w fsck --strict --no-progress
	fi
	for mode in "--bare --depth 2" ""; do
		[ "$repo" = sample-sha256-reftable ] && break
		rm -rf g w
		"$GIT" clone -q $mode --revision=$rev "$u" g
		check "$repo: clone $mode --revision" "$W" clone -q $mode --revision=$rev "$u" w
		check_same "$repo: $mode --revision: refs as git's (none)" "refs g" "refs w"
		check_same "$repo: $mode --revision: HEAD as git's" "\"\$GIT\" -C g rev-parse HEAD" \
			"\"\$GIT\" -C w rev-parse HEAD"
		check_same "$repo: $mode --revision: objects as git's" "objects g" "objects w"
		check_same "$repo: $mode --revision: remote config as git's" \
			"\"\$GIT\" -C g config get --all --regexp ^remote" \
			"\"\$GIT\" -C w config get --all --regexp ^remote"
	done
	if [ "$repo" != sample-sha256-reftable ]; then
		check_same "$repo: --revision: git status as after git's clone" \
			'"$GIT" -C g status' '"$GIT" -C w status'
		check_same "$repo: --revision: HEAD's reflog as git's" \
			'"$GIT" -C g reflog show --format="%H %gs" HEAD' \
			'"$GIT" -C w reflog show --format="%H %gs" HEAD'
	fi
	check_fail "$repo: --revision with -b is refused" "$W" clone -q -b main --revision=$rev "$u" bad
	check_fail "$repo: --revision takes a full id here" "$W" clone -q --revision=main "$u" bad
	check_fail "...leaving no directory" test -e bad

	rm -rf g w
	"$GIT" clone -q --no-checkout -b dev --single-branch "$u" g
	check "$repo: clone -b dev --single-branch" "$W" clone -q -b dev --single-branch "$u" w
	check_same "$repo: single-branch refs" "refs g | grep -v refs/tags" "refs w | grep -v refs/tags"
	check_same "$repo: single-branch HEAD" '"$GIT" -C g symbolic-ref HEAD' '"$GIT" -C w symbolic-ref HEAD'
	check_same "$repo: single-branch fetch refspec" '"$GIT" -C g config remote.origin.fetch' \
		'"$GIT" -C w config remote.origin.fetch'

	# origin/HEAD names the remote HEAD's branch whenever the clone took it.
	for mode in "-b dev" "--depth 1" "--single-branch" "-b v1.0 --single-branch"; do
		rm -rf g w
		"$GIT" clone -q --no-checkout $mode "$u" g 2>/dev/null
		check "$repo: clone $mode" "$W" clone -q $mode "$u" w
		check_same "$repo: clone $mode: refs (origin/HEAD)" 'refs g' 'refs w'
	done

	# -b takes a tag too: HEAD detached at the commit the tag names.
	for mode in "" --single-branch --bare; do
		rm -rf g w
		"$GIT" clone -q --no-checkout $mode -b v1.0 "$u" g
		check "$repo: clone $mode -b <tag>" "$W" clone -q $mode -b v1.0 "$u" w
		check_same "$repo: clone $mode -b <tag>: HEAD detached at the tag's commit" \
			'"$GIT" --git-dir="$(gd g)" rev-parse HEAD; "$GIT" --git-dir="$(gd g)" symbolic-ref -q HEAD || echo detached' \
			'"$GIT" --git-dir="$(gd w)" rev-parse HEAD; "$GIT" --git-dir="$(gd w)" symbolic-ref -q HEAD || echo detached'
		check_same "$repo: clone $mode -b <tag>: refs" 'refs g' 'refs w'
		check_same "$repo: clone $mode -b <tag>: config" \
			'"$GIT" --git-dir="$(gd g)" config --get-regexp "^(remote|branch)\."' \
			'"$GIT" --git-dir="$(gd w)" config --get-regexp "^(remote|branch)\."'
		check_same "$repo: clone $mode -b <tag>: HEAD's reflog" \
			'"$GIT" --git-dir="$(gd g)" reflog show --format="%H %gs" HEAD' \
			'"$GIT" --git-dir="$(gd w)" reflog show --format="%H %gs" HEAD'
		check "$repo: clone $mode -b <tag>: git fsck --strict is clean" \
			"$GIT" --git-dir="$(gd w)" fsck --strict --no-progress
	done
done

# Empty repositories.
for repo in empty-sha1-files empty-sha256-reftable; do
	for proto in v2 v0; do
		base=$V2; [ $proto = v0 ] && base=$V0
		rm -rf w
		check "$repo/$proto: clone of an empty repository" "$W" clone -q "$base/$repo.git" w
		check_output "$repo/$proto: ...with the server's object format" \
			"$("$GIT" -C "$REPOS/$repo.git" rev-parse --show-object-format)" \
			"$GIT" -C w rev-parse --show-object-format
		check_output "$repo/$proto: ...and no refs" "" sh -c '"$GIT" -C w for-each-ref'
		check "$repo/$proto: ...git fsck is clean" "$GIT" -C w fsck --no-progress
	done
done

# Refusals leave nothing behind.
check_fail "a missing repository is refused" "$W" clone -q "$V2/nope.git" gone
cp "$LAST_ERR" nope.err
check "...saying so" grep -q "not found" nope.err
check_fail "...and leaves no directory" test -e gone
mkdir full && echo x >full/file
check_fail "a non-empty target is refused" "$W" clone -q "$V2/sample-sha1-files.git" full
cp "$LAST_ERR" full.err
check "...with git's message" grep -q "destination path 'full' already exists and is not an empty directory" full.err
check_output "...and is left alone" "x" cat full/file
check_fail "a server that is not there is refused" "$W" clone -q "http://127.0.0.1:9/git/x.git" nothere
check_fail "...leaving no directory" test -e nothere
