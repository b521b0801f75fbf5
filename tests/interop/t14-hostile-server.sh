#!/usr/bin/env bash
# t14-hostile-server: webgit against a HOSTILE smart-HTTP server
# (tests/server/hostile-server.mjs: real `git http-backend` answers, then
# corrupted by a scenario named in the URL; see its header for the list).
# design.md rule 5: every byte from the network is untrusted.
#
# For every scenario, protocol v2 and v0, and both a sha1/files and a
# sha256/reftable repository, `webgit clone` (and `webgit ls-remote` where
# the refs are what is corrupted) must:
#   - fail with a deliberate error exit (not a crash, a sanitizer report or
#     a hang: every run is under `timeout`);
#   - say what went wrong: a "fatal:" line matching words we expect;
#   - leave no target directory, and no other new file anywhere in the
#     sandbox (work directory, TMPDIR, HOME): a listing is compared with one
#     taken before;
#   - ls-remote: print no refs.
# And the server must have applied the scenario (its log says so), so a
# failure is the corruption's doing. Control cases clone through the same
# server uncorrupted, and ls-remote through a fetch-only scenario, so the
# plumbing is proven.
#
# Timing scenarios (sha1 repository only): a server that stalls (headers,
# then nothing) must give a "timed out" error with WEBGIT_HTTP_TIMEOUT=3;
# an endless progress/keepalive stream is not idle, so webgit keeps going:
# it is stopped from outside (SIGTERM / SIGINT after some seconds) and must
# have stayed under 200 MB RSS, stop promptly, and leave nothing behind. So
# must a clone interrupted (SIGINT) in the middle of a stalled pack.
#
# A pre-existing empty target directory must survive a failed clone (git
# keeps it).
#
# interop: leak-check

. "$(dirname "$0")/lib.sh"
require_webgit
command -v node >/dev/null || skip_all "node not found (the server is a Node script)"

export GIT_TERMINAL_PROMPT=0
unset GIT_ASKPASS SSH_ASKPASS
export GIT_CONFIG_GLOBAL=$HOME/.gitconfig
# A hang must show as a failure well within the script's time limit.
export WEBGIT_HTTP_TIMEOUT=15

W=$WEBGIT
REPOS=$PWD/repos
HS=$PWD/hostile      # the server's state: pid, port, out, err, log
RES=$PWD/results     # our own scratch files
mkdir -p "$HS" "$RES"

check "make the served repositories" "$WG_SRC/tests/server/make-repos.sh" "$REPOS"

# --- the server: started as tests/server/start.sh starts its server, and
# stopped by PID whatever happens (then lib.sh's EXIT handler counts).
hs_pid=
hostile_stop() {
	local st=$? i
	if [ -n "$hs_pid" ] && kill -0 "$hs_pid" 2>/dev/null; then
		kill -TERM "$hs_pid" 2>/dev/null
		for i in $(seq 100); do kill -0 "$hs_pid" 2>/dev/null || break; sleep 0.05; done
		kill -0 "$hs_pid" 2>/dev/null && kill -KILL "$hs_pid" 2>/dev/null
		wait "$hs_pid" 2>/dev/null
	fi
	return $st
}
on_exit hostile_stop

"${NODE:-node}" "$WG_SRC/tests/server/hostile-server.mjs" --root "$REPOS" --git "$GIT" --port 0 \
	--pid-file "$HS/pid" --port-file "$HS/port" --log "$HS/log" \
	</dev/null >"$HS/out" 2>"$HS/err" &
hs_pid=$!

server_up() {
	local deadline=$((SECONDS + ${WG_SERVER_TIMEOUT:-20}))
	while [ "$SECONDS" -lt "$deadline" ]; do
		kill -0 "$hs_pid" 2>/dev/null || { cat "$HS/err" >&2; return 1; }
		[ -s "$HS/port" ] && (exec 3<>"/dev/tcp/127.0.0.1/$(cat "$HS/port")") 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
check "the hostile server is up" server_up || exit 1
touch "$HS/log"
URL="http://127.0.0.1:$(cat "$HS/port")"

# --- helpers ------------------------------------------------------------------

# Everything in the sandbox but the served repositories, the server's state,
# our scratch files, lib.sh's scratch directory and the clone target (that
# one is checked by itself).
listing() {
	find "$PWD" "$TMPDIR" "$HOME" \( -path "$REPOS" -o -path "$HS" -o -path "$RES" \
		-o -path "$PWD/target" -o -path "$TMPDIR/wg-lib.*" \) -prune -o -printf '%y %p\n' | sort
}
listing >"$RES/baseline"

log_mark() { wc -l <"$HS/log"; }
# applied MARK: the server corrupted a response since log line MARK.
# (No pipe into grep -q: under the helpers' pipefail, tail could die of
# SIGPIPE when grep stops early.)
applied() { awk -v m="$1" 'NR > m && / APPLIED$/ { found = 1 } END { exit !found }' "$HS/log"; }

# says REGEX FILE: a "fatal:" line of FILE matches REGEX (grep -E, any case);
# shows FILE otherwise.
says() {
	grep -Eqi "^fatal: .*($1)" "$2" && return 0
	echo "stderr was:" >&2
	head -n 5 "$2" >&2
	return 1
}

# clone_case NAME URL REGEX [CLONE OPTIONS...]
clone_case() {
	local name=$1 u=$2 re=$3 mark
	shift 3
	mark=$(log_mark)
	rm -rf target
	check_fail "$name: clone fails cleanly" timeout -k 5 60 "$W" clone -q "$@" "$u" target
	cp "$LAST_ERR" "$RES/err"
	check "$name: ...saying /$re/" says "$re" "$RES/err"
	check_fail "$name: ...leaving no target directory" test -e target
	check_same "$name: ...and no other new file in the sandbox" "cat '$RES/baseline'" listing
	check "$name: (the server applied the scenario)" applied "$mark"
	rm -rf target
}

# ls_remote_case NAME URL REGEX
ls_remote_case() {
	local name=$1 u=$2 re=$3 mark
	mark=$(log_mark)
	check_fail "$name: ls-remote fails cleanly" timeout -k 5 60 "$W" ls-remote "$u"
	cp "$LAST_ERR" "$RES/err"
	cp "$LAST_OUT" "$RES/out"
	check "$name: ...saying /$re/" says "$re" "$RES/err"
	check_fail "$name: ...printing no refs" test -s "$RES/out"
	check_same "$name: ...and no new file in the sandbox" "cat '$RES/baseline'" listing
	check "$name: (the server applied the scenario)" applied "$mark"
}

# --- the scenarios --------------------------------------------------------------

# Where the refs are corrupted (v0: info/refs; v2: the capability
# advertisement, or ls-refs): ls-remote and clone.     scenario | message
ADVERT_CASES=(
	"bad-pktline-length|bad pkt-line length"
	"short-length|invalid pkt-line length"
	"overlong|exceeds the maximum"
	"truncated-advert|closed before the end|truncated"
	"truncated-advert-eof|truncated pkt-line|ended"
	"err-packet@advert|remote error: upload-pack: not our ref"
	"wrong-content-type|not a smart Git HTTP server"
	"http-500|HTTP 500"
	"http-404|not found"
	"dumb-server|not a smart Git HTTP server"
	"dumb-body|protocol error|not a smart"
	"bad-refname|invalid ref name 'refs/heads/a\.\.b'"
	"ctrl-refname|invalid ref name 'refs/heads/a.x01b'"
	"short-oid|has (39|63) hex digits"
	"other-hash-oid|has (40|64) hex digits"
	"non-hex-oid|not hexadecimal"
)
# The same in the ls-refs response (protocol v2 only).
LS_REFS_CASES=(
	"bad-pktline-length@ls-refs|bad pkt-line length"
	"short-length@ls-refs|invalid pkt-line length"
	"overlong@ls-refs|exceeds the maximum"
	"truncated-advert@ls-refs|closed before the end|truncated"
	"truncated-advert-eof@ls-refs|truncated pkt-line|ended"
	"err-packet@ls-refs|remote error: upload-pack: not our ref"
	"wrong-content-type@ls-refs|not a smart Git HTTP server"
	"http-500@ls-refs|HTTP 500"
)
# The fetch response: clone only (the repository exists by then).
FETCH_CASES=(
	"bad-pktline-length@fetch|bad pkt-line length"
	"short-length@fetch|invalid pkt-line length"
	"overlong@fetch|exceeds the maximum"
	"truncated-pack|closed after .* body bytes|closed before|truncated|early"
	"truncated-pack-eof|closed the response early|truncated"
	"err-packet|remote error: upload-pack: not our ref"
	"sideband-error|remote error: fatal: boom"
	"bad-band|bad side-band"
	"shallow-unknown|shallow"
	"missing-object|did not send"
	"bad-pack-checksum|checksum"
	"corrupt-object|corrupt|bad object|inflate"
	# The extra object the header claims is read from the trailing checksum,
	# random bytes: mostly a bad object or truncation, but ~3 in 100 such
	# headers declare a size above the limit and are refused for that first.
	"pack-count-lie|truncated|early EOF|bad object|max_object_size"
	"pack-count-huge|max_pack_objects"
	"huge-object|max_object_size"
	"huge-delta|max_object_size"
	"inflate-bomb|max_inflate_ratio"
	"wrong-content-type@fetch|not a smart Git HTTP server"
	"http-500@fetch|HTTP 500"
	"http-404@fetch|not found"
	"dumb-body@fetch|protocol error"
)

for repo in sample-sha1-files sample-sha256-reftable; do
	for proto in v2 v0; do
		base=$URL; [ $proto = v0 ] && base=$URL/v0
		t="$repo/$proto"

		# Controls: the same server, nothing corrupted.
		mark=$(log_mark)
		rm -rf target
		check "$t/ok: clone through the server succeeds" timeout -k 5 60 "$W" clone -q "$base/ok/$repo.git" target
		check "$t/ok: ...git fsck --strict is clean" "$GIT" -C target fsck --strict --no-progress
		check_same "$t/ok: ...origin/main is the served main" \
			"\"\$GIT\" -C '$REPOS/$repo.git' rev-parse refs/heads/main" \
			'"$GIT" -C target rev-parse refs/remotes/origin/main'
		check_fail "$t/ok: (the server corrupted nothing)" applied "$mark"
		rm -rf target
		check_same "$t/ok: ls-remote lists the served refs" \
			"\"\$GIT\" ls-remote '$REPOS/$repo.git'" "\"\$W\" ls-remote '$base/ok/$repo.git'"
		check_same "$t: ls-remote through a fetch-only scenario is untouched" \
			"\"\$GIT\" ls-remote '$REPOS/$repo.git'" "\"\$W\" ls-remote '$base/corrupt-object/$repo.git'"
		check_same "$t/ok: ...and no new file in the sandbox" "cat '$RES/baseline'" listing

		cases=("${ADVERT_CASES[@]}")
		[ $proto = v2 ] && cases+=("${LS_REFS_CASES[@]}")
		for c in "${cases[@]}"; do
			s=${c%%|*} re=${c#*|}
			ls_remote_case "$t/$s" "$base/$s/$repo.git" "$re"
			clone_case "$t/$s" "$base/$s/$repo.git" "$re"
		done
		for c in "${FETCH_CASES[@]}"; do
			s=${c%%|*} re=${c#*|}
			clone_case "$t/$s" "$base/$s/$repo.git" "$re"
		done

		# A depth request whose shallow lines name a commit that does not
		# exist (the real shallow commit's parents are then missing): git
		# says "remote did not send all necessary objects".
		clone_case "$t/shallow-unknown --depth 1" "$base/shallow-unknown/$repo.git" \
			"shallow|did not send|missing|not in the pack" --depth 1
		# Bare and mirror clones clean up the same way.
		clone_case "$t/truncated-pack --mirror" "$base/truncated-pack/$repo.git" \
			"closed after .* body bytes|truncated|early" --mirror
		clone_case "$t/missing-object --bare" "$base/missing-object/$repo.git" "did not send" --bare
	done
done

# --- limits: endless ref listings (docs/limits.md) --------------------------------------

# A ref listing that never ends is refused at max_refs, or at
# max_advertisement_bytes, in bounded memory, and the connection is dropped
# soon after (the server logs how much it sent). Lowered through
# WEBGIT_LIMITS so the cases take seconds; the defaults behave the same,
# later.
# limit_case NAME URL REGEX LIMITS CMD: ls-remote or clone under LIMITS.
limit_case() {
	local name=$1 u=$2 re=$3 limits=$4 cmd=$5 mark rss bytes extra=
	[ "${cmd%% *}" = clone ] && extra=target
	mark=$(log_mark)
	rm -rf target "$RES/rss"
	if [ -x /usr/bin/time ]; then
		# shellcheck disable=SC2086 # $cmd is a verb and its options
		WEBGIT_LIMITS=$limits /usr/bin/time -f %M -o "$RES/rss" timeout -k 5 60 "$W" $cmd "$u" \
			$extra </dev/null >"$RES/out" 2>"$RES/err"
	else
		# shellcheck disable=SC2086
		WEBGIT_LIMITS=$limits timeout -k 5 60 "$W" $cmd "$u" $extra \
			</dev/null >"$RES/out" 2>"$RES/err"
	fi
	check_output "$name: $cmd fails with a fatal error (exit 128)" 128 echo "$?"
	check "$name: ...saying /$re/" says "$re" "$RES/err"
	check_fail "$name: ...printing no refs" test -s "$RES/out"
	check "$name: (the server applied the scenario)" applied "$mark"
	for _ in $(seq 40); do tail -n "+$((mark + 1))" "$HS/log" | grep -q "^CLOSED " && break; sleep 0.05; done
	bytes=$(tail -n "+$((mark + 1))" "$HS/log" | sed -n 's/^CLOSED .* \([0-9]*\)$/\1/p' | tail -n 1)
	check "$name: ...and hung up within 16 MB of it (the server sent ${bytes:-?} bytes)" \
		test "${bytes:-999999999}" -lt 16000000
	if [ -x /usr/bin/time ]; then
		rss=$(tail -n 1 "$RES/rss")
		check "$name: ...in bounded memory (max RSS ${rss:-?} KiB < 100 MiB)" \
			test "${rss:-999999999}" -lt 102400
	fi
	check_fail "$name: ...leaving no target directory" test -e target
	check_same "$name: ...and no other new file in the sandbox" "cat '$RES/baseline'" listing
	rm -rf target
}

repo=sample-sha1-files
for proto in v2 v0; do
	base=$URL; [ $proto = v0 ] && base=$URL/v0
	t="$repo/$proto/endless-refs"
	limit_case "$t (max_refs=20000)" "$base/endless-refs/$repo.git" "max_refs" \
		max_refs=20000 ls-remote
	limit_case "$t (max_advertisement_bytes=1m)" "$base/endless-refs/$repo.git" \
		"max_advertisement_bytes" max_refs=0,max_advertisement_bytes=1m "clone -q"
	limit_case "$repo/$proto/endless-shallow (max_refs=1000)" "$base/endless-shallow/$repo.git" \
		"shallow lines \(max_refs\)" max_refs=1000 "clone -q --depth 1"
done
check_fail "WEBGIT_LIMITS with an unknown name is refused" env WEBGIT_LIMITS=max_rfes=1 "$W" ls-remote "$URL/ok/$repo.git"
cp "$LAST_ERR" "$RES/err"
check "...naming it" grep -q "unknown limit 'max_rfes'" "$RES/err"

# --- a target directory that existed (empty) before ---------------------------------

rm -rf target
mkdir target
check_fail "pre-existing empty target: the clone fails" timeout -k 5 60 "$W" clone -q "$URL/corrupt-object/sample-sha1-files.git" target
check "pre-existing empty target: ...and the directory is still there (git keeps it)" test -d target
check_output "pre-existing empty target: ...empty" "" ls -A target
rm -rf target

# --- timing: stalls ---------------------------------------------------------------

repo=sample-sha1-files
for proto in v2 v0; do
	base=$URL; [ $proto = v0 ] && base=$URL/v0
	t="$repo/$proto"
	stalls=(stall stall@fetch stall-mid-pack)
	[ $proto = v2 ] && stalls+=(stall@ls-refs)
	for s in "${stalls[@]}"; do
		SECONDS=0
		WEBGIT_HTTP_TIMEOUT=3 clone_case "$t/$s (WEBGIT_HTTP_TIMEOUT=3)" "$base/$s/$repo.git" "timed out"
		took=$SECONDS
		check "$t/$s: ...after about 3 s, not more (took ${took}s)" test "$took" -le 12
		case $s in stall|stall@ls-refs)
			WEBGIT_HTTP_TIMEOUT=3 ls_remote_case "$t/$s (WEBGIT_HTTP_TIMEOUT=3)" "$base/$s/$repo.git" "timed out" ;;
		esac
	done
done

# --- timing: endless streams -------------------------------------------------------------

# killed_case NAME URL SIGNAL SECS [endless]: run a clone for SECS seconds,
# then send it SIGNAL. With "endless", also check that the server streamed
# plenty at it and that it stayed in bounded memory.
killed_case() {
	local name=$1 u=$2 sig=$3 secs=$4 endless=${5:-} mark st rss bytes
	mark=$(log_mark)
	rm -rf target "$RES/rss"
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$RES/rss" timeout -s "$sig" -k 5 "$secs" "$W" clone -q "$u" target \
			</dev/null >"$RES/out" 2>"$RES/err"
	else
		timeout -s "$sig" -k 5 "$secs" "$W" clone -q "$u" target </dev/null >"$RES/out" 2>"$RES/err"
	fi
	st=$?
	# timeout says 124 when its signal ended the command; 137: SIGKILL was needed
	check_output "$name: webgit ran until stopped by SIG$sig, and stopped on it (timeout status)" \
		124 echo "$st"
	check_fail "$name: ...without a sanitizer report" grep -Eq 'Sanitizer|runtime error:' "$RES/err"
	check "$name: (the server applied the scenario)" applied "$mark"
	if [ -n "$endless" ]; then
		for _ in $(seq 40); do tail -n "+$((mark + 1))" "$HS/log" | grep -q "^CLOSED " && break; sleep 0.05; done
		bytes=$(tail -n "+$((mark + 1))" "$HS/log" | sed -n 's/^CLOSED .* \([0-9]*\)$/\1/p' | tail -n 1)
		check "$name: ...while the server streamed more than 5 MB at it (sent ${bytes:-?} bytes)" \
			test "${bytes:-0}" -gt 5000000
		if [ -x /usr/bin/time ]; then
			rss=$(tail -n 1 "$RES/rss")
			check "$name: ...in bounded memory (max RSS ${rss:-?} KiB < 200 MiB)" \
				test "${rss:-999999999}" -lt 204800
		else
			skip "$name: ...in bounded memory" "/usr/bin/time not found"
		fi
	fi
	if [ -e target ]; then
		note "$name: left behind: $(cd target && find . -type f | sort | tr '\n' ' ')"
	fi
	check_fail "$name: ...leaving no target directory after SIG$sig" test -e target
	check_same "$name: ...and no other new file in the sandbox" "cat '$RES/baseline'" listing
	rm -rf target
}

for proto in v2 v0; do
	base=$URL; [ $proto = v0 ] && base=$URL/v0
	t="$repo/$proto"
	killed_case "$t/endless (progress packets)" "$base/endless/$repo.git" TERM 6 endless
	killed_case "$t/endless-keepalive" "$base/endless-keepalive/$repo.git" INT 6 endless
	killed_case "$t/endless-line (one progress line, never ended)" "$base/endless-line/$repo.git" TERM 6 endless
	WEBGIT_HTTP_TIMEOUT=30 killed_case "$t/stall-mid-pack, interrupted" "$base/stall-mid-pack/$repo.git" INT 3
done

# A signal that comes again while the first one's cleanup runs (timeout(1)
# and a terminal signal the whole process group, so a command can get the
# same signal twice): a burst of SIGINTs into a clone busy
# with an endless stream must still leave nothing behind.
signal_burst_case() {
	local name=$1 u=$2 pid st
	rm -rf target
	"$W" clone -q "$u" target </dev/null >"$RES/out" 2>"$RES/err" &
	pid=$!
	sleep 3
	# as fast as the shell can, until well after the process is gone (a
	# zombie still takes the signal), to cover its whole cleanup
	for _ in $(seq 5000); do kill -INT "$pid" 2>/dev/null || break; done
	wait "$pid"
	st=$?
	check_output "$name: webgit stopped on SIGINT (status 130)" 130 echo "$st"
	check_fail "$name: ...without a sanitizer report" grep -Eq 'Sanitizer|runtime error:' "$RES/err"
	check_fail "$name: ...leaving no target directory" test -e target
	check_same "$name: ...and no other new file in the sandbox" "cat '$RES/baseline'" listing
	rm -rf target
}
signal_burst_case "$repo/v2/endless-keepalive, SIGINT burst" "$URL/endless-keepalive/$repo.git"

check "the server logged no internal error" sh -c '! grep -q " ERROR " "$1"' sh "$HS/log"
