# tests/interop/http_lib.sh — the local Git HTTP server for interop tests
# (source it after lib.sh). Provides:
#   S          tests/server (start.sh, stop.sh, make-repos.sh)
#   start NAME ARGS...   start a server with its state in ./NAME; sets $url
#   sample_repos         make the sample repositories in ./repos; sets $REPOS
# and stops every server started this way when the script exits, whatever
# happens (the EXIT trap then runs lib.sh's own handler). Git never prompts.

command -v node >/dev/null || skip_all "node not found (the server is a Node script)"

S=$WG_SRC/tests/server
export GIT_TERMINAL_PROMPT=0
unset GIT_ASKPASS SSH_ASKPASS
export GIT_CONFIG_GLOBAL=$HOME/.gitconfig

# Stop every server we started, whatever happens, then let lib.sh count.
SERVERS=()
http_stop_all() {
	local st=$? s
	for s in "${SERVERS[@]}"; do "$S/stop.sh" "$s" >/dev/null 2>&1; done
	return $st
}
on_exit http_stop_all

# start NAME ARGS...: start a server with state in ./NAME; sets $url.
start() {
	local name=$1
	shift
	SERVERS+=("$PWD/$name")
	url=$("$S/start.sh" "$PWD/$name" "$@")
}


# sample_repos: tests/server/make-repos.sh's repositories in ./repos, as one
# check; sets REPOS.
sample_repos() {
	REPOS=$PWD/repos
	check "make the served repositories" "$S/make-repos.sh" "$REPOS"
}
