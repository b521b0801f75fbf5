#!/usr/bin/env bash
# The main job, for now: the native webgit CLI working on a sample
# repository side by side with the reference git. (The web demo replaces
# this once the WASM API and the web app exist.)
#
#   scripts/demo.sh [DIR]     (DIR defaults to a new temporary directory)
#
# It builds what it needs (scripts/bootstrap.sh, then a native build in
# build/release), makes a sample repository with git in both object formats,
# reads it with webgit, writes new objects with webgit, and lets git check
# them with `git fsck --strict`.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/bootstrap.sh"
echo "building webgit (build/release)..." >&2
cmake -S "$ROOT" -B "$ROOT/build/release" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$ROOT/build/release" -j"$(nproc)" --target webgit >/dev/null

WEBGIT="$ROOT/build/release/webgit"
GIT="$ROOT/.cache/git-ref/bin/git"
WORK=${1:-$(mktemp -d)}
mkdir -p "$WORK"
export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL=committer@example.com
export GIT_AUTHOR_DATE="1700000000 +0100" GIT_COMMITTER_DATE="1700000000 +0100"
export GIT_CONFIG_NOSYSTEM=1 HOME="$WORK"

run() { printf '\n$ %s\n' "$*"; "$@"; }

for fmt in sha1 sha256; do
	repo="$WORK/sample-$fmt"
	rm -rf "$repo"
	echo
	echo "=== $fmt: a repository made by git, read by webgit ==="
	"$GIT" init -q -b main --object-format=$fmt "$repo"
	mkdir -p "$repo/src"
	printf 'hello, webgit\n' >"$repo/README"
	printf 'int main(void) { return 0; }\n' >"$repo/src/main.c"
	"$GIT" -C "$repo" add . && "$GIT" -C "$repo" commit -q -m "first commit"
	"$GIT" -C "$repo" tag -a v1.0 -m "release 1.0"
	run "$WEBGIT" -C "$repo" rev-parse --show-object-format HEAD
	run "$WEBGIT" -C "$repo" cat-file -p HEAD
	run "$WEBGIT" -C "$repo" ls-tree -r HEAD
	run "$WEBGIT" -C "$repo" cat-file -p v1.0

	echo
	echo "=== $fmt: objects written by webgit, checked by git ==="
	blob=$(printf 'written by webgit\n' | "$WEBGIT" -C "$repo" hash-object -w --stdin)
	tree=$(printf '100644 blob %s\tNOTES\n' "$blob" | "$WEBGIT" -C "$repo" mktree)
	commit=$("$WEBGIT" -C "$repo" commit-tree "$tree" -p HEAD -m "a commit made by webgit")
	echo "blob $blob"; echo "tree $tree"; echo "commit $commit"
	run "$GIT" -C "$repo" cat-file -p "$commit"
	run "$GIT" -C "$repo" fsck --strict --no-dangling
	echo "git fsck --strict: clean"
done
echo
echo "sample repositories are in $WORK"
