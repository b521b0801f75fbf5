# static_lib.sh: static ("dumb") hosts for the interop scripts that read
# repositories published as plain files (t39, t42). Source after lib.sh,
# with $ROOT the directory served. tests/server/static-server.mjs logs one
# line per request with the body bytes sent; the servers are stopped by PID
# when the script exits.
#
#   start_static NAME [ARGS...]   a server for $ROOT (ARGS: the server's,
#                                 e.g. --ignore-range); sets $url and $log
#   sum_bytes LOG / count_lines LOG   the bytes / requests a log holds
#   says DESC PATTERN             a check: the last command's stderr has it

command -v node >/dev/null || skip_all "node not found (the server is a Node script)"

SERVER_PIDS=()
stop_servers() {
	local st=$? p
	for p in "${SERVER_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	return $st
}
on_exit stop_servers

start_static() {
	local name=$1 i
	shift
	log=$PWD/$name.log
	node "$WG_SRC/tests/server/static-server.mjs" --root "$ROOT" --port-file "$PWD/$name.port" \
		--pid-file "$PWD/$name.pid" --log "$log" --parent $$ "$@" >"$PWD/$name.out" 2>&1 &
	SERVER_PIDS+=($!)
	for i in $(seq 1 100); do [ -s "$PWD/$name.port" ] && break; sleep 0.1; done
	url=http://127.0.0.1:$(cat "$PWD/$name.port")
}

sum_bytes() { awk '{ s += $4 } END { print s + 0 }' "$1"; }
count_lines() { awk 'END { print NR }' "$1"; }

says() {
	cp "$LAST_ERR" "$PWD/last.err"
	check "$1" grep -q -- "$2" "$PWD/last.err"
}
