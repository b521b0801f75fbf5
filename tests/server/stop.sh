#!/usr/bin/env bash
# tests/server/stop.sh — stop a server started by tests/server/start.sh.
#
#   tests/server/stop.sh STATEDIR
#
# Sends SIGTERM to the PID in STATEDIR/pid, waits up to $WG_SERVER_STOP_TIMEOUT
# seconds (default 5) for it to exit, then sends SIGKILL. Refuses to signal a
# PID that is not our server (a stale pid file whose PID was reused). Removes
# the pid, port and url files. Exits 0 when no server is running any more
# (also when there was none), 1 if it could not be stopped.
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: $0 STATEDIR" >&2; exit 2; }
state=$1
[ -f "$state/pid" ] || exit 0
pid=$(cat "$state/pid")
case "$pid" in ''|*[!0-9]*) echo "stop.sh: bad pid file $state/pid" >&2; exit 1 ;; esac

# alive PID: running and not a zombie (a reparented zombie still answers
# kill -0 until something reaps it).
alive() {
	kill -0 "$1" 2>/dev/null || return 1
	[ -r "/proc/$1/stat" ] || return 0
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

cleanup() { rm -f "$state/pid" "$state/port" "$state/url"; }

if ! alive "$pid"; then
	cleanup
	exit 0
fi
if [ -r "/proc/$pid/cmdline" ] && ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qE 'git-http-server\.mjs|dulwich-server\.py|front-proxy\.mjs'; then
	echo "stop.sh: pid $pid is not a git-http-server (stale $state/pid); not touching it" >&2
	cleanup
	exit 0
fi

kill -TERM "$pid" 2>/dev/null
deadline=$((SECONDS + ${WG_SERVER_STOP_TIMEOUT:-5}))
while alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do
	sleep 0.05
done
if alive "$pid"; then
	echo "stop.sh: pid $pid ignored SIGTERM; sending SIGKILL" >&2
	kill -KILL "$pid" 2>/dev/null
	sleep 0.2
fi
if alive "$pid"; then
	echo "stop.sh: could not stop pid $pid" >&2
	exit 1
fi
cleanup
