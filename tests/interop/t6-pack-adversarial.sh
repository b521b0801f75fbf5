#!/usr/bin/env bash
# t6-pack-adversarial: broken and hostile packs are refused cleanly.
#
# Starting from a pack git wrote (and from small packs crafted here with
# python), each of these is fed to `webgit index-pack --stdin` in a
# repository and to `webgit index-pack FILE`:
#   truncated in the header, in an object header, in a zlib stream and in
#   the trailer; a wrong trailing checksum; an object count too high and
#   too low (with a valid checksum); a delta whose base size does not
#   match; a REF_DELTA to itself; a cycle of two REF_DELTAs; a delta that
#   declares a 4 GiB result; a zlib stream that inflates far past its
#   declared size; junk after the trailer.
# Each must fail with a "fatal:" message and no crash (run.sh makes ASan
# and UBSan reports fatal), and leave the repository exactly as it was:
# the listing of .git (names and sizes) is compared before and after, so
# a leftover pack, index or temporary file fails the test.
#
# interop: leak-check

. "$(dirname "$0")/lib.sh"
require_webgit

# feed FILE CMD...: run CMD with FILE on standard input (the helpers give
# commands /dev/null otherwise).
feed() { local f=$1; shift; "$@" <"$f"; }

for fmt in sha1 sha256; do
	R="$PWD/src-$fmt"
	"$GIT" init -q --object-format=$fmt "$R"
	(
		cd "$R" || exit 1
		for i in 1 2 3 4 5 6; do
			seq 1 $((i * 100)) >f.txt
			echo "v$i" >g.txt
			"$GIT" add . && "$GIT" commit -q -m "c$i"
		done
		"$GIT" repack -adq
	) >/dev/null
	good="$PWD/good-$fmt.pack"
	cp "$R"/.git/objects/pack/pack-*.pack "$good"

	# mk NAME PYTHON: write bad-$fmt-NAME.pack with python, given the
	# good pack's bytes as `p`, helpers to build packs, and the hash.
	mk() {
		python3 - "$good" "$PWD/bad-$fmt-$1.pack" "$fmt" "$2" <<'PY'
import hashlib, struct, sys, zlib
good, out, fmt, body = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
p = open(good, 'rb').read()
H = hashlib.sha1 if fmt == 'sha1' else hashlib.sha256
RAW = H().digest_size
def ohdr(t, size):
    c = (t << 4) | (size & 15); size >>= 4; b = bytearray()
    while size:
        b.append(c | 0x80); c = size & 0x7f; size >>= 7
    b.append(c); return bytes(b)
def le(n):
    b = bytearray()
    while True:
        c = n & 0x7f; n >>= 7
        if n: b.append(c | 0x80)
        else: b.append(c); return bytes(b)
def ofs(n):
    b = bytearray([n & 0x7f]); n >>= 7
    while n:
        n -= 1; b.insert(0, 0x80 | (n & 0x7f)); n >>= 7
    return bytes(b)
def oid(t, data):
    return H(b'%s %d\0' % (t, len(data)) + data).digest()
def pack(entries, count=None):
    body = b''.join(entries)
    h = b'PACK' + struct.pack('>II', 2, len(entries) if count is None else count) + body
    return h + H(h).digest()
def blob(data, size=None):
    return ohdr(3, len(data) if size is None else size) + zlib.compress(data)
def delta(base_len, result_len, ops):
    return le(base_len) + le(result_len) + ops
def ins(s): return bytes([len(s)]) + s
def copy(off, n): return bytes([0x80 | 0x01 | 0x10 | 0x20, off & 0xff, n & 0xff, (n >> 8) & 0xff])
res = eval(body)
open(out, 'wb').write(res)
PY
	}
	mk trunc-header 'p[:7]'
	mk trunc-objhdr 'p[:13]'
	mk trunc-zlib 'p[:len(p)//2]'
	mk trunc-trailer 'p[:-5]'
	mk no-trailer 'p[:-RAW]'
	mk bad-checksum 'p[:-1] + bytes([p[-1] ^ 1])'
	mk count-high 'p[:8] + struct.pack(">I", struct.unpack(">I", p[8:12])[0] + 1) + p[12:-RAW] + H(p[:8] + struct.pack(">I", struct.unpack(">I", p[8:12])[0] + 1) + p[12:-RAW]).digest()'
	mk count-low 'p[:8] + struct.pack(">I", struct.unpack(">I", p[8:12])[0] - 1) + p[12:-RAW] + H(p[:8] + struct.pack(">I", struct.unpack(">I", p[8:12])[0] - 1) + p[12:-RAW]).digest()'
	mk junk-after 'p + b"junk"'
	mk base-size 'pack([blob(b"base text"), (lambda d: ohdr(6, len(d)) + ofs(len(blob(b"base text"))) + zlib.compress(d))(delta(99, 4, copy(0, 2) + ins(b"xy")))])'
	mk ref-self 'pack([(lambda d: ohdr(7, len(d)) + oid(b"blob", b"abc") + zlib.compress(d))(delta(3, 3, copy(0, 3)))])'
	mk ref-cycle 'pack([(lambda d: ohdr(7, len(d)) + oid(b"blob", b"yyy") + zlib.compress(d))(delta(3, 3, ins(b"xxx"))), (lambda d: ohdr(7, len(d)) + oid(b"blob", b"xxx") + zlib.compress(d))(delta(3, 3, ins(b"yyy")))])'
	mk delta-4g 'pack([blob(b"base text"), (lambda d: ohdr(6, len(d)) + ofs(len(blob(b"base text"))) + zlib.compress(d))(delta(9, 4 << 30, copy(0, 2) + ins(b"xy")))])'
	mk zlib-bomb 'pack([blob(b"a" * (32 << 20), size=10)])'
	mk zlib-short 'pack([blob(b"a" * 1000, size=5000)])'
	mk bad-type 'pack([bytes([0x50 | 3]) + zlib.compress(b"abc")])'
	mk ofs-oob 'pack([blob(b"base"), (lambda d: ohdr(6, len(d)) + ofs(1000) + zlib.compress(d))(delta(4, 2, ins(b"xy")))])'

	T="$PWD/target-$fmt"
	"$GIT" init -q --bare --object-format=$fmt "$T"
	G="$PWD/gtarget-$fmt"
	"$GIT" init -q --bare --object-format=$fmt "$G"
	snapshot() { (cd "$T" && find . -printf '%p %s\n' | LC_ALL=C sort); }
	before=$(snapshot)
	for f in bad-$fmt-*.pack; do
		name=${f#bad-$fmt-}
		name=${name%.pack}
		check_fail "$fmt $name: index-pack --stdin refuses it" feed "$f" "$WEBGIT" -C "$T" index-pack --stdin
		cp "$LAST_ERR" "msg-$fmt-$name.txt"
		check "$fmt $name: the message is a fatal error" grep -q "^fatal: " "msg-$fmt-$name.txt"
		check_output "$fmt $name: the repository is unchanged" "$before" snapshot
		check_fail "$fmt $name: index-pack --stdin --fix-thin refuses it" \
			feed "$f" "$WEBGIT" -C "$T" index-pack --stdin --fix-thin
		check_output "$fmt $name: still unchanged" "$before" snapshot
		mkdir -p "file-$fmt-$name" && cp "$f" "file-$fmt-$name/x.pack"
		check_fail "$fmt $name: index-pack FILE refuses it" \
			"$WEBGIT" index-pack --object-format=$fmt "file-$fmt-$name/x.pack"
		check_output "$fmt $name: no index or temporary file next to it" "x.pack" ls "file-$fmt-$name"
		check_fail "$fmt $name: unpack-objects refuses it" feed "$f" "$WEBGIT" -C "$T" unpack-objects
		check_output "$fmt $name: unpack-objects left nothing" "$before" snapshot
		check_fail "$fmt $name: reference git refuses it too" \
			feed "$f" "$GIT" -C "$G" index-pack --stdin
	done
	check "$fmt: the good pack is accepted" feed "$good" "$WEBGIT" -C "$T" index-pack --stdin
done
