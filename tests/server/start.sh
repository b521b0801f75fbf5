#!/usr/bin/env bash
# tests/server/start.sh — start the test Git HTTP server in the background.
#
#   url=$(tests/server/start.sh STATEDIR --root DIR [server options])
#
# Runs git-http-server.mjs (options: see its header; --port defaults to 0, a
# free port) with its state in STATEDIR (created if needed):
#   STATEDIR/pid      the server's PID          STATEDIR/port  its port
#   STATEDIR/url      the base URL              STATEDIR/out   its stdout
#   STATEDIR/err      its stderr (and http-backend's)
# waits until the port accepts connections (up to $WG_SERVER_TIMEOUT seconds,
# default 20), then prints the base URL, e.g. http://127.0.0.1:40123; the
# repositories are at $url/git/<name>.git. Exits non-zero, with the server's
# stderr, if it did not come up. Stop it with tests/server/stop.sh STATEDIR.
#
# Uses $NODE (default: node) and passes --git $GIT when GIT is set and no
# --git is given.
#
# With --dulwich (anywhere) it runs dulwich-server.py instead, Dulwich's
# server (Debian's /usr/bin/python3 and python3-dulwich), with the same state
# files and URL layout; it takes --root, --port and --log. With --front it
# runs front-proxy.mjs, a reverse proxy in front of another server (its
# options: --target URL, --gzip, --redirect ...; see its header).
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 STATEDIR --root DIR [server options]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
state=$1
shift
mkdir -p "$state"
state=$(cd "$state" && pwd)

if [ -f "$state/pid" ] && kill -0 "$(cat "$state/pid")" 2>/dev/null; then
	echo "start.sh: a server is already running for $state (pid $(cat "$state/pid"))" >&2
	exit 1
fi
rm -f "$state/pid" "$state/port" "$state/url"

kind=git args=()
for a in "$@"; do
	case "$a" in
	--dulwich) kind=dulwich ;;
	--front) kind=front ;;
	*) args+=("$a") ;;
	esac
done
set -- "${args[@]}"
case $kind in
git) server=("${NODE:-node}" "$here/git-http-server.mjs") ;;
dulwich) server=(/usr/bin/python3 "$here/dulwich-server.py") ;;
front) server=("${NODE:-node}" "$here/front-proxy.mjs") ;;
esac
case " $* " in *" --port "*|*" --port="*) ;; *) args+=(--port 0) ;; esac
if [ "$kind" = git ]; then
	case " $* " in *" --git "*|*" --git="*) ;; *) [ -n "${GIT:-}" ] && args+=(--git "$GIT") ;; esac
fi

# Detached from our stdout, so `url=$(start.sh ...)` returns once we do.
"${server[@]}" --pid-file "$state/pid" --port-file "$state/port" "${args[@]}" \
	</dev/null >"$state/out" 2>"$state/err" &
pid=$!

# port_open PORT: true if something accepts connections on it.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

deadline=$((SECONDS + ${WG_SERVER_TIMEOUT:-20}))
while :; do
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "start.sh: the server exited while starting:" >&2
		sed 's/^/  /' "$state/err" >&2
		exit 1
	fi
	if [ -s "$state/port" ] && port_open "$(cat "$state/port")"; then
		break
	fi
	if [ "$SECONDS" -ge "$deadline" ]; then
		echo "start.sh: the server did not accept connections within ${WG_SERVER_TIMEOUT:-20} s" >&2
		kill "$pid" 2>/dev/null || true
		sed 's/^/  /' "$state/err" >&2
		exit 1
	fi
	sleep 0.05
done

# The PID we started is the one to stop (the server writes the same).
echo "$pid" >"$state/pid"
url="http://127.0.0.1:$(cat "$state/port")"
echo "$url" >"$state/url"
echo "$url"
