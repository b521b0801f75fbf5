#!/usr/bin/env bash
# t19-http-proxy: the native client through an HTTP proxy (cli/http/proxy.c),
# the local proxy being tests/server/proxy.mjs (127.0.0.1 only, started here
# and stopped by its PID), which logs what it carried:
#
#   - clone, fetch and push over http:// through http_proxy (absolute-form
#     requests): the proxy's log shows every request, the results are git's;
#     HTTP_PROXY too, but not when REQUEST_METHOD is set (httpoxy);
#   - no_proxy: a matching host (also "*", a domain list, host:port) goes
#     direct, past a proxy that is not even running; a non-matching one not;
#   - proxy credentials from the proxy URL (Proxy-Authorization: Basic):
#     missing or wrong ones end in a clear 407 error, no password printed,
#     and a refused clone leaves no directory behind;
#   - https:// through a CONNECT tunnel, with TLS to the server inside it:
#     the Git server here is plain HTTP, so the tunnel is tested with the
#     client's driver (tests/tools/http_fetch) against the HTTPS mock server
#     of t11 (tests/server/mock-http.mjs) with a CA made here by openssl;
#     a proxy that refuses CONNECT (403) or wants credentials (407) is a
#     clear error.
#
# interop: leak-check

. "$(dirname "$0")/lib.sh"
require_webgit
. "$(dirname "$0")/http_lib.sh"
command -v openssl >/dev/null || skip_all "openssl not found"

W=$WEBGIT
TOOL=${HTTP_FETCH:-}
if [ -z "$TOOL" ] && [ -n "${WG_TOOLS_DIR:-}" ]; then
	TOOL=$WG_TOOLS_DIR/http_fetch
fi
TOOL=${TOOL:-$(dirname "$W")/http_fetch}

# Proxy and server variables reach only the commands that set them.
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY \
	REQUEST_METHOD

# One small repository is enough (and quicker than make-repos.sh's set).
repo=small
REPOS=$PWD/repos
make_repo() {
	"$GIT" init -q -b main work && (
		cd work && for i in 1 2 3; do
			echo "$i" >"f$i" && "$GIT" add "f$i" && "$GIT" commit -qm "commit $i" || exit
		done
	) && mkdir -p "$REPOS" && "$GIT" clone -q --bare work "$REPOS/$repo.git" &&
	"$GIT" -C "$REPOS/$repo.git" config http.receivepack true
}
check "make the served repository" make_repo
start srv --root "$REPOS" --auth pusher:secret --log "$PWD/srv.log"
SRV=$url

# --- the proxies ------------------------------------------------------------------

PIDS=()
stop_proxies() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	PIDS=()
}
prev=$(trap -p EXIT)
prev=${prev#trap -- \'}
prev=${prev%\' EXIT}
# shellcheck disable=SC2064 # the earlier handlers are expanded now, on purpose
trap "stop_proxies; $prev" EXIT

# start_proxy NAME ARGS...: a proxy with its files in ./NAME; sets $port.
start_proxy() {
	local name=$1
	shift
	mkdir -p "$name"
	node "$WG_SRC/tests/server/proxy.mjs" --port-file "$name/port" --pid-file "$name/pid" \
		--log "$PWD/$name/log" --parent $$ "$@" >"$name/out" 2>"$name/err" &
	PIDS+=($!)
	for _ in $(seq 100); do
		[ -s "$name/port" ] && break
		sleep 0.1
	done
	port=$(cat "$name/port" 2>/dev/null)
	touch "$name/log"
}
start_proxy px
PX=http://127.0.0.1:$port
start_proxy pxauth --auth 'pa:p@ss'
PXA=127.0.0.1:$port
start_proxy pxdeny --deny-connect
PXD=http://127.0.0.1:$port
check "the proxies are up" test -n "$PX" -a -n "$PXA" -a -n "$PXD"
# a port nothing listens on
CLOSED=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
	console.log(s.address().port); s.close(); })')

# lines LOG: how many lines a log has
lines() { wc -l <"$1"; }
# logged LOG MARK REGEX: a line after line MARK of LOG matches REGEX
logged() { awk -v m="$2" -v re="$3" 'NR > m && $0 ~ re { found = 1 } END { exit !found }' "$1"; }
# quiet LOG MARK: nothing was logged after line MARK
quiet() { [ "$(lines "$1")" -eq "$2" ]; }
# kept: save the last assertion's stderr (the next assertion replaces it)
kept() { cp "$LAST_ERR" last.err; }
# says REGEX: the saved stderr matches REGEX (grep -E)
says() { grep -Eq -- "$1" last.err || { cat last.err >&2; false; }; }
# says_not TEXT: ... does not hold TEXT
says_not() { ! grep -qF -- "$1" last.err; }

via() { http_proxy=$PX "$@"; }

# --- clone, fetch, push over http:// through the proxy ---------------------------------

mark=$(lines px/log)
check "clone through http_proxy" via "$W" clone -q "$SRV/git/$repo.git" w
check "... git fsck --strict is clean" "$GIT" -C w fsck --strict --no-progress
check_same "... origin/main is the server's main" \
	"\"\$GIT\" -C '$REPOS/$repo.git' rev-parse main" '"$GIT" -C w rev-parse origin/main'
check "... the proxy carried the ref discovery (absolute-form)" \
	logged px/log "$mark" "^GET $SRV/git/$repo.git/info/refs\\?service=git-upload-pack 200$"
check "... and the fetch" logged px/log "$mark" "^POST $SRV/git/$repo.git/git-upload-pack 200$"
check_fail "... and no tunnel: http:// needs none" logged px/log "$mark" "^CONNECT"
check "... the server saw the requests" grep -q "^POST /git/$repo.git/git-upload-pack 200" srv.log
check_same "ls-remote through the proxy lists what git lists" \
	"\"\$GIT\" ls-remote '$SRV/git/$repo.git'" "http_proxy=$PX \"\$W\" ls-remote '$SRV/git/$repo.git'"

# a new commit on the server, then fetch it through the proxy
main=$("$GIT" -C "$REPOS/$repo.git" rev-parse main)
tree=$("$GIT" -C "$REPOS/$repo.git" rev-parse "main^{tree}")
new=$("$GIT" -C "$REPOS/$repo.git" commit-tree "$tree" -p "$main" -m "for the proxy fetch")
"$GIT" -C "$REPOS/$repo.git" update-ref refs/heads/proxied "$new"
mark=$(lines px/log)
check "fetch through the proxy" sh -c 'cd w && http_proxy="$1" "$2" fetch -q origin' sh "$PX" "$W"
check_output "... brings the new branch" "$new" "$GIT" -C w rev-parse refs/remotes/origin/proxied
check "... through the proxy" logged px/log "$mark" "^POST $SRV/git/$repo.git/git-upload-pack 200$"

# push a branch through the proxy (the server wants Basic credentials: they
# go to the server, inside the proxied request, and the proxy needs none)
pushed=$("$GIT" -C w commit-tree "$tree" -p "$main" -m "pushed through the proxy")
"$GIT" -C w update-ref refs/heads/via-proxy "$pushed"
mark=$(lines px/log)
push() { cd w && WEBGIT_HTTP_USER=pusher WEBGIT_HTTP_PASSWORD=secret http_proxy=$PX "$W" push -q origin via-proxy; }
check "push through the proxy" push
check_output "... the server has it" "$pushed" "$GIT" -C "$REPOS/$repo.git" rev-parse refs/heads/via-proxy
check "... the proxy carried the receive-pack" \
	logged px/log "$mark" "^POST $SRV/git/$repo.git/git-receive-pack 200$"

# --- which variable ----------------------------------------------------------------------

mark=$(lines px/log)
check "HTTP_PROXY (upper case) is used too" env HTTP_PROXY="$PX" "$W" ls-remote "$SRV/git/$repo.git"
check "... through the proxy" logged px/log "$mark" "^GET $SRV/git/$repo.git/info/refs"
mark=$(lines px/log)
check "... but not in a CGI (REQUEST_METHOD set: httpoxy)" \
	env REQUEST_METHOD=GET HTTP_PROXY="$PX" "$W" ls-remote "$SRV/git/$repo.git"
check "... which went direct" quiet px/log "$mark"
check "all_proxy serves http:// too" env all_proxy="$PX" "$W" ls-remote "$SRV/git/$repo.git"
check "... through the proxy" logged px/log "$mark" "^GET $SRV/git/$repo.git/info/refs"
check "a proxy without a scheme is http://" env http_proxy="${PX#http://}" "$W" ls-remote "$SRV/git/$repo.git"
check_fail "https_proxy is not for http:// URLs" \
	env https_proxy="http://127.0.0.1:$CLOSED" "$W" ls-remote "http://127.0.0.1:$CLOSED/x.git"
kept
check "... (the error is the server's, not a proxy's)" says "unable to connect to 127.0.0.1 port $CLOSED"

# --- no_proxy ------------------------------------------------------------------------------

dead=http://127.0.0.1:$CLOSED
check_fail "a proxy that is not running" env http_proxy="$dead" "$W" ls-remote "$SRV/git/$repo.git"
kept
check "... is named in the error" says "unable to connect to proxy 127.0.0.1 port $CLOSED"
srvport=${SRV##*:}
for np in '127.0.0.1' '*' 'example.com, 127.0.0.1' ".example.org,127.0.0.1:$srvport" '127.0.0.0/8'; do
	check "no_proxy='$np' goes direct" \
		env http_proxy="$dead" no_proxy="$np" "$W" ls-remote "$SRV/git/$repo.git"
done
check "NO_PROXY (upper case) too" env http_proxy="$dead" NO_PROXY=127.0.0.1 "$W" ls-remote "$SRV/git/$repo.git"
for np in '127.0.0.2' "127.0.0.1:1" 'example.com' '0.0.0.1'; do
	check_fail "no_proxy='$np' does not match: the proxy is used" \
		env http_proxy="$dead" no_proxy="$np" "$W" ls-remote "$SRV/git/$repo.git"
done
mark=$(lines px/log)
check "no_proxy bypasses a running proxy" env http_proxy="$PX" no_proxy=127.0.0.1 "$W" clone -q "$SRV/git/$repo.git" np
check "... which saw nothing" quiet px/log "$mark"

# --- proxy credentials and refusals ----------------------------------------------------------

mark=$(lines pxauth/log)
check_fail "a proxy that wants credentials refuses the clone" \
	env http_proxy="http://$PXA" "$W" clone -q "$SRV/git/$repo.git" refused
kept
check "... with a clear message (407)" says "proxy http://$PXA requires authentication \\(407"
check "... naming the variable to set" says "http_proxy"
check_fail "... and leaves no directory" test -e refused
check "(the proxy answered 407)" logged pxauth/log "$mark" " 407$"
check "credentials in the proxy URL (percent-encoded)" \
	env http_proxy="http://pa:p%40ss@$PXA" "$W" clone -q "$SRV/git/$repo.git" authed
check "... the clone is complete" "$GIT" -C authed fsck --strict --no-progress
check_fail "wrong proxy credentials" env http_proxy="http://pa:wrong-proxy-pw@$PXA" \
	"$W" clone -q "$SRV/git/$repo.git" wrongpw
kept
check "... refused, clearly" says "proxy http://$PXA refused the credentials in http_proxy"
check "... without printing the password" says_not "wrong-proxy-pw"
check_fail "... and no directory" test -e wrongpw
check_fail "a socks proxy is refused" env http_proxy="socks5://127.0.0.1:1" "$W" ls-remote "$SRV/git/$repo.git"
kept
check "... as not spoken" says "socks5.*only http:// proxies"
check_fail "a bad proxy URL" env http_proxy="http://127.0.0.1:99999" "$W" ls-remote "$SRV/git/$repo.git"
kept
check "... names the variable" says "bad proxy URL in http_proxy"

# --- https:// through CONNECT ---------------------------------------------------------------------

if [ ! -x "$TOOL" ]; then
	skip "https through CONNECT" "http_fetch not built"
else
	make_pki() {
		mkdir -p pki && cd pki &&
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
			-out ca.pem -days 2 -subj "/CN=webgit proxy test CA" \
			-addext "basicConstraints=critical,CA:TRUE" \
			-addext "keyUsage=critical,keyCertSign,cRLSign" &&
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key \
			-out server.csr -subj "/CN=localhost" &&
		printf '%s\n' "subjectAltName=DNS:localhost" "basicConstraints=CA:FALSE" \
			"keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" >ext.cnf &&
		openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
			-out server.pem -days 2 -extfile ext.cnf
	} >/dev/null 2>&1
	check "openssl makes a test CA and a certificate for localhost" make_pki
	node "$WG_SRC/tests/server/mock-http.mjs" --port-file mock.ports --cert pki/server.pem \
		--key pki/server.key --parent $$ >mock.log 2>&1 &
	PIDS+=($!)
	for _ in $(seq 100); do [ -s mock.ports ] && grep -q https mock.ports && break; sleep 0.1; done
	SP=$(sed -n 's/^https //p' mock.ports)
	TLS=https://localhost:$SP
	export WEBGIT_SSL_CAINFO=$PWD/pki/ca.pem

	fetch() { "$TOOL" "$@" >out 2>err; local s=$?; cat out; cat err >&2; return $s; }
	tunnel() { https_proxy=$PX fetch "$@"; }
	mark=$(lines px/log)
	check_output "https through a CONNECT tunnel" "hello, world" tunnel "$TLS/text"
	check "... the proxy opened the tunnel" logged px/log "$mark" "^CONNECT localhost:$SP 200$"
	check_fail "... and saw no request in clear" logged px/log "$mark" "^GET"
	check "keep-alive inside the tunnel: one connection" \
		eval 'tunnel "$TLS/conn" /conn /conn && [ "$(sort -u out | wc -l)" -eq 1 ] &&
		      grep -q "^connections 1 reused 2 " err'
	check "a streamed gzipped POST through the tunnel" \
		eval 'seq 1 30000 >body.txt && tunnel --stream --gzip --data-file body.txt "$TLS/echo" &&
		      cmp -s body.txt out'
	check_output "HTTPS_PROXY (upper case) too" "hello, world" env HTTPS_PROXY="$PX" "$TOOL" "$TLS/text"
	check_output "CONNECT with proxy credentials" "hello, world" \
		env https_proxy="http://pa:p%40ss@$PXA" "$TOOL" "$TLS/text"
	check_fail "CONNECT without them" env https_proxy="http://$PXA" "$TOOL" "$TLS/text"
	kept
	check "... 407, clearly" says "proxy http://$PXA requires authentication \\(407 for CONNECT localhost:$SP\\)"
	check_fail "a proxy that refuses CONNECT" env https_proxy="$PXD" "$TOOL" "$TLS/text"
	kept
	check "... says so (403)" says "the proxy $PXD refused CONNECT localhost:$SP: 403 Forbidden"
	check "no_proxy=localhost goes direct for https" \
		env https_proxy="$dead" no_proxy=localhost "$TOOL" "$TLS/text"
	check_fail "the certificate is still checked through the tunnel" \
		env https_proxy="$PX" WEBGIT_SSL_CAINFO=/dev/null "$TOOL" "$TLS/text"
fi

stop_proxies
check "the proxies logged no errors" eval '! cat px/err pxauth/err pxdeny/err | grep -v "SIGTERM, stopping$" | grep -q .'
