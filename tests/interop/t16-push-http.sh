#!/usr/bin/env bash
# t16-push-http: webgit push over smart HTTP to git http-backend (Basic auth
# on push), checked on the server with git rev-parse and git fsck.
#
#   - a new branch, a fast-forward, a forced update, a delete, a tag;
#   - a non-fast-forward is refused here (server unchanged) unless forced;
#   - --atomic with one ref refused (here, or by the server's hook): nothing
#     moves; without --atomic the other refs go through;
#   - a 50 MB binary file;
#   - without credentials the push fails clearly (the clone's URL had them,
#     but they are not kept: the pushes take them from the environment);
#   - the remote-tracking ref follows a pushed branch;
#   - SHA-1 + files and SHA-256 + reftable repositories on the server.

. "$(dirname "$0")/lib.sh"
require_webgit
. "$(dirname "$0")/http_lib.sh"

W=$WEBGIT
sample_repos
start srv --root "$REPOS" --auth pusher:secret
host=${url#http://}
# A clone keeps no credentials: `push origin` finds them here.
export WEBGIT_HTTP_USER=pusher WEBGIT_HTTP_PASSWORD=secret

# commit_in DIR PARENT MSG [FILE]: a commit with one file, by plumbing
# (webgit clones have no checkout); prints its id.
commit_in() {
	local blob tree
	if [ -n "${4:-}" ]; then blob=$("$GIT" -C "$1" hash-object -w "$4")
	else blob=$(printf '%s\n' "$3" | "$GIT" -C "$1" hash-object -w --stdin); fi
	tree=$(printf '100644 blob %s\tfile-%s\n' "$blob" "${3// /-}" | "$GIT" -C "$1" mktree)
	"$GIT" -C "$1" commit-tree "$tree" ${2:+-p "$2"} -m "$3"
}
server() { "$GIT" -C "$REPOS/$repo.git" "$@"; }

for repo in sample-sha1-files sample-sha256-reftable; do
	s=$repo
	rm -rf w
	check "$s: webgit clone with credentials in the URL" \
		"$W" clone -q "http://pusher:secret@$host/git/$repo.git" w
	main=$(server rev-parse main)

	c1=$(commit_in w "$main" "one on $repo")
	"$GIT" -C w update-ref refs/heads/wtopic "$c1"
	check "$s: push a new branch" sh -c 'cd w && "$WEBGIT" push -q origin wtopic'
	check_output "$s: ...the server has it" "$c1" server rev-parse refs/heads/wtopic
	check_output "$s: ...and origin/wtopic follows" "$c1" "$GIT" -C w rev-parse refs/remotes/origin/wtopic
	check "$s: ...git fsck on the server" server fsck --strict --no-progress --no-dangling

	c2=$(commit_in w "$c1" "two on $repo")
	"$GIT" -C w update-ref refs/heads/wtopic "$c2"
	check "$s: a fast-forward push" sh -c 'cd w && "$WEBGIT" push -q origin wtopic'
	check_output "$s: ...arrived" "$c2" server rev-parse refs/heads/wtopic

	other=$(commit_in w "$main" "diverged on $repo")
	"$GIT" -C w update-ref refs/heads/wtopic "$other"
	check_fail "$s: a non-fast-forward is refused" sh -c 'cd w && "$WEBGIT" push origin wtopic'
	cp "$LAST_ERR" nonff.err
	check "$s: ...as git says it" grep -q "\[rejected\].*(non-fast-forward)" nonff.err
	check_output "$s: ...and the server is unchanged" "$c2" server rev-parse refs/heads/wtopic
	check "$s: a forced push (+refspec)" sh -c 'cd w && "$WEBGIT" push -q origin +wtopic:refs/heads/wtopic'
	check_output "$s: ...replaced it" "$other" server rev-parse refs/heads/wtopic
	check "$s: a push to another name" sh -c 'cd w && "$WEBGIT" push -q origin wtopic:refs/heads/copy'
	check_output "$s: ...made it" "$other" server rev-parse refs/heads/copy
	check "$s: delete a branch" sh -c 'cd w && "$WEBGIT" push -q origin :refs/heads/copy'
	check_fail "$s: ...it is gone" server rev-parse --verify -q refs/heads/copy
	"$GIT" -C w update-ref refs/tags/pushed-tag "$c1"
	check "$s: push a tag" sh -c 'cd w && "$WEBGIT" push -q origin refs/tags/pushed-tag'
	check_output "$s: ...arrived" "$c1" server rev-parse refs/tags/pushed-tag

	# --atomic with one ref refused here: nothing moves.
	ff=$(commit_in w "$other" "atomic ff on $repo")
	"$GIT" -C w update-ref refs/heads/wtopic "$ff"
	"$GIT" -C w update-ref refs/heads/behind "$main"
	server update-ref refs/heads/behind "$c2"
	check_fail "$s: --atomic with a non-fast-forward fails" \
		sh -c 'cd w && "$WEBGIT" push --atomic origin wtopic behind'
	check_output "$s: ...and moves nothing" "$other" server rev-parse refs/heads/wtopic
	check_fail "$s: without --atomic the push reports the failure" \
		sh -c 'cd w && "$WEBGIT" push origin wtopic behind'
	check_output "$s: ...but the good ref went through" "$ff" server rev-parse refs/heads/wtopic

	# A server hook refuses one ref: atomic moves none, otherwise the rest go.
	mkdir -p "$REPOS/$repo.git/hooks"
	printf '#!/bin/sh\nwhile read o n r; do [ "$r" = refs/heads/blocked ] && { echo "blocked by policy" >&2; exit 1; }; done; exit 0\n' \
		>"$REPOS/$repo.git/hooks/pre-receive"
	chmod +x "$REPOS/$repo.git/hooks/pre-receive"
	a2=$(commit_in w "$ff" "after hook on $repo")
	"$GIT" -C w update-ref refs/heads/wtopic "$a2"
	"$GIT" -C w update-ref refs/heads/blocked "$a2"
	check_fail "$s: a hook-declined atomic push fails" \
		sh -c 'cd w && "$WEBGIT" push --atomic origin wtopic blocked'
	cp "$LAST_ERR" hook.err
	check "$s: ...saying the server rejected it" grep -q "remote rejected" hook.err
	check_output "$s: ...nothing moved" "$ff" server rev-parse refs/heads/wtopic
	rm "$REPOS/$repo.git/hooks/pre-receive"

	# Without credentials.
	"$GIT" -C w config remote.noauth.url "$url/git/$repo.git"
	check_fail "$s: push without credentials fails" \
		sh -c 'cd w && unset WEBGIT_HTTP_USER WEBGIT_HTTP_PASSWORD &&
			"$WEBGIT" push noauth wtopic:refs/heads/x </dev/null'
	cp "$LAST_ERR" auth.err
	check "$s: ...with an authentication error" grep -qi "auth" auth.err
	check_fail "$s: ...and nothing arrived" server rev-parse --verify -q refs/heads/x
	check "$s: git fsck on the server at the end" server fsck --strict --no-progress --no-dangling
done

# A 50 MB binary file (sha1 repository).
repo=sample-sha1-files
rm -rf w
"$W" clone -q "http://pusher:secret@$host/git/$repo.git" w
head -c 52428800 /dev/urandom >big.bin
big=$(commit_in w "$(server rev-parse main)" "big binary" "$PWD/big.bin")
"$GIT" -C w update-ref refs/heads/big "$big"
check "a 50 MB binary: push" sh -c 'cd w && "$WEBGIT" push -q origin big'
check_output "...the server has the commit" "$big" server rev-parse refs/heads/big
check_same "...and the same file" "cat big.bin | \"\$GIT\" hash-object --stdin" \
	"\"\$GIT\" -C '$REPOS/$repo.git' cat-file blob big:file-big-binary | \"\$GIT\" hash-object --stdin"
check "...git fsck on the server" server fsck --strict --no-progress --no-dangling
