#!/usr/bin/env bash
# t11-http-client: the native CLI's HTTP/1.1 client (cli/http_client.c),
# through the driver tests/tools/http_fetch.c, against the Node mock server
# tests/server/mock-http.mjs (127.0.0.1 only, started here and stopped by
# PID):
#
#   - framing: Content-Length, chunked (node's own, and raw chunks with
#     extensions split across TCP writes, with a trailer), read-to-close,
#     a 103 before the response, HEAD; gzip responses (whole and streamed)
#   - request bodies: in memory and streamed (chunked), plain and gzipped;
#     the server checks what arrived and echoes it back
#   - keep-alive: the server's connection ids and the client's counters;
#     Connection: close and HTTP/1.0 end a connection; a kept-alive
#     connection the server dropped is retried once on a new one (and not
#     with a body that cannot be rewound)
#   - redirects: relative and absolute, the limit of 5, 303/302/301 turning
#     POST into GET, 307/308 resending the body, cross-origin refused
#   - auth: Basic from the URL (percent-decoded) and the environment, Bearer
#     from the environment, refused credentials, the terminal prompt, and
#     never a password in a message
#   - adversarial servers: bad chunk sizes, short bodies, stalls (with a short
#     WEBGIT_HTTP_TIMEOUT), an endless header, bad gzip, unknown encodings
#   - HTTPS with a CA made here by openssl: trust via WEBGIT_SSL_CAINFO,
#     GIT_SSL_CAINFO and SSL_CERT_FILE, SNI, keep-alive and streaming over
#     TLS; an unknown CA and a host name mismatch refused
#
# The driver is found at $HTTP_FETCH, else in $WG_TOOLS_DIR, else next to
# $WEBGIT (build/asan/http_fetch by default).

. "$(dirname "$0")/lib.sh"

TOOL=${HTTP_FETCH:-}
if [ -z "$TOOL" ] && [ -n "${WG_TOOLS_DIR:-}" ]; then
	TOOL=$WG_TOOLS_DIR/http_fetch
fi
TOOL=${TOOL:-$(dirname "${WEBGIT:-/nonexistent}")/http_fetch}
if [ ! -x "$TOOL" ]; then
	skip_all "http_fetch not built (tests/tools/http_fetch.c; set HTTP_FETCH or WG_TOOLS_DIR)"
fi
command -v node >/dev/null || skip_all "node not found"
command -v openssl >/dev/null || skip_all "openssl not found"

# --- test data and certificates ---------------------------------------------

lines() { seq 1 20000 | sed 's/^/line /'; }
lines >lines.txt
# a request body over 64 KiB (sent apart from the head) with binary bytes
{ lines; head -c 3000 /dev/urandom; } >body.bin
printf 'a small body\n' >small.txt

make_pki() {
	mkdir -p pki && cd pki &&
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 \
		-subj "/CN=webgit test CA" -addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key \
		-out server.csr -subj "/CN=localhost" &&
	printf '%s\n' "subjectAltName=DNS:localhost" "basicConstraints=CA:FALSE" \
		"keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" >ext.cnf &&
	openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
		-out server.pem -days 2 -extfile ext.cnf &&
	# a second CA that signed nothing the server uses
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout other.key -out other-ca.pem -days 2 -subj "/CN=some other CA" \
		-addext "basicConstraints=critical,CA:TRUE"
}
check "openssl makes a test CA and a certificate for localhost" make_pki
PKI=$PWD/pki

# --- the mock server ----------------------------------------------------------

MOCK_PID=
stop_mock() {
	if [ -n "$MOCK_PID" ]; then
		kill "$MOCK_PID" 2>/dev/null
		wait "$MOCK_PID" 2>/dev/null
		MOCK_PID=
	fi
}
# lib.sh's EXIT trap counts the results; run it after stopping the server,
# with the status the script exited with.
trap 'wg__st=$?; stop_mock; (exit $wg__st); wg__finish' EXIT

node "$WG_SRC/tests/server/mock-http.mjs" --port-file ports --cert "$PKI/server.pem" \
	--key "$PKI/server.key" --parent $$ >mock.log 2>&1 &
MOCK_PID=$!
for _ in $(seq 100); do
	[ -s ports ] && break
	sleep 0.1
done
HP=$(sed -n 's/^http //p' ports 2>/dev/null)
SP=$(sed -n 's/^https //p' ports 2>/dev/null)
if [ -z "$HP" ] || [ -z "$SP" ]; then
	check "the mock server starts" eval 'cat mock.log >&2; false'
	exit 0  # lib.sh reports the failure
fi
H=http://127.0.0.1:$HP
S=https://localhost:$SP
note "mock server pid $MOCK_PID: $H and $S"

# a port nothing listens on
CLOSED=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
	console.log(s.address().port); s.close(); })')

FETCH_WRAP=
# fetch ARGS...: run the tool with stdout in ./out and stderr in ./err, both
# also copied to the assertion's own (so check_output sees the body, and
# crashes and sanitizer reports count).
fetch() {
	local s=0
	$FETCH_WRAP "$TOOL" "$@" >out 2>err || s=$?
	cat out
	cat err >&2
	return $s
}
err_has() { grep -qE -- "$1" err; }
err_lacks() { ! grep -qE -- "$1" err; }
same_file() { cmp -s "$1" out; }

# --- response framing ---------------------------------------------------------

check_output "Content-Length body" "hello, world" fetch "$H/text"
check "status reported" err_has '^status 200$'
check_output "header lookup is case-insensitive" "hello, world" \
	fetch --show-header x-MOCK-NAME --show-header X-None "$H/text"
check "header value found, absent header is none" \
	eval 'err_has "^header x-MOCK-NAME: mock$" && err_has "^header X-None: \(none\)$"'
check "chunked body written in many pieces" eval 'fetch "$H/lines" && same_file lines.txt'
check_output "chunk extensions, chunks split across writes, trailer" "hello world, split" \
	fetch "$H/chunk-ext"
check_output "a response arriving one byte at a time (gzip, chunked)" "one byte at a time" \
	fetch "$H/trickle"
check_output "body delimited by the end of the connection" "until the end" \
	fetch "$H/close-delimited"
check_output "a 103 before the response is skipped" "after hints" fetch "$H/early-hints"
check "gzip response with Content-Length is decoded" \
	eval 'fetch "$H/lines-gzip" && same_file lines.txt'
check "streamed gzip response (chunked) is decoded" \
	eval 'fetch "$H/lines-gzip-chunked" && same_file lines.txt'
check_output "HEAD has no body, and the connection is reused" "" \
	fetch --method HEAD "$H/text" "$H/text"
check "HEAD: one connection" err_has '^connections 1 reused 1 retries 0$'
check_output "204 has no body" "hello, world" fetch "$H/status/204" "$H/text?after-204"
check "204: one connection" err_has '^connections 1 reused 1 '
check_output "404 is a response, not an error" "not found" fetch "$H/nowhere"
check_fail "--fail turns 404 into a failure" fetch --fail "$H/nowhere"

# --- keep-alive ---------------------------------------------------------------

check "three requests on one client" fetch "$H/conn" "/conn" "$H/conn"
check "the server saw one connection for all three" \
	eval '[ "$(wc -l <out)" -eq 3 ] && [ "$(sort -u out | wc -l)" -eq 1 ]'
check "the client reports two reuses" err_has '^connections 1 reused 2 retries 0$'
check_output "Connection: close is honoured" "$(printf 'bye\nhello, world')" \
	fetch "$H/close-header" "$H/text"
check "Connection: close: a second connection" err_has '^connections 2 reused 0 '
check_output "an HTTP/1.0 response ends the connection" "$(printf 'old ok\nhello, world')" \
	fetch "$H/http10" "$H/text"
check "HTTP/1.0: a second connection" err_has '^connections 2 reused 0 '
check_output "a connection the server dropped after a response is not reused" \
	"$(printf 'dropped\nhello, world')" fetch "$H/drop-after" "$H/text"
check "dropped: a second connection" err_has '^connections 2 '
check_output "a kept-alive connection closed on the next request is retried once" \
	"$(printf 'armed\nhello, world')" fetch "$H/arm-hangup" "$H/text"
check "retry: two connections, one retry" err_has '^connections 2 reused 1 retries 1$'
check "the retry resends a rewindable streamed body" \
	eval 'fetch --stream --data-file small.txt "$H/arm-hangup" "$H/echo" &&
	      [ "$(cat out)" = "$(printf "armed\na small body")" ] && err_has "retries 1$"'
check_fail "... but not a body that cannot be rewound" \
	fetch --stream --no-rewind --data-file small.txt "$H/arm-hangup" "$H/echo"
check "no-rewind: the message says why" err_has 'cannot be rewound'
check_fail "a new connection closed without a response is an error" fetch "$H/hangup"
check "hangup: clear message, no retry" \
	eval 'err_has "closed the connection without sending a response" && err_has "retries 0$"'

# --- request bodies -------------------------------------------------------------

check "POST body from memory" \
	eval 'fetch --data-file body.bin --show-header X-Body-Framing --show-header X-Body-Encoding \
		"$H/echo" && same_file body.bin'
check "... sent with Content-Length, not encoded" \
	eval 'err_has "^header X-Body-Framing: length$" && err_has "^header X-Body-Encoding: identity$"'
check "gzipped POST body from memory" \
	eval 'fetch --gzip --data-file body.bin --show-header X-Body-Framing \
		--show-header X-Body-Encoding --show-header X-Body-Bytes "$H/echo" && same_file body.bin'
check "... arrived gzipped, with Content-Length, smaller" \
	eval 'err_has "^header X-Body-Framing: length$" && err_has "^header X-Body-Encoding: gzip$" &&
	      [ "$(sed -n "s/^header X-Body-Bytes: //p" err)" -lt "$(wc -c <body.bin)" ]'
check "streamed POST body" \
	eval 'fetch --stream --data-file body.bin --show-header X-Body-Framing "$H/echo" &&
	      same_file body.bin && err_has "^header X-Body-Framing: chunked$"'
check "streamed gzipped POST body" \
	eval 'fetch --stream --gzip --data-file body.bin --show-header X-Body-Framing \
		--show-header X-Body-Encoding "$H/echo" && same_file body.bin &&
	      err_has "^header X-Body-Framing: chunked$" && err_has "^header X-Body-Encoding: gzip$"'
check "empty POST sends Content-Length: 0" \
	eval 'fetch --method POST --show-header X-Body-Framing "$H/echo" && [ ! -s out ] &&
	      err_has "^header X-Body-Framing: length$"'
check_output "PUT with an empty body file" "PUT" fetch --method PUT --data-file /dev/null "$H/method"
check_output "extra request headers reach the server" "hello, world" \
	fetch --header "X-Extra: 1" --header "Accept: text/plain" "$H/text"
check_fail "a Host header from the caller is refused" fetch --header "Host: evil" "$H/text"
check_fail "a header with a line break is refused" fetch --header "$(printf 'X-A: 1\r\nX-B: 2')" "$H/text"

# --- redirects ------------------------------------------------------------------

check_output "three redirects (absolute and relative Location)" "arrived" fetch "$H/redir/3"
check "redirects and final URL reported" err_has "^redirects 3 $H/redir/0$"
check_output "a Location with dot segments" "hello, world" fetch "$H/status/302?to=../../x/../text"
check "... resolved as RFC 3986 says" err_has "^redirects 1 $H/text$"
check_output "a scheme-relative Location" "hello, world" \
	fetch "$H/status/301?to=//127.0.0.1:$HP/text"
check_output "five redirects are followed" "arrived" fetch "$H/redir/5"
check_fail "six are too many" fetch "$H/redir/6"
check "too many: message" err_has "too many redirects \(more than 5\) from $H/redir/6"
check_output "303 turns POST into GET" "GET" \
	fetch --data-file small.txt "$H/status/303?to=/method"
check_output "302 turns POST into GET" "GET" \
	fetch --data-file small.txt "$H/status/302?to=/method"
check_output "301 turns POST into GET" "GET" \
	fetch --data-file small.txt "$H/status/301?to=/method"
check_output "307 resends POST and its body" "$(printf 'POST\na small body')" \
	fetch --data-file small.txt "$H/status/307?to=/method"
check_output "308 resends a streamed body (rewound)" "$(printf 'POST\na small body')" \
	fetch --stream --data-file small.txt "$H/status/308?to=/method"
check_fail "307 with a body that cannot be rewound fails" \
	fetch --stream --no-rewind --data-file small.txt "$H/status/307?to=/method"
check_output "redirects keep the connection" "$(printf 'arrived\narrived')" \
	fetch "$H/redir/2" "$H/redir/1"
check "redirects: one connection" err_has '^connections 1 reused 4 '
check_fail "a redirect to another host is refused" fetch "$H/cross"
check "... naming both URLs" \
	err_has "refusing the redirect from $H/cross to http://localhost:$HP/text"
check_fail "a redirect to another port is refused" fetch "$H/cross-port"
check_fail "a redirect to another scheme is refused" fetch "$H/cross-scheme"
check_fail "a request URL on another origin is refused" fetch "$H/text" "http://localhost:$HP/text"
check_fail "a refused redirect from a URL with credentials..." \
	fetch "http://alice:pw-secret-1@127.0.0.1:$HP/cross"
check "... does not print the password" err_lacks 'pw-secret-1|alice:'

# --- authentication ---------------------------------------------------------------

check_fail "401 without credentials (no terminal) is an error" fetch "$H/private"
check "... authentication required for the URL" err_has "authentication required for $H/private"
check_output "Basic credentials from the URL, percent-decoded" "welcome alice" \
	fetch "http://alice:p%40ss%20word@127.0.0.1:$HP/private"
check "the credentials are remembered for later requests" \
	eval 'fetch "http://alice:p%40ss%20word@127.0.0.1:$HP/private" /private /private &&
	      [ "$(grep -c "welcome alice" out)" -eq 3 ] && err_has "^connections 1 reused 3 "'
with_user() { WEBGIT_HTTP_USER=alice WEBGIT_HTTP_PASSWORD='p@ss word' fetch "$@"; }
check_output "Basic credentials from WEBGIT_HTTP_USER/PASSWORD" "welcome alice" \
	with_user "$H/private"
check_fail "wrong password in the URL" fetch "http://alice:wrong-pw-2@127.0.0.1:$HP/private"
check "... authentication failed, password not printed" \
	eval 'err_has "authentication failed for $H/private" && err_lacks wrong-pw-2'
wrong_env() { WEBGIT_HTTP_USER=alice WEBGIT_HTTP_PASSWORD=wrong-pw-3 fetch "$@"; }
check_fail "wrong password from the environment" wrong_env "$H/private"
check "... authentication failed, password not printed" \
	eval 'err_has "authentication failed for $H/private" && err_lacks wrong-pw-3'
with_token() { WEBGIT_HTTP_BEARER=$1 fetch "${@:2}"; }
check_output "Bearer token from WEBGIT_HTTP_BEARER" "token ok" with_token tok-123 "$H/bearer"
check_fail "wrong Bearer token" with_token bad-token-4 "$H/bearer"
check "... authentication failed, token not printed" \
	eval 'err_has "authentication failed for $H/bearer" && err_lacks bad-token-4'
check_fail "401 Bearer challenge without a token" fetch "$H/bearer"
check "... points to WEBGIT_HTTP_BEARER" err_has "authentication required for $H/bearer.*WEBGIT_HTTP_BEARER"
check_output "the caller's own Authorization header is sent as is" "welcome alice" \
	fetch --header "Authorization: Basic $(printf 'alice:p@ss word' | base64)" "$H/private"
check_fail "... and a 401 answering it is a failure" \
	fetch --header "Authorization: Basic $(printf 'alice:nope' | base64)" "$H/private"
check "... authentication failed" err_has "authentication failed for $H/private"
if command -v script >/dev/null && script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	# The password arrives a second after the user name, once echo is off.
	prompt() {
		{ printf 'alice\n'; sleep 1; printf 'p@ss word\n'; } |
			script -qec "'$TOOL' '$H/private'" /dev/null >tty.out
		local s=$?
		tr -d '\r' <tty.out
		return $s
	}
	check "on a terminal, user and password are asked for" prompt
	check "... with git's prompts" eval "grep -qF \"Username for 'http://127.0.0.1:$HP': \" tty.out &&
		grep -qF \"Password for 'http://alice@127.0.0.1:$HP': \" tty.out"
	check "... and the password is not echoed" eval '! grep -q "p@ss word" tty.out &&
		grep -q "welcome alice" tty.out'
else
	skip "terminal prompt" "script(1) cannot make a terminal here"
fi

# --- adversarial servers ------------------------------------------------------------

for kind in zz 5x neg overflow space empty lf; do
	check_fail "bad chunk size line ($kind)" fetch "$H/bad-chunk/$kind"
done
check "... the message names the chunk size" err_has 'chunk size line .* does not end in CRLF'
check_fail "chunk data longer than its size" fetch "$H/bad-chunk/long"
check "... clear message" err_has 'longer than its declared size'
check_fail "malformed chunk size: ECORRUPT" fetch "$H/bad-chunk/zz"
check "... message quotes it" err_has "malformed chunk size 'zz'.*\(ECORRUPT\)"
check_fail "a body shorter than its Content-Length" fetch "$H/short"
check "... clear message" err_has 'closed after 10 of 100 body bytes'
# (timeout(1) as a backstop: exit status 124 counts as a crash)
with_timeout() { WEBGIT_HTTP_TIMEOUT=$1 FETCH_WRAP="timeout 30" fetch "${@:2}"; }
check_fail "a server that stalls mid-body times out" with_timeout 1 "$H/stall"
check "... with a message naming the timeout" err_has 'timed out after 1 s waiting for data from 127.0.0.1'
check_fail "a server that never answers times out (0.5 s)" with_timeout 0.5 "$H/stall-head"
check_fail "a bad WEBGIT_HTTP_TIMEOUT is refused" with_timeout soon "$H/text"
check_fail "an endless header is cut off" fetch "$H/endless-header"
check "... at 64 KiB" err_has 'too much data in the response headers .*limit is 65536 bytes'
check_fail "bad gzip data" fetch "$H/bad-gzip"
check "... clear message" err_has 'invalid gzip data'
check_fail "a gzip bomb" fetch "$H/gzip-bomb"
check "... is refused at the inflate ratio limit" err_has 'gzip-encoded response inflates .*max_inflate_ratio'
check_fail "an unknown Content-Encoding" fetch "$H/unknown-encoding"
check "... is unsupported" err_has "Content-Encoding 'br'.*EUNSUPPORTED"
check_fail "not an HTTP status line" fetch "$H/garbage"
check "... clear message" err_has 'malformed status line'
check_fail "the body callback can stop the transfer" fetch --abort-after 100 "$H/lines"
check "... after exactly the bytes it took" eval '[ "$(wc -c <out)" -eq 100 ] && err_has "stopped by the caller"'
check_fail "connection refused" fetch "http://alice:hunter2@127.0.0.1:$CLOSED/x"
check "... names host and port, not the password" \
	eval 'err_has "unable to connect to 127.0.0.1 port $CLOSED: Connection refused" && err_lacks hunter2'
check_fail "an unknown host" fetch "http://nosuch.invalid/"
check "... says so" err_has "unable to resolve host 'nosuch.invalid'"
check_fail "bad percent-encoding in the URL's password" fetch "http://alice:p%zz@127.0.0.1:$HP/"
check_fail "an unterminated IPv6 literal" fetch "http://[::1/"
check_fail "a port out of range" fetch "http://127.0.0.1:65536/"
check_fail "an ftp:// URL is unsupported" fetch "ftp://127.0.0.1/x"
check "... EUNSUPPORTED" err_has 'EUNSUPPORTED'

# --- HTTPS ----------------------------------------------------------------------------

with_ca() { WEBGIT_SSL_CAINFO=$PKI/ca.pem fetch "$@"; }
check_output "HTTPS with the test CA in WEBGIT_SSL_CAINFO" "hello, world" with_ca "$S/text"
check_output "the client sends SNI" "localhost" with_ca "$S/sni"
check "keep-alive over TLS" eval 'with_ca "$S/conn" /conn /conn && [ "$(sort -u out | wc -l)" -eq 1 ] &&
	err_has "^connections 1 reused 2 "'
check "streamed gzip response over TLS" eval 'with_ca "$S/lines-gzip-chunked" && same_file lines.txt'
check "streamed gzipped request body over TLS" \
	eval 'with_ca --stream --gzip --data-file body.bin "$S/echo" && same_file body.bin'
check_output "redirects over TLS" "arrived" with_ca "$S/redir/3"
git_ca() { GIT_SSL_CAINFO=$PKI/ca.pem fetch "$@"; }
check_output "... GIT_SSL_CAINFO works too" "hello, world" git_ca "$S/text"
ssl_file() { SSL_CERT_FILE=$PKI/ca.pem fetch "$@"; }
check_output "... and SSL_CERT_FILE" "hello, world" ssl_file "$S/text"
other_ca() { WEBGIT_SSL_CAINFO=$PKI/other-ca.pem fetch "$@"; }
check_fail "a certificate from an unknown CA is refused" other_ca "$S/text"
check "... as not trusted" err_has "server certificate of localhost is not trusted"
check_fail "a certificate for another host name is refused" with_ca "https://127.0.0.1:$SP/text"
check "... as a host name mismatch" err_has "does not match the host name '127.0.0.1'"
no_ca() { WEBGIT_SSL_CAINFO=$PKI/missing.pem fetch "$@"; }
check_fail "a missing CA file" no_ca "$S/text"
check "... says which file" err_has "cannot read the CA certificates in $PKI/missing.pem"
check_fail "plain HTTP to the HTTPS port" fetch "http://localhost:$SP/text"
check_fail "HTTPS to the plain HTTP port" with_ca "https://localhost:$HP/text"

stop_mock
check "the mock server logged no errors" eval '[ ! -s mock.log ] || { cat mock.log >&2; false; }'
