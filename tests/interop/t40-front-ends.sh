#!/usr/bin/env bash
# t40-front-ends: webgit behind the front ends users meet between them and
# the Git server. tests/server/front-proxy.mjs stands in front of the test
# server (git http-backend) and, one instance per behaviour:
#
#   - gzips every response (and frames bodies by Content-Length);
#   - drops the Git-Protocol header (the server then speaks v0), or pins it
#     to version=1 (a server that only speaks protocol v1);
#   - answers the ref discovery of a moved repository with a redirect, and
#     404 to anything else at the old place: as git does, the discovery's
#     new location becomes the repository's URL for every later request,
#     with git's "warning: redirecting to <url>/" (not with -q), and the
#     config keeps the URL as given;
#   - answers the first request of each kind 429 (or 503) with Retry-After:
#     webgit waits and asks again (git 2.53 gives up: checked too); a wait
#     over the bound is an error at once and leaves no directory;
#   - wants Basic credentials for every request (401 until they come);
#   - ends response bodies by closing the connection (no length, no chunks).
#
#   - moves to another host when the discovery is redirected there, without
#     the old host's credentials;
#   - speaks v0 to a server that allows no unadvertised wants: a lazy
#     fetch is refused as git refuses it.
#
# And an advertisement of 100,000 refs (a forge's refs/pull/*), over v2 and
# v0: ls-remote lists git's, a mirror clone has every ref.
#
# Through each: clone (the same refs and objects as git's clone of the
# server, git fsck --strict), fetch of a new commit, and push (the server
# wants credentials for it); the front's log shows the behaviour happened.

. "$(dirname "$0")/lib.sh"
require_webgit
. "$(dirname "$0")/http_lib.sh"

W=$WEBGIT
export WEBGIT_HTTP_USER=pusher WEBGIT_HTTP_PASSWORD=secret-40

objects() { "$GIT" -C "$1" rev-list --all --objects | sort; }
refs() { "$GIT" -C "$1" for-each-ref --format='%(refname) %(objectname)'; }

REPOS=$PWD/repos
make_repo() {
	"$GIT" init -q -b main work && (
		cd work && for i in $(seq 1 12); do
			seq "$i" 300 >"f$((i % 4))" && printf 'line %s\n' "$i" >>"notes" &&
				"$GIT" add . && "$GIT" commit -qm "commit $i" || exit
		done && "$GIT" tag -a -m "v1" v1 HEAD~3 && "$GIT" branch side HEAD~5
	) && mkdir -p "$REPOS" && "$GIT" clone -q --bare work "$REPOS/r.git" &&
	"$GIT" -C "$REPOS/r.git" config http.receivepack true
}
check "make the served repository" make_repo
start srv --root "$REPOS" --auth "pusher:secret-40" --log "$PWD/srv.log"
SRV=$url

# front NAME OPTIONS...: a front proxy for the server, its log in NAME.log;
# sets $F to its base URL.
front() {
	local name=$1
	shift
	start "$name" --front --target "$SRV" --log "$PWD/$name.log" "$@"
	F=$url
	touch "$PWD/$name.log"
}

n=0
# through NAME URL: clone, fetch and push through a front, compared with
# git's clone of the server itself. Checks are counted for each front alike.
through() {
	local name=$1 u=$2 d=w-$1
	n=$((n + 1))
	"$GIT" clone -q "$SRV/git/r.git" "g-$name"
	check "$name: clone" "$W" clone -q "$u" "$d"
	check_same "$name: git's refs" "refs g-$name" "refs $d"
	check_same "$name: git's objects" "objects g-$name" "objects $d"
	check "$name: git fsck --strict" "$GIT" -C "$d" fsck --strict --no-progress
	check_same "$name: the working tree is git's" "tree_listing g-$name .git" "tree_listing $d .git"
	# a new commit on the server, fetched
	local tip new
	tip=$("$GIT" -C "$REPOS/r.git" rev-parse main)
	new=$("$GIT" -C "$REPOS/r.git" commit-tree -p "$tip" -m "for $name" "$tip^{tree}")
	"$GIT" -C "$REPOS/r.git" update-ref "refs/heads/new-$name" "$new"
	check "$name: fetch" sh -c 'cd "$1" && "$2" fetch -q origin' sh "$d" "$W"
	check_output "$name: the fetch brought the new branch" "$new" \
		"$GIT" -C "$d" rev-parse "refs/remotes/origin/new-$name"
	# push a commit of our own (the server wants credentials for it)
	local mine
	mine=$("$GIT" -C "$d" commit-tree -p "$new" -m "pushed through $name" "$new^{tree}")
	check "$name: push" sh -c 'cd "$1" && "$2" push -q origin "$3:refs/heads/pushed-$4"' \
		sh "$d" "$W" "$mine" "$name"
	check_output "$name: the server has the push" "$mine" \
		"$GIT" -C "$REPOS/r.git" rev-parse "refs/heads/pushed-$name"
	check "$name: the server's repository is sound" "$GIT" -C "$REPOS/r.git" fsck --strict --no-progress
}

# --- gzip --------------------------------------------------------------------------
front gz --gzip --framing length
through gzip "$F/git/r.git"
check "gzip: the front gzipped the advertisement" grep -q "^GET /git/r.git/info/refs?service=git-upload-pack 200 [0-9]* 1 " gz.log
check "gzip: ... and the packs" grep -q "^POST /git/r.git/git-upload-pack 200 [0-9]* 1 " gz.log
check "gzip: ... and the push report" grep -q "^POST /git/r.git/git-receive-pack 200 [0-9]* 1 " gz.log

# --- a proxy that drops Git-Protocol: protocol v0 --------------------------------------
front v0 --drop-protocol --record "$PWD/v0rec"
through drop-protocol "$F/git/r.git"
check "drop-protocol: the server got no Git-Protocol" \
	sh -c '! grep -v " -$" v0.log | grep -q .'
check "drop-protocol: though webgit asked for v2 (the front's record)" \
	grep -lq "^git-protocol: version=2$" v0rec/0001.req
check_same "drop-protocol: ls-remote lists what git lists" \
	"\"\$GIT\" ls-remote '$F/git/r.git'" "\"\$W\" ls-remote '$F/git/r.git'"

# --- a server pinned to protocol v1 --------------------------------------------------------
front v1 --pin-protocol 1
through v1 "$F/git/r.git"
check "v1: every request reached the server as version=1" \
	sh -c '! grep -v " version=1$" v1.log | grep -q .'
check_same "v1: ls-remote lists what git lists" \
	"\"\$GIT\" ls-remote '$F/git/r.git'" "\"\$W\" ls-remote '$F/git/r.git'"
check_same "v1: ls-remote --symref too" \
	"\"\$GIT\" ls-remote --symref '$F/git/r.git'" "\"\$W\" ls-remote --symref '$F/git/r.git'"
check "v1: a shallow clone" "$W" clone -q --depth 2 "$F/git/r.git" v1-shallow
"$GIT" clone -q --depth 2 "$F/git/r.git" v1-shallow-git
check_same "v1: ... has git's shallow file" "cat v1-shallow-git/.git/shallow" "cat v1-shallow/.git/shallow"

# --- a moved repository ---------------------------------------------------------------------
front mv --redirect /git/old.git=/git/r.git
OLD=$F/git/old.git
through redirect "$OLD"
check_output "redirect: the config keeps the URL as given (as git)" "$OLD" \
	"$GIT" -C w-redirect config remote.origin.url
check "redirect: later requests went to the new place" grep -q "^POST /git/r.git/git-upload-pack 200" mv.log
check "redirect: ... and the push's too" grep -q "^POST /git/r.git/git-receive-pack 200" mv.log
check_same "redirect: clone's stderr is git's (the warning)" \
	"\"\$GIT\" clone '$OLD' g-mv 2>&1" "\"\$W\" clone '$OLD' w-mv 2>&1 | sed s/w-mv/g-mv/"
check_output "redirect: ... which is" "warning: redirecting to $F/git/r.git/" \
	sh -c '"$1" clone "$2" w-mv2 2>&1 | sed -n 2p' sh "$W" "$OLD"
check_same "redirect: -q says nothing" \
	"\"\$GIT\" clone -q '$OLD' g-mvq 2>&1" "\"\$W\" clone -q '$OLD' w-mvq 2>&1"
check_same "redirect: ls-remote's stdout and stderr are git's" \
	"\"\$GIT\" ls-remote '$OLD' 2>&1" "\"\$W\" ls-remote '$OLD' 2>&1"
check_same "redirect: fetch's stderr is git's" \
	"cd g-mv && \"\$GIT\" fetch 2>&1" "cd w-mv && \"\$W\" fetch 2>&1"

# --- a repository moved to another origin ----------------------------------------------------
# git follows the discovery's redirect to another host (http.followRedirects
# =initial) and asks the new host for everything after it. A second front
# stands for the new host; both log whether requests carried credentials.
front xnew --log-auth "$PWD/xnew.auth"
NEW=$F
front xo --redirect "/git/old.git=$NEW/git/r.git"
XO=$F/git/old.git
through other-origin "$XO"
check "other origin: later requests went to the new host" \
	grep -q "^POST /git/r.git/git-upload-pack 200" xnew.log
check "other origin: ... and the push's too" grep -q "^POST /git/r.git/git-receive-pack 200" xnew.log
check "other origin: the old host only saw discoveries" \
	sh -c '! grep -v "^GET /git/old.git/info/refs?service=git-" xo.log | grep -q .'
check_same "other origin: clone's stderr is git's (the warning names the new host)" \
	"\"\$GIT\" clone '$XO' g-xo 2>&1" "\"\$W\" clone '$XO' w-xo 2>&1 | sed s/w-xo/g-xo/"
check_same "other origin: ls-remote's stdout and stderr are git's" \
	"\"\$GIT\" ls-remote '$XO' 2>&1" "\"\$W\" ls-remote '$XO' 2>&1"
# Credentials given for the old host stay there: it asks for them (401),
# gets them, redirects; the new host must never see them.
front xw --auth "pusher:secret-40" --redirect "/git/old.git=$NEW/git/r.git" --log-auth "$PWD/xw.auth"
: >xnew.auth
check "other origin: clone with the old host's credentials in the URL" \
	env -u WEBGIT_HTTP_USER -u WEBGIT_HTTP_PASSWORD "$W" clone -q \
	"http://pusher:secret-40@${F#http://}/git/old.git" w-xw
check "... which the old host asked for and got" grep -q "^GET /git/old.git/info/refs.* yes$" xw.auth
check "... and the new host never saw" sh -c 'test -s xnew.auth && ! grep -q " yes$" xnew.auth'
check_same "... the clone is git's" "refs g-xo" "refs w-xw"

# With a credential helper and two hosts that both want credentials: git
# 2.53 cannot clone (curl sends nothing to the new host, and git takes its
# 401 as the old host refusing what the helper gave: it erases them).
# webgit asks the helper for the old host, as git asks, then for the new
# one, and stores what worked there.
front xa --auth "pusher:secret-40"
NEWA=$F
front xb --auth "pusher:secret-40" --redirect "/git/old.git=$NEWA/git/r.git"
mkdir -p hh && cat >hh/helper.sh <<'HELPER'
#!/bin/sh
{ echo "action=$1"; cat; echo .; } >>"$HELPER_LOG"
[ "$1" = get ] && printf 'username=pusher\npassword=secret-40\n'
exit 0
HELPER
chmod +x hh/helper.sh
printf '[credential]\n\thelper = %s\n' "$PWD/hh/helper.sh" >hh/.gitconfig
helped() { # LOG CMD...: run with the helper configured, without other credentials
	local log=$1
	shift
	env -u WEBGIT_HTTP_USER -u WEBGIT_HTTP_PASSWORD HOME="$PWD/hh" \
		GIT_CONFIG_GLOBAL="$PWD/hh/.gitconfig" HELPER_LOG="$PWD/$log" "$@"
}
check_fail "other origin, helper: git 2.53 cannot clone when both hosts ask" \
	helped g-helper.log "$GIT" clone -q "$F/git/old.git" g-xb
check "... git erased what worked for the old host" grep -qx "action=erase" g-helper.log
check "other origin, helper: webgit clones" helped w-helper.log "$W" clone -q "$F/git/old.git" w-xb
check_same "... its first question to the helper is git's" \
	"sed -n '1,/^[.]$/p' g-helper.log" "sed -n '1,/^[.]$/p' w-helper.log"
check_output "... then it asked for the new host and stored what worked there" \
	"action=get host=${F#http://}
action=get host=${NEWA#http://}
action=store host=${NEWA#http://}" \
	awk '/^action=/ { a = $0 } /^host=/ { print a, $0 }' w-helper.log
check_same "... the clone is git's" "refs g-xo" "refs w-xb"

# --- a lazy fetch over v0 from a server that allows no unadvertised wants ------------------
# A blob:none clone over v0, then a read of a missing blob: the lazy fetch
# would want the blob by id, which a v0 server only serves when it says so
# (allow-tip-sha1-in-want / allow-reachable-sha1-in-want). git refuses
# before asking; so does webgit, with git's message, fetching nothing.
"$GIT" clone -q --bare "$REPOS/r.git" "$REPOS/p.git"
"$GIT" -C "$REPOS/p.git" config uploadpack.allowFilter true
front v0p --drop-protocol
check "v0 lazy: a blob:none clone over v0" "$W" clone -q --no-checkout --filter=blob:none "$F/git/p.git" w-lazy
"$GIT" clone -q --no-checkout --filter=blob:none "$F/git/p.git" g-lazy
blob=$("$GIT" -C "$REPOS/p.git" rev-parse main:notes)
check_fail "v0 lazy: git refuses the lazy fetch" "$GIT" -C g-lazy cat-file -p "$blob"
cp "$LAST_ERR" g-lazy.err
check "... saying why" grep -qx "error: Server does not allow request for unadvertised object $blob" g-lazy.err
n_before=$(grep -c "^POST /git/p.git/git-upload-pack" v0p.log)
check_fail "v0 lazy: webgit refuses it too" sh -c 'cd w-lazy && "$1" cat-file -p "$2"' sh "$W" "$blob"
cp "$LAST_ERR" w-lazy.err
check "... with git's words" grep -q "Server does not allow request for unadvertised object $blob" w-lazy.err
check "... and asked for no pack" test "$(grep -c "^POST /git/p.git/git-upload-pack" v0p.log)" -eq "$n_before"
check_fail "... so the blob is still missing" env GIT_NO_LAZY_FETCH=1 "$GIT" -C w-lazy cat-file -e "$blob"
"$GIT" -C "$REPOS/p.git" config uploadpack.allowAnySHA1InWant true
check_output "v0 lazy: once the server allows it, the read fetches the blob" \
	"$("$GIT" -C "$REPOS/p.git" cat-file -p "$blob")" sh -c 'cd w-lazy && "$1" cat-file -p "$2"' sh "$W" "$blob"

# --- rate limits ------------------------------------------------------------------------------
front rlg --throttle 429 --retry-after 1
check_fail "429: git 2.53 gives up on a rate limit" "$GIT" clone -q "$F/git/r.git" g-429
front rl --throttle 429 --retry-after 1
start_s=$SECONDS
through 429 "$F/git/r.git"
check "429: every kind of request was refused once" \
	test "$(grep -c ' 429 ' rl.log)" -ge 4
check "429: ... and then answered" grep -q "^POST /git/r.git/git-receive-pack 200" rl.log
check "429: webgit waited as told (a second each)" test $((SECONDS - start_s)) -ge 4

front rd --throttle 503 --retry-after date+1
check "503 with an HTTP-date Retry-After: clone" "$W" clone -q "$F/git/r.git" w-503
"$GIT" clone -q "$SRV/git/r.git" g-503
check_same "503: git's objects" "objects g-503" "objects w-503"

front rlong --throttle 429 --retry-after 3600
start_s=$SECONDS
check_fail "a Retry-After of an hour: the clone fails" "$W" clone -q "$F/git/r.git" w-long
cp "$LAST_ERR" long.err
check "... with the status in the message" grep -q "HTTP 429" long.err
check "... at once (no waiting an hour)" test $((SECONDS - start_s)) -lt 20
check_fail "... and leaves no directory" test -e w-long

# --- a login wall -------------------------------------------------------------------------------
front au --auth "pusher:secret-40"
through auth "$F/git/r.git"
check "auth: the front refused requests without credentials" grep -q " 401 " au.log
unset WEBGIT_HTTP_USER WEBGIT_HTTP_PASSWORD
check_fail "auth: without credentials the clone fails" "$W" clone -q "$F/git/r.git" w-noauth
cp "$LAST_ERR" noauth.err
check "... saying what to do" grep -q "authentication required for .*WEBGIT_HTTP_USER" noauth.err
check_fail "... and leaves no directory" test -e w-noauth
export WEBGIT_HTTP_USER=pusher WEBGIT_HTTP_PASSWORD=secret-40
check "auth: the password is in no file of the clones" \
	sh -c '! grep -rqF "secret-40" w-auth w-gzip w-redirect'

# --- bodies that end with the connection ------------------------------------------------------------
front cl --framing close
through close "$F/git/r.git"

check "every front was exercised" test "$n" -eq 8


# --- an advertisement of 100,000 refs (a forge's refs/pull/*), v2 and v0 ----------------------
"$GIT" clone -q --bare "$REPOS/r.git" "$REPOS/many.git"
tip=$("$GIT" -C "$REPOS/many.git" rev-parse main)
seq 1 100000 | awk -v t="$tip" '{ printf "create refs/pull/%d/head %s\n", $1, t }' |
	"$GIT" -C "$REPOS/many.git" update-ref --stdin
"$GIT" -C "$REPOS/many.git" pack-refs --all
for base in "$SRV" "$(cat v0/url)"; do
	p=v2
	[ "$base" = "$SRV" ] || p=v0
	check_same "100k refs ($p): ls-remote lists what git lists" \
		"\"\$GIT\" ls-remote '$base/git/many.git'" "\"\$W\" ls-remote '$base/git/many.git'"
	check "100k refs ($p): clone --mirror" "$W" clone -q --mirror "$base/git/many.git" "many-$p.git"
	check_same "100k refs ($p): every ref" "refs '$REPOS/many.git'" "refs many-$p.git"
done
