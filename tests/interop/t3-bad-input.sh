#!/usr/bin/env bash
# t3-bad-input: corrupt and malformed objects are refused cleanly.
#
# For SHA-1 and SHA-256:
#   - loose objects crafted by hand (python3 + zlib): corrupt zlib streams,
#     empty files, headers whose size does not match or cannot be parsed,
#     unknown types, truncated streams, headers without NUL, trees with
#     '.git' / '..' / '.' / 'a/b' / empty names or bad modes, commits without
#     or with a bad tree line, tags without an object line -- each placed
#     under .git/objects/xx/yyyy named after its content ("match") and under
#     an unrelated name ("other").  `webgit cat-file -p` (and ls-tree for
#     trees) must fail with a clean exit status and ONE stderr line starting
#     "fatal: "/"error: " that names the problem; -t and -s must not crash.
#   - hash-object -t tree/commit/tag of malformed content is refused with and
#     without -w (as git does), --literally hashes it like git, and no object
#     is written; unknown types are refused.
#   - mktree refuses '.git', '..', '.', '/', empty names, bad modes, mode/type
#     mismatches, duplicates and malformed lines, writing nothing.
#
# Some of these git itself accepts (it is lax on read: size mismatches,
# truncated streams, trees with '.git', commits without a tree; mktree takes
# '.git', '..' and odd modes).  webgit is deliberately stricter there; those
# checks are skipped when the scripts run with WEBGIT=$GIT.
#
# interop: leak-check

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fixtures.sh"
require_webgit

if fx_webgit_is_git; then
	IS_GIT=1
	note "WEBGIT is the reference git: checks where webgit is stricter are skipped, multi-line errors allowed"
else
	IS_GIT=0
	FX_ONE_LINE=1
fi

# strict DESC CMD...: a check that git itself would not pass.
strict() {
	if [ "$IS_GIT" = 1 ]; then
		skip "$1" "git accepts this; webgit is stricter"
	else
		check "$@"
	fi
}

CRAFT="$PWD/craft.py"
cat >"$CRAFT" <<'EOF'
# craft.py loose GITDIR ALGO KIND NAMING   write a loose object, print its name
# craft.py body ALGO KIND FILE             write the body (no header) of KIND
# craft.py batch TEMPLATE                  for each line of stdin, in one
#     python (and no git) for all of a format's objects:
#     "loose DIR ALGO KIND NAMING": copy the repository TEMPLATE to DIR,
#         write the loose object into DIR/.git as "loose" does, print
#         "DIR NAME"
#     "body ALGO KIND FILE": as "body" does
import hashlib, os, random, shutil, sys, zlib

def build(algo, kind):
    """Returns (content, data): content is what the 'match' name hashes,
    data the bytes of the loose file (None: zlib of content)."""
    H = lambda b: hashlib.new(algo, b).digest()
    blob_id = H(b"blob 6\0hello\n")
    tree_id = H(b"tree 0\0")
    ident = b"A U Thor <author@example.com> 1700000000 +0000"
    hexid = H(b"x").hex().encode()
    def obj(t, body):
        return t + b" %d\0" % len(body) + body
    def tree(*entries):
        return obj(b"tree", b"".join(m + b" " + n + b"\0" + i for (m, n, i) in entries))
    rnd = random.Random(kind)
    k = kind
    if k == "zlib-flip":
        c = obj(b"blob", b"hello hello hello hello\n" * 4)
        z = bytearray(zlib.compress(c)); z[len(z) // 2] ^= 0xff
        return c, bytes(z)
    if k == "zlib-garbage":
        return obj(b"blob", b"garbage\n"), bytes(rnd.getrandbits(8) for _ in range(40))
    if k == "zlib-adler":
        c = obj(b"blob", b"adler\n")
        z = bytearray(zlib.compress(c)); z[-1] ^= 0x01
        return c, bytes(z)
    if k == "empty-file":
        return obj(b"blob", b"empty\n"), b""
    if k == "truncated":
        c = obj(b"blob", bytes(rnd.getrandbits(8) for _ in range(4000)))
        return c, zlib.compress(c)[:2000]
    if k == "truncated-header":
        c = obj(b"blob", b"truncated header\n")
        return c, zlib.compress(b"blob 17")
    simple = {
        "size-bigger": b"blob 20\0hello\n",
        "size-smaller": b"blob 3\0hello\n",
        "size-huge": b"blob 99999999999999999999\0hello\n",
        "size-negative": b"blob -6\0hello\n",
        "size-leading-zero": b"blob 06\0hello\n",
        "size-missing": b"blob \0hello\n",
        "type-unknown": b"blurb 6\0hello\n",
        "type-empty": b" 6\0hello\n",
        "no-nul": b"blob 6 hello\n",
        "no-nul-long": b"blob 6" + b"9" * 200,
        "tree-dotgit": tree((b"100644", b".git", blob_id)),
        "tree-dotgit-upper": tree((b"40000", b".GIT", tree_id)),
        "tree-gitlink-dotgit": tree((b"160000", b".git", H(b"c"))),
        "tree-dotdot": tree((b"100644", b"..", blob_id)),
        "tree-dot": tree((b"100644", b".", blob_id)),
        "tree-slash": tree((b"100644", b"a/b", blob_id)),
        "tree-empty-name": tree((b"100644", b"", blob_id)),
        "tree-mode-nonoctal": tree((b"100694", b"file", blob_id)),
        "tree-mode-odd": tree((b"100645", b"file", blob_id)),
        "tree-mode-empty": tree((b"", b"file", blob_id)),
        "tree-mode-zero-padded": tree((b"040000", b"dir", tree_id)),
        "tree-short-id": obj(b"tree", b"100644 file\0" + blob_id[:-5]),
        "tree-unsorted": tree((b"100644", b"b", blob_id), (b"100644", b"a", blob_id)),
        "tree-duplicate": tree((b"100644", b"a", blob_id), (b"100644", b"a", blob_id)),
        "commit-no-tree": obj(b"commit", b"author " + ident + b"\ncommitter " + ident + b"\n\nmsg\n"),
        "commit-bad-tree": obj(b"commit", b"tree xyz\nauthor " + ident + b"\ncommitter " + ident + b"\n\nmsg\n"),
        "commit-bad-parent": obj(b"commit", b"tree " + hexid + b"\nparent nope\nauthor " + ident +
                                 b"\ncommitter " + ident + b"\n\nmsg\n"),
        "tag-no-object": obj(b"tag", b"type commit\ntag t\ntagger " + ident + b"\n\nmsg\n"),
        "valid-blob": obj(b"blob", b"a perfectly good blob\n"),
    }
    if k not in simple:
        sys.exit("craft.py: unknown kind " + k)
    return simple[k], None

def loose(gitdir, algo, kind, naming):
    content, data = build(algo, kind)
    if data is None:
        data = zlib.compress(content)
    if naming == "match":
        h = hashlib.new(algo, content).hexdigest()
    else:
        h = hashlib.new(algo, b"misnamed " + kind.encode()).hexdigest()
    d = os.path.join(gitdir, "objects", h[:2])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, h[2:]), "wb") as f:
        f.write(data)
    return h

def main():
    if sys.argv[1] == "loose":
        print(loose(*sys.argv[2:6]))
    elif sys.argv[1] == "batch":
        for line in sys.stdin:
            job = line.split()
            if job[0] == "loose":
                shutil.copytree(sys.argv[2], job[1], symlinks=True)
                print(job[1], loose(os.path.join(job[1], ".git"), *job[2:5]))
            else:
                body(*job[1:4])
    else:
        body(*sys.argv[2:5])

def body(algo, kind, path):
    content, _ = build(algo, kind)
    with open(path, "wb") as f:
        f.write(content[content.index(b"\0") + 1:])

main()
EOF

# fx_no_crash CMD...: any exit status is fine, a crash is not.
fx_no_crash() {
	"$@" >/dev/null 2>"$PWD/nc.err"
	local rc=$?
	if [ $rc -gt 128 ] || { [ $rc -ge 124 ] && [ $rc -lt 128 ]; } ||
		grep -qE 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|SUMMARY: UndefinedBehaviorSanitizer' "$PWD/nc.err"; then
		echo "crashed with exit $rc" >&2
		head -n 20 "$PWD/nc.err" >&2
		return 1
	fi
	return 0
}

# read_or_mismatch R ID EXPECTED: cat-file -p either prints EXPECTED (the
# object is well formed, only misnamed; git reads it) or fails naming a hash
# mismatch.
read_or_mismatch() {
	local out
	if out=$("$WEBGIT" -C "$1" cat-file -p "$2" 2>"$PWD/rm.err"); then
		[ "$out" = "$3" ] || { echo "printed '$out'" >&2; return 1; }
	else
		fx_error_like 'mismatch|hash|corrupt' "$WEBGIT" -C "$1" cat-file -p "$2"
	fi
}

# kind | stderr regex | lax: git reads it anyway (m: under its own name,
# o: under another name, mo: both)
cases="
zlib-flip|zlib|inflate|corrupt|compress|
zlib-garbage|zlib|inflate|corrupt|compress|
zlib-adler|zlib|inflate|corrupt|compress|checksum|adler|
empty-file|empty|corrupt|truncated|zlib|inflate|
truncated|truncat|corrupt|zlib|inflate|end of|short|mo
truncated-header|header|truncat|corrupt|zlib|inflate|
size-bigger|size|length|corrupt|mo
size-smaller|size|length|corrupt|mo
size-huge|size|overflow|too large|header|corrupt|
size-negative|size|header|corrupt|
size-leading-zero|size|header|corrupt|
size-missing|size|header|corrupt|
type-unknown|type|
type-empty|type|
no-nul|header|nul|corrupt|
no-nul-long|header|nul|corrupt|
tree-dotgit|[.]git|m
tree-dotgit-upper|[.]git|m
tree-gitlink-dotgit|[.]git|m
tree-dotdot|'[.][.]'|[.][.]|dotdot|m
tree-dot|'[.]'|dot|name|path|m
tree-slash|slash|/|full ?path|name|path|m
tree-empty-name|empty|name|
tree-mode-nonoctal|mode|
tree-mode-odd|mode|m
tree-mode-empty|mode|
tree-short-id|short|truncat|tree|corrupt|
commit-no-tree|tree|mo
commit-bad-tree|tree|mo
commit-bad-parent|parent|mo
tag-no-object|object|mo
"

# kind | type | stderr regex, for hash-object
hash_cases="
tree-dotgit|tree|[.]git
tree-dotgit-upper|tree|[.]git
tree-gitlink-dotgit|tree|[.]git
tree-dotdot|tree|'[.][.]'|[.][.]|dotdot
tree-dot|tree|'[.]'|dot
tree-slash|tree|slash|/|full ?path
tree-empty-name|tree|empty|name
tree-mode-odd|tree|mode
tree-mode-nonoctal|tree|mode
tree-mode-empty|tree|mode
tree-mode-zero-padded|tree|mode|pad
tree-short-id|tree|short|truncat|tree|corrupt
tree-unsorted|tree|sort|order
tree-duplicate|tree|duplicate|two entries|twice
commit-no-tree|commit|tree
commit-bad-tree|commit|tree
commit-bad-parent|commit|parent
tag-no-object|tag|object
"

for fmt in sha1 sha256; do
	# Every crafted repository and body file of this format from one python
	# run, the repositories copies of one `git init` (one python and one
	# git per object were 340 processes and a tenth of the script's time).
	tpl="$PWD/template-$fmt"
	"$GIT" init -q --object-format="$fmt" "$tpl"
	declare -A crafted=()
	while read -r dir id; do crafted[$dir]=$id; done < <(
		{
			while IFS= read -r line; do
				[ -n "$line" ] || continue
				for naming in match other; do
					echo "loose $PWD/bad-$fmt-${line%%|*}-$naming $fmt ${line%%|*} $naming"
				done
			done <<<"$cases"
			for kind in tree-unsorted tree-duplicate tree-mode-zero-padded; do
				echo "loose $PWD/odd-$fmt-$kind $fmt $kind match"
			done
			echo "loose $PWD/misnamed-$fmt $fmt valid-blob other"
			while IFS='|' read -r kind type re; do
				[ -n "$kind" ] || continue
				echo "body $fmt $kind $PWD/body-$fmt-$kind"
			done <<<"$hash_cases"
		} | python3 "$CRAFT" batch "$tpl"
	)

	# --- reading crafted loose objects ------------------------------------------
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		kind=${line%%|*}
		lax=${line##*|}
		re=${line#*|}
		re=${re%|*}
		for naming in match other; do
			R="$PWD/bad-$fmt-$kind-$naming"
			id=${crafted[$R]}
			n=${naming:0:1}
			r=$re
			[ "$naming" = other ] && r="$re|mismatch|hash"
			s="$fmt: $kind ($naming name)"
			if [ -n "$lax" ] && [ "${lax#*"$n"}" != "$lax" ]; then
				strict "$s: cat-file -p fails" fx_error_like "$r" "$WEBGIT" -C "$R" cat-file -p "$id"
				[ "${kind#tree-}" != "$kind" ] &&
					strict "$s: ls-tree fails" fx_error_like "$r" "$WEBGIT" -C "$R" ls-tree "$id"
			else
				check "$s: cat-file -p fails" fx_error_like "$r" "$WEBGIT" -C "$R" cat-file -p "$id"
				[ "${kind#tree-}" != "$kind" ] &&
					check "$s: ls-tree fails" fx_error_like "$r" "$WEBGIT" -C "$R" ls-tree "$id"
			fi
			check "$s: cat-file -t does not crash" fx_no_crash "$WEBGIT" -C "$R" cat-file -t "$id"
			check "$s: cat-file -s does not crash" fx_no_crash "$WEBGIT" -C "$R" cat-file -s "$id"
			check "$s: cat-file -e does not crash" fx_no_crash "$WEBGIT" -C "$R" cat-file -e "$id"
		done
	done <<<"$cases"
	rm -rf "$PWD/bad-$fmt-"*
	# Unsorted or duplicate entries: git reads such trees; webgit may refuse
	# them too, but must not crash.
	for kind in tree-unsorted tree-duplicate tree-mode-zero-padded; do
		R="$PWD/odd-$fmt-$kind"
		id=${crafted[$R]}
		check "$fmt: $kind: cat-file -p does not crash" fx_no_crash "$WEBGIT" -C "$R" cat-file -p "$id"
		check "$fmt: $kind: ls-tree -r does not crash" fx_no_crash "$WEBGIT" -C "$R" ls-tree -r "$id"
	done
	# A well-formed blob under the wrong name.
	R="$PWD/misnamed-$fmt"
	id=${crafted[$R]}
	check "$fmt: misnamed valid blob: read as git does, or refused as a hash mismatch" \
		read_or_mismatch "$R" "$id" "a perfectly good blob"

	# --- hash-object refuses malformed trees, commits and tags --------------------
	R="$PWD/hash-$fmt"
	"$GIT" init -q --object-format="$fmt" "$R"
	printf 'hello\n' | "$GIT" -C "$R" hash-object -w --stdin >/dev/null
	count=$(fx_object_count "$R/.git")
	while IFS='|' read -r kind type re; do
		[ -n "$kind" ] || continue
		f="$PWD/body-$fmt-$kind"
		s="$fmt: hash-object -t $type of $kind"
		check "$s: refused with -w" fx_error_like "$re" "$WEBGIT" -C "$R" hash-object -w -t "$type" "$f"
		check "$s: refused without -w" fx_error_like "$re" "$WEBGIT" -C "$R" hash-object -t "$type" "$f"
		check "$s: refused from --stdin -w" fx_error_like "$re" \
			sh -c '"$WEBGIT" -C "$1" hash-object -w -t "$2" --stdin <"$3"' sh "$R" "$type" "$f"
		check_same "$s: --literally hashes it like git" \
			"\"\$WEBGIT\" -C '$R' hash-object --literally -t $type '$f'" \
			"\"\$GIT\" -C '$R' hash-object --literally -t $type '$f'"
		check_output "$s: nothing written" "$count" fx_object_count "$R/.git"
		count=$(fx_object_count "$R/.git") # one failure is reported once
	done <<<"$hash_cases"
	printf 'some bytes\n' >"$PWD/plain"
	check "$fmt: hash-object -t with an unknown type refused" \
		fx_error_like 'type' "$WEBGIT" -C "$R" hash-object -w -t blurb "$PWD/plain"
	check "$fmt: hash-object --literally -t with an unknown type refused" \
		fx_error_like 'type' "$WEBGIT" -C "$R" hash-object -w --literally -t blurb "$PWD/plain"
	check "$fmt: hash-object -t commit of arbitrary bytes refused" \
		fx_error_like 'tree|commit|malformed|invalid' "$WEBGIT" -C "$R" hash-object -w -t commit "$PWD/plain"
	check_fail "$fmt: hash-object of a missing file fails" "$WEBGIT" -C "$R" hash-object -w "$PWD/no-such-file"
	check_output "$fmt: hash-object of an unknown type or a missing file wrote nothing" "$count" fx_object_count "$R/.git"

	# --- mktree refuses bad entries ---------------------------------------------
	blob=$(printf 'hello\n' | "$GIT" -C "$R" hash-object --stdin)
	tree=$(printf '100644 blob %s\tf\n' "$blob" | "$GIT" -C "$R" mktree)
	count=$(fx_object_count "$R/.git")
	TAB=$(printf '\t')
	zzz=$(printf '%0*d' "$(fx_hexlen $fmt)" 0 | tr 0 z)
	missing=$(printf '%0*d' "$(fx_hexlen $fmt)" 0 | tr 0 d)
	# name | lax (git accepts) | input line(s) (\t, \n expanded by printf) | regex
	while IFS='|' read -r name lax input re; do
		[ -n "$name" ] || continue
		input=${input//@BLOB@/$blob}
		input=${input//@TREE@/$tree}
		input=${input//@ZZZ@/$zzz}
		input=${input//@MISSING@/$missing}
		s="$fmt: mktree refuses $name"
		if [ -n "$lax" ]; then
			strict "$s" fx_error_like "$re" sh -c 'printf "$2" | "$WEBGIT" -C "$1" mktree' sh "$R" "$input"
			strict "$s (-z)" fx_error_like "$re" \
				sh -c 'printf "$2" | tr "\n" "\0" | "$WEBGIT" -C "$1" mktree -z' sh "$R" "$input"
		else
			check "$s" fx_error_like "$re" sh -c 'printf "$2" | "$WEBGIT" -C "$1" mktree' sh "$R" "$input"
		fi
		check_output "$s: nothing written" "$count" fx_object_count "$R/.git"
		count=$(fx_object_count "$R/.git")
	done <<'EOF'
a .git entry|lax|100644 blob @BLOB@\t.git\n|[.]git
a .GIT entry|lax|040000 tree @TREE@\t.GIT\n|[.]git
a .git gitlink|lax|160000 commit @BLOB@\t.git\n|[.]git
a .. entry|lax|100644 blob @BLOB@\t..\n|'[.][.]'|[.][.]|dotdot
a . entry|lax|100644 blob @BLOB@\t.\n|'[.]'|dot
an empty name|lax|100644 blob @BLOB@\t\n|empty|name
duplicate names|lax|100644 blob @BLOB@\ta\n100644 blob @BLOB@\ta\n|duplicate|two entries|twice
mode 100645|lax|100644 blob @BLOB@\tok\n100645 blob @BLOB@\tx\n|mode
mode 100694 (not octal)||100694 blob @BLOB@\tx\n|mode|format
a slash in a name||100644 blob @BLOB@\ta/b\n|slash|/|path
a blob mode naming a tree||100644 tree @TREE@\tx\n|mode|type|match
a tree mode naming a blob||040000 blob @BLOB@\tx\n|mode|type|match
a line without a tab||100644 blob @BLOB@ x\n|format|tab
a short object id||100644 blob abcdef\tx\n|format|invalid|object|id
a non-hex object id||100644 blob @ZZZ@\tx\n|format|invalid|object|id
a missing object||100644 blob @MISSING@\tx\n|missing|unavailable|not found|exist
EOF
	check_same "$fmt: mktree accepts a zero-padded 040000 mode like git" \
		"printf '040000 tree %s\tdir\n' $tree | \"\$WEBGIT\" -C '$R' mktree" \
		"printf '040000 tree %s\tdir\n' $tree | \"\$GIT\" -C '$R' mktree"
done
