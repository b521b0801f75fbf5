#!/usr/bin/env bash
# t7-pack-objects: git reads the packs webgit writes.
#
# For SHA-1 and SHA-256, on the rich fixture repository (FX) and on a
# synthetic history of many revisions of the same files (SYN, made with
# fast-import, objects loose so that webgit reads them):
#   - `webgit pack-objects BASE` over `git rev-list --objects --all` prints
#     the pack checksum and writes BASE-<sum>.pack/.idx/.rev, read-only;
#   - `git index-pack` of our pack recomputes an .idx (and .rev) identical
#     byte for byte to ours; `git verify-pack -v` passes;
#   - in a fresh bare repository whose objects come only from our pack
#     (`git index-pack --stdin`, refs copied), `git fsck --strict` is clean
#     and every object reads back as in the original (cat-file --batch);
#   - --stdout streams the same pack; --window=0 makes no deltas; --depth=N
#     bounds the chains; a pack with deltas is within 15% of the size of
#     `git pack-objects --window=10 --depth=50` on the same objects;
#   - --thin with "-<commit>" edge lines (rev-list --objects-edge) makes a
#     thin pack that `git index-pack --stdin --fix-thin` completes in a
#     repository holding the older history, fsck clean.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fixtures.sh"
require_webgit

# make_synthetic DIR FORMAT COMMITS: a history where a handful of files
# are edited a few lines at a time, the shape real projects have.
make_synthetic() (
	set -e
	fx_git init -q --bare --object-format="$2" "$1"
	python3 - "$3" <<'PY' | fx_git --git-dir="$1" fast-import --quiet
import random, sys
rnd = random.Random(7)
words = ("int char return if else for while struct static void const size_t "
         "buf len err out data node next free alloc count index hash").split()
def line():
    return "\t" * rnd.randint(0, 3) + " ".join(rnd.choice(words) for _ in range(rnd.randint(2, 9))) + ";\n"
files = {"src/file%02d.c" % i: [line() for _ in range(rnd.randint(50, 600))] for i in range(12)}
out = sys.stdout.buffer
t = 1700000000
for c in range(int(sys.argv[1])):
    if c % 97 == 96:
        files["src/new%03d.c" % c] = [line() for _ in range(rnd.randint(20, 300))]
    changed = rnd.sample(sorted(files), rnd.randint(1, 3)) if c else sorted(files)
    for name in changed:
        lines = files[name]
        for _ in range(rnd.randint(1, 6)) if c else ():
            i = rnd.randrange(len(lines) + 1)
            k = rnd.random()
            if k < 0.4 and i < len(lines):
                lines[i] = line()
            elif k < 0.8:
                lines[i:i] = [line() for _ in range(rnd.randint(1, 8))]
            else:
                del lines[i:i + rnd.randint(1, 5)]
    msg = b"change %d\n" % c
    out.write(b"commit refs/heads/main\ncommitter A U Thor <author@example.com> %d +0000\n" % (t + c * 60))
    out.write(b"data %d\n%s" % (len(msg), msg))
    for name in changed:
        body = "".join(files[name]).encode()
        out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (name.encode(), len(body), body))
    out.write(b"\n")
    if c % 300 == 299:
        out.write(b"tag v%d\nfrom refs/heads/main\ntagger A U Thor <author@example.com> %d +0000\ndata 4\ntag\n\n" % (c, t + c * 60))
PY
	fx_unpack_packs "$1"
)

# pack_and_check NAME GITDIR FORMAT [pack-objects options...]: the checks
# every pack goes through; leaves the pack path in $PACK.
pack_and_check() {
	local name=$1 gd=$2 fmt=$3 out sum
	shift 3
	"$GIT" --git-dir="$gd" rev-list --objects --all >"$name.list"
	out="$PWD/$name"
	check "$name: webgit pack-objects" sh -c "GIT_DIR='$gd' \"\$WEBGIT\" pack-objects -q $* '$out' <'$name.list' >'$name.sum'"
	sum=$(cat "$name.sum")
	PACK="$out-$sum.pack"
	check "$name: prints the checksum, writes .pack .idx .rev" test -n "$sum" -a -f "$PACK" -a -f "$out-$sum.idx" -a -f "$out-$sum.rev"
	check "$name: pack files are read-only" test ! -w "$PACK" -o "$(id -u)" = 0
	check_output "$name: the checksum is the pack's trailer" "$sum" sh -c "tail -c $(( $(fx_hexlen "$fmt") / 2 )) '$PACK' | od -An -tx1 -v | tr -d ' \n'"
	rm -rf "$name.check" && mkdir "$name.check" && cp "$PACK" "$name.check/p.pack"
	check "$name: git index-pack accepts the pack" "$GIT" index-pack --object-format="$fmt" --rev-index "$name.check/p.pack"
	check "$name: git's .idx is byte-identical to ours" cmp "$name.check/p.idx" "$out-$sum.idx"
	check "$name: git's .rev is byte-identical to ours" cmp "$name.check/p.rev" "$out-$sum.rev"
	check "$name: git verify-pack -v" sh -c "\"\$GIT\" --git-dir='$gd' verify-pack -v '$out-$sum.idx' >'$name.verify'"

	# A fresh repository whose objects come only from our pack.
	local fresh="$PWD/$name.fresh"
	rm -rf "$fresh"
	check "$name: init fresh bare repo" "$GIT" init -q --bare --object-format="$fmt" "$fresh"
	check "$name: git index-pack --stdin into it" sh -c "\"\$GIT\" --git-dir='$fresh' index-pack --stdin <'$PACK' >/dev/null"
	"$GIT" --git-dir="$gd" for-each-ref --format='update %(refname) %(objectname)' |
		"$GIT" --git-dir="$fresh" update-ref --stdin
	check_output "$name: fresh repo has no loose objects" "" find "$fresh/objects" -type f -path '*/objects/??/*'
	check "$name: git fsck --strict is clean" "$GIT" --git-dir="$fresh" fsck --strict --no-dangling
	check_same "$name: every object reads back the same" \
		"cut -c1-$(fx_hexlen "$fmt") '$name.list' | \"\$GIT\" --git-dir='$gd' cat-file --batch" \
		"cut -c1-$(fx_hexlen "$fmt") '$name.list' | \"\$GIT\" --git-dir='$fresh' cat-file --batch"
}

for fmt in sha1 sha256; do
	FX="$PWD/fx-$fmt"
	if ! fx_build_repo "$FX" "$fmt" >build-$fmt.log 2>&1; then
		cat build-$fmt.log >&2
		check "$fmt: build the fixture repository" false
		continue
	fi
	SYN="$PWD/syn-$fmt.git"
	check "$fmt: build the synthetic history" make_synthetic "$SYN" "$fmt" 600

	pack_and_check "$fmt-fx" "$FX/.git" "$fmt"
	pack_and_check "$fmt-syn" "$SYN" "$fmt"
	SYNPACK=$PACK
	check "$fmt-syn: most objects are deltas" sh -c "grep -q 'chain length = 1' '$fmt-syn.verify'"

	# --stdout streams the same bytes as the file.
	check "$fmt-syn: --stdout gives the same pack" sh -c "GIT_DIR='$SYN' \"\$WEBGIT\" pack-objects --stdout <'$fmt-syn.list' | cmp - '$SYNPACK'"
	check "$fmt-syn: --stdout with a base name is a usage error (129)" sh -c "GIT_DIR='$SYN' \"\$WEBGIT\" pack-objects --stdout x </dev/null 2>/dev/null; test \$? = 129"

	# Window and depth.
	pack_and_check "$fmt-nodelta" "$SYN" "$fmt" --window=0
	check "$fmt-nodelta: no deltas" sh -c "! grep -q 'chain length' '$fmt-nodelta.verify'"
	pack_and_check "$fmt-depth2" "$SYN" "$fmt" --depth=2
	check "$fmt-depth2: chains of at most 2" sh -c "grep -q 'chain length = 2' '$fmt-depth2.verify' && ! grep -q 'chain length = 3' '$fmt-depth2.verify'"

	# Size against git's own pack-objects with the same window and depth.
	gsum=$("$GIT" --git-dir="$SYN" pack-objects -q --window=10 --depth=50 "$PWD/git-$fmt" <"$fmt-syn.list")
	ours=$(wc -c <"$SYNPACK")
	theirs=$(wc -c <"$PWD/git-$fmt-$gsum.pack")
	note "$fmt synthetic history: webgit $ours bytes, git $theirs bytes"
	check "$fmt-syn: pack within 15% of git's ($ours vs $theirs)" test $((ours * 100)) -le $((theirs * 115))

	# Thin pack: the receiver has everything up to main~100.
	base_repo="$PWD/thin-$fmt.git"
	rm -rf "$base_repo"
	"$GIT" init -q --bare --object-format="$fmt" "$base_repo"
	"$GIT" --git-dir="$SYN" rev-list --objects main~100 |
		"$GIT" --git-dir="$SYN" pack-objects -q --stdout |
		"$GIT" --git-dir="$base_repo" index-pack --stdin >/dev/null
	"$GIT" --git-dir="$base_repo" update-ref refs/heads/main "$("$GIT" --git-dir="$SYN" rev-parse main~100)"
	"$GIT" --git-dir="$SYN" rev-list --objects-edge main~100..main >"$fmt-thin.list"
	check "$fmt-thin: webgit pack-objects --thin --stdout" sh -c "GIT_DIR='$SYN' \"\$WEBGIT\" pack-objects --thin --stdout <'$fmt-thin.list' >'$fmt-thin.pack'"
	"$GIT" --git-dir="$SYN" rev-list --objects main~100..main >"$fmt-thick.list"
	GIT_DIR="$SYN" "$WEBGIT" pack-objects --stdout <"$fmt-thick.list" >"$fmt-thick.pack"
	note "$fmt thin pack $(wc -c <"$fmt-thin.pack") bytes, without --thin $(wc -c <"$fmt-thick.pack") bytes"
	check "$fmt-thin: thin pack is smaller" test "$(wc -c <"$fmt-thin.pack")" -lt "$(wc -c <"$fmt-thick.pack")"
	check "$fmt-thin: index-pack --fix-thin completes it" sh -c "\"\$GIT\" --git-dir='$base_repo' index-pack --stdin --fix-thin <'$fmt-thin.pack' >/dev/null"
	"$GIT" --git-dir="$base_repo" update-ref refs/heads/main "$("$GIT" --git-dir="$SYN" rev-parse main)"
	check "$fmt-thin: fsck --strict is clean" "$GIT" --git-dir="$base_repo" fsck --strict --no-dangling
	check_same "$fmt-thin: tip tree reads back the same" \
		"\"\$GIT\" --git-dir='$SYN' ls-tree -r main" "\"\$GIT\" --git-dir='$base_repo' ls-tree -r main"

	# Bad input.
	check "$fmt: garbage on stdin is refused" fx_error_like "garbage|object" sh -c "echo nonsense | GIT_DIR='$SYN' \"\$WEBGIT\" pack-objects --stdout >/dev/null"
	check "$fmt: a missing object is refused" fx_error_like "not found|cannot|missing|object" sh -c "printf '%0$(fx_hexlen "$fmt")d\n' 1 | GIT_DIR='$SYN' \"\$WEBGIT\" pack-objects --stdout >/dev/null"
done
