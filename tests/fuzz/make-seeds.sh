#!/usr/bin/env bash
# Seed corpora for the fuzz targets, made fresh (nothing big is committed):
#
#   tests/fuzz/make-seeds.sh [OUT_DIR]     (default build/fuzz/corpus)
#
# The reference git (.cache/git-ref/bin/git, or GIT=...) builds small SHA-1
# and SHA-256 repositories in both ref formats; their packs, indexes, loose
# objects, commits, trees, tags, config, packed-refs, reftable tables and
# the pkt-line conversations of upload-pack (v0 and v2: advertisement,
# ls-refs, fetch with a packfile) become seeds, each prefixed with the
# option byte its target expects. Short texts (dates, idents, ref names,
# URLs, revision expressions) are written from lists here. A seed
# directory that already has files is left alone (delete it to remake).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build/fuzz/corpus}
GIT=${GIT:-$ROOT/.cache/git-ref/bin/git}
[ -x "$GIT" ] || GIT=$(command -v git)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# The HTTP response parser's seeds are short texts, written whenever their
# directory is missing (so a corpus made before that target existed gets
# them too). The first byte: 1 HEAD request, 2 CONNECT, 4 the connection
# closes after the input, 8 small limits.
http_seeds() {
	local dir="$OUT/http_response" i=0 s
	[ -d "$dir" ] && return 0
	mkdir -p "$dir"
	for s in \
		'\x00HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello' \
		'\x04HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: t\r\n\r\n' \
		'\x04HTTP/1.0 200 OK\r\nServer: x\r\n\r\nuntil the end' \
		'\x00HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n' \
		'\x01HTTP/1.1 200 OK\nContent-Length: 100\nX-Folded: a\n  b\n\n' \
		'\x02HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x01' \
		'\x06HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="p"\r\nContent-Length: 4\r\nConnection: close\r\n\r\nauth' \
		'\x0cHTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 304 Not Modified\r\n\r\n' \
		'\x04HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n3\r\nabc\r\n0\r\n\r\n'; do
		i=$((i + 1))
		printf '%b' "$s" >"$dir/seed-$i"
	done
}
http_seeds

if [ -f "$OUT/.done" ]; then
	exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wg-seeds-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME="$WORK"
export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL=committer@example.com
export GIT_AUTHOR_DATE="1700000000 +0100" GIT_COMMITTER_DATE="1700000100 -0530"

n=0
# seed TARGET OPTION_BYTE_HEX|"" FILE: copy FILE into TARGET's corpus,
# behind the option byte if one is given.
seed() {
	local dir="$OUT/$1"
	mkdir -p "$dir"
	n=$((n + 1))
	if [ -n "$2" ]; then
		{ printf "\\x$2"; cat "$3"; } > "$dir/seed-$n"
	else
		cp "$3" "$dir/seed-$n"
	fi
}
# text TARGET STRING...: one seed per string (printf %b escapes).
text() {
	local t=$1
	shift
	mkdir -p "$OUT/$t"
	for s in "$@"; do
		n=$((n + 1))
		printf '%b' "$s" > "$OUT/$t/seed-$n"
	done
}
pkt() { printf '%04x%s' $((${#1} + 4)) "$1"; }

# --- repositories ----------------------------------------------------------------
make_repo() {   # make_repo DIR FORMAT REFFORMAT
	"$GIT" init -q --object-format="$2" --ref-format="$3" -b main "$1"
	(
		cd "$1"
		mkdir -p dir
		printf 'hello\n' > a
		printf 'x\ny\n' > dir/b
		printf '[submodule "s"]\n\tpath = s\n\turl = https://example.com/s\n' > .gitmodules
		ln -s a link
		"$GIT" add -A && "$GIT" commit -qm "first"
		for i in 1 2 3; do
			seq 1 $((i * 40)) > dir/b
			printf 'line %s\n' "$i" >> a
			"$GIT" commit -qam "change $i" -m "body $i"
		done
		"$GIT" tag -a -m "release v1" v1
		"$GIT" tag lw HEAD~1
		"$GIT" branch topic HEAD~2
		"$GIT" config remote.origin.url https://example.com/repo.git
		"$GIT" config remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*'
		"$GIT" config --add branch.main.remote origin
		"$GIT" config core.weird 'va"l\\ue ; x'
	)
}
make_repo "$WORK/s1" sha1 files
make_repo "$WORK/s2" sha256 files
make_repo "$WORK/r1" sha1 reftable
make_repo "$WORK/r2" sha256 reftable

for r in s1 s2; do
	opt=00; [ $r = s2 ] && opt=01
	d="$WORK/$r"
	# loose objects (before packing), commits, trees, tags
	for f in $(find "$d/.git/objects" -type f -path '*/objects/??/*' | head -n 12); do
		seed loose_object "" "$f"
	done
	for obj in HEAD HEAD~2 HEAD:dir HEAD: v1 "$("$GIT" -C "$d" rev-parse HEAD:.gitmodules)"; do
		type=$("$GIT" -C "$d" cat-file -t "$obj")
		"$GIT" -C "$d" cat-file "$type" "$obj" > "$WORK/obj"
		case $type in
		commit) seed commit $opt "$WORK/obj" ;;
		tree) seed tree $opt "$WORK/obj" ;;
		tag) seed tag $opt "$WORK/obj" ;;
		esac
	done
	# packs: full, thin-ish (with deltas), and their indexes
	"$GIT" -C "$d" pack-objects -q --stdout --all < /dev/null > "$WORK/full.pack"
	printf '%s\n' main ^topic | "$GIT" -C "$d" pack-objects -q --revs --thin --stdout > "$WORK/thin.pack"
	seed indexer $opt "$WORK/full.pack"
	seed indexer $(printf '%02x' $((0x$opt | 0x1a))) "$WORK/full.pack"
	seed indexer $(printf '%02x' $((0x$opt | 0x04))) "$WORK/thin.pack"
	"$GIT" -C "$d" repack -qad
	for f in "$d"/.git/objects/pack/*.idx; do seed idx $opt "$f"; done
	"$GIT" -C "$d" index-pack --index-version=1 -o "$WORK/v1.idx" "$WORK/full.pack" >/dev/null 2>&1 &&
		seed idx $opt "$WORK/v1.idx"
	seed config "" "$d/.git/config"
	# the index in each version, without its trailer (the target adds it)
	for v in 2 3 4; do
		"$GIT" -C "$d" update-index --index-version $v
		if [ $v = 3 ]; then "$GIT" -C "$d" update-index --skip-worktree a; fi
		size=$(wc -c <"$d/.git/index")
		head -c $((size - $([ $r = s2 ] && echo 32 || echo 20))) "$d/.git/index" >"$WORK/index"
		seed index $opt "$WORK/index"
		if [ $v = 3 ]; then "$GIT" -C "$d" update-index --no-skip-worktree a; fi
	done
	"$GIT" -C "$d" pack-refs --all
	seed packed_refs $opt "$d/.git/packed-refs"
	# loose refs: HEAD, main, topic, v1, packed-refs, logs/HEAD
	"$GIT" -C "$d" update-ref refs/heads/main HEAD
	{
		cat "$d/.git/HEAD"; printf '\n=====\n'
		"$GIT" -C "$d" rev-parse main; printf '\n=====\n'
		printf 'ref: refs/heads/main\n'; printf '\n=====\n'
		"$GIT" -C "$d" rev-parse v1; printf '\n=====\n'
		cat "$d/.git/packed-refs"; printf '\n=====\n'
		cat "$d/.git/logs/HEAD"
	} > "$WORK/refs"
	seed loose_refs "" "$WORK/refs"

	# --- protocol captures ----------------------------------------------------
	"$GIT" -C "$d" upload-pack --advertise-refs --stateless-rpc . > "$WORK/adv0"
	{ pkt "# service=git-upload-pack"$'\n'; printf 0000; cat "$WORK/adv0"; } > "$WORK/adv0h"
	seed advertisement 00 "$WORK/adv0"
	seed advertisement 01 "$WORK/adv0h"
	seed pktline "" "$WORK/adv0h"
	"$GIT" -C "$d" receive-pack --advertise-refs --stateless-rpc . > "$WORK/advr" 2>/dev/null &&
		seed advertisement 00 "$WORK/advr"
	GIT_PROTOCOL=version=2 "$GIT" -C "$d" upload-pack --advertise-refs --stateless-rpc . > "$WORK/adv2"
	{ pkt "# service=git-upload-pack"$'\n'; printf 0000; cat "$WORK/adv2"; } > "$WORK/adv2h"
	seed advertisement 01 "$WORK/adv2h"
	seed advertisement 00 "$WORK/adv2"
	# the capability lists themselves
	tail -c +9 "$WORK/adv0" | tr '\0' '\n' | sed -n 2p | cut -c1-400 > "$WORK/caps1" || true
	seed caps "" "$WORK/caps1"
	python3 - "$WORK/adv2" "$WORK/caps2" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read(); out = b''; i = 0
while i + 4 <= len(d):
    n = int(d[i:i+4], 16)
    if n < 4: i += 4; continue
    out += d[i+4:i+n]; i += n
open(sys.argv[2], 'wb').write(out)
PY
	seed caps "" "$WORK/caps2"
	algo=sha1; [ $r = s2 ] && algo=sha256
	{
		pkt "command=ls-refs"$'\n'; pkt "object-format=$algo"$'\n'; printf 0001
		pkt "peel"$'\n'; pkt "symrefs"$'\n'; pkt "unborn"$'\n'; printf 0000
	} | GIT_PROTOCOL=version=2 "$GIT" -C "$d" upload-pack --stateless-rpc . > "$WORK/lsrefs"
	seed ls_refs $opt "$WORK/lsrefs"
	seed pktline "" "$WORK/lsrefs"
	head_oid=$("$GIT" -C "$d" rev-parse HEAD)
	old_oid=$("$GIT" -C "$d" rev-parse HEAD~2)
	{
		pkt "command=fetch"$'\n'; pkt "object-format=$algo"$'\n'; printf 0001
		pkt "ofs-delta"$'\n'; pkt "want $head_oid"$'\n'; pkt "have $old_oid"$'\n'
		pkt "done"$'\n'; printf 0000
	} | GIT_PROTOCOL=version=2 "$GIT" -C "$d" upload-pack --stateless-rpc . > "$WORK/fetch2" 2>/dev/null
	seed fetch_response $(printf '%02x' $((0x$opt | 0x08))) "$WORK/fetch2"
	seed sideband 01 "$WORK/fetch2"
	{
		pkt "command=fetch"$'\n'; pkt "object-format=$algo"$'\n'; printf 0001
		pkt "want $head_oid"$'\n'; pkt "have $old_oid"$'\n'; pkt "deepen 1"$'\n'; printf 0000
	} | GIT_PROTOCOL=version=2 "$GIT" -C "$d" upload-pack --stateless-rpc . > "$WORK/fetch2n" 2>/dev/null || true
	seed fetch_response $opt "$WORK/fetch2n"
	if [ $r = s1 ]; then
		{
			pkt "want $head_oid multi_ack_detailed side-band-64k ofs-delta agent=x"$'\n'
			printf 0000; pkt "have $old_oid"$'\n'; pkt "done"$'\n'
		} | "$GIT" -C "$d" upload-pack --stateless-rpc . > "$WORK/fetch0" 2>/dev/null
		seed fetch_response 0a "$WORK/fetch0"
		seed sideband 01 "$WORK/fetch0"
		seed pktline "" "$WORK/fetch0"
	fi
	# push reports (hand-made, as receive-pack words them)
	{ pkt "unpack ok"$'\n'; pkt "ok refs/heads/main"$'\n'; pkt "ng refs/heads/topic non-fast-forward"$'\n'
	  pkt "ok refs/tags/v1"$'\n'; printf 0000; } > "$WORK/rs"
	seed push_report $opt "$WORK/rs"
	{ pkt "unpack ok"$'\n'; pkt "ok refs/heads/main"$'\n'; pkt "option refname refs/for/main"$'\n'
	  pkt "option old-oid $old_oid"$'\n'; pkt "option new-oid $head_oid"$'\n'; pkt "option forced-update"$'\n'
	  pkt "ok refs/heads/topic"$'\n'; pkt "ng refs/tags/v1 hook declined"$'\n'; printf 0000; } > "$WORK/rs2"
	seed push_report $(printf '%02x' $((0x$opt | 0x02))) "$WORK/rs2"
	python3 - "$WORK/rs" "$WORK/rsb" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
def pkt(b): return b'%04x' % (len(b) + 4) + b
out = pkt(b'\x02Resolving deltas: 100% (3/3), done.\n') + pkt(b'\x01' + d[:7]) + pkt(b'\x01' + d[7:]) + b'0000'
open(sys.argv[2], 'wb').write(out)
PY
	seed push_report $(printf '%02x' $((0x$opt | 0x08))) "$WORK/rsb"
done

# --- reftable ------------------------------------------------------------------------
for r in r1 r2; do
	d="$WORK/$r/.git/reftable"
	"$GIT" -C "$WORK/$r" pack-refs --all
	"$GIT" -C "$WORK/$r" update-ref refs/heads/extra HEAD~1
	"$GIT" -C "$WORK/$r" update-ref -d refs/heads/topic
	for f in "$d"/*.ref; do seed reftable_table "" "$f"; done
	{
		cat "$d/tables.list"
		while read -r t; do printf '\n=====\n'; cat "$d/$t"; done < "$d/tables.list"
	} > "$WORK/stack"
	seed reftable_stack "" "$WORK/stack"
	for f in "$d"/*.ref; do
		python3 - "$f" "$WORK/block" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
v = d[4]; hs = 24 if v == 1 else 28; fs = 68 if v == 1 else 72
bs = int.from_bytes(d[5:8], 'big'); foot = d[-fs:]
ri, obj, oi, lp, li = struct.unpack('>QQQQQ', foot[hs:hs + 40])
def rel(p): return 0 if p == 0 else min(p - hs + 1, 0xffff)
bsel = 0 if bs == 0 else 1 if bs == 256 else 2 if bs == 4096 else 3
params = bytes([(1 if v == 2 else 0) | bsel << 1])
params += struct.pack('>HHHHH', rel(obj >> 5), rel(lp), rel(ri), rel(oi), rel(li))
params += bytes([obj & 0x1f])
open(sys.argv[2], 'wb').write(params + d[hs:-fs])
PY
		seed reftable_block "" "$WORK/block"
	done
done

# --- deltas: base length, base, then a delta from git's own packs -------------------
python3 - "$OUT/delta" <<'PY'
import os, sys
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
def varint(n):
    b = bytearray()
    while True:
        c = n & 0x7f; n >>= 7
        b.append(c | (0x80 if n else 0))
        if not n: return bytes(b)
base = b'The quick brown fox jumps over the lazy dog.\n' * 3
res = base[:40] + b'INSERTED' + base[60:100]
delta = varint(len(base)) + varint(len(res))
delta += bytes([0x80 | 0x10, 40])          # copy offset 0 size 40
delta += bytes([8]) + b'INSERTED'          # insert
delta += bytes([0x80 | 0x01 | 0x10, 60, 40])  # copy offset 60 size 40
for i, (b, d) in enumerate([(base, delta), (b'', varint(0) + varint(3) + b'\x03abc'),
                            (base, varint(len(base)) + varint(0x10000) + bytes([0x80]))]):
    open(os.path.join(out, 'seed-delta-%d' % i), 'wb').write(len(b).to_bytes(2, 'little') + b + d)
PY

# --- texts ------------------------------------------------------------------------------
text progress 'Enumerating objects: 12, done.\n' \
	'Counting objects:  50% (6/12)\rCounting objects: 100% (12/12), done.\n' \
	'Receiving objects:  42% (5/12), 1.20 MiB | 2.00 MiB/s\r' \
	'Total 12 (delta 3), reused 0 (delta 0), pack-reused 0 (from 0)\n' \
	'Compressing objects:\n  42% (5/12)\r'
text caps 'multi_ack thin-pack side-band side-band-64k ofs-delta shallow deepen-since deepen-not deepen-relative no-progress include-tag multi_ack_detailed allow-tip-sha1-in-want allow-reachable-sha1-in-want no-done symref=HEAD:refs/heads/main filter object-format=sha1 agent=git/2.53.0' \
	'version 2\nagent=git/2.53.0\nls-refs=unborn\nfetch=shallow wait-for-done filter\nserver-option\nobject-format=sha256\nobject-info\n'
text refname '\x00refs/heads/main' '\x00refs/heads/feature/x-1' '\x01HEAD' \
	'\x02refs/heads/*' '\x00refs/tags/v1.0^{}' '\x00refs/heads/a..b' '\x00refs/heads/@{x}' \
	'\x00refs/heads/x.lock' '\x03refs/remotes/origin/*'
text refspec '+refs/heads/*:refs/remotes/origin/*\nrefs/heads/main' 'main:refs/heads/other' \
	'refs/tags/*:refs/tags/*\nrefs/tags/v1' '^refs/heads/x' ':refs/heads/gone' 'HEAD'
text attr '\x00* text\n*.c eol=crlf -diff\n[attr]m a=1 -b\n*.h m\n"q x" !text\xffsub/** x\n[attr]no y\xff*.c text=auto\xff!neg a\n\xef\xbb\xbf* g\xffx.c\nd/y.h\nd/e/q x\nd/e/\n' \
	'\x01*.bin binary\r\n/top -text\ndir/ a\n**/deep b\xff\xff\xff\xff\xfftop\nd/x.bin\ndir/\nd/e/deep' \
	'\x02*.TXT text eol=lf\xff\xff\xff\xff\xffA.txt\nd/B.TXT\r\none\r\ntwo\nthree\rfour\x00'
# hunk_select: 8 bytes of selection, the cut between the texts (out of
# 256), then the texts; the last one's common tail is over 1024 bytes
tail1k=$(printf 'line %04d of a long common tail\n' $(seq 40))
text hunk_select '\x05\x00\x00\x00\x00\x00\x00\x00\x80a\nb\nc\nd\nA\nb\nC\nd\n' \
	'\x02\x00\x00\x00\x00\x00\x00\x00\x40one\ntwo\none\nNEW\ntwo\nthree\nfour' \
	'\xff\x00\x00\x00\x00\x00\x00\x00\xc0x\ny\nz\nw\nx\n' \
	"\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x80old\\n${tail1k}\\nnew\\n${tail1k}\\n"
text date '1700000000 +0100' '@1700000000' '2023-11-14 22:13:20 +0000' \
	'Tue, 14 Nov 2023 22:13:20 +0100' '2023-11-14T22:13:20Z' 'now' '1.day.ago' '12345 -0530'
text ident 'A U Thor <author@example.com> 1700000000 +0100' 'C <c@x> 0 -0530' \
	'<a@b> 1 +0000' 'Name <mail>' 'N <e> 0123 +0000' 'N <e> 99999999999999999999 +0000'
text gitmodules '\x00[submodule "a"]\n\tpath = a\n\turl = ../a.git\n\tupdate = rebase\n' \
	'\x01[submodule "../x"]\n\turl = https://u@h:8080/a/../%0a?q#f\n\tpath = -p\n[broken' \
	'\x02*.c text eol=lf\n*.png binary\n'
text url 'https://example.com/repo.git\n../other.git' 'http://user:pa%40ss@host:8080/a/./b/../c?q=1#f\n/x' \
	'https://[::1]:443/p\n//other.example/path' 'http://h/a/b\n?query' 'HTTPS://Example.COM\nhttps://x/y'
text revparse 'HEAD' 'main~1' 'v1^{commit}' 'v1^{tree}:dir/b' 'HEAD^2' 'topic^{}' '@' \
	'main:a' 'lw^{blob}' 'HEAD~0^0' 'refs/heads/main' 'v1^{object}' 'HEAD:dir' 'heads/topic'
text config '[core]\n\tbare = false\n[remote "origin"]\n\turl = x\n\tfetch = +a:b\n' \
	'[a.b]\nc = "q\\"uote" ; comment\n[x]\ny\nz = 1k\n' '[s "sub\\"sec"]\n\tk = v \\\n continued\n'
text pktline '0000' '0001' '0002' '0004' '000ahello\n0000' '0008ERR x'
text sideband '\x010006\x01a0000' '\x00000c\x02progress\n0000'
# ignore: option byte, then .gitignore, a/.gitignore, a/b/.gitignore,
# info/exclude and the paths, split at \x01
text ignore '\x00*.o\n!keep.o\nbuild/\n/top\n\x01!*.o\nx/**/y\n\x01\\#h\n\\!b\nsp\\ \n\x01info\n\x01a/b/x.o\nkeep.o\nbuild/f\ntop\na/top\na/x/q/y\na/b/#h' \
	'\x01# c\r\nA*\r\n\r\n[a-c]?/\x01\xef\xbb\xbfbom\n\x00nul\x01\x01**/z\n\x01a\nAB/c\na/b/bom\nb/z/' \
	'\x02/\n!\n//\n*\n!*/\n\x01\x01\x01\x01a/\n/x\n\na//b\na/b/'

touch "$OUT/.done"
echo "seeds: $(find "$OUT" -type f -name 'seed-*' | wc -l) files in $OUT"
