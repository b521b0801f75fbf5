#!/usr/bin/env bash
# gen-history-repo.sh: the benchmark repository shaped like a real project's
# history, and what it holds. Deterministic, no network; not a test.
#
#   scripts/gen-history-repo.sh [DIR]     (default /tmp/webgit-bench-clone/repos)
#
# The generator itself is tests/server/make-repos.sh --history (one
# generator, shared with scripts/bench-fsck.sh and scripts/bench-clone.sh
# REPO=history): a python3 script writes a git fast-import stream of 21000
# commits over 1600 small source-like files in nested directories, each
# commit changing a few lines of one to three files (a new file now and
# then), a merge of a short topic branch every ~50 commits and an annotated
# tag every 500; then `git repack -a -d -f` with git's default window (10)
# and depth (50), as a server's gc would. It takes about a minute and a
# half on 2 shared cores.
#
# This script makes DIR/history.git with the reference git (GIT, default
# .cache/git-ref/bin/git), marks it made (DIR/history.ok, which
# bench-clone.sh and bench-fsck.sh look for), and prints its shape:
# commits, merges, tags, files at HEAD, objects, how many of them are
# deltas, the longest delta chain, the pack size.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GIT=${GIT:-$ROOT/.cache/git-ref/bin/git}
DIR=${1:-/tmp/webgit-bench-clone/repos}
[ -x "$GIT" ] || { echo "reference git missing ($GIT): run scripts/bootstrap.sh" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 missing" >&2; exit 1; }
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C

mkdir -p "$DIR"
GIT=$GIT "$ROOT/tests/server/make-repos.sh" --history "$DIR" >&2
touch "$DIR/history.ok"

R=$DIR/history.git
g() { "$GIT" --git-dir="$R" "$@"; }
pack=$(ls "$R"/objects/pack/*.pack)
echo "repository:   $R"
echo "commits:      $(g rev-list --count --all) ($(g rev-list --count --merges --all) merges)"
echo "tags:         $(g tag | wc -l)"
echo "files (HEAD): $(g ls-tree -r --name-only HEAD | wc -l)"
# verify-pack -v: one line per object ("id type size packed offset [depth
# base]"), then the chain-length histogram.
g verify-pack -v "${pack%.pack}.idx" | awk '
	NF >= 5 && $2 ~ /^(commit|tree|blob|tag)$/ { n++; if (NF >= 7) { d++; if ($6 > max) max = $6 } }
	END { printf "objects:      %d (%d deltas, %.0f%%), longest chain %d\n", n, d, 100 * d / n, max }'
echo "pack:         $(wc -c <"$pack") bytes ($(awk -v b="$(wc -c <"$pack")" 'BEGIN { printf "%.1f MB", b / 1e6 }'))"
