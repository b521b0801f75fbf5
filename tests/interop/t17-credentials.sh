#!/usr/bin/env bash
# t17-credentials: credentials in a URL authenticate the requests and are
# never stored or shown. The server wants Basic auth for every request
# (--auth-all), so anything that works used the URL's credentials.
#
#   - clone, ls-remote, fetch <url> (HEAD, a branch, a refspec that stores),
#     push <url> with http://alice:SECRET...@host/...: they work, the
#     remote's URL in the config has no user information, and FETCH_HEAD,
#     refs and reflogs are git's (git 2.53 also writes them without it);
#   - a fetch or push by URL makes no remote-tracking refs;
#   - a wrong password, a missing repository, a redirect to another origin
#     (which does not get the URL's credentials) fail, saying nothing of
#     the password; a same-origin redirect works;
#   - `fetch origin` afterwards has no credentials (none were kept) and
#     fails with an authentication error, until the environment gives them;
#   - credential helpers (credential.helper): each logs its action and
#     input; git 2.53 and webgit run the same clone, push, fetch, ls-remote
#     and their logs must be the same bytes (get/store, get/erase for a
#     refused password, two helpers, git credential-store --file,
#     credential.<url>.helper, useHttpPath, authtype/credential/state[]),
#     and a refusal or a helper's quit ends with git's message;
#   - then grep: no file of the repositories (.git included) and no
#     captured stdout/stderr holds the secret; the same grep finds it in a
#     clone by git (which keeps the URL as given), so it can fail.
#
# interop: leak-check

. "$(dirname "$0")/lib.sh"
require_webgit
. "$(dirname "$0")/http_lib.sh"

sample_repos
PW=SECRET-pw-17
start other --root "$REPOS" --auth "alice:$PW" --auth-all
other=$url
start srv --root "$REPOS" --auth "alice:$PW" --auth-all --redirect-to "$other"
host=${url#http://}
plain=$url/git/sample-sha1-files.git
U=http://alice:$PW@$host/git/sample-sha1-files.git
BAD=http://alice:WRONG-SECRET-1@$host/git/sample-sha1-files.git

# Every webgit run keeps its stdout and stderr in ./captured for the final
# grep (progress lines included: --progress), the last one also in
# ./last.out and ./last.err (an assertion's $LAST_ERR is its own).
CAP=$PWD/captured
T=$PWD
mkdir -p "$CAP"
W() {
	local o e rc=0
	o=$(mktemp "$CAP/run.XXXXXX") && e=$o.err || return 99
	"$WEBGIT" "$@" >"$o" 2>"$e" || rc=$?
	cp "$o" "$T/last.out" && cp "$e" "$T/last.err"
	cat "$o"
	cat "$e" >&2
	return $rc
}
# Like W, in directory $1.
Win() { local d=$1; shift; (cd "$d" && W "$@"); }
err_lacks_secret() { ! grep -q SECRET "$T/last.err" && ! grep -q SECRET "$T/last.out"; }
G() { "$GIT" "$@"; }
server() { "$GIT" -C "$REPOS/sample-sha1-files.git" "$@"; }

# --- the server really wants the credentials ------------------------------------
check_fail "without credentials the server refuses a clone" W clone -q "$plain" nocreds
check "...an authentication error" grep -qi "auth" "$T/last.err"
check_fail "...and leaves nothing" test -e nocreds

# --- clone -------------------------------------------------------------------------
check "clone with credentials in the URL" W clone --progress "$U" w
check "...progress was shown" grep -q "Receiving objects" "$T/last.err"
check_output "...remote.origin.url without user information" "$plain" G -C w config remote.origin.url
check_same "...the same refs as the server's" \
	'"$GIT" -C w for-each-ref --format="%(objectname) %(refname)" refs/tags' \
	'"$GIT" -C "$REPOS/sample-sha1-files.git" for-each-ref --format="%(objectname) %(refname)" refs/tags'
check_output "...HEAD's reflog names the URL without credentials" "clone: from $plain" \
	G -C w reflog -1 --format=%gs refs/heads/main
check "...git fsck" G -C w fsck --strict --no-progress
check "a bare clone with credentials" W clone -q --bare "$U" bare.git
check_output "...remote.origin.url" "$plain" G -C bare.git config remote.origin.url
check "ls-remote with credentials" W ls-remote "$U"
check_same "...lists what git's does" 'cat "$T/last.out"' '"$GIT" ls-remote "$U"'

# The reference: git's own clone and its fetches, for FETCH_HEAD and refs.
G clone -q --no-checkout "$U" g

# --- fetch <url> -------------------------------------------------------------------
main0=$(server rev-parse main)
tree=$(server rev-parse "main^{tree}")
new=$(server commit-tree "$tree" -p "$main0" -m "new on the server")
server update-ref refs/heads/main "$new"
server tag -a -m "a new tag" newtag "$new"
before=$(G -C w for-each-ref --format='%(objectname) %(refname)')
check "fetch <url> (its HEAD)" Win w fetch --progress "$U"
check_output "...no ref changed (FETCH_HEAD only)" "$before" \
	G -C w for-each-ref --format='%(objectname) %(refname)'
G -C g fetch -q "$U"
check_same "...FETCH_HEAD as git's" "cat w/.git/FETCH_HEAD" "cat g/.git/FETCH_HEAD"
check_output "...it names the new commit" "$new" sh -c "cut -f1 w/.git/FETCH_HEAD"
check "...which arrived" G -C w cat-file -e "$new"

check "fetch <url> main" Win w fetch -q "$U" main
G -C g fetch -q "$U" main
check_same "...FETCH_HEAD as git's" "cat w/.git/FETCH_HEAD" "cat g/.git/FETCH_HEAD"
check_output "...origin/main unchanged" "$main0" G -C w rev-parse refs/remotes/origin/main

check "fetch <url> main:fetched (stores, follows tags)" Win w fetch "$U" main:fetched
G -C g fetch "$U" main:fetched
check_same "...FETCH_HEAD as git's" "cat w/.git/FETCH_HEAD" "cat g/.git/FETCH_HEAD"
check_same "...the same refs as git's" \
	'"$GIT" -C w for-each-ref --format="%(objectname) %(refname)" refs/heads refs/tags' \
	'"$GIT" -C g for-each-ref --format="%(objectname) %(refname)" refs/heads refs/tags'
check_same "...the same reflog message as git's (no credentials)" \
	'"$GIT" -C w reflog -1 --format=%gs refs/heads/fetched' \
	'"$GIT" -C g reflog -1 --format=%gs refs/heads/fetched'
check_fail "...no remote-tracking ref for the URL" \
	sh -c '"$GIT" -C w for-each-ref refs/remotes | grep -v refs/remotes/origin/ | grep .'
check_fail "fetch <url> of a ref the remote lacks" Win w fetch "$U" no-such-branch
check "...git's message" grep -q "couldn't find remote ref no-such-branch" "$T/last.err"

# --- nothing was kept: a named fetch has no credentials ------------------------------
check_fail "fetch origin: no credentials were kept" Win w fetch origin
check "...an authentication error" grep -qi "auth" "$T/last.err"
check "fetch origin with WEBGIT_HTTP_USER/PASSWORD" \
	env WEBGIT_HTTP_USER=alice WEBGIT_HTTP_PASSWORD=$PW sh -c 'cd w && "$WEBGIT" fetch -q origin'
check_output "...origin/main moved" "$new" G -C w rev-parse refs/remotes/origin/main

# --- push <url> ----------------------------------------------------------------------
c1=$(G -C w commit-tree "$tree" -p "$new" -m "pushed by url")
G -C w update-ref refs/heads/topic "$c1"
check "push <url> topic:refs/heads/by-url" Win w push --progress "$U" topic:refs/heads/by-url
check "...'To' names the URL without credentials" grep -qF "To $plain" "$T/last.err"
check_output "...the server has it" "$c1" server rev-parse refs/heads/by-url
check_fail "...no remote-tracking ref for a push to a URL" \
	sh -c '"$GIT" -C w for-each-ref refs/remotes | grep -v refs/remotes/origin/ | grep .'
check_fail "...nor under origin" G -C w rev-parse --verify -q refs/remotes/origin/by-url
check "push <url> to delete it" Win w push -q "$U" :refs/heads/by-url
check_fail "...it is gone" server rev-parse --verify -q refs/heads/by-url

# --- failures say nothing of the password ---------------------------------------------
check_fail "clone with a wrong password" W clone -q "$BAD" wrong
check "...an authentication error" grep -qi "auth" "$T/last.err"
check "...naming the URL without credentials" grep -qF "$plain" "$T/last.err"
check "...without the password" err_lacks_secret
check_fail "fetch <url> with a wrong password" Win w fetch "$BAD"
check "...without the password" err_lacks_secret
check_fail "push <url> with a wrong password" Win w push "$BAD" topic:refs/heads/nope
check "...without the password" err_lacks_secret
check_fail "...and nothing arrived" server rev-parse --verify -q refs/heads/nope
check_fail "clone of a missing repository (404)" \
	W clone -q "http://alice:$PW@$host/git/no-such-repo.git" missing
check "...not found" grep -qi "not found" "$T/last.err"
check "...without the password" err_lacks_secret
check_fail "ls-remote, bad percent-encoding in the password" \
	W ls-remote "http://alice:SECRET%zz@$host/git/sample-sha1-files.git"
check "...without the password" err_lacks_secret
# The discovery follows a redirect to another origin (as git does), but the
# URL's credentials were given for this one: the other origin, which wants
# credentials too, gets none, so the clone fails there.
check_fail "clone through a redirect to another origin" \
	W clone -q "http://alice:$PW@$host/redirect/sample-sha1-files.git" crossed
check "...which asked for credentials the URL's were not for" \
	grep -q "authentication required for ${other}/" "$T/last.err"
check "...without the password" err_lacks_secret
check_fail "...and nothing is left" test -e crossed

# A same-origin redirect keeps the credentials (307: ls-remote's GET).
start same --root "$REPOS" --auth "alice:$PW" --auth-all
check "ls-remote through a same-origin redirect" \
	W ls-remote "http://alice:$PW@${url#http://}/redirect/sample-sha1-files.git"
check "...lists refs" grep -q "refs/heads/main" "$T/last.out"

# --- credential helpers (credential.helper), against git's -------------------------------
# Each helper logs its action and what it read; git 2.53 and webgit run the
# same command and their logs must be the same bytes (get, then store or
# erase, each with git's key=value lines).
mkdir -p helpers
cat >helpers/answer <<'EOS'
#!/bin/sh
# logs "== <action>" and its input; answers get with alice and $CRED_PW
{ echo "== answer $1"; cat; } >>"$CRED_LOG"
test "$1" = get && printf 'username=alice\npassword=%s\n' "$CRED_PW"
exit 0
EOS
cat >helpers/empty <<'EOS'
#!/bin/sh
{ echo "== empty $1"; cat; } >>"$CRED_LOG"
exit 0
EOS
chmod +x helpers/answer helpers/empty
ANSWER=$T/helpers/answer
EMPTY=$T/helpers/empty
# the "!" form, as gitcredentials(7) shows it
INLINE='!f() { { echo "== inline $1"; cat; } >>"$CRED_LOG"; test "$1" = get && printf "username=alice\npassword=%s\n" "$CRED_PW"; }; f'
export CRED_PW=$PW
# WL LOG ARGS / WLin LOG DIR ARGS: W / Win with the helpers logging to LOG
WL() { local log=$1; shift; CRED_LOG=$log W "$@"; }
WLin() { local log=$1; shift; CRED_LOG=$log Win "$@"; }
# same_log NAME DESC: git's log (NAME.g) and webgit's (NAME.w) hold the same bytes
same_log() { check_same "$2: the helpers saw what git's saw" "cat $1.w" "cat $1.g"; }

CRED_LOG=$T/clone.g G clone -q -c credential.helper="$ANSWER" "$plain" hg
check "clone with a helper (absolute path)" \
	WL "$T/clone.w" clone -q -c credential.helper="$ANSWER" "$plain" hw
same_log clone "clone"
check "...get, then store" grep -qx "== answer store" clone.w
check "...git fsck" G -C hw fsck --strict --no-progress

c2=$(G -C hw commit-tree "$tree" -p "$new" -m "pushed through a helper")
G -C hw update-ref refs/heads/topic2 "$c2"
# the same commit (fixed dates) in git's clone, for git's push
check_output "...made in git's clone too" "$c2" G -C hg commit-tree "$tree" -p "$new" -m "pushed through a helper"
G -C hg update-ref refs/heads/topic2 "$c2"
CRED_LOG=$T/push.g G -C hg push -q origin topic2:refs/heads/helper-g
check "push with the repository's credential.helper" \
	WLin "$T/push.w" hw push -q origin topic2:refs/heads/helper-w
same_log push "push"
check_output "...the server has it" "$c2" server rev-parse refs/heads/helper-w
CRED_LOG=$T/fetch.g G -C hg fetch -q origin
check "fetch with it" WLin "$T/fetch.w" hw fetch -q origin
same_log fetch "fetch"
CRED_LOG=$T/lsr.g G -C hg ls-remote "$plain" >/dev/null
check "ls-remote <url> in the repository uses its helper" \
	WLin "$T/lsr.w" hw ls-remote "$plain"
same_log lsr "ls-remote"

# a helper with a wrong password: erase, git's message, nothing left
wrong_clone() { CRED_PW=WRONG-SECRET-2 WL "$T/wrong.w" clone -q -c credential.helper="$INLINE" "$plain" ww; }
CRED_LOG=$T/wrong.g CRED_PW=WRONG-SECRET-2 G clone -q -c credential.helper="$INLINE" "$plain" wg 2>wrong.gerr
check_fail "clone, the helper's password refused" \
	wrong_clone

cp "$LAST_ERR" wrong.werr
same_log wrong "refused clone"
check "...erase was called" grep -qx "== inline erase" wrong.w
check_same "...git's message" "grep fatal: wrong.werr" "grep fatal: wrong.gerr"
check "...without the password" sh -c '! grep -q SECRET wrong.werr'
check_fail "...and no directory is left" test -e ww
G -C hw config credential.helper "$INLINE"
wrong_push() { CRED_PW=WRONG-SECRET-3 WLin "$T/wpush.w" hw push -q origin topic2:refs/heads/nope-w; }
refs_before=$(G -C hw for-each-ref)
G -C hg config credential.helper "$INLINE"
CRED_LOG=$T/wpush.g CRED_PW=WRONG-SECRET-3 G -C hg push -q origin topic2:refs/heads/nope-g 2>/dev/null
check_fail "push, the helper's password refused" \
	wrong_push
cp "$LAST_ERR" wpush.werr
same_log wpush "refused push"
check "...without the password" sh -c '! grep -q SECRET wpush.werr'
check_fail "...no ref moved on the server" server rev-parse --verify -q refs/heads/nope-w
check_output "...nor here" "$refs_before" G -C hw for-each-ref

# two helpers, the first has nothing: the second answers, both store
CRED_LOG=$T/two.g G -c credential.helper="$EMPTY" -c credential.helper="$INLINE" clone -q --bare "$plain" two-g.git
check "two helpers, the first without an answer" \
	WL "$T/two.w" clone -q --bare -c credential.helper="$EMPTY" -c credential.helper="$INLINE" "$plain" two-w.git
same_log two "two helpers"

# git's own credential-store as a named helper, after a helper that answers
CRED_LOG=$T/store.g G -c credential.helper="store --file=$T/store-g" -c credential.helper="$ANSWER" \
	clone -q --bare "$plain" store-g.git
check "credential-store --file as a named helper" \
	WL "$T/store.w" clone -q --bare -c credential.helper="store --file=$T/store-w" \
	-c credential.helper="$ANSWER" "$plain" store-w.git
same_log store "credential-store"
check_same "...it stored what git's stores" "cat store-w" "cat store-g"
check "...then answers alone" WL "$T/store2.w" clone -q --bare \
	-c credential.helper="store --file=$T/store-w" "$plain" store2-w.git

# credential.<url>.helper for another host is not used; useHttpPath adds path=
CRED_LOG=$T/scoped.g G -c credential.http://other.example.helper="$EMPTY" -c credential.useHttpPath=true \
	-c "credential.http://$host/git.helper=$ANSWER" clone -q --bare "$plain" scoped-g.git
check "credential.<url>.helper: another host's unused, this one's used, with useHttpPath" \
	WL "$T/scoped.w" clone -q --bare -c credential.http://other.example.helper="$EMPTY" \
	-c credential.useHttpPath=true -c "credential.http://$host/git.helper=$ANSWER" "$plain" scoped-w.git
same_log scoped "scoped helpers"
check "...path= was sent" grep -qx "path=git/sample-sha1-files.git" scoped.w
check_fail "...the other host's helper never ran" grep -q "== empty" scoped.w

# a helper with the capabilities: a ready Authorization (authtype and
# credential), state[] handed back on store; and one that says quit
cat >helpers/capable <<'EOS'
#!/bin/sh
{ echo "== capable $1"; cat; } >>"$CRED_LOG"
test "$1" = get && printf 'capability[]=authtype\ncapability[]=state\nstate[]=t17:1\nauthtype=Basic\ncredential=%s\nephemeral=1\n' "$(printf 'alice:%s' "$CRED_PW" | base64)"
exit 0
EOS
chmod +x helpers/capable
G init -q --bare capable.git
G -C capable.git config credential.helper "$T/helpers/capable"
CRED_LOG=$T/capable.g G -C capable.git ls-remote "$plain" >/dev/null
check "ls-remote, a helper giving authtype and credential" \
	WLin "$T/capable.w" capable.git ls-remote "$plain"
same_log capable "authtype, credential, state[]"
check "...store had the capabilities and state[] back" \
	grep -qx "state\[\]=t17:1" capable.w
G -C capable.git config credential.helper '!f() { echo quit=1; }; f'
G -C capable.git ls-remote "$plain" 2>quit.gerr
check_fail "a helper saying quit" Win capable.git ls-remote "$plain"
cp "$LAST_ERR" quit.werr
check_same "...git's message" "grep fatal: quit.werr" "grep fatal: quit.gerr"

# --- the grep ---------------------------------------------------------------------------
check "the grep finds the secret in git's own clone (the check can fail)" \
	grep -rq SECRET g
check_fail "no file of webgit's clone holds the secret (.git included)" grep -rl SECRET w hw \
	two-w.git scoped-w.git
check_fail "...nor of the bare clone" grep -rl SECRET bare.git
check_fail "...nor any failed clone's leftovers" sh -c 'grep -rl SECRET nocreds wrong missing crossed 2>/dev/null'
check "every webgit run was captured" test "$(ls "$CAP" | grep -c '\.err$')" -ge 15
check_fail "no captured stdout or stderr holds the secret" grep -rl SECRET "$CAP"
