#!/usr/bin/env bash
# bench-index-pack.sh: time `webgit index-pack` against `git index-pack` on a
# large pack with realistic history. Prints figures; not a test.
#
#   scripts/bench-index-pack.sh [WORKDIR]
#
# Environment:
#   GIT          reference git       (default .cache/git-ref/bin/git)
#   WEBGIT       native release CLI  (default: built into WORKDIR/build-release)
#   WEBGIT_JS    WASM CLI (webgit.js) (default build/wasm-release/webgit.js or
#                build/wasm/webgit.js; skipped if absent)
#   COMMITS      commits to generate (default 4500)
#   FILES        files edited across history (default 300)
#   EDITS        files changed per commit (default 40)
#
# The history is made with git fast-import (COMMITS commits editing EDITS
# of FILES files in 10 directories: every edit replaces a random run of
# lines with new random text, so blobs delta well but do not compress to
# nothing), then `git repack -adf --depth=50`. The pack is generated once
# and reused (delete WORKDIR to regenerate). Peak memory is "Maximum
# resident set size" from /usr/bin/time -v.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=${1:-/tmp/wg-bench-index-pack}
GIT=${GIT:-$ROOT/.cache/git-ref/bin/git}
COMMITS=${COMMITS:-4500}
FILES=${FILES:-300}
EDITS=${EDITS:-40}
mkdir -p "$W"

if [ -z "${WEBGIT:-}" ]; then
	cmake -S "$ROOT" -B "$W/build-release" -DCMAKE_BUILD_TYPE=Release -DWG_WERROR=OFF >/dev/null
	cmake --build "$W/build-release" -j2 --target webgit >/dev/null
	WEBGIT=$W/build-release/webgit
fi
if [ -z "${WEBGIT_JS:-}" ]; then
	for c in "$ROOT/build/wasm-release/webgit.js" "$ROOT/build/wasm/webgit.js"; do
		[ -f "$c" ] && { WEBGIT_JS=$c; break; }
	done
fi

R=$W/src.git
if [ ! -f "$W/pack.done" ]; then
	rm -rf "$R"
	"$GIT" init -q --bare "$R"
	python3 - "$COMMITS" "$FILES" "$EDITS" <<'PY' | "$GIT" -C "$R" fast-import --quiet
import random, sys
commits, nfiles, edits = map(int, sys.argv[1:4])
rnd = random.Random(42)
words = [''.join(rnd.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(rnd.randint(2, 9)))
         for _ in range(5000)]
def line():
    return ' '.join(rnd.choice(words) for _ in range(rnd.randint(4, 12))) + '\n'
files = {}
for i in range(nfiles):
    files['d%d/f%03d.txt' % (i % 10, i)] = [line() for _ in range(rnd.randint(150, 400))]
names = sorted(files)
out = sys.stdout
mark = 0
for c in range(commits):
    changed = names if c == 0 else rnd.sample(names, edits)
    blobs = []
    for n in changed:
        lines = files[n]
        if c:
            at = rnd.randrange(len(lines))
            k = rnd.randint(1, 8)
            lines[at:at + k] = [line() for _ in range(rnd.randint(1, 8))]
        data = ''.join(lines).encode()
        mark += 1
        out.write('blob\nmark :%d\ndata %d\n' % (mark, len(data)))
        out.flush(); sys.stdout.buffer.write(data); out.write('\n')
        blobs.append((n, mark))
    msg = ('commit %d\n' % c).encode()
    t = 1700000000 + c * 60
    out.write('commit refs/heads/main\ncommitter A U Thor <author@example.com> %d +0000\n'
              'data %d\n%s\n' % (t, len(msg), msg.decode()))
    for n, m in blobs:
        out.write('M 100644 :%d %s\n' % (m, n))
    out.write('\n')
PY
	"$GIT" -C "$R" repack -adfq --depth=50
	touch "$W/pack.done"
fi
PACK=$(ls "$R"/objects/pack/pack-*.pack)
SIZE=$(stat -c %s "$PACK")
NOBJ=$("$GIT" -C "$R" count-objects -v | sed -n 's/^in-pack: //p')
echo "pack: $PACK"
echo "size: $SIZE bytes ($((SIZE / 1048576)) MiB), objects: $NOBJ"
"$GIT" verify-pack -s "$PACK" | tail -3 | sed 's/^/  /'

# run NAME CMD...: index the pack into a fresh directory, print wall time
# and peak RSS.
run() {
	local name=$1; shift
	local d="$W/out-$name"
	rm -rf "$d"; mkdir -p "$d"; cp "$PACK" "$d/p.pack"
	/usr/bin/time -v "$@" "$d/p.pack" >"$d/stdout" 2>"$d/time" || { echo "$name: FAILED"; tail -3 "$d/time"; return; }
	local wall rss
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$d/time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$d/time")
	printf '%-28s wall %8s   peak RSS %6d MiB   idx %s\n' "$name" "$wall" $((rss / 1024)) \
		"$(cmp -s "$d/p.idx" "$W/out-git-1/p.idx" 2>/dev/null && echo same-as-git || echo "-")"
}
run git-1 "$GIT" index-pack --threads=1
run git-default "$GIT" index-pack
run webgit-native "$WEBGIT" index-pack
if [ -n "${WEBGIT_JS:-}" ] && command -v node >/dev/null; then
	run webgit-wasm node --no-experimental-fetch "$WEBGIT_JS" index-pack
else
	echo "webgit-wasm: skipped (no WASM build)"
fi
