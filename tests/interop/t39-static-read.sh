#!/usr/bin/env bash
# t39-static-read: webgit read-remote-file against a repository published on
# a static web host (tests/server/static-server.mjs: files only, HTTP Range,
# no Git server), as S3 or R2 would serve it after `git update-server-info`.
# One file is read without downloading the pack: only the byte ranges of
# the index and pack entries it needs (core/remote/static_read.c).
#
# The repository is made once per object format by gen-static-repo.py and
# git fast-import: a pack over 20 MB (incompressible blobs and two thousand
# commits of small files), repacked so that docs/deep/notes.txt at main is
# the end of a long delta chain (the depth is checked with verify-pack).
# For SHA-1 and SHA-256:
#   - the bytes equal `git show REF:PATH` for main (a deep delta), HEAD,
#     the annotated tag v1.0, the lightweight tag light, a full ref name, a
#     commit id, and a subdirectory path;
#   - the body bytes the server logged for the read are under 5% of the
#     pack's size (the figures are printed);
#   - a missing path, a directory, a path through a file and a missing ref
#     fail with a clear message and a non-zero exit status;
#   - a host that ignores Range (200 with the whole file) fails with a
#     message that says so, having read little of the pack.

. "$(dirname "$0")/lib.sh"
require_webgit
command -v python3 >/dev/null || skip_all "python3 not found (the generator)"

W=$WEBGIT
S=$WG_SRC/tests/server
ROOT=$PWD/www
mkdir -p "$ROOT"

# --- the repositories -------------------------------------------------------------
make_repo() {   # make_repo FORMAT DIR
	"$GIT" init -q --bare -b main --object-format="$1" "$2" &&
	python3 "$WG_SRC/tests/interop/gen-static-repo.py" | "$GIT" -C "$2" fast-import --quiet &&
	"$GIT" -C "$2" -c core.bigFileThreshold=1m repack -adfq --depth=50 --window=50 &&
	"$GIT" -C "$2" update-server-info
}

# --- the servers: Range-capable and Range-ignoring, each logging bytes ---------------
. "$(dirname "$0")/static_lib.sh"

start_static plain
U=$url
LOG=$log
start_static norange --ignore-range
U_NORANGE=$url
LOG_NORANGE=$log


for fmt in sha1 sha256; do
	R=$ROOT/$fmt.git
	check "$fmt: make a repository with a pack over 20 MB" make_repo "$fmt" "$R"
	pack=$(ls "$R"/objects/pack/pack-*.pack)
	pack_size=$(wc -c <"$pack")
	check "$fmt: the pack is at least 20 MB ($pack_size bytes)" test "$pack_size" -ge 20000000
	blob=$("$GIT" -C "$R" rev-parse main:docs/deep/notes.txt)
	depth=$("$GIT" -C "$R" verify-pack -v "${pack%.pack}.idx" | awk -v b="$blob" '$1 == b { print $6 + 0 }')
	check "$fmt: docs/deep/notes.txt at main is a delta $depth deep (at least 15)" \
		test "${depth:-0}" -ge 15
	u=$U/$fmt.git

	# the deep delta, with the bytes the server sent counted
	: >"$LOG"
	check_same "$fmt: main:docs/deep/notes.txt" \
		"\"\$GIT\" -C '$R' show main:docs/deep/notes.txt" \
		"\"\$W\" read-remote-file '$u' main docs/deep/notes.txt"
	sent=$(sum_bytes "$LOG")
	requests=$(count_lines "$LOG")
	note "$fmt: pack $pack_size bytes; read sent $sent bytes in $requests requests" \
		"($(awk -v a="$sent" -v b="$pack_size" 'BEGIN { printf "%.2f", 100 * a / b }')% of the pack)"
	check "$fmt: the read transferred under 5% of the pack ($sent of $pack_size bytes)" \
		test "$((sent * 20))" -lt "$pack_size"
	check "$fmt: every read of the pack was a range (206)" \
		sh -c "grep -q '\\.pack 206 ' '$LOG' && ! grep '\\.pack ' '$LOG' | grep -qv '\\.pack 206 '"

	for spec in HEAD:README v1.0:docs/deep/notes.txt light:src/d03/f1.txt \
		refs/heads/side:src/d07/f9.txt "$("$GIT" -C "$R" rev-parse main~7):src/d11/f7.txt" \
		refs/tags/v1.0:src/d00/f0.txt; do
		ref=${spec%%:*} path=${spec#*:}
		check_same "$fmt: $ref:$path" "\"\$GIT\" -C '$R' show '$ref:$path'" \
			"\"\$W\" read-remote-file '$u' '$ref' '$path'"
	done
	check_same "$fmt: --static (info/refs asked for without the smart probe), HEAD" \
		"\"\$GIT\" -C '$R' show HEAD:src/d19/f3.txt" \
		"\"\$W\" read-remote-file --static '$u' HEAD src/d19/f3.txt"

	check_fail "$fmt: a missing path fails" "$W" read-remote-file "$u" main docs/nope.txt
	says "$fmt: ... saying the path does not exist in the ref" "path 'docs/nope.txt' does not exist in 'main'"
	check_fail "$fmt: a directory fails" "$W" read-remote-file "$u" main docs/deep
	says "$fmt: ... saying it is a directory" "is a directory, not a file"
	check_fail "$fmt: a path through a file fails" "$W" read-remote-file "$u" main README/x
	says "$fmt: ... saying it does not exist" "does not exist in 'main'"
	check_fail "$fmt: a missing ref fails" "$W" read-remote-file "$u" no-such-branch README
	says "$fmt: ... saying the ref is not found" "ref 'no-such-branch' not found"
	check_fail "$fmt: a missing repository fails" "$W" read-remote-file "$U/none.git" main README
	says "$fmt: ... saying it is not found" "not found"

	: >"$LOG_NORANGE"
	check_fail "$fmt: a host that ignores Range fails" \
		"$W" read-remote-file "$U_NORANGE/$fmt.git" main docs/deep/notes.txt
	says "$fmt: ... saying it does not serve byte ranges" "does not serve byte ranges"
	sleep 0.2   # the server logs a response when its connection closes
	nr_sent=$(sum_bytes "$LOG_NORANGE")
	note "$fmt: the Range-ignoring host sent $nr_sent bytes before the read stopped"
	check "$fmt: ... having read less than the whole pack ($nr_sent bytes)" \
		test "$nr_sent" -lt "$pack_size"
done
