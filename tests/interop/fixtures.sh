# tests/interop/fixtures.sh — fixture repositories built with the reference git.
#
# Sourced by the t*.sh interop tests (after lib.sh).  Needs $GIT (the reference
# git) and python3.  Every function that builds something runs in a subshell,
# so the dates it ticks and the directories it enters do not leak out.
#
# Objects are kept loose: gc.auto=0, nothing repacks, and fx_unpack_packs
# explodes any pack git may have written anyway.  Refs stay loose too.
#
# Functions:
#   fx_git ARGS...                    reference git with fixture defaults
#   fx_build_repo DIR FORMAT          the rich history repository (non-bare)
#   fx_make_files DIR                 a directory of assorted files to hash
#   fx_ssh_key DIR                    an ed25519 key DIR/key (made once)
#   fx_unpack_packs GITDIR            turn any pack into loose objects
#   fx_loose_objects GITDIR           list loose object ids, sorted
#   fx_object_count GITDIR            number of loose objects
#   fx_objects_of_type GITDIR TYPE    loose object ids of one type
#   fx_hexlen FORMAT                  40 or 64
#   fx_prefix_collision FORMAT N      two numbers i j such that the blobs
#                                     "collide i\n" and "collide j\n" have ids
#                                     sharing their first N hex digits
#
# Helpers for the checks (use as `check "desc" fx_error_like ...`):
#   fx_error_like REGEX CMD...        CMD fails (status 1..127), stderr has a
#                                     "fatal: " or "error: " line, and matches
#                                     REGEX (grep -Ei); with FX_ONE_LINE=1 the
#                                     stderr must be exactly one such line
#   fx_webgit_is_git                  true when $WEBGIT is the reference git
#                                     (scripts developed with WEBGIT=$GIT)

fx_git() {
	"$GIT" -c gc.auto=0 -c core.autocrlf=false -c core.safecrlf=false \
		-c commit.gpgSign=false -c tag.gpgSign=false -c tag.forceSignAnnotated=false \
		-c init.defaultBranch=main -c advice.nestedTag=false \
		-c advice.detachedHead=false -c merge.verifySignatures=false \
		-c core.fsmonitor=false "$@"
}

fx_hexlen() {
	case "$1" in
	sha1) echo 40 ;;
	sha256) echo 64 ;;
	*) echo "fx_hexlen: unknown format $1" >&2; return 1 ;;
	esac
}

# Deterministic pseudo-random bytes: fx_random_bytes SEED COUNT > file
fx_random_bytes() {
	python3 -c '
import random, sys
r = random.Random(int(sys.argv[1]))
sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(int(sys.argv[2]))))
' "$1" "$2"
}

fx_ssh_key() {
	mkdir -p "$1" || return 1
	[ -f "$1/key" ] && return 0
	ssh-keygen -q -t ed25519 -N '' -C 'webgit-fixture' -f "$1/key" </dev/null
}

fx_unpack_packs() {
	(
		cd "$1" || exit 1
		for p in objects/pack/pack-*.pack; do
			[ -f "$p" ] || continue
			mv "$p" "$p.tmp" || exit 1
			rm -f "${p%.pack}.idx" "${p%.pack}.rev" "${p%.pack}.bitmap" "${p%.pack}.mtimes"
			"$GIT" --git-dir=. unpack-objects -q <"$p.tmp" || exit 1
			rm -f "$p.tmp"
		done
	)
}

fx_loose_objects() {
	(
		cd "$1/objects" || exit 1
		for d in ??; do
			[ -d "$d" ] || continue
			for f in "$d"/*; do
				[ -f "$f" ] && printf '%s%s\n' "$d" "${f#*/}"
			done
		done | LC_ALL=C sort
	)
}

fx_object_count() (
	set -o pipefail
	fx_loose_objects "$1" | wc -l | tr -d ' '
)

# One git process for all of them; fails when git does.
fx_objects_of_type() (
	set -o pipefail
	fx_loose_objects "$1" |
		"$GIT" --git-dir="$1" cat-file --batch-check='%(objecttype) %(objectname)' |
		awk -v t="$2" '$1 == t { print $2 } $1 != t && $2 == "missing" { exit 1 }'
)

# fx_make_files DIR: files for hash-object tests (no git involved).
fx_make_files() {
	(
		mkdir -p "$1" && cd "$1" || exit 1
		: >empty
		printf 'hello\n' >hello.txt
		printf 'no trailing newline' >no-newline.txt
		printf 'line one\r\nline two\r\n' >crlf.txt
		printf 'a\0b\0c\0\n' >nul-bytes.bin
		python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 4)' >all-bytes.bin
		fx_random_bytes 1 1048576 >random-1m.bin
		python3 -c '
import sys
sys.stdout.write("".join("line %07d of a large compressible text file\n" % i for i in range(70000)))
' >large-text.txt
		printf 'tree 0000\n' >looks-like-a-header.txt
		printf 'blob 5\0hello' >fake-loose-header.bin
		printf 'caf\351 latin-1\n' >latin1.txt
		printf 'caf\303\251 utf-8 \360\237\230\200\n' >utf8.txt
		printf 'x%.0s' $(seq 1 8192) >exactly-8k.txt
		printf 'spaces\n' >'name with spaces.txt'
	)
}

# fx_build_repo DIR FORMAT: the rich fixture repository.
#
# History (main):
#   c1  initial: files, subdirectories, executable, symlinks, empty blob
#   c2  unicode and C-quoted names, tricky sort order, large binary blob
#   c3  gitlink (submodule-like) entry
#   feature branch (2 commits) merged with --no-ff     -> 2-parent merge
#   oct1..oct3 branches merged at once                 -> octopus merge
#   signed commit (SSH), signed annotated tag on it
#   side branch with a signed tag, merged --no-ff       -> commit with mergetag
#   ISO-8859-1 commit (encoding header), empty message, message without
#   final newline, multi-line message with trailers, deletions and renames
#   an orphan commit on branch "orphan" with the empty tree
# Tags: v1.0 (annotated), v1.0-outer (tag of a tag), light (lightweight),
#   tree-tag / blob-tag (annotated tags of a tree and a blob), signed-v2
#   (SSH-signed), side-signed (signed, merged), a lightweight tag of a tree.
fx_build_repo() (
	dir="$1" fmt="$2"
	set -e
	fx_time=1700000000
	tick() {
		fx_time=$((fx_time + 60))
		export GIT_AUTHOR_DATE="$fx_time +0100" GIT_COMMITTER_DATE="$fx_time +0100"
	}
	tick
	export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL='author@example.com'
	export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL='committer@example.com'
	keydir="$(cd "$(dirname "$dir")" && pwd)/fixture-key"
	fx_ssh_key "$keydir"
	sign() { fx_git -c gpg.format=ssh -c user.signingKey="$keydir/key" "$@"; }

	fx_git init -q --object-format="$fmt" -b main "$dir"
	cd "$dir"
	fx_git config gc.auto 0
	fx_git config core.autocrlf false
	fx_git config core.filemode true
	fx_git config core.symlinks true

	# --- c1: plain files, directories, executable, symlinks ----------------
	printf '# fixture\n\nA repository for webgit interop tests.\n' >README.md
	: >empty.txt
	mkdir -p src/lib docs/deep/er/est bin
	printf 'int main(void) { return 0; }\n' >src/main.c
	printf 'int util(int x) { return x * 2; }\n' >src/lib/util.c
	printf 'deep\n' >docs/deep/er/est/file.txt
	printf '#!/bin/sh\necho run\n' >bin/run.sh
	chmod +x bin/run.sh
	ln -s README.md link-to-readme
	ln -s src link-to-dir
	ln -s does/not/exist dangling-link
	fx_git add -A
	fx_git commit -q -m 'Initial commit'
	tick

	# --- c2: names and sizes -------------------------------------------------
	mkdir -p unicode sort1 sort2/a weird 'dir with space'
	printf 'e acute\n' >"unicode/h$(printf '\303\251')llo.txt"
	printf 'kanji\n' >"unicode/$(printf '\346\227\245\346\234\254\350\252\236').txt"
	printf 'emoji\n' >"unicode/emoji-$(printf '\360\237\230\200').txt"
	printf 'nfd\n' >"unicode/e$(printf '\314\201')-combining.txt"
	# Tree order: entries compare as if directories had a trailing '/':
	# "a+" < "a-b" < "a.b" < "a/" (dir) < "a0" < "a=" < "aa" < "b"
	for n in a a+ a-b a.b a0 a= aa b; do printf '%s\n' "$n" >"sort1/$n"; done
	for n in a+ a-b a.b a0 a= aa; do printf '%s\n' "$n" >"sort2/$n"; done
	printf 'a/b\n' >sort2/a/b
	printf 'a/c\n' >sort2/a/c
	printf 'q\n' >'weird/quote"d'
	printf 'b\n' >'weird/back\slash'
	printf 't\n' >"weird/tab$(printf '\t')name"
	printf 'n\n' >"weird/new
line"
	printf 's\n' >'weird/-leading-dash'
	printf 'h\n' >'weird/#hash'
	printf 'd\n' >'dir with space/file with space'
	fx_random_bytes 42 1200000 >big.bin
	python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 64)' >bytes.bin
	fx_git add -A
	fx_git commit -q -m 'Add tricky names and a large binary blob

The tree of this commit exercises:
- non-ASCII file names (quoted by ls-tree unless core.quotepath=false)
- names that need C quoting (tab, newline, quote, backslash)
- tree sort order around "a", "a.b", "a-b" and the directory "a"'
	tick

	# --- c3: gitlink ----------------------------------------------------------
	sub_id=$(fx_git rev-parse HEAD~1)
	fx_git update-index --add --cacheinfo "160000,$sub_id,modules/sub"
	fx_git update-index --add --cacheinfo "160000,$sub_id,sub-at-root"
	fx_git commit -q -m 'Add submodule-like gitlink entries'
	tick

	# --- two-parent merge ---------------------------------------------------
	fx_git branch feature
	fx_git checkout -q feature
	printf 'feature one\n' >feature.txt
	fx_git add feature.txt
	fx_git commit -q -m 'feature: first'
	tick
	printf 'feature two\n' >>feature.txt
	fx_git commit -q -a -m 'feature: second'
	tick
	fx_git checkout -q main
	printf 'main moves on\n' >>README.md
	fx_git commit -q -a -m 'main: update README'
	tick
	fx_git merge -q --no-ff -m "Merge branch 'feature'" feature
	tick

	# --- octopus merge -------------------------------------------------------
	for b in oct1 oct2 oct3; do
		fx_git checkout -q -b "$b" main
		printf '%s\n' "$b" >"$b.txt"
		fx_git add "$b.txt"
		fx_git commit -q -m "$b: add $b.txt"
		tick
	done
	fx_git checkout -q main
	printf 'main before the octopus\n' >>README.md
	fx_git commit -q -a -m 'main: before the octopus'
	tick
	fx_git merge -q -m 'Octopus merge of oct1, oct2, oct3' oct1 oct2 oct3 >/dev/null
	tick

	# --- tags -----------------------------------------------------------------
	export GIT_COMMITTER_NAME='T Agger' GIT_COMMITTER_EMAIL='tagger@example.com'
	fx_git tag -a -m 'Version 1.0

With a body.' v1.0
	tick
	fx_git tag -a -m 'A tag of a tag' v1.0-outer v1.0
	tick
	fx_git tag light
	fx_git tag -a -m 'A tag of a tree' tree-tag 'HEAD^{tree}'
	tick
	fx_git tag -a -m 'A tag of a blob' blob-tag HEAD:README.md
	tick
	fx_git tag light-tree 'HEAD^{tree}'
	export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL='committer@example.com'

	# --- signed commit and signed tag ----------------------------------------
	printf 'signed\n' >signed.txt
	fx_git add signed.txt
	sign commit -q -S -m 'A signed commit'
	tick
	sign tag -s -m 'Signed tag v2' signed-v2
	tick

	# --- merge of a signed tag -> mergetag header ----------------------------
	fx_git checkout -q -b side main~1
	printf 'side\n' >side.txt
	fx_git add side.txt
	fx_git commit -q -m 'side: a commit to be tagged and merged'
	tick
	sign tag -s -m 'Signed tag on side' side-signed
	tick
	fx_git checkout -q main
	fx_git merge -q --no-ff -m "Merge tag 'side-signed'" side-signed
	tick

	# --- commit messages ------------------------------------------------------
	printf 'latin-1\n' >latin1.txt
	fx_git add latin1.txt
	printf 'Caf\351 cr\350me br\373l\351e\n\nISO-8859-1 encoded message.\n' >../msg-latin1
	fx_git -c i18n.commitEncoding=ISO-8859-1 commit -q -F ../msg-latin1
	tick
	fx_git commit -q --allow-empty --allow-empty-message -m ''
	tick
	printf 'no final newline' >../msg-nonl
	fx_git commit -q --allow-empty --cleanup=verbatim -F ../msg-nonl
	tick
	fx_git commit -q --allow-empty -m 'Subject line' -m 'Body paragraph one,
wrapped.

  Indented line.' -m 'Signed-off-by: A U Thor <author@example.com>
Reviewed-by: Someone Else <else@example.com>'
	tick

	# --- deletions, renames, type changes ------------------------------------
	fx_git rm -q -r docs
	fx_git mv src/main.c src/entry.c
	rm link-to-dir
	printf 'now a file\n' >link-to-dir
	chmod -x bin/run.sh
	fx_git add -A
	fx_git commit -q -m 'Remove docs, rename main.c, symlink becomes file, drop +x'
	tick

	# --- orphan branch with the empty tree ----------------------------------
	empty_tree=$(fx_git mktree </dev/null)
	orphan=$(printf 'Orphan commit with the empty tree\n' | fx_git commit-tree "$empty_tree")
	fx_git update-ref refs/heads/orphan "$orphan"
	tick

	# A commit whose author and committer differ in zone and name.
	GIT_AUTHOR_DATE="$fx_time -0730" GIT_COMMITTER_DATE="$((fx_time + 3600)) +1345" \
		fx_git commit -q --allow-empty -m 'Odd time zones'
	tick

	fx_unpack_packs .git
	fx_git fsck --strict --no-dangling >/dev/null
)

fx_prefix_collision() {
	python3 -c '
import hashlib, sys
algo, n = sys.argv[1], int(sys.argv[2])
seen = {}
for i in range(1000000):
    data = b"collide %d\n" % i
    h = hashlib.new(algo, b"blob %d\0" % len(data) + data).hexdigest()[:n]
    if h in seen:
        print(seen[h], i)
        break
    seen[h] = i
' "$1" "$2"
}

fx_webgit_is_git() {
	case "$("$WEBGIT" --version 2>/dev/null)" in
	"git version"*) return 0 ;;
	esac
	return 1
}

fx_tmp() {
	[ -n "$FX_TMP" ] && [ -d "$FX_TMP" ] || FX_TMP=$(mktemp -d "${TMPDIR:-/tmp}/wg-fx.XXXXXX")
}

fx_error_like() {
	fx_tmp
	local re="$1" rc err="$FX_TMP/err"
	shift
	"$@" >/dev/null 2>"$err"
	rc=$?
	# 128 is git's die(); above it a signal, 124..127 timeout/not found.
	if [ $rc -eq 0 ] || [ $rc -gt 128 ] || { [ $rc -ge 124 ] && [ $rc -lt 128 ]; }; then
		echo "expected a clean failure, got exit $rc" >&2
		head -n 5 "$err" >&2
		return 1
	fi
	# The stderr read once into the shell, where the fixed checks run
	# without a process each (grep, grep, wc: t3 calls this ~400 times):
	# its lines, each with its newline, and their text.
	local lines text n
	mapfile lines <"$err"
	printf -v text '%s' "${lines[@]}"
	local san='ERROR: AddressSanitizer|ERROR: LeakSanitizer|AddressSanitizer:DEADLYSIGNAL|runtime error:|SUMMARY: UndefinedBehaviorSanitizer'
	local fatal=$'(^|\n)(fatal|error): '
	if [[ $text =~ $san ]]; then
		echo "sanitizer report:" >&2
		head -n 20 "$err" >&2
		return 1
	fi
	if ! [[ $text =~ $fatal ]]; then
		echo "no 'fatal: '/'error: ' line on stderr:" >&2
		head -n 5 "$err" >&2
		return 1
	fi
	# (as wc -l counts: a last line without its newline is not one)
	n=${#lines[@]}
	[ "$n" -gt 0 ] && [[ ${lines[n - 1]} != *$'\n' ]] && n=$((n - 1))
	if [ "${FX_ONE_LINE:-0}" = 1 ] && [ "$n" -ne 1 ]; then
		echo "stderr is not exactly one line:" >&2
		head -n 5 "$err" >&2
		return 1
	fi
	if ! grep -q -i -E -- "$re" "$err"; then
		echo "stderr does not match /$re/:" >&2
		head -n 5 "$err" >&2
		return 1
	fi
	return 0
}
