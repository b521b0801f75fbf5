# shellcheck shell=bash
# Sourced by the clone benchmarks (bench-clone.sh, bench-wasm-clone.sh): the
# local test server for one benchmark run, stopped by its PID on exit.
#
#   bench_server_start STATE ROOT LOG    sets URL (base URL) and SERVER_PID
#   log_lines                            the request log's line count
#
# Uses $GIT and $NODE (when set) for tests/server/start.sh; installs the EXIT,
# INT and TERM traps.

SERVER_PID=
BENCH_SERVER_STATE=
BENCH_SERVER_LOG=

bench_server_stop() {
	[ -n "$SERVER_PID" ] || return 0
	if kill -0 "$SERVER_PID" 2>/dev/null; then
		kill -TERM "$SERVER_PID" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.05; done
		kill -KILL "$SERVER_PID" 2>/dev/null || true
	fi
	rm -f "$BENCH_SERVER_STATE/pid" "$BENCH_SERVER_STATE/port" "$BENCH_SERVER_STATE/url"
	SERVER_PID=
}

bench_server_start() {
	local root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	BENCH_SERVER_STATE=$1
	BENCH_SERVER_LOG=$3
	: >"$3"
	trap bench_server_stop EXIT
	trap 'exit 130' INT TERM
	# shellcheck disable=SC2034 # the caller reads URL
	URL=$(GIT=${GIT:-git} NODE=${NODE:-node} "$root/tests/server/start.sh" "$1" --root "$2" --log "$3")
	SERVER_PID=$(cat "$1/pid")
}

# The server log's line count, once it stops growing (a request's line is
# written when its response has been sent, asynchronously).
log_lines() {
	local n m
	n=$(wc -l <"$BENCH_SERVER_LOG")
	for _ in $(seq 20); do
		sleep 0.1
		m=$(wc -l <"$BENCH_SERVER_LOG")
		[ "$m" = "$n" ] && break
		n=$m
	done
	echo "$n"
}
