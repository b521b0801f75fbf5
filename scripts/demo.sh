#!/usr/bin/env bash
# The main job, for now: a local Git HTTP server with sample repositories,
# and the native webgit CLI cloning, reading, fetching and pushing over it,
# checked by the reference git. (The web demo takes over once the WASM API
# and the web app exist.)
#
#   scripts/demo.sh [DIR]     (DIR defaults to a new temporary directory)
#
# It builds what it needs (scripts/bootstrap.sh, then a native build in
# build/release), makes sample repositories with git (SHA-1 + files and
# SHA-256 + reftable), serves them with `git http-backend` behind
# tests/server/git-http-server.mjs on 127.0.0.1, and stops the server (by
# its PID) at the end.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/bootstrap.sh"
echo "building webgit (build/release)..." >&2
cmake -S "$ROOT" -B "$ROOT/build/release" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$ROOT/build/release" -j"$(nproc)" --target webgit >/dev/null

WEBGIT="$ROOT/build/release/webgit"
export GIT="$ROOT/.cache/git-ref/bin/git"
export PATH="$(dirname "$GIT"):$PATH"
WORK=${1:-$(mktemp -d)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL=committer@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME="$WORK" GIT_TERMINAL_PROMPT=0

run() { printf '\n$ %s\n' "$*"; "$@"; }

echo "making sample repositories in $WORK/repos..."
"$ROOT/tests/server/make-repos.sh" "$WORK/repos" >/dev/null
url=$("$ROOT/tests/server/start.sh" "$WORK/server" --root "$WORK/repos" --auth demo:demo)
trap '"$ROOT/tests/server/stop.sh" "$WORK/server"' EXIT
echo "serving on $url (repositories under $url/git/)"
host=${url#http://}
cd "$WORK"

for repo in sample-sha1-files sample-sha256-reftable; do
	u="http://demo:demo@$host/git/$repo.git"
	echo
	echo "=== $repo ==="
	rm -rf "$repo" "$repo-partial"
	run "$WEBGIT" ls-remote --heads "$u"
	run "$WEBGIT" clone "$u" "$repo"
	run "$GIT" -C "$repo" fsck --strict --no-progress
	run "$WEBGIT" -C "$repo" cat-file -p HEAD
	run "$WEBGIT" -C "$repo" ls-tree HEAD

	echo
	echo "--- a partial clone: blobs are fetched when read ---"
	run "$WEBGIT" clone -q --filter=blob:none "$u" "$repo-partial"
	run "$WEBGIT" -C "$repo-partial" cat-file -p HEAD:README.md

	echo
	echo "--- a commit made with webgit, pushed, and fetched back ---"
	blob=$(printf 'written by webgit\n' | "$WEBGIT" -C "$repo" hash-object -w --stdin)
	tree=$(printf '100644 blob %s\tNOTES\n' "$blob" | "$WEBGIT" -C "$repo" mktree)
	commit=$("$WEBGIT" -C "$repo" commit-tree "$tree" -p HEAD -m "a commit made by webgit")
	run "$WEBGIT" -C "$repo" update-ref -m demo refs/heads/demo "$commit"
	run "$WEBGIT" -C "$repo" push origin demo
	run "$GIT" -C "repos/$repo.git" log --oneline -2 demo
	run "$GIT" -C "repos/$repo.git" fsck --strict --no-progress --no-dangling
	run "$WEBGIT" -C "$repo-partial" fetch
done
echo
echo "everything is in $WORK"
