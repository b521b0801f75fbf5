#!/usr/bin/env bash
# The main job: the webgit web demo. A local Git HTTP server (git
# http-backend on 127.0.0.1) serves sample repositories and the demo web app
# (web-demo/, with the WebAssembly build of webgit at /webgit/); open the
# printed URL, clone a repository into the browser tab, browse refs, trees,
# files and history, reload, and the repository is still there (IndexedDB);
# or open /editor/ (web-demo/editor/, CodeMirror bundled by
# scripts/build-pages.sh) to edit, diff, stage, commit and push, or /forge/
# (web-demo/forge/) for a forge's views of a repository from a blob-less
# clone in the tab.
#
#   scripts/demo.sh [--port N] [DIR]   the web demo; stays in the foreground
#                                      until Ctrl-C, then stops the server
#   scripts/demo.sh --cli [DIR]        the native CLI walk-through: clone,
#                                      read, push and fetch over the same
#                                      kind of server, checked by real git
#
# --port N: the port to serve on (default 8080, or a free one when 8080 is
# taken; an explicit --port must be free). DIR holds the sample repositories
# and the server's state (default: a new temporary directory, removed at the
# end). The repositories are made the same every run (same object ids), so a
# repository kept in the browser from an earlier run still matches them.
#
# Both build what they need first: scripts/bootstrap.sh, then the webgit JS
# package (release) in build/demo-wasm, or for --cli the native webgit in
# build/release (scripts/release-builds.sh; scripts/test.sh builds the same).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/release-builds.sh"

usage() {
	sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

# --- the CLI walk-through: scripts/demo.sh --cli [DIR] ----------------------------------
# (DIR defaults to a new temporary directory.) A native build in
# build/release, sample repositories made with git (SHA-1 + files and
# SHA-256 + reftable), served with `git http-backend` behind
# tests/server/git-http-server.mjs on 127.0.0.1; the server is stopped (by
# its PID) at the end.
demo_cli() {
	"$ROOT/scripts/bootstrap.sh"
	echo "building webgit (build/release)..." >&2
	mkdir -p "$ROOT/build/release"
	local log="$ROOT/build/release/demo-build.log"
	wg_build_release_native "$ROOT" >"$log" 2>&1 || { tail -n 60 "$log" >&2; exit 1; }

	WEBGIT="$ROOT/build/release/webgit"
	export GIT="$ROOT/.cache/git-ref/bin/git"
	export PATH="$(dirname "$GIT"):$PATH"
	WORK=${1:-$(mktemp -d)}
	mkdir -p "$WORK"
	WORK=$(cd "$WORK" && pwd)
	export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com
	export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL=committer@example.com
	export GIT_CONFIG_NOSYSTEM=1 HOME="$WORK" GIT_TERMINAL_PROMPT=0

	run() { printf '\n$ %s\n' "$*"; "$@"; }

	echo "making sample repositories in $WORK/repos..."
	"$ROOT/tests/server/make-repos.sh" "$WORK/repos" >/dev/null
	url=$("$ROOT/tests/server/start.sh" "$WORK/server" --root "$WORK/repos" --auth demo:demo)
	trap '"$ROOT/tests/server/stop.sh" "$WORK/server"' EXIT
	echo "serving on $url (repositories under $url/git/)"
	host=${url#http://}
	cd "$WORK"

	for repo in sample-sha1-files sample-sha256-reftable; do
		u="http://demo:demo@$host/git/$repo.git"
		echo
		echo "=== $repo ==="
		rm -rf "$repo" "$repo-partial"
		run "$WEBGIT" ls-remote --heads "$u"
		run "$WEBGIT" clone "$u" "$repo"
		run "$GIT" -C "$repo" fsck --strict --no-progress
		run "$WEBGIT" -C "$repo" cat-file -p HEAD
		run "$WEBGIT" -C "$repo" ls-tree HEAD

		echo
		echo "--- the working tree: edit, status, switch ---"
		run "$WEBGIT" -C "$repo" status
		echo "an edit" >>"$repo/README.md" && echo "a new file" >"$repo/new.txt"
		run "$WEBGIT" -C "$repo" status --short
		run "$WEBGIT" -C "$repo" switch -c topic
		run "$WEBGIT" -C "$repo" checkout -f main
		rm -f "$repo/new.txt"
		run "$WEBGIT" -C "$repo" status

		echo
		echo "--- a partial clone: blobs are fetched when read ---"
		run "$WEBGIT" clone -q --filter=blob:none "$u" "$repo-partial"
		run "$WEBGIT" -C "$repo-partial" cat-file -p HEAD:README.md

		echo
		echo "--- a commit made with webgit, pushed, and fetched back ---"
		blob=$(printf 'written by webgit\n' | "$WEBGIT" -C "$repo" hash-object -w --stdin)
		tree=$(printf '100644 blob %s\tNOTES\n' "$blob" | "$WEBGIT" -C "$repo" mktree)
		commit=$("$WEBGIT" -C "$repo" commit-tree "$tree" -p HEAD -m "a commit made by webgit")
		run "$WEBGIT" -C "$repo" update-ref -m demo refs/heads/demo "$commit"
		# the clone kept no credentials: the push takes them from here
		run env WEBGIT_HTTP_USER=demo WEBGIT_HTTP_PASSWORD=demo "$WEBGIT" -C "$repo" push origin demo
		run "$GIT" -C "repos/$repo.git" log --oneline -2 demo
		run "$GIT" -C "repos/$repo.git" fsck --strict --no-progress --no-dangling
		run "$WEBGIT" -C "$repo-partial" fetch
	done
	echo
	echo "everything is in $WORK"
}

# --- the web demo: scripts/demo.sh [--port N] [DIR] --------------------------------------
demo_web() {
	local port=8080 explicit_port=0 work=

	while [ $# -gt 0 ]; do
		case "$1" in
		--port) [ $# -ge 2 ] || usage 2; port=$2; explicit_port=1; shift ;;
		--port=*) port=${1#--port=}; explicit_port=1 ;;
		-h|--help) usage 0 ;;
		-*) echo "demo.sh: unknown option $1" >&2; usage 2 ;;
		*) [ -z "$work" ] || usage 2; work=$1 ;;
		esac
		shift
	done
	case "$port" in ''|*[!0-9]*) echo "demo.sh: bad port '$port'" >&2; exit 2 ;; esac

	"$ROOT/scripts/bootstrap.sh"

	local build="$ROOT/build/demo-wasm"
	local log="$build/demo-build.log"
	mkdir -p "$build"
	echo "building the webgit JS package (build/demo-wasm, release)..." >&2
	export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
	wg_build_release_wasm "$ROOT" >"$log" 2>&1 || { tail -n 60 "$log" >&2; exit 1; }
	echo "building the editor and forge pages (build/demo-wasm/pages)..." >&2
	"$ROOT/scripts/build-pages.sh" "$build/pages" >>"$log" 2>&1 || { tail -n 20 "$log" >&2; exit 1; }

	export GIT="$ROOT/.cache/git-ref/bin/git"
	DEMO_TMP=0
	if [ -z "$work" ]; then
		work=$(mktemp -d "${TMPDIR:-/tmp}/webgit-demo.XXXXXX")
		DEMO_TMP=1
	fi
	mkdir -p "$work/server"
	DEMO_WORK=$(cd "$work" && pwd)
	# From here on, whatever happens: stop the server (by its PID, with
	# stop.sh) and remove a temporary DIR.
	trap demo_web_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM

	echo "making sample repositories in $DEMO_WORK/repos..." >&2
	"$ROOT/tests/server/make-repos.sh" "$DEMO_WORK/repos" >/dev/null

	# pushes want credentials (demo / demo), as a real server's would; the
	# pages are cross-origin isolated (threads), the forge's with COEP
	# credentialless so that a README's badges from other sites show
	local args=(--root "$DEMO_WORK/repos" --static "$ROOT/web-demo" --mount "/webgit/=$build/js"
		--mount "/editor/=$build/pages/editor" --mount "/forge/=$build/pages/forge" --auth demo:demo
		--isolate --credentialless /forge/ --log "$DEMO_WORK/server/access.log")
	if [ "$explicit_port" = 0 ] && port_taken "$port"; then
		echo "port $port is taken; using a free one" >&2
		port=0
	fi
	local url
	DEMO_STATE="$DEMO_WORK/server"
	if ! url=$("$ROOT/tests/server/start.sh" "$DEMO_STATE" "${args[@]}" --port "$port"); then
		if [ "$explicit_port" = 1 ] || [ "$port" = 0 ]; then
			exit 1
		fi
		echo "could not listen on port $port; using a free one" >&2
		url=$("$ROOT/tests/server/start.sh" "$DEMO_STATE" "${args[@]}" --port 0)
	fi
	local pid r
	pid=$(cat "$DEMO_STATE/pid")

	echo
	echo "  webgit web demo: open $url/"
	echo "  the editor (clone, edit, diff, commit, push): $url/editor/"
	echo "  the forge preview (tree, README, commits, diffs, blame, compare): $url/forge/"
	echo "  pushes ask for credentials: user demo, password demo"
	echo
	echo "  sample repositories (the first is the page's default):"
	for r in sample-sha1-files sample-sha256-reftable sample-sha1-reftable sample-sha256-files; do
		echo "    $url/git/$r.git"
	done
	echo "  server PID $pid, access log $DEMO_STATE/access.log"
	echo "  Ctrl-C stops it."
	echo
	while alive "$pid"; do
		sleep 1
	done
	echo "demo.sh: the server stopped unexpectedly:" >&2
	sed 's/^/  /' "$DEMO_STATE/err" >&2
	exit 1
}

# port_taken PORT: something accepts connections on 127.0.0.1:PORT.
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# alive PID: running and not a zombie.
alive() {
	kill -0 "$1" 2>/dev/null || return 1
	[ "$(sed 's/.*) //; s/ .*//' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

demo_web_cleanup() {
	local st=$?
	trap - EXIT INT TERM
	if [ -n "${DEMO_STATE:-}" ]; then
		"$ROOT/tests/server/stop.sh" "$DEMO_STATE" || st=1
		echo "server stopped" >&2
	fi
	if [ "${DEMO_TMP:-0}" = 1 ] && [ -n "${DEMO_WORK:-}" ]; then
		rm -rf "$DEMO_WORK"
	fi
	exit "$st"
}

case "${1:-}" in
--cli) shift; demo_cli "$@" ;;
-h|--help) usage 0 ;;
*) demo_web "$@" ;;
esac
