#!/usr/bin/env bash
# t10-http-server: the local Git HTTP server (tests/server/) and its fixture
# repositories, proved with the reference git alone (no webgit needed).
#
#   - make-repos.sh makes sample and empty repositories in {sha1, sha256} x
#     {files, reftable}, configured for serving, the same every run, with
#     the promised content (branches, merges, tag kinds, entry modes);
#   - start.sh starts the server on a free port and prints its URL;
#   - over http, for every sample: a clone speaks protocol v2; a mirror clone
#     has exactly the refs and objects of a local mirror clone; ls-remote
#     agrees with ls-remote of the directory; the clone is fsck-clean and
#     has the right object format; v0 and v1 clients are served too;
#   - with --v0 the server only speaks v0, even to a v2 client;
#   - partial clone (blob:none, tree:0) and a lazy fetch of one blob;
#   - empty repositories clone (with the right object format);
#   - gzip request bodies (http-backend inflates them) and chunked ones;
#   - with --auth, pushes need the right Basic credentials (401 otherwise),
#     fetches do not; pushes land in the bare repository; a forced non-fast-
#     forward push is accepted (receive.denyNonFastForwards is left default);
#   - parallel clones; the access log; --static files with content types;
#     --mount'ed directories under URL prefixes; no way out of either (..,
#     %2e%2e, ..%2f, symlinks); --host refuses anything but 127.0.0.1;
#   - stop.sh stops each server by PID (also on failure: a trap), after which
#     the port refuses connections. SIGINT stops a server too.
#
# Not here: `make-repos.sh --big` (a minute of work; benchmarks make it).

. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/http_lib.sh"

# host_of URL: URL without "http://", to put credentials in front.
host_of() { printf '%s' "${1#http://}"; }

# port_open PORT: something accepts connections on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# alive PID: the process exists and is not a zombie.
alive() {
	kill -0 "$1" 2>/dev/null || return 1
	[ "$(sed 's/.*) //; s/ .*//' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# http_get URL: "STATUS CONTENT-TYPE BYTES" of a GET (node's fetch: no curl).
http_get() {
	node -e '
fetch(process.argv[1]).then(async (r) => {
	const b = Buffer.from(await r.arrayBuffer());
	console.log(r.status, r.headers.get("content-type"), b.length);
}).catch((e) => { console.error(e.message); process.exit(1); });' "$1"
}

# raw_get URL: like http_get, but the path goes out exactly as written
# (fetch would resolve "..").
raw_get() {
	node -e '
const u = new URL(process.argv[1]);
const req = require("http").request({ host: u.hostname, port: u.port,
	path: process.argv[1].slice(u.origin.length) }, (r) => {
	r.resume();
	r.on("end", () => console.log(r.statusCode));
});
req.on("error", (e) => { console.error(e.message); process.exit(1); });
req.end();' "$1"
}

# raw_post URL: the status of an empty POST.
raw_post() {
	node -e '
const u = new URL(process.argv[1]);
const req = require("http").request({ host: u.hostname, port: u.port, method: "POST",
	path: u.pathname + u.search }, (r) => {
	r.resume();
	r.on("end", () => console.log(r.statusCode));
});
req.on("error", (e) => { console.error(e.message); process.exit(1); });
req.end();' "$1"
}

# header_of_noredirect URL NAME: "STATUS VALUE" of a GET's response header
# NAME, redirects not followed.
header_of_noredirect() {
	node -e 'fetch(process.argv[1], { redirect: "manual" }).then((r) => console.log(r.status, r.headers.get(process.argv[2])))' "$1" "$2"
}

# v2_ls_refs_gzip URL FORMAT: a protocol v2 ls-refs request, gzipped, posted
# by hand; prints the response's pkt-line payloads.
v2_ls_refs_gzip() {
	node -e '
const zlib = require("zlib");
const pkt = (s) => (s.length + 4).toString(16).padStart(4, "0") + s;
const body = zlib.gzipSync(pkt("command=ls-refs\n") + pkt("object-format=" + process.argv[2] + "\n") +
	"0001" + pkt("symrefs\n") + "0000");
fetch(process.argv[1] + "/git-upload-pack", { method: "POST", body,
	headers: { "Content-Type": "application/x-git-upload-pack-request",
		"Content-Encoding": "gzip", "Git-Protocol": "version=2" } })
.then(async (r) => {
	if (r.status !== 200) throw new Error("status " + r.status);
	let b = Buffer.from(await r.arrayBuffer()), out = [];
	while (b.length >= 4) {
		const n = parseInt(b.subarray(0, 4).toString(), 16);
		if (n < 4) { b = b.subarray(4); continue; }
		out.push(b.subarray(4, n).toString().replace(/\n$/, ""));
		b = b.subarray(n);
	}
	console.log(out.join("\n"));
}).catch((e) => { console.error(e.message); process.exit(1); });' "$1" "$2"
}

# loopback_only PORT: every socket listening on PORT is on 127.0.0.1.
loopback_only() {
	local addrs
	addrs=$(ss -ltnH "sport = :$1" | awk '{print $4}') || return 1
	[ -n "$addrs" ] && ! printf '%s\n' "$addrs" | grep -qv '^127\.0\.0\.1:'
}

# has_nul GITDIR REV:PATH: the blob holds NUL bytes.
has_nul() {
	local all without
	all=$("$GIT" -C "$1" cat-file -s "$2") &&
	without=$(set -o pipefail; "$GIT" -C "$1" cat-file blob "$2" | tr -d '\000' | wc -c) &&
	[ "$without" -lt "$all" ]
}

# header_of URL NAME: "STATUS VALUE" of a GET's response header NAME.
header_of() {
	node -e 'fetch(process.argv[1]).then((r) => console.log(r.status, r.headers.get(process.argv[2])))' "$1" "$2"
}

# missing_count GITDIR: objects a partial clone knows of but does not have.
missing_count() (
	set -o pipefail
	"$GIT" -C "$1" rev-list --all --objects --missing=print >"$1.objects" &&
		{ grep -c '^?' "$1.objects"; [ $? -le 1 ]; }
)

REPOS=$PWD/repos
SAMPLES="sample-sha1-files sample-sha1-reftable sample-sha256-files sample-sha256-reftable"
EMPTIES="empty-sha1-files empty-sha1-reftable empty-sha256-files empty-sha256-reftable"

# === the fixtures ===========================================================

check "make-repos.sh makes the repositories" "$S/make-repos.sh" "$REPOS"
for name in $SAMPLES $EMPTIES; do
	set -- ${name//-/ }
	check_output "$name.git: $2 objects, $3 refs, bare" "$2 $3 true" \
		bash -c "cd '$REPOS/$name.git' && echo \$(\"\$GIT\" rev-parse --show-object-format --show-ref-format --is-bare-repository)"
	check_output "$name.git: configured for serving" "true true true true" \
		bash -c "cd '$REPOS/$name.git' && for k in uploadpack.allowFilter uploadpack.allowAnySHA1InWant uploadpack.allowReachableSHA1InWant http.receivepack; do \"\$GIT\" config --get \$k; done | xargs"
done
check_fail "receive.denyNonFastForwards is left unset" \
	"$GIT" -C "$REPOS/sample-sha1-files.git" config --get receive.denyNonFastForwards

# Made the same every run: the SHA-256 ones again (all of them would double
# the time this script spends making repositories, its biggest cost), made
# for real even when the test command keeps a cache of them (the first
# make may have come from it: then the cache is checked against a make).
check "make-repos.sh --format sha256 again, elsewhere" env WG_SAMPLE_REPOS_CACHE= "$S/make-repos.sh" --format sha256 "$PWD/repos-again"
check_output "...makes only the sha256 repositories" \
	"$(printf '%s\n' empty-sha256-files.git empty-sha256-reftable.git sample-sha256-files.git sample-sha256-reftable.git)" \
	ls repos-again
for name in sample-sha256-files sample-sha256-reftable; do
	check_same "$name.git: the same refs every run" \
		"\"\$GIT\" -C repos/$name.git for-each-ref --format='%(objectname) %(refname)'" \
		"\"\$GIT\" -C repos-again/$name.git for-each-ref --format='%(objectname) %(refname)'"
done
rm -rf repos-again

R=$REPOS/sample-sha256-reftable.git
check "sample: about 100 commits" \
	bash -c "n=\$(\"\$GIT\" -C '$R' rev-list --all --count) && [ \$n -ge 95 ] && [ \$n -le 130 ]"
check "sample: at least 5 branches" \
	bash -c "[ \$(\"\$GIT\" -C '$R' for-each-ref refs/heads | wc -l) -ge 5 ]"
check "sample: merges, one of them an octopus" \
	bash -c "[ \$(\"\$GIT\" -C '$R' rev-list --merges --count main) -ge 3 ] && [ \$(\"\$GIT\" -C '$R' rev-list --min-parents=3 --count main) -ge 1 ]"
check_output "sample: tag kinds (annotated of commit/tag/tree/blob, lightweight)" \
	"$(printf '%s\n' 'blob-light blob ' 'blob-tag tag blob' 'tag-of-tag tag tag' 'tree-tag tag tree' \
		'v0.1 tag commit' 'v0.1-light commit ' 'v1.0 tag commit' 'v1.0.1 tag commit' 'v2.0-rc tag commit')" \
	bash -c "\"\$GIT\" -C '$R' for-each-ref refs/tags --format='%(refname:short) %(objecttype) %(*objecttype)' |
		while read -r n t p; do
			[ \"\$t\" = tag ] && p=\$(\"\$GIT\" -C '$R' cat-file -p \$n | sed -n 's/^type //p')
			echo \"\$n \$t \$p\"
		done"
check_output "sample: executable, symlinks, binary, nested directories" \
	"$(printf '%s\n' '100755 bin/run.sh' '100644 data/blob.bin' '120000 link-to-dir' \
		'120000 link-to-readme' '100644 src/lib/deep/nested/dir/leaf.txt')" \
	bash -c "\"\$GIT\" -C '$R' ls-tree -r main --format='%(objectmode) %(path)' |
		grep -E ' (bin/run.sh|data/blob.bin|link-to-.*|src/lib/deep/nested/dir/leaf.txt)\$'"
check "sample: data/blob.bin is binary (has NUL bytes)" has_nul "$R" main:data/blob.bin

# === the server ================================================================

start srv --root "$REPOS" --auth u:p --log "$PWD/srv/access.log"
check "start.sh prints the base URL" bash -c "[[ '$url' =~ ^http://127\\.0\\.0\\.1:[0-9]+\$ ]]"
U=$url
PORT=${U##*:}
PID=$(cat srv/pid 2>/dev/null)
check_output "the server says where it listens" "listening on $U" cat srv/out
check_output "port file" "$PORT" cat srv/port
check "the server runs, by its PID" alive "$PID"
if command -v ss >/dev/null; then
	check "it listens on 127.0.0.1 only" loopback_only "$PORT"
else
	skip "it listens on 127.0.0.1 only" "no ss"
fi

start srv0 --root "$REPOS" --v0 --log "$PWD/srv0/access.log"
U0=$url
check "a second server, --v0, on another port" test "$U0" != "$U"

# --- every sample, over protocol v2 ------------------------------------------

for name in $SAMPLES; do
	set -- ${name//-/ }
	fmt=$2
	rm -rf c m-http m-local trace
	check "$name: git clone over http" \
		env GIT_TRACE_PACKET="$PWD/trace" "$GIT" clone -q "$U/git/$name.git" c
	check "$name: the clone spoke protocol v2" grep -q 'git< version 2' trace
	check_output "$name: the clone's object format" "$fmt" "$GIT" -C c rev-parse --show-object-format
	check "$name: the clone is fsck-clean" "$GIT" -C c fsck --no-progress
	check_same "$name: checked-out main is the server's main" \
		"\"\$GIT\" -C '$REPOS/$name.git' rev-parse main^{tree}" "\"\$GIT\" -C c rev-parse HEAD^{tree}"
	check "$name: mirror clone over http" "$GIT" clone -q --mirror "$U/git/$name.git" m-http
	check "$name: mirror clone of the directory" "$GIT" clone -q --mirror "$REPOS/$name.git" m-local
	check_same "$name: same refs as the local mirror" \
		'"$GIT" -C m-local for-each-ref' '"$GIT" -C m-http for-each-ref'
	check_same "$name: same refs as the server repository" \
		"\"\$GIT\" -C '$REPOS/$name.git' for-each-ref" '"$GIT" -C m-http for-each-ref'
	check_same "$name: same objects as the local mirror" \
		'"$GIT" -C m-local rev-list --all --objects | sort' '"$GIT" -C m-http rev-list --all --objects | sort'
	check_same "$name: ls-remote over http = ls-remote of the directory" \
		"\"\$GIT\" ls-remote --symref '$REPOS/$name.git'" "\"\$GIT\" ls-remote --symref '$U/git/$name.git'"
done

# --- protocol versions -----------------------------------------------------------

N=sample-sha1-files
for v in 0 1; do
	rm -rf c trace
	check "v$v client: clone" \
		env GIT_TRACE_PACKET="$PWD/trace" "$GIT" -c protocol.version=$v clone -q "$U/git/$N.git" c
	check_fail "v$v client: no v2 spoken" grep -q 'git< version 2' trace
	if [ $v = 1 ]; then
		check "v1 client: the server said version 1" grep -q 'git< version 1' trace
	fi
	check_same "v$v client: same refs" "\"\$GIT\" -C '$REPOS/$N.git' rev-parse main" '"$GIT" -C c rev-parse HEAD'
done

rm -rf c trace curltrace
check "--v0 server: a v2 client clones" \
	env GIT_TRACE_PACKET="$PWD/trace" GIT_TRACE_CURL="$PWD/curltrace" GIT_TRACE_CURL_NO_DATA=1 \
	"$GIT" -c protocol.version=2 clone -q "$U0/git/$N.git" c
check "--v0 server: the client asked for v2" grep -q 'Send header: Git-Protocol: version=2' curltrace
check_fail "--v0 server: and the backend never saw it (the log)" grep -qv ' -$' srv0/access.log
check_fail "--v0 server: no v2 in the answer" grep -q 'git< version 2' trace
check "--v0 server: a v0 ref advertisement with capabilities" \
	grep -qE 'git< [0-9a-f]{40} HEAD.*multi_ack.*symref=HEAD:refs/heads/main' trace
check_same "--v0 server: same objects" \
	"\"\$GIT\" -C '$REPOS/$N.git' rev-list --objects main | sort" '"$GIT" -C c rev-list --objects HEAD | sort'
check_same "--v0 server: ls-remote" \
	"\"\$GIT\" ls-remote '$REPOS/$N.git'" "\"\$GIT\" ls-remote '$U0/git/$N.git'"
rm -rf m-http
check "--v0 server: mirror clone of sha256 + reftable" \
	"$GIT" clone -q --mirror "$U0/git/sample-sha256-reftable.git" m-http
check_same "--v0 server: sha256 mirror has the same refs" \
	"\"\$GIT\" -C '$REPOS/sample-sha256-reftable.git' for-each-ref" '"$GIT" -C m-http for-each-ref'

# --- partial clone -------------------------------------------------------------------

for name in sample-sha1-files sample-sha256-reftable; do
	rm -rf p
	check "$name: clone --filter=blob:none" \
		"$GIT" clone -q --bare --filter=blob:none "$U/git/$name.git" p
	check_output "$name: the clone is a promisor for blob:none" "true blob:none" \
		bash -c "echo \$(\"\$GIT\" -C p config remote.origin.promisor) \$(\"\$GIT\" -C p config remote.origin.partialclonefilter)"
	before=$(missing_count p)
	check "$name: blobs were left out" test "${before:-0}" -gt 10
	check_same "$name: a lazy fetch of one blob" \
		"\"\$GIT\" -C '$REPOS/$name.git' cat-file -p main:src/parser/parser.c" \
		'"$GIT" -C p cat-file -p main:src/parser/parser.c'
	check_output "$name: exactly that blob arrived" "$((before - 1))" missing_count p
done
rm -rf p
check "clone --filter=tree:0" "$GIT" clone -q --bare --filter=tree:0 "$U/git/sample-sha256-files.git" p
check "tree:0: trees were left out" \
	bash -c "\"\$GIT\" -C p rev-list --all --objects --missing=print | grep '^?' | cut -c2- |
		head -1 | xargs -I{} \"\$GIT\" -C '$REPOS/sample-sha256-files.git' cat-file -t {} | grep -qx tree"
check "tree:0: a full checkout fetches the rest" \
	"$GIT" clone -q --filter=tree:0 "$U/git/sample-sha256-files.git" pw
check_same "tree:0: the checkout is right" \
	"\"\$GIT\" -C '$REPOS/sample-sha256-files.git' ls-tree -r main" '"$GIT" -C pw ls-tree -r HEAD'

# --- empty repositories ------------------------------------------------------------

for name in $EMPTIES; do
	set -- ${name//-/ }
	rm -rf e
	check "$name: clone of an empty repository" "$GIT" clone -q "$U/git/$name.git" e
	check_output "$name: the clone's object format" "$2" "$GIT" -C e rev-parse --show-object-format
	check_output "$name: ls-remote lists nothing" "" "$GIT" ls-remote "$U/git/$name.git"
done
rm -rf e
check "--v0 server: empty sha256 repository clones as sha256" \
	bash -c "\"\$GIT\" clone -q '$U0/git/empty-sha256-reftable.git' e 2>/dev/null && \"\$GIT\" -C e rev-parse --show-object-format | grep -qx sha256"

# --- request bodies: gzip and chunked ---------------------------------------------

N=sample-sha256-files
rm -rf m-http curltrace
check "a mirror clone with many wants" \
	env GIT_TRACE_CURL="$PWD/curltrace" GIT_TRACE_CURL_NO_DATA=1 "$GIT" clone -q --mirror "$U/git/$N.git" m-http
check "git gzipped a request body" grep -q 'Send header: Content-Encoding: gzip' curltrace
check_same "a gzipped v2 ls-refs by hand (http-backend inflates it)" \
	"\"\$GIT\" -C '$REPOS/$N.git' for-each-ref --format='%(objectname) %(refname)' refs/heads/main" \
	"v2_ls_refs_gzip '$U/git/$N.git' sha256 | grep ' refs/heads/main\$'"

# === pushing ===========================================================================

N=sample-sha1-files
rm -rf w
check "clone a working copy" "$GIT" clone -q "$U/git/$N.git" w
(cd w && echo pushed >pushed.txt && "$GIT" add pushed.txt && "$GIT" commit -q -m "to be pushed")
NEW=$("$GIT" -C w rev-parse HEAD)
check_fail "push without credentials is refused" \
	"$GIT" -C w push "$U/git/$N.git" HEAD:refs/heads/pushed
check_output "  (with 401 and WWW-Authenticate)" '401 Basic realm="webgit-test"' \
	header_of "$U/git/$N.git/info/refs?service=git-receive-pack" www-authenticate
check_output "  but fetching needs no credentials" '200 application/x-git-upload-pack-advertisement' \
	header_of "$U/git/$N.git/info/refs?service=git-upload-pack" content-type
check_fail "push with a wrong password is refused" \
	"$GIT" -C w push "http://u:wrong@$(host_of "$U")/git/$N.git" HEAD:refs/heads/pushed
check_fail "push with a wrong user is refused" \
	"$GIT" -C w push "http://v:p@$(host_of "$U")/git/$N.git" HEAD:refs/heads/pushed
check_fail "  and nothing arrived" "$GIT" -C "$REPOS/$N.git" rev-parse --verify -q refs/heads/pushed
check "push with the credentials in the URL" \
	"$GIT" -C w push "http://u:p@$(host_of "$U")/git/$N.git" HEAD:refs/heads/pushed
check_output "  the server has it" "$NEW" "$GIT" -C "$REPOS/$N.git" rev-parse refs/heads/pushed
check "push with a credential helper" \
	"$GIT" -C w -c credential.helper='!f() { echo username=u; echo password=p; }; f' \
		push "$U/git/$N.git" HEAD:refs/heads/pushed-too
check_output "  the server has it" "$NEW" "$GIT" -C "$REPOS/$N.git" rev-parse refs/heads/pushed-too
check "the server repository is fsck-clean" "$GIT" -C "$REPOS/$N.git" fsck --no-progress
check "a fetch needs no credentials" "$GIT" -C w fetch -q "$U/git/$N.git" refs/heads/pushed
OLD=$("$GIT" -C w rev-parse HEAD~3)
check "a forced non-fast-forward push is accepted" \
	"$GIT" -C w push -f "http://u:p@$(host_of "$U")/git/$N.git" "$OLD:refs/heads/pushed"
check_output "  the branch went back" "$OLD" "$GIT" -C "$REPOS/$N.git" rev-parse refs/heads/pushed
check "delete a branch by push" \
	"$GIT" -C w push "http://u:p@$(host_of "$U")/git/$N.git" :refs/heads/pushed-too
check_fail "  it is gone" "$GIT" -C "$REPOS/$N.git" rev-parse --verify -q refs/heads/pushed-too

N=sample-sha256-reftable
rm -rf w
check "$N: clone a working copy" "$GIT" clone -q "$U/git/$N.git" w
(cd w && head -c 300000 /dev/urandom >noise.bin && "$GIT" add noise.bin && "$GIT" commit -q -m noise)
NEW=$("$GIT" -C w rev-parse HEAD)
rm -f curltrace
check "$N: a chunked push (small http.postBuffer)" \
	env GIT_TRACE_CURL="$PWD/curltrace" GIT_TRACE_CURL_NO_DATA=1 \
	"$GIT" -C w -c http.postBuffer=4096 push "http://u:p@$(host_of "$U")/git/$N.git" HEAD:refs/heads/big-push
check "  it was sent chunked" grep -q 'Send header: Transfer-Encoding: chunked' curltrace
check_output "  the server has it" "$NEW" "$GIT" -C "$REPOS/$N.git" rev-parse refs/heads/big-push
check "  and its blob" "$GIT" -C "$REPOS/$N.git" cat-file -e "$NEW:noise.bin"
check_output "  in a reftable repository still" "reftable" "$GIT" -C "$REPOS/$N.git" rev-parse --show-ref-format
rm -rf w2
check "another clone sees the push" "$GIT" clone -q -b big-push "$U/git/$N.git" w2
check_same "  with the same content" '"$GIT" -C w rev-parse HEAD^{tree}' '"$GIT" -C w2 rev-parse HEAD^{tree}'

# === parallel clones, the log ==============================================================

para() {
	local i pids=() st=0
	for i in 1 2 3 4 5 6; do
		"$GIT" clone -q --bare "$U/git/sample-sha256-reftable.git" "par$i" & pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || st=1; done
	return $st
}
check "six clones at once" para
check_same "  all complete" \
	'for i in 1 2 3 4 5 6; do "$GIT" -C par$i rev-parse main; done' \
	'for i in 1 2 3 4 5 6; do "$GIT" -C "$REPOS/sample-sha256-reftable.git" rev-parse main; done'

LOG=$PWD/srv/access.log
check "the log: one well-formed line per request" \
	bash -c "[ \$(wc -l <'$LOG') -gt 50 ] && ! grep -vE '^(GET|POST) /[^ ]* [0-9]{3} [0-9]+ [0-9]+ [0-9]+ [^ ]+\$' '$LOG'"
check "the log: 401s for refused pushes" \
	grep -qE '^GET /git/sample-sha1-files.git/info/refs\?service=git-receive-pack 401 ' "$LOG"
check "the log: pushes with their request bytes" \
	bash -c "grep -E '^POST /git/sample-sha256-reftable.git/git-receive-pack 200 ' '$LOG' | awk '\$4 > 300000 { ok = 1 } END { exit !ok }'"
check "the log: fetches with their response bytes and protocol" \
	bash -c "grep -E '^POST /git/[^ ]*/git-upload-pack 200 [0-9]+ [0-9]+ [0-9]+ version=2\$' '$LOG' | awk '\$5 > 10000 { ok = 1 } END { exit !ok }'"

# === static files, options ====================================================================

mkdir -p www/js
echo '<!doctype html><title>demo</title>' >www/index.html
echo 'export const x = 1;' >www/js/app.mjs
printf '\0asm\1\0\0\0' >www/js/core.wasm
echo '{"a": 1}' >www/data.json
start srvs --root "$REPOS" --static "$PWD/www"
US=$url
check_output "static: / is index.html" "200 text/html; charset=utf-8 35" http_get "$US/"
check_output "static: .mjs" "200 text/javascript; charset=utf-8 20" http_get "$US/js/app.mjs"
check_output "static: .wasm" "200 application/wasm 8" http_get "$US/js/core.wasm"
check_output "static: .json" "200 application/json; charset=utf-8 9" http_get "$US/data.json"
check_output "static: a missing file" "404 text/plain; charset=utf-8 10" http_get "$US/nope.js"
check_output "static: no way out of the directory (..)" "403" raw_get "$US/../../../etc/passwd"
check_output "static: no way out of the git root" "400" raw_get "$US/git/../repos/sample-sha1-files.git/info/refs"
check_output "static: git still at /git/" "200 application/x-git-upload-pack-advertisement" \
	header_of "$US/git/sample-sha1-files.git/info/refs?service=git-upload-pack" content-type
check_output "no --static: / is 404" "404 text/plain; charset=utf-8 10" http_get "$U/"

# --mount: more directories under URL prefixes (the web demo serves the
# built webgit package at /webgit/ beside the app at /).
mkdir -p pkg/sub
echo 'export default 1;' >pkg/index.js
echo 'export {};' >pkg/glue.mjs
printf '\0asm\1\0\0\0' >pkg/webgit.wasm
echo 'nested' >pkg/sub/deep.txt
echo 'body { margin: 0 }' >www/style.css
printf '\211PNG\r\n\032\n' >www/logo.png
echo 'secret' >secret.txt
ln -s "$PWD/secret.txt" www/leak.txt
start srvm --root "$REPOS" --static "$PWD/www" --mount /webgit/="$PWD/pkg" --mount=/pkg2=pkg/sub
UM=$url
check_output "mount: .js" "200 text/javascript; charset=utf-8 18" http_get "$UM/webgit/index.js"
check_output "mount: .mjs" "200 text/javascript; charset=utf-8 11" http_get "$UM/webgit/glue.mjs"
check_output "mount: .wasm" "200 application/wasm 8" http_get "$UM/webgit/webgit.wasm"
check_output "mount: a subdirectory" "200 text/plain; charset=utf-8 7" http_get "$UM/webgit/sub/deep.txt"
check_output "mount: a second one (--mount=, relative DIR, no trailing /)" "200 text/plain; charset=utf-8 7" http_get "$UM/pkg2/deep.txt"
check_output "mount: /webgit redirects to /webgit/" "301 /webgit/" header_of_noredirect "$UM/webgit" location
check_output "mount: a missing file" "404 text/plain; charset=utf-8 10" http_get "$UM/webgit/nope.js"
check_output "mount: --static still at /" "200 text/html; charset=utf-8 35" http_get "$UM/"
check_output "mount: .css" "200 text/css; charset=utf-8 19" http_get "$UM/style.css"
check_output "mount: .png" "200 image/png 8" http_get "$UM/logo.png"
check_output "mount: git still at /git/" "200 application/x-git-upload-pack-advertisement" \
	header_of "$UM/git/sample-sha1-files.git/info/refs?service=git-upload-pack" content-type
for p in /webgit/../secret.txt /webgit/%2e%2e/secret.txt /webgit/%2E%2E/%2e%2e/etc/passwd \
	/webgit/..%2fsecret.txt /webgit/.%2e/secret.txt /webgit/sub/..%2f..%2fsecret.txt \
	/%2e%2e/secret.txt /webgit/..%5csecret.txt /webgit/a%00b; do
	check_output "mount: refused: $p" "403" raw_get "$UM$p"
done
check_output "mount: no way out through a symlink" "403" raw_get "$UM/leak.txt"
check_output "mount: POST is not allowed" "405" raw_post "$UM/webgit/index.js"
check_fail "mount: a missing directory is refused" \
	node "$S/git-http-server.mjs" --root "$REPOS" --port 0 --mount /x/="$PWD/no-such-dir"
check_fail "mount: not under /git/" \
	node "$S/git-http-server.mjs" --root "$REPOS" --port 0 --mount /git/x/="$PWD/pkg"
check_fail "mount: not the same prefix twice" \
	node "$S/git-http-server.mjs" --root "$REPOS" --port 0 --static "$PWD/www" --mount /="$PWD/pkg"
check_fail "mount: no .. in the prefix" \
	node "$S/git-http-server.mjs" --root "$REPOS" --port 0 --mount /a/../b/="$PWD/pkg"
check "stop.sh stops the --mount server" "$S/stop.sh" "$PWD/srvm"
check_fail "--host other than 127.0.0.1 is refused" \
	node "$S/git-http-server.mjs" --root "$REPOS" --host 0.0.0.0 --port 0
check_fail "--root is required" node "$S/git-http-server.mjs" --port 0

SPID=$(cat srvs/pid)
kill -INT "$SPID"
gone_within_5s() {
	local i
	for i in $(seq 100); do alive "$1" || return 0; sleep 0.05; done
	return 1
}
check "SIGINT stops a server" gone_within_5s "$SPID"

# === stopping ===================================================================================

check "stop.sh stops the server" "$S/stop.sh" "$PWD/srv"
check_fail "  its PID is gone" alive "$PID"
check_fail "  its port refuses connections" port_open "$PORT"
check_fail "  the pid file is gone" test -e srv/pid
check "stop.sh again is a no-op" "$S/stop.sh" "$PWD/srv"
PORT0=${U0##*:}
check "stop.sh stops the --v0 server" "$S/stop.sh" "$PWD/srv0"
check_fail "  its port refuses connections" port_open "$PORT0"
